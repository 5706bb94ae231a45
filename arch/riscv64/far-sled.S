/*
 * A far sled: a sled placed among the program's own code, for call
 * sites out of jal's reach (+-1 MB) of the tracer's sled (litifut_sled,
 * at the end of the code).  The wrapper links this object among the
 * program's inputs, one every far_sled_spacing bytes of their code
 * (arch-riscv64.c, wrapper/farsleds.c), in pass 1 already, so pass 2
 * moves nothing; the rewriter sends each site to the tracer's sled if
 * it can, else to the nearest far sled (rewrite-riscv64.c).
 *
 * Entry k of a half is the main sled's (sled.h): t1 = 4k (the third
 * half's: t3); then, instead of the mode's jump, a jump to the half's
 * relay, which pushes t2 and jumps through it (auipc + jalr: +-2 GB, resolved by the link,
 * no dynamic relocation: the target is hidden) to the main sled's far
 * entry of that half (litifut_sled_far, stub.S), which pops t2 and goes
 * on as the main sled's entries do.  So every register but t1 reaches
 * the tracer as the call left it, at 5 instructions more than a near
 * call, and this object is never written at run time.
 *
 * Only local symbols (the object is linked many times); "R": kept by
 * --gc-sections though nothing refers to it.
 */
#include "sled.h"

    .section .text.litifut_far_sled, "axR", %progbits
    .option push
    .option norvc
    .p2align 2
    .type litifut_far_sled, %function
litifut_far_sled:
    .set k, 0
    .rept SLED_ENTRIES
    addi    t1, zero, 4 * k
    j       .Lfar_fixed
    .set k, k + 1
    .endr
    .set k, 0
    .rept SLED_ENTRIES
    addi    t1, zero, 4 * k
    j       .Lfar_reg
    .set k, k + 1
    .endr
    .set k, 0
    .rept SLED_ENTRIES
    addi    t3, zero, 4 * k
    j       .Lfar_t1
    .set k, k + 1
    .endr
.Lfar_fixed:
    addi    sp, sp, -16
    sd      t2, 0(sp)
1:  auipc   t2, %pcrel_hi(litifut_sled_far)
    jalr    zero, %pcrel_lo(1b)(t2)
.Lfar_reg:
    addi    sp, sp, -16
    sd      t2, 0(sp)
2:  auipc   t2, %pcrel_hi(litifut_sled_far + FAR_ENTRY_SIZE)
    jalr    zero, %pcrel_lo(2b)(t2)
.Lfar_t1:                               /* (t1: the target, t3: 4k) */
    addi    sp, sp, -16
    sd      t2, 0(sp)
3:  auipc   t2, %pcrel_hi(litifut_sled_far + 2 * FAR_ENTRY_SIZE)
    jalr    zero, %pcrel_lo(3b)(t2)
    .size litifut_far_sled, . - litifut_far_sled
    .option pop
    .section .note.GNU-stack, "", %progbits
