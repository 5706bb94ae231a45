/* What the wrapper needs to know about an ld command line. */
#ifndef LITIFUT_LINKARGS_H
#define LITIFUT_LINKARGS_H

#include "wrapper/process.h"

struct link_args {
    struct argv_builder args;   /* argv[1..], response files expanded */
    unsigned char *drop;        /* per arg: left out of the instrumented links */
    unsigned char *input;       /* per arg: an input file's name (ld decides what
                                 * it is by its contents, whatever its name) */
    const char *invoked_as;     /* our argv[0]: the name ld's messages carry */
    const char *output;         /* -o, default a.out */
    const char *emulation;      /* -m, or NULL */
    int relocatable;            /* -r / -Ur / -i */
    int shared;                 /* -shared */
    int static_archives;        /* -static or -Bstatic: libc may come from libc.a */
    int has_input;              /* any input file or -l */
    const char *strip_option;   /* -s, -S, -x, ... as given, or NULL */
};

/* Returns -1 with one error line (an unreadable response file). */
int link_args_parse(struct link_args *la, int argc, char **argv);
void link_args_free(struct link_args *la);

/* Writes args as a GNU response file (for ld @FILE). */
int write_response_file(const char *path, char *const *args, int n);

#endif
