/* Where the far sleds go among a link's inputs (ARM): see farsleds.c. */
#ifndef LITIFUT_FARSLEDS_H
#define LITIFUT_FARSLEDS_H

#include "lib/arch.h"
#include "wrapper/linkargs.h"

/* Per argument of `la`, whether a far sled follows it (allocated, one
 * byte per argument); *before_first: whether one precedes the first
 * input.  NULL if `arch` has no far sleds (far_sled_spacing 0), or if
 * the inputs hold less than its far_sled_spacing of code: the tracer's
 * own sled reaches every call then. */
unsigned char *far_sleds_place(const struct arch_ops *arch, const struct link_args *la,
                               int *before_first);

/* The code an input may bring, at most: an ELF relocatable object's
 * executable sections; an archive's size (which members ld takes, only
 * ld knows); 0 for anything else. */
unsigned long long input_code_bytes(const char *path);

#endif
