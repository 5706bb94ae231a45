/* Tail calls: the functions each function of an instrumented object
 * can jump to, from its code; and the functions its start and exit run
 * (jumps.c), for the inferred call stack. */
#ifndef LITIFUT_POSTPROC_JUMPS_H
#define LITIFUT_POSTPROC_JUMPS_H

#include "postproc/reader/names.h"
#include "postproc/reader/program.h"

/* Adds the jumps of p's functions to tf's table (func_add_jump), and
 * marks its entries (struct func.entry). */
void jumps_scan(struct trace_funcs *tf, const struct program *p);

#endif
