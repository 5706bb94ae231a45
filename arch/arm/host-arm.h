/*
 * What the ARM host modules share: arch-arm.c (finding calls),
 * read-arm.c (reading rewritten code), rewrite-arm.c (redirecting).
 */
#ifndef LITIFUT_HOST_ARM_H
#define LITIFUT_HOST_ARM_H

#include <stdint.h>
#include "arch/arm/sled.h"
#include "lib/arch.h"

/* Call kinds (struct arch_ops.kinds): ARM state, then Thumb. */
/* ARM's instruction sets (lib/arch.h) */
enum { ISA_ARM = ISA_MAIN, ISA_THUMB = ISA_ALT };

enum { KIND_BL, KIND_BLX_IMM, KIND_BLX_REG, KIND_B_JUMP, KIND_T_BL, KIND_T_BLX_IMM,
       KIND_T_BLX_PAIR, KIND_T_BLX_PAIR32, KIND_T_B_JUMP, N_ARM_KINDS };

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

/* How far a redirect reaches from the call: ARM bl +-32 MB; Thumb blx
 * +-16 MB, but only +-4 MB on a Thumb-1 core (armv5te), so a Thumb
 * call prefers a sled within that (rewrite-arm.c), and the far sleds
 * lie at most that far apart (arch_arm.far_sled_spacing). */
#define ARM_REACH    (INT64_C(1) << 25)
#define THUMB1_REACH (INT64_C(1) << 22)

static inline int is_thumb_kind(unsigned kind)
{
    return kind >= KIND_T_BL;
}

static inline int is_jump_kind(unsigned kind)
{
    return kind == KIND_B_JUMP || kind == KIND_T_B_JUMP;
}

static inline int32_t branch_offset(uint32_t w)
{
    return (int32_t)(w << 8) >> 6;     /* sign-extended imm24 * 4 */
}

static inline int is_bl(uint32_t w)
{
    return (w >> 28) != 0xF && (w & 0x0F000000) == 0x0B000000;
}

static inline int is_blx_imm(uint32_t w)
{
    return (w & 0xFE000000) == 0xFA000000;
}

static inline int is_blx_reg(uint32_t w)
{
    return (w >> 28) != 0xF && (w & 0x0FFFFFF0) == 0x012FFF30;
}

/*
 * Thumb-2 32-bit bl (T1) and blx imm (T2), as one little-endian word
 * (first halfword low): 11110 S imm10 | 11 J1 x J2 imm11, x = 1 for bl,
 * 0 for blx (whose imm11 ends in H = 0).  The offset is
 * S:I1:I2:imm10:imm11:0 with I = NOT(J XOR S), from the call's address
 * + 4 (bl) or that rounded down to a word (blx, into ARM code).
 */
static inline int is_t_bl(uint32_t w)
{
    return (w & 0xD000F800) == 0xD000F000;
}

static inline int is_t_blx_imm(uint32_t w)
{
    return (w & 0xD001F800) == 0xC000F000;
}

static inline int32_t t_branch_offset(uint32_t w)
{
    uint32_t hw1 = w & 0xFFFF, hw2 = w >> 16;
    uint32_t s = hw1 >> 10 & 1, j1 = hw2 >> 13 & 1, j2 = hw2 >> 11 & 1;
    uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
    uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3FF) << 12 | (hw2 & 0x7FF) << 1;
    return (int32_t)(imm << 7) >> 7;
}

/* Where a Thumb bl / blx imm at addr goes (blx: ARM code, bit 0 clear). */
static inline uint32_t t_call_target(uint32_t addr, uint32_t w)
{
    uint32_t pc = addr + 4;
    return (is_t_blx_imm(w) ? pc & ~3u : pc) + (uint32_t)t_branch_offset(w);
}

/* ARM b<c> (not bl, not the unconditional space). */
static inline int is_b(uint32_t w)
{
    return (w >> 28) != 0xF && (w & 0x0F000000) == 0x0A000000;
}

/* Thumb-2 32-bit b.w (T4: 11110 S imm10 | 10 J1 1 J2 imm11, offset as
 * bl's) and b<c>.w (T3: 11110 S cond imm6 | 10 J1 0 J2 imm11, cond not
 * 111x; offset S:J2:J1:imm6:imm11:0, +-1 MB). */
static inline int is_t_b_w(uint32_t w)
{
    return (w & 0xD000F800) == 0x9000F000;
}

static inline int is_t_bcond_w(uint32_t w)
{
    return (w & 0xD000F800) == 0x8000F000 && (w >> 7 & 7) != 7;
}

