/*
 * What the MIPS host modules share: arch-mips.c (finding calls),
 * read-mips.c (reading rewritten code), rewrite-mips.c (redirecting).
 */
#ifndef LITIFUT_HOST_MIPS_H
#define LITIFUT_HOST_MIPS_H

#include <stdint.h>
#include "arch/mips/sled.h"

/* KIND_JALR_GOT: a jalr $t9 whose $t9 came from a GOT slot the link
 * fixed (arch-mips.c, got_call): redirected as a call with a fixed
 * target, site->target. */
enum { KIND_JAL, KIND_JALR, KIND_BAL, KIND_BGEZAL, KIND_BLTZAL, KIND_BGEZALL, KIND_BLTZALL,
       KIND_JALR_GOT };

static inline unsigned op_of(uint32_t w) { return w >> 26; }
static inline unsigned rs_of(uint32_t w) { return (w >> 21) & 31; }
static inline unsigned rt_of(uint32_t w) { return (w >> 16) & 31; }
static inline unsigned rd_of(uint32_t w) { return (w >> 11) & 31; }

/* REGIMM branches that link into ra: bltzal 16, bgezal 17, bltzall 18, bgezall 19 */
static inline int is_regimm_link(uint32_t w)
{
    return op_of(w) == 1 && rt_of(w) >= 16 && rt_of(w) <= 19;
}

static inline int is_jal(uint32_t w) { return op_of(w) == 3; }

/* Where a branch at addr goes (its 16-bit offset, from the delay slot),
 * and a j or jal (in the 256 MB region of its delay slot). */
static inline uint32_t mips_branch_target(uint32_t addr, uint32_t w)
{
    return addr + 4 + (uint32_t)((int32_t)(int16_t)(w & 0xffff) * 4);
}
static inline uint32_t mips_jal_target(uint32_t addr, uint32_t w)
{
    return ((addr + 4) & 0xf0000000u) | (w & 0x03ffffffu) << 2;
}

/* Jumps, calls and branches: the instructions with a delay slot
 * (SPECIAL jr/jalr, REGIMM, j, jal, the branches and their likely
 * forms, the FPU's bc1, jalx). */
static inline int is_jump_or_branch(uint32_t w)
{
    unsigned op = op_of(w);
    return (op == 0 && ((w & 63) == 8 || (w & 63) == 9)) || (op >= 1 && op <= 7) ||
           (op >= 0x14 && op <= 0x17) || (op == 0x11 && rs_of(w) >= 8 && rs_of(w) <= 10) ||
           op == 0x1d;
}

#endif
