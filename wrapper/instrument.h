#ifndef LITIFUT_INSTRUMENT_H
#define LITIFUT_INSTRUMENT_H

#include "linkargs.h"
#include "toolchain.h"

/* The instrumented link (LITIFUT=1): two links, rewrite, rename into
 * place.  On failure: one error line, no output file, non-zero return. */
int instrument_link(const struct link_args *la, const struct toolchain *tc);

#endif
