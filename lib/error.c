#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/error.h"

static const char *prog = "litifut";

void set_program_name(const char *name)
{
    const char *slash = strrchr(name, '/');
    prog = slash ? slash + 1 : name;
}

const char *program_name(void)
{
    return prog;
}

static void vreport(const char *kind, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    fprintf(stderr, "%s: %s%s\n", prog, kind, buf);
}

int error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
    return -1;
}

int warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
    return -1;
}

static void *check(void *p)
{
    if (!p) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(2);
    }
    return p;
}

void *xmalloc(unsigned long size) { return check(malloc(size ? size : 1)); }
void *xcalloc(unsigned long n, unsigned long size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, unsigned long size) { return check(realloc(p, size ? size : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }
char *xstrndup(const char *s, unsigned long n) { return check(strndup(s, n)); }

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((unsigned long)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}
