/*
 * What the ARM host modules share: arch-arm.c (finding calls),
 * read-arm.c (reading rewritten code), rewrite-arm.c (redirecting).
 */
#ifndef LITIFUT_HOST_ARM_H
#define LITIFUT_HOST_ARM_H

#include <stddef.h>
#include <stdint.h>
#include "arch/arm/sled.h"
#include "arch/arm/thunks.h"
#include "lib/arch.h"

/* Call kinds (struct arch_ops.kinds): ARM state, then Thumb. */
/* ARM's instruction sets (lib/arch.h) */
enum { ISA_ARM = ISA_MAIN, ISA_THUMB = ISA_ALT };

enum { KIND_BL, KIND_BLX_IMM, KIND_BLX_REG, KIND_B_JUMP, KIND_BX_JUMP, KIND_T_BL,
       KIND_T_BLX_IMM, KIND_T_BLX_PAIR, KIND_T_BLX_PAIR32, KIND_T_B_JUMP, KIND_T_BLX_PAIRB,
       KIND_T_BLX_PAIRB32, KIND_T_BX_JUMP, KIND_T_BX_JUMP32, N_ARM_KINDS };

static inline int is_pair_kind(unsigned kind)
{
    return kind == KIND_T_BLX_PAIR || kind == KIND_T_BLX_PAIR32 || kind == KIND_T_BLX_PAIRB ||
           kind == KIND_T_BLX_PAIRB32;
}

/* (the thunks' layouts: thunks.h) */

/* The value of integer attribute `tag` in an object's "aeabi" build
 * attributes (ARM IHI 0045, the SHT_ARM_ATTRIBUTES section's `size`
 * bytes at `a`); 0 (every such attribute's default) if they do not say. */
long arm_attribute(const uint8_t *a, size_t size, uint32_t tag);
#define TAG_CPU_ARCH        6
#define TAG_THUMB_ISA_USE   9
#define TAG_ABI_VFP_ARGS    28

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

/* A direct tail jump (b, b.w: its target fixed) */
static inline int is_jump_kind(unsigned kind)
{
    return kind == KIND_B_JUMP || kind == KIND_T_B_JUMP;
}

/* A tail jump through a register (ARM bx rM; Thumb bx rM with the
 * instruction before it) */
static inline int is_reg_jump_kind(unsigned kind)
{
    return kind == KIND_BX_JUMP || kind == KIND_T_BX_JUMP || kind == KIND_T_BX_JUMP32;
}

/* Rewritten with the Thumb instruction before the site (a thunk runs it) */
static inline int is_thumb_pair_kind(unsigned kind)
{
    return is_pair_kind(kind) || kind == KIND_T_BX_JUMP || kind == KIND_T_BX_JUMP32;
}

/* ARM bx<c> rM (not blx) */
static inline int is_bx_reg(uint32_t w)
{
    return (w >> 28) != 0xF && (w & 0x0FFFFFF0) == 0x012FFF10;
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

static inline int is_t_bx_reg(uint32_t hw)
{
    return (hw & 0xFF87) == 0x4700;
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
