/*
 * Reading an ld command line just enough to instrument the link: the
 * output file, the emulation, the kind of link, strip options, which
 * arguments are input files.  Option values that are separate
 * arguments are skipped so that they are not taken for options or
 * input files.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wrapper/linkargs.h"
#include "lib/error.h"
#include "lib/files.h"

/* Single-letter options whose value may be the next argument. */
static const char short_with_value[] = "AbcefFGhlLmoORTuyYz";

/* Long options (one or two dashes) whose value may be the next argument. */
static const char *const long_with_value[] = {
    "Map", "dynamic-linker", "plugin", "plugin-opt", "rpath", "rpath-link", "soname",
    "output", "library", "library-path", "script", "entry", "undefined", "defsym", "wrap",
    "version-script", "dynamic-list", "retain-symbols-file", "section-start",
    "trace-symbol", "require-defined", "format", "architecture", "auxiliary", "filter",
    "just-symbols", "mri-script", "Tbss", "Tdata", "Ttext", "Ttext-segment",
    "Trodata-segment", "Tldata-segment", "assert", "image-base", "exclude-libs",
    "dependency-file", "out-implib", "oformat", "sort-section", "spare-dynamic-tags",
    "fini", "init", "audit", "depaudit", "default-script", "dT", "emulation", NULL
};

static const char *const strip_options[] = {
    "-s", "--strip-all", "-strip-all", "-S", "--strip-debug", "-strip-debug",
    "-x", "--discard-all", "-discard-all", NULL
};

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static int in_list_n(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == len && strncmp(s, *list, len) == 0)
            return 1;
    return 0;
}

/* "--name" or "-name" -> "name"; NULL if not dashed. */
static const char *long_name(const char *arg)
{
    if (arg[0] != '-')
        return NULL;
    return arg[1] == '-' ? arg + 2 : arg + 1;
}

/* Splits a response file the way GNU tools do (libiberty buildargv):
 * whitespace separates, quotes group, backslash escapes. */
static int expand_response_file(struct link_args *la, const char *path, int depth)
{
    unsigned char *text;
    size_t size;
    if (depth > 8)
        return error("%s: response files nested too deeply", path);
    if (read_file(path, &text, &size) != 0)
        return -1;
    char *arg = xmalloc(size + 1);
    size_t len = 0;
    int in_arg = 0, squote = 0, dquote = 0, rc = 0;
    for (size_t i = 0; i <= size && rc == 0; i++) {
        int c = i < size ? text[i] : -1;
        if (c == '\\' && i + 1 < size) {
            arg[len++] = (char)text[++i];
            in_arg = 1;
        } else if (squote) {
            if (c == '\'') squote = 0; else if (c >= 0) arg[len++] = (char)c;
        } else if (dquote) {
            if (c == '"') dquote = 0; else if (c >= 0) arg[len++] = (char)c;
        } else if (c == '\'' || c == '"') {
            squote = c == '\'';
            dquote = c == '"';
            in_arg = 1;
        } else if (c < 0 || isspace(c)) {
            if (in_arg) {
                arg[len] = 0;
                if (arg[0] == '@' && arg[1])
                    rc = expand_response_file(la, arg + 1, depth + 1);
                else
                    argv_push(&la->args, arg);
            }
            len = 0;
            in_arg = 0;
        } else {
            arg[len++] = (char)c;
            in_arg = 1;
        }
    }
    free(arg);
    free(text);
    return rc;
}

int link_args_parse(struct link_args *la, int argc, char **argv)
{
    memset(la, 0, sizeof *la);
    la->output = "a.out";
    la->invoked_as = argv[0];
    for (int i = 1; i < argc; i++) {
        FILE *probe;
        /* like ld: an @file that cannot be opened is an ordinary argument */
        if (argv[i][0] == '@' && argv[i][1] && (probe = fopen(argv[i] + 1, "r"))) {
            fclose(probe);
            if (expand_response_file(la, argv[i] + 1, 0) != 0)
                return -1;
        } else {
            argv_push(&la->args, argv[i]);
        }
    }
    char **a = la->args.v;
    int n = la->args.n;
    la->drop = xcalloc((size_t)n + 1, 1);
    la->input = xcalloc((size_t)n + 1, 1);
    for (int i = 0; i < n; i++) {
        const char *arg = a[i], *name = long_name(arg);
        const char *next = i + 1 < n ? a[i + 1] : NULL;
        if (!name || !*name) {
            la->has_input = 1;                  /* an input file (or "-") */
            la->input[i] = !name;
            continue;
        }
        const char *eq = strchr(name, '=');
        size_t blen = eq ? (size_t)(eq - name) : strlen(name);
#define IS(s) (blen == strlen(s) && strncmp(name, s, blen) == 0)
        if (IS("output") || strcmp(arg, "-o") == 0) {
            la->drop[i] = 1;
            if (eq) {
                la->output = eq + 1;
            } else if (next) {
                la->output = next;
                la->drop[++i] = 1;
            }
        } else if (in_list(arg, strip_options)) {
            la->strip_option = arg;
            la->drop[i] = 1;
        } else if (strcmp(arg, "-r") == 0 || IS("relocatable") ||
                   strcmp(arg, "-Ur") == 0 || strcmp(arg, "-i") == 0) {
            la->relocatable = 1;
        } else if (IS("shared") || IS("Bshareable")) {
            la->shared = 1;
        } else if (IS("static") || IS("Bstatic") || IS("dn") || IS("non_shared")) {
            la->static_archives = 1;
        } else if (IS("emulation") || strcmp(arg, "-m") == 0) {
            la->emulation = eq ? eq + 1 : next;
            i += !eq;
        } else if (in_list_n(name, blen, long_with_value)) {
            la->has_input |= IS("library");
            i += !eq;                           /* the value is the next argument */
        } else if (arg[1] == 'o' && strcmp(arg, "-omagic") != 0) {
            la->output = arg + 2;               /* -oFILE */
            la->drop[i] = 1;
        } else if (arg[1] == 'm') {
            la->emulation = arg + 2;            /* -mEMULATION */
        } else if (arg[1] == 'l') {
            la->has_input = 1;                  /* -lNAME or -l NAME */
            i += !arg[2];
        } else if (arg[2] == 0 && strchr(short_with_value, arg[1])) {
            i++;
        }
#undef IS
    }
    return 0;
}

void link_args_free(struct link_args *la)
{
    argv_free(&la->args);
    free(la->drop);
    free(la->input);
    memset(la, 0, sizeof *la);
}

int write_response_file(const char *path, char *const *args, int n)
{
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap);
    for (int i = 0; i < n; i++) {
        for (const char *p = args[i]; *p; p++) {
            if (len + 4 > cap)
                buf = xrealloc(buf, cap *= 2);
            if (!isalnum((unsigned char)*p) && !strchr("-_./=+,:%", *p))
                buf[len++] = '\\';
            buf[len++] = *p;
        }
        if (len + 4 > cap)
            buf = xrealloc(buf, cap *= 2);
        if (!args[i][0]) {
            buf[len++] = '\'';
            buf[len++] = '\'';
        }
        buf[len++] = '\n';
    }
    int rc = write_file_atomic(path, buf, len, 0644);
    free(buf);
    return rc;
}
