/*
 * A far sled: a sled placed among the program's own code, for call
 * sites out of bl's reach (+-128 MB) of the tracer's sled (litifut_sled,
 * at the end of the code).  The wrapper links this object among the
 * program's inputs, one every far_sled_spacing bytes of their code
 * (arch-aarch64.c, wrapper/farsleds.c), in pass 1 already, so pass 2
 * moves nothing; the rewriter sends each site to the tracer's sled if
 * it can, else to the nearest far sled (rewrite-aarch64.c).
 *
 * Entry k of a half is the main sled's (sled.h): x16 = 4k; then,
 * instead of the mode's branch, a branch to the half's relay, which
 * jumps through x17 (free before the callee runs, as x16 is: AAPCS64's
 * veneer registers) to the main sled's far entry of that half
 * (litifut_sled_far, stub.S), whose branch sleds.c points at the mode's
 * code with the main sled's.  The relay's address comes from adrp/add,
 * which the link resolves (+-4 GB, no dynamic relocation: the target
 * is hidden).  So a far call costs 4 instructions more than a near one
 * (the far entry's `bti j` included: `br x17` needs a landing pad in a
 * BTI-marked object), and this object is never written at run time.
 *
 * Only local symbols (the object is linked many times); "R": kept by
 * --gc-sections though nothing refers to it.
 */
#include "sled.h"
#include "property.h"

    .section .text.litifut_far_sled, "axR", %progbits
    .p2align 2
    .type litifut_far_sled, %function
litifut_far_sled:
    .set k, 0
    .rept SLED_ENTRIES
    movz    x16, #4 * k
    b       .Lfar_fixed
    .set k, k + 1
    .endr
    .set k, 0
    .rept SLED_ENTRIES
    movz    x16, #4 * k
    b       .Lfar_reg
    .set k, k + 1
    .endr
.Lfar_fixed:
    adrp    x17, litifut_sled_far
    add     x17, x17, #:lo12:litifut_sled_far
    br      x17
.Lfar_reg:
    adrp    x17, litifut_sled_far + SLED_ENTRY_SIZE
    add     x17, x17, #:lo12:litifut_sled_far + SLED_ENTRY_SIZE
    br      x17
    .size litifut_far_sled, . - litifut_far_sled
    .section .note.GNU-stack, "", %progbits
