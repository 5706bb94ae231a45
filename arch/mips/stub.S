/*
 * The tracer module's sled: at the end of the program's code (the
 * tracer module is linked last).  See sled.S.
 */
#include "sled.S"

    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .section .text.litifut_sled, "ax", @progbits
    SLED litifut_sled, litifut_mips_common
    COMMON litifut_mips_common

    .section .note.GNU-stack, "", @progbits
