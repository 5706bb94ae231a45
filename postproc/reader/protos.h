/*
 * A function's prototype as --auto-args names and shows LITIFUT_ARGS'
 * values: from the DWARF of the file that defines it (libdw), else the
 * built-in table of C library prototypes (include/litifut/protos.h).
 * By register: the Nth integer argument register's name and type, the
 * Nth floating-point one's name (as a double, and as a float), the
 * return value's type.
 */
#ifndef LITIFUT_POSTPROC_PROTOS_H
#define LITIFUT_POSTPROC_PROTOS_H

#include "postproc/reader/srcline.h"

struct func_proto {
    char *names;            /* integer argument registers' names, comma-separated by
                               register ("": unknown) */
    char *fp_names;         /* floating-point argument registers' (d0, d1, ...) */
    char *fp32_names;       /* ... holding floats (s0, s1, ...: armhf packs two to a d) */
    char *types;            /* LITIFUT_PROTO_TYPES letters: [0] the return value's, [N]
                               integer argument register N's */
};

/* The prototype DWARF gives the function at link-time address `addr`
 * of `o`, or NULL (no DWARF, no such function, or none of its
 * parameters placed: a struct by value first, say).  To free with
 * func_proto_free. */
struct func_proto *dwarf_func_proto(struct srclines *s, struct object *o, uint64_t addr);
void func_proto_free(struct func_proto *p);

#endif
