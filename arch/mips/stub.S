/*
 * The tracer module's sled: at the end of the program's code (the
 * tracer module is linked last).  See sled.S.
 */
#include "sled.S"

    SLED_COPY .text.litifut_sled, litifut_sled, litifut_mips_common
