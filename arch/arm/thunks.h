/*
 * The thunks the ARM rewriter writes in litifut_thunks, word by word:
 * rewrite-arm.c writes them, read-arm.c reads them back, emu-arm.c
 * tells them apart as they run.  Plain #defines (no libelf, no
 * capstone: the emulator's plugin includes it too).
 */
#ifndef LITIFUT_ARCH_ARM_THUNKS_H
#define LITIFUT_ARCH_ARM_THUNKS_H

#include <stdint.h>

/* Tail jumps (KIND_B_JUMP: ARM b<c> f; KIND_T_B_JUMP: Thumb b.w f, in
 * an IT block too, or b<c>.w f) to the first instruction of another
 * function or a PLT entry: the jump goes to its own thunk in
 * litifut_thunks instead (the same condition), which makes it look like
 * a call from the jump's address A to the jump half of the sled, and
 * the callee's return address what it was (docs/DESIGN.md "Tail
 * jumps").  ARM state:
 *     +0  str lr, [sp, #-4]!     the jumper's lr (the callee's return address)
 *     +4  ldr lr, [pc, #4]       (the word at +16)
 *     +8  add lr, pc, lr         lr = A + 4: the DB keys the site by it
 *     +12 b <the jump half's sled entry k>
 *     +16 .word A + 4 - (thunk + 16)
 *     +20 ldr lr, [sp], #4       the continuation: the site word's "target"
 *     +24 b f                    (the original jump, moved: kept for readers)
 *     +28 .word f - (thunk + 28) the real target, for the tracer
 * Thumb (entered in Thumb state):
 *     +0  push {lr}
 *     +2  ldr.w lr, [pc, #12]    (the word at +16)
 *     +6  add lr, pc             lr = A + 4
 *     +8  bx pc                  (to ARM state at +12)
 *     +10 nop
 *     +12 b <the jump half's sled entry k>   (ARM)
 *     +16 .word A + 4 - (thunk + 10)
 *     +20 ldr.w lr, [sp], #4     the continuation (Thumb)
 *     +24 b.w f
 *     +28 .word (f | 1) - (thunk + 28)
 * The callee starts with every register, sp and the flags as the jump
 * left them (the sled's path saves and restores them; ip too). */
/* (JUMP_THUNK_SIZE, _CONT, _TARGET and JUMP_PUSHED: sled.h) */
#define JUMP_THUNK_BRANCH   12      /* the ARM b to the sled */
#define JUMP_THUNK_RA       16      /* the word giving lr */
#define JUMP_THUNK_JUMP     24      /* the original jump, re-encoded */
#define A_PUSH_LR           0xE52DE004u     /* str lr, [sp, #-4]! */
#define A_LDR_LR_PC4        0xE59FE004u     /* ldr lr, [pc, #4] */
#define A_ADD_LR_PC_LR      0xE08FE00Eu     /* add lr, pc, lr */
#define A_POP_LR            0xE49DE004u     /* ldr lr, [sp], #4 */
#define T_PUSH_LR           0xB500u         /* push {lr} */
#define T_LDR_LR_PC12       0xE00CF8DFu     /* ldr.w lr, [pc, #12] */
#define T_ADD_LR_PC         0x44FEu         /* add lr, pc */
#define T_NOP               0xBF00u
#define T_POP_LR            0xEB04F85Du     /* ldr.w lr, [sp], #4 */

/* A Thumb 16-bit blx rM rewritten with the 16-bit instruction P before
 * it (KIND_T_BLX_PAIR; docs/DESIGN.md "16-bit blx rM"): the pair
 * becomes a Thumb bl to its thunk's entry (+2), in litifut_thunks:
 *     +0  nop            (never run: aligns what follows)
 *     +2  P, copied      (the entry; Thumb)
 *     +4  bx pc          (to ARM state at +8)
 *     +6  the blx rM     (never run: kept for readers)
 *     +8  b <the register half's sled entry>   (ARM)
 */
#define THUNK_SIZE      12
#define THUNK_ENTRY     2
#define THUNK_BLX       6
#define THUNK_BRANCH    8

/* The same after a 32-bit instruction P (KIND_T_BLX_PAIR32): P becomes
 * the bl (the blx stays, never reached again), and the thunk puts the
 * return address right:
 *     +0  P, copied      (the entry)
 *     +4  add.w lr, lr, #2   (lr: the blx's return address)
 *     +8  bx pc          (to ARM state at +12)
 *     +10 the blx rM     (never run: kept for readers)
 *     +12 b <the register half's sled entry>   (ARM)
 */
