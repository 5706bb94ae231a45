/* One-line error and warning messages, prefixed with the tool's name. */
#ifndef LITIFUT_ERROR_H
#define LITIFUT_ERROR_H

void set_program_name(const char *name);
const char *program_name(void);
/* "<prog>: <message>\n" on stderr.  Both return -1 for `return error(...)`. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *xmalloc(unsigned long size);
void *xcalloc(unsigned long n, unsigned long size);
void *xrealloc(void *p, unsigned long size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, unsigned long n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
