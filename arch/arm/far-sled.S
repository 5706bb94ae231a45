/*
 * A far sled: a sled placed among the program's own code, for call
 * sites out of bl/blx range of the tracer's sled (litifut_sled, at the
 * end of the code): ARM bl reaches +-32 MB, Thumb-2 blx +-16 MB,
 * Thumb-1 blx +-4 MB.  The wrapper links this object several times
 * among the program's inputs, one every far_sled_spacing bytes of
 * their code (arch_arm in arch-arm.c, wrapper/farsleds.c), in pass 1 already, so pass 2 moves
 * nothing; the rewriter sends each site to the nearest sled in range
 * (arch/arm/rewrite-arm.c), the main one if it can.
 *
 * Entry k of a half is the main sled's (sled.h): the frame, r12 = 4k;
 * then, instead of the mode's branch, a branch to the half's relay:
 * two instructions that jump, by an offset the link resolves (no
 * dynamic relocation: the target is hidden), to the main sled's far
 * entry of that half (litifut_sled_far in stub.S), whose branch
 * sleds.c points at the mode's code with the main sled's.  r11 is
 * free: every mode's code saves the flags into it first, and the pop
 * at its end restores it from the frame.  So a far call costs 3
 * instructions more than a near one, and this object is never
 * written at run time.
 *
 * Only local symbols (the object is linked many times); "R": kept by
 * --gc-sections though nothing refers to it.
 */
#include "sled.h"

    .syntax unified
    .arm
    .section .text.litifut_far_sled, "axR", %progbits
    .p2align 2
    .type litifut_far_sled, %function
litifut_far_sled:
    .set k, 0
    .rept SLED_ENTRIES
    push    {r0-r12, lr, pc}
    mov     r12, #4 * k
    b       .Lfar_fixed
    .set k, k + 1
    .endr
    .set k, 0
    .rept SLED_ENTRIES
    push    {r0-r12, lr, pc}
    mov     r12, #4 * k
    b       .Lfar_reg
    .set k, k + 1
    .endr
.Lfar_fixed:
    ldr     r11, [pc]               @ the word after the add
    add     pc, pc, r11             @ pc reads as the word's address + 4
    .word   litifut_sled_far - . - 4
.Lfar_reg:
    ldr     r11, [pc]
    add     pc, pc, r11
    .word   litifut_sled_far + 4 - . - 4
    .size litifut_far_sled, . - litifut_far_sled
    .section .note.GNU-stack, "", %progbits