#define THUNK32_SIZE    16
#define THUNK32_BLX     10
#define THUNK32_BRANCH  12
#define T_ADD_LR_2      0x0e02f10eu     /* add.w lr, lr, #2 */
#define T_BX_PC         0x4778

/* A pair whose P reads lr (GCC uses lr as a scratch register: `ldr.w r7,
 * [lr, #8]; blx r7`), which a bl would have changed: the pair becomes a
 * b.w (no link) to its thunk, which runs P with lr as it was and then
 * sets lr to the blx's return address itself (KIND_T_BLX_PAIRB after a
 * 16-bit P, KIND_T_BLX_PAIRB32 after a 32-bit one):
 *     +0  P                       +0  P (32-bit)
 *     +2  ldr.w lr, [pc, #12]     +4  ldr.w lr, [pc, #12]
 *     +6  add lr, pc              +8  add lr, pc
 *     +8  bx pc                   +10 nop
 *                                 +12 bx pc
 *     +10 the blx rM (kept)       +14 the blx rM (kept)
 *     +12 b <register half k>     +16 b <register half k>    (ARM)
 *     +16 .word ret - (thunk+10)  +20 .word ret - (thunk+12)
 * (ret: the blx's return address | 1). */
#define PAIRB_SIZE      20
#define PAIRB_BLX       10
#define PAIRB_BRANCH    12
#define PAIRB_RA        16
#define PAIRB32_SIZE    24
#define PAIRB32_BLX     14
#define PAIRB32_BRANCH  16
#define PAIRB32_RA      20

/* A tail jump through a register (KIND_BX_JUMP: ARM bx<c> rM;
 * KIND_T_BX_JUMP: Thumb P; bx rM, 16-bit P; KIND_T_BX_JUMP32: after a
 * 32-bit P): the jump (ARM: b<c>; Thumb: b.w over P and the bx, or over
 * P alone) goes to its thunk, which makes it a call from the site (the
 * bx) to the jump half with the jumper's lr pushed, as a direct jump's
 * thunk does; the site word names rM (LITIFUT_DB_JUMP_REG), and the
 * tracer goes on through its continuation for rM (stub.S:
 * `ldr lr, [sp], #4; bx rM`).  ARM state (key: the bx + 4):
 *     +0  str lr, [sp, #-4]!
 *     +4  ldr lr, [pc, #4]
 *     +8  add lr, pc, lr        lr = the key
 *     +12 b <the jump half's entry k>
 *     +16 .word key - (thunk + 16)
 *     +20 the original bx<c> rM (never run: kept for readers)
 * Thumb, P 16-bit (key: the bx + 2)   Thumb, P 32-bit (key: the bx + 2)
 *     +0  P                            +0  P
 *     +2  push {lr}                    +4  push {lr}
 *     +4  ldr.w lr, [pc, #12]          +6  ldr.w lr, [pc, #12]
 *     +8  add lr, pc                   +10 add lr, pc
 *     +10 nop                          
 *     +12 bx pc (word-aligned: to ARM state at +16)
 *     +14 the original bx rM (never run: kept for readers)
 *     +16 b <the jump half's entry k>  (ARM)
 *     +20 .word key - (thunk + 12)     +20 .word key - (thunk + 14)
 * P runs with lr as it was (an epilogue's pop.w {..., lr} restores it)
 * and pushes nothing the continuation does not pop. */
#define REGJUMP_SIZE        24
#define REGJUMP_BRANCH      12      /* ARM state */
#define REGJUMP_KEY         16      /* ARM state: the key's word */
#define REGJUMP_BX          20      /* ARM state: the original bx */
#define REGJUMP_T_BX        14      /* Thumb: the original bx */
#define REGJUMP_T_BRANCH    16      /* Thumb: the ARM b */
#define REGJUMP_T_KEY       20      /* Thumb: the key's word */

/* A Thumb tail jump through a register's thunk, from its first
 * REGJUMP_SIZE / 2 halfwords: the size of its P (the bx was that far
 * after the b.w), or 0 if it is none. */
static inline unsigned regjump_t_thunk_p(const uint16_t *h)
{
    uint16_t lo = T_LDR_LR_PC12 & 0xFFFF, hi = T_LDR_LR_PC12 >> 16;
    if ((h[REGJUMP_T_BX / 2] & 0xFF87) != 0x4700 || h[6] != T_BX_PC)
        return 0;
    if (h[1] == T_PUSH_LR && h[2] == lo && h[3] == hi && h[4] == T_ADD_LR_PC && h[5] == T_NOP)
        return 2;
    if (h[2] == T_PUSH_LR && h[3] == lo && h[4] == hi && h[5] == T_ADD_LR_PC)
        return 4;
    return 0;
}

#endif
