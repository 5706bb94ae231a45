/*
 * What the MIPS host modules share: arch-mips.c (finding calls),
 * read-mips.c (reading rewritten code), rewrite-mips.c (redirecting).
 */
#ifndef LITIFUT_HOST_MIPS_H
#define LITIFUT_HOST_MIPS_H

#include <stdint.h>
#include "arch/mips/sled.h"

/* KIND_JALR_GOT: a jalr $t9 whose $t9 came from a GOT slot the link
 * fixed (arch-mips.c, got_calls): redirected as a call with a fixed
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

#endif
