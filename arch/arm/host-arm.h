/*
 * What the ARM host modules share: arch-arm.c (finding calls),
 * read-arm.c (reading rewritten code), rewrite-arm.c (redirecting).
 */
#ifndef LITIFUT_HOST_ARM_H
#define LITIFUT_HOST_ARM_H

#include <stdint.h>
#include "arch/arm/sled.h"

enum { KIND_BL, KIND_BLX_IMM, KIND_BLX_REG };

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

#endif
