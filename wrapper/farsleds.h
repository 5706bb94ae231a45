/* Where the far sleds go among a link's inputs (ARM): see farsleds.c. */
#ifndef LITIFUT_FARSLEDS_H
#define LITIFUT_FARSLEDS_H

#include "wrapper/linkargs.h"

/* Bytes of program code between far sleds, at most (as estimated). */
#define FAR_SLED_SPACING (4u << 20)

/* Per argument of `la`, whether a far sled follows it (allocated, one
 * byte per argument); *before_first: whether one precedes the first
 * input.  NULL if the inputs hold less than FAR_SLED_SPACING of code:
 * the tracer's own sled reaches every call then. */
unsigned char *far_sleds_place(const struct link_args *la, int *before_first);

/* The code an input may bring, at most: an ELF relocatable object's
 * executable sections; an archive's size (which members ld takes, only
 * ld knows); 0 for anything else. */
unsigned long long input_code_bytes(const char *path);

#endif
