/*
 * What the ARM host modules share: arch-arm.c (finding calls),
 * read-arm.c (reading rewritten code), rewrite-arm.c (redirecting).
 */
#ifndef LITIFUT_HOST_ARM_H
#define LITIFUT_HOST_ARM_H

#include <stdint.h>
#include "arch/arm/sled.h"

/* Call kinds (struct arch_ops.kinds): ARM state, then Thumb. */
enum { KIND_BL, KIND_BLX_IMM, KIND_BLX_REG, KIND_T_BL, KIND_T_BLX_IMM, N_ARM_KINDS };

static inline int is_thumb_kind(unsigned kind)
{
    return kind >= KIND_T_BL;
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

/* 16-bit Thumb blx rM: 010001111 Rm 000. */
static inline int is_t_blx_reg(uint32_t hw)
{
    return (hw & 0xFF87) == 0x4780;
}

#endif