static inline int32_t t_bcond_offset(uint32_t w)
{
    uint32_t hw1 = w & 0xFFFF, hw2 = w >> 16;
    uint32_t s = hw1 >> 10 & 1, j1 = hw2 >> 13 & 1, j2 = hw2 >> 11 & 1;
    uint32_t imm = s << 20 | j2 << 19 | j1 << 18 | (hw1 & 0x3F) << 12 | (hw2 & 0x7FF) << 1;
    return (int32_t)(imm << 11) >> 11;
}

/* Where a Thumb b.w or b<c>.w at addr goes. */
static inline uint32_t t_jump_target(uint32_t addr, uint32_t w)
{
    return addr + 4 + (uint32_t)(is_t_b_w(w) ? t_branch_offset(w) : t_bcond_offset(w));
}

/* The same jump (b.w, or b<c>.w with w's condition) from addr to dest;
 * 0 if out of range (+-16 MB, b<c>.w +-1 MB) or dest is odd. */
static inline uint32_t t_jump_encode(uint32_t addr, uint32_t w, uint32_t dest)
{
    int64_t off = (int64_t)dest - (int64_t)(addr + 4);
    if (off & 1)
        return 0;
    uint32_t u = (uint32_t)off, s = off < 0;
    if (is_t_b_w(w)) {
        if (off < -(INT64_C(1) << 24) || off >= (INT64_C(1) << 24))
            return 0;
        uint32_t j1 = (~(u >> 23) ^ s) & 1, j2 = (~(u >> 22) ^ s) & 1;
        return (0xF000 | s << 10 | (u >> 12 & 0x3FF)) |
               (0x9000 | j1 << 13 | j2 << 11 | (u >> 1 & 0x7FF)) << 16;
    }
    if (off < -(INT64_C(1) << 20) || off >= (INT64_C(1) << 20))
        return 0;
    uint32_t j1 = u >> 18 & 1, j2 = u >> 19 & 1;
    return (0xF000 | s << 10 | (w & 0x3C0) | (u >> 12 & 0x3F)) |
           (0x8000 | j1 << 13 | j2 << 11 | (u >> 1 & 0x7FF)) << 16;
}

/* ARM b<c> (keeping w's condition) from addr to dest; 0 if out of
 * range (+-32 MB) or dest is not a word. */
static inline uint32_t arm_b_encode(uint32_t addr, uint32_t w, uint32_t dest)
{
    int64_t off = (int64_t)dest - ((int64_t)addr + 8);
    if (off < -(INT64_C(1) << 25) || off >= (INT64_C(1) << 25) || (off & 3))
        return 0;
    return (w & 0xF0000000u) | 0x0A000000 | ((uint32_t)(off >> 2) & 0xFFFFFF);
}

/* A constructor's or destructor's entry thunk (src/entries.h; ARM
 * state: the C library calls it through a pointer, blx interworks):
 *     +0  ldr ip, [pc, #4]       (the word at +12)
 *     +4  add ip, pc, ip         ip = the function (Thumb: bit 0 set)
 *     +8  b <litifut_init_entry or litifut_fini_entry>
 *     +12 .word fn - (thunk + 12) */
#define ENTRY_THUNK_SIZE    16
#define A_LDR_IP_PC4        0xE59FC004u     /* ldr ip, [pc, #4] */
#define A_ADD_IP_PC_IP      0xE08FC00Cu     /* add ip, pc, ip */

/* 16-bit Thumb blx rM: 010001111 Rm 000. */
static inline int is_t_blx_reg(uint32_t hw)
{
    return (hw & 0xFF87) == 0x4780;
}

/* Thumb 32-bit bl (T1) from addr to dest (Thumb code); 0 if out of
 * range (+-16 MB) or dest is odd. */
static inline uint32_t t_bl_encode(uint32_t addr, uint32_t dest)
{
    int64_t off = (int64_t)dest - (int64_t)(addr + 4);
    if (off < -(INT64_C(1) << 24) || off >= (INT64_C(1) << 24) || (off & 1))
        return 0;
    uint32_t u = (uint32_t)off, s = off < 0;
    uint32_t j1 = (~(u >> 23) ^ s) & 1, j2 = (~(u >> 22) ^ s) & 1;
    return (0xF000 | s << 10 | (u >> 12 & 0x3FF)) | (0xD000 | j1 << 13 | j2 << 11 | (u >> 1 & 0x7FF)) << 16;
}

#endif
