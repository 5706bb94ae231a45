/* --srcline: source file and line of an address, from the DWARF line
 * table of the object's file (libdw, elfutils). */
#ifndef LITIFUT_POSTPROC_SRCLINE_H
#define LITIFUT_POSTPROC_SRCLINE_H

#include <stdint.h>
#include "postproc/reader/symbols.h"

struct srclines;

struct srclines *srclines_new(void);
/* "file:line" of link-time address `addr` in `o` (control characters
 * as '?'), or NULL if its file has no line for it.  Each file is read
 * once, each address looked up once; the string lives until
 * srclines_free. */
const char *srclines_lookup(struct srclines *s, struct object *o, uint64_t addr);
void srclines_free(struct srclines *s);
/* `o`'s DWARF (libdw, read once; NULL if none), for other readers (protos.c). */
struct Dwarf *srclines_dwarf(struct srclines *s, struct object *o);

#endif
