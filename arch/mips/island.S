/*
 * A second sled, for the start of the program's code: the wrapper links
 * this object first.  With the tracer's sled at the end, calls within
 * 128 KB of either end reach a sled with a PC-relative bal.  See sled.S.
 */
#include "sled.S"

    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .section .text.litifut_island, "ax", @progbits
    SLED litifut_island_sled, litifut_island_common
    COMMON litifut_island_common

    .section .note.GNU-stack, "", @progbits
