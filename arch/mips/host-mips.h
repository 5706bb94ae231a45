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
       KIND_JALR_GOT, KIND_J_JUMP, KIND_B_JUMP, KIND_JR_GOT_JUMP, KIND_JR_JUMP, N_MIPS_KINDS };

/* Tail jumps (docs/DESIGN.md "Tail jumps"): j f (KIND_J_JUMP), b f
 * (beq $0, $0: KIND_B_JUMP) and jr $t9 after a GOT load the link fixed
 * (KIND_JR_GOT_JUMP, site->target its callee), to another function's
 * start; the jump (its delay slot stays and runs first) goes to a thunk
 * of its own instead, b (+-128 KB) or, at a fixed address, j in its 256
 * MB region, which makes it a call from the jump to the sled's jump
 * half (offsets: sled.h):
 *     +0  addiu sp, sp, -8
 *     +4  sw ra, 4(sp)           the jumper's ra (the callee's return address)
 *     +8  bal 1f ; +12 nop       ra = +16
 * 1:  +16 lui at ; addiu at ; addu t9, ra, at     t9 = the jump half's entry k
 *     +28 lui at ; addiu at ; addu ra, ra, at     ra = A + 8: the DB keys the site by it
 *     +40 jr t9 ; +44 nop
 *     +48 bal 2f ; nop           the continuation, the site word's "target"
 * 2:  +56 lui at ; addiu at ; addu t9, ra, at     t9 = f (as PIC code expects)
 *     +68 lw ra, 4(sp) ; +72 jr t9 ; +76 addiu sp, sp, 8
 *     +80 .word f - (thunk + 80)
 *     +84 the original jump's word
 * at, t9 and ra are free at a jump to a function's start. */

/* A tail jump through a register (KIND_JR_JUMP: jr rs, rs not ra, its
 * target known only when it runs; its delay slot writes no rs): its
 * thunk (b or j to it, as above) copies the target into v1 (free at a
 * jump to a function: no argument, not kept) and goes on as a direct
 * jump's does; the site word is FRAME_R(3) | LITIFUT_DB_JUMP_REG, and
 * the tracer goes on through litifut_mips_jump_cont (stub.S: ra popped,
 * jr t9 = v1):
 *     +0  or v1, rs, zero
 *     +4  addiu sp, sp, -8 ; +8 sw ra, 4(sp)
 *     +12 bal 1f ; +16 nop
 * 1:  +20 lui at ; addiu at ; addu t9, ra, at     t9 = the jump half's entry k
 *     +32 lui at ; addiu at ; addu ra, ra, at     ra = A + 8
 *     +44 jr t9 ; +48 nop
 *     +52 the original jr rs */
#define REGJUMP_SIZE 56
static inline int is_jr(uint32_t w) { return (w & 0xfc1fffffu) == 0x00000008u; }

static inline unsigned op_of(uint32_t w) { return w >> 26; }
static inline unsigned rs_of(uint32_t w) { return (w >> 21) & 31; }
static inline unsigned rt_of(uint32_t w) { return (w >> 16) & 31; }
static inline unsigned rd_of(uint32_t w) { return (w >> 11) & 31; }
static inline int is_j(uint32_t w) { return op_of(w) == 2; }
static inline int is_b(uint32_t w) { return (w & 0xffff0000u) == 0x10000000u; }   /* beq $0, $0 */
static inline int is_jr_t9(uint32_t w) { return w == 0x03200008u; }

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
