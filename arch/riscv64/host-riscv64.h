/*
 * What the RISC-V host modules share: arch-riscv64.c (finding calls),
 * read-riscv64.c (reading rewritten code and the PLT),
 * rewrite-riscv64.c (redirecting).  The encodings (RISC-V unprivileged
 * ISA, RV64GC): little-endian instructions of 2 bytes (the C
 * extension: low two bits not 11) or 4 (low bits 11, bits 4..2 not
 * 111); longer ones (none standard) are skipped by their length.
 */
#ifndef LITIFUT_HOST_RISCV64_H
#define LITIFUT_HOST_RISCV64_H

#include <stdint.h>
#include "arch/riscv64/sled.h"
#include "lib/arch.h"

#ifndef EM_RISCV
#define EM_RISCV 243
#endif

/* Call kinds (struct arch_ops.kinds):
 *   KIND_JAL   jal ra, imm20 (the linker's relaxed `call`): the first half
 *   KIND_CALL  the jalr ra, lo(rX) of an auipc rX, hi + jalr pair (a
 *              `call` the linker did not relax: its callee beyond jal's
 *              reach, or --no-relax): the first half.  The auipc stays
 *              (it only sets rX, ra or a register the call clobbers);
 *              the jalr becomes the redirect.  insn2 holds the auipc's
 *              low 16 immediate bits, so a pass whose auipc differs
 *              shows as moved code.
 *   KIND_JALR  jalr ra, 0(rs): the second half (the third for t1) */
enum { KIND_JAL, KIND_CALL, KIND_JALR, KIND_CJALR_PAIR, KIND_CJALR_PAIR32, N_RV_KINDS };

/* c.jalr rs (every call through a pointer GCC writes, 2 bytes: no call
 * of its size reaches a sled) is rewritten with the instruction P
 * before it (docs/DESIGN.md, "RISC-V"), the site being the c.jalr at
 * C, as the oracle sees it:
 *   KIND_CJALR_PAIR    P of 2 bytes at C - 2: the pair becomes one
 *                      `jal ra, thunk` (ra = C + 2, the c.jalr's return
 *                      address); insn = P | c.jalr << 16.  Its thunk:
 *                          +0  P
 *                          +2  jal zero, <the register half's entry k>
 *                          +6  the c.jalr (never run: kept for readers)
 *   KIND_CJALR_PAIR32  P of 4 bytes at C - 4: P becomes `jal ra, thunk`
 *                      (ra = C); the c.jalr stays, never reached from
 *                      P again (a branch to C runs it untraced); insn =
 *                      P, insn2 = the c.jalr.  Its thunk:
 *                          +0  P
 *                          +4  c.addi ra, 2    (ra = C + 2)
 *                          +6  jal zero, <the register half's entry k>
 *                          +10 the c.jalr (never run) */
#define PAIR_THUNK_SIZE   8
#define PAIR32_THUNK_SIZE 12
#define RV_C_ADDI_RA_2    0x0089u

#define RV_RA 1
#define RV_T0 5

/* The register a call through a register calls through (its site
 * word's), and the sled half a site goes to (sled.h: 0 fixed, 1 a
 * register, 2 t1). */
static inline unsigned rv_call_reg(unsigned kind, uint32_t insn, uint16_t insn2)
{
    return kind == KIND_JALR ? (insn >> 15) & 31
         : kind == KIND_CJALR_PAIR ? (insn >> 23) & 31
         : kind == KIND_CJALR_PAIR32 ? (insn2 >> 7) & 31 : 0;
}
static inline unsigned rv_site_half(unsigned kind, uint32_t insn, uint16_t insn2)
{
    unsigned r = rv_call_reg(kind, insn, insn2);
    return !r ? 0 : r == SLED_REG ? 2 : 1;
}

/* A constructor's or destructor's entry thunk (src/entries.h):
 *     +0  auipc t1, %pcrel_hi(fn)
 *     +4  addi  t1, t1, %pcrel_lo(fn)     t1 = the function
 *     +8  jal   zero, <litifut_init_entry or litifut_fini_entry>
 * (the C library calls it through a pointer: t1 is free there) */
#define ENTRY_THUNK_SIZE  12

/* The size of the instruction whose first halfword is the low 16 bits
 * of `w`. */
static inline unsigned rv_insn_size(uint32_t w)
{
    if ((w & 3) != 3)
        return 2;
    if ((w & 0x1c) != 0x1c)
        return 4;
    if ((w & 0x3f) == 0x1f)
        return 6;
    if ((w & 0x7f) == 0x3f)
        return 8;
    return 2;                   /* reserved lengths: step a halfword */
}

static inline unsigned rv_rd(uint32_t w) { return (w >> 7) & 31; }
static inline unsigned rv_rs1(uint32_t w) { return (w >> 15) & 31; }

/* jal rd, imm (opcode 1101111) */
static inline int rv_is_jal(uint32_t w) { return (w & 0x7f) == 0x6f; }
static inline int64_t rv_jal_offset(uint32_t w)
{
    uint32_t imm = ((w >> 31) & 1) << 20 | ((w >> 21) & 0x3ff) << 1 | ((w >> 20) & 1) << 11 |
                   ((w >> 12) & 0xff) << 12;
    return (int64_t)(int32_t)(imm << 11) >> 11;
}
/* jal rd from `from` to `to`; 0 if out of reach (+-1 MB) or odd. */
static inline uint32_t rv_jal_encode(unsigned rd, uint64_t from, uint64_t to)
{
    int64_t d = (int64_t)(to - from);
    if ((d & 1) || d < -JAL_REACH || d >= JAL_REACH)
        return 0;
    uint32_t imm = (uint32_t)d;
    return ((imm >> 20) & 1) << 31 | ((imm >> 1) & 0x3ff) << 21 | ((imm >> 11) & 1) << 20 |
           ((imm >> 12) & 0xff) << 12 | rd << 7 | 0x6f;
}

/* jalr rd, imm(rs1) (opcode 1100111, funct3 0) */
static inline int rv_is_jalr(uint32_t w) { return (w & 0x707f) == 0x67; }
static inline int64_t rv_i_imm(uint32_t w) { return (int64_t)(int32_t)w >> 20; }

/* auipc rd, imm (opcode 0010111): rd = pc + (imm << 12) */
static inline int rv_is_auipc(uint32_t w) { return (w & 0x7f) == 0x17; }
static inline int64_t rv_u_imm(uint32_t w) { return (int64_t)(int32_t)(w & 0xfffff000u); }

/* Conditional branches (opcode 1100011) */
static inline int rv_is_branch(uint32_t w) { return (w & 0x7f) == 0x63; }
static inline int64_t rv_branch_offset(uint32_t w)
{
    uint32_t imm = ((w >> 31) & 1) << 12 | ((w >> 25) & 0x3f) << 5 | ((w >> 8) & 0xf) << 1 |
                   ((w >> 7) & 1) << 11;
    return (int64_t)(int32_t)(imm << 19) >> 19;
}

/* Compressed (16-bit) forms, `h` the halfword: c.jalr rs1 (100 1 rs1
 * 00000 10), c.jr rs1 (100 0 rs1 00000 10), rs1 not 0; c.j (101 ...
 * 01); c.beqz, c.bnez (11x ... 01). */
static inline int rv_is_c_jalr(uint32_t h)
{
    return (h & 0xf07f) == 0x9002 && ((h >> 7) & 31) != 0;
}
static inline int rv_is_c_jr(uint32_t h)
{
    return (h & 0xf07f) == 0x8002 && ((h >> 7) & 31) != 0;
}
static inline unsigned rv_c_rs1(uint32_t h) { return (h >> 7) & 31; }
static inline int rv_is_c_j(uint32_t h) { return (h & 0xe003) == 0xa001; }
static inline int64_t rv_c_j_offset(uint32_t h)
{
    uint32_t imm = ((h >> 12) & 1) << 11 | ((h >> 11) & 1) << 4 | ((h >> 9) & 3) << 8 |
                   ((h >> 8) & 1) << 10 | ((h >> 7) & 1) << 6 | ((h >> 6) & 1) << 7 |
                   ((h >> 3) & 7) << 1 | ((h >> 2) & 1) << 5;
    return (int64_t)(int32_t)(imm << 20) >> 20;
}
static inline int rv_is_c_branch(uint32_t h) { return (h & 0xc003) == 0xc001; }
static inline int64_t rv_c_branch_offset(uint32_t h)
{
    uint32_t imm = ((h >> 12) & 1) << 8 | ((h >> 10) & 3) << 3 | ((h >> 5) & 3) << 6 |
                   ((h >> 3) & 3) << 1 | ((h >> 2) & 1) << 5;
    return (int64_t)(int32_t)(imm << 23) >> 23;
}

/* 1 if the 2-byte instruction `h` may run elsewhere as it runs here
 * (the thunk of a c.jalr pair runs it after the jal wrote ra): no
 * control transfer (c.j, c.beqz, c.bnez, c.jr, c.jalr, c.ebreak), no
 * register naming ra (x1; f1 alike, to keep the test short). */
static inline int rv_c_movable(uint32_t h)
{
    unsigned op = h & 3, f3 = (h >> 13) & 7, r1 = (h >> 7) & 31, r2 = (h >> 2) & 31;
    if (op == 1)                /* quadrant 1: c.j, c.beqz, c.bnez move not */
        return f3 != 5 && f3 != 6 && f3 != 7 && !(f3 <= 3 && r1 == RV_RA);
    if (op == 2) {              /* quadrant 2: c.jr, c.jalr, c.ebreak (funct3 100, rs2 0) */
        if (f3 == 4 && r2 == 0)
            return 0;
        return f3 < 4 ? r1 != RV_RA            /* c.slli, c.*lwsp/ldsp: rd */
                      : f3 == 4 ? r1 != RV_RA && r2 != RV_RA    /* c.mv, c.add */
                                : r2 != RV_RA;  /* stores to sp: rs2 */
    }
    return h != 0;              /* quadrant 0: loads and stores through x8-x15 (0: illegal) */
}

/* The same for a 4-byte instruction: loads, stores, integer and
 * floating-point arithmetic, lui, fence; not auipc (pc-relative),
 * branches, jumps, system instructions (ecall, CSRs) or atomics; no
 * rd, rs1, rs2 (or rs3) naming ra. */
static inline int rv_movable(uint32_t w)
{
    unsigned opcode = w & 0x7f, rd = rv_rd(w), rs1 = rv_rs1(w), rs2 = (w >> 20) & 31;
    switch (opcode) {
    case 0x37:                                      /* lui */
        return rd != RV_RA;
    case 0x03: case 0x07: case 0x0f: case 0x13: case 0x1b:   /* loads, fence, op-imm */
        return rd != RV_RA && rs1 != RV_RA;
    case 0x23: case 0x27: case 0x33: case 0x3b: case 0x53:   /* stores, op, op-fp */
        return rd != RV_RA && rs1 != RV_RA && rs2 != RV_RA;
    case 0x43: case 0x47: case 0x4b: case 0x4f:              /* fused multiply-add */
        return rd != RV_RA && rs1 != RV_RA && rs2 != RV_RA && (w >> 27) != RV_RA;
    default:
        return 0;
    }
}

/* A PLT entry (ld's, 16 bytes after the 32-byte PLT0):
 *     auipc t3, %pcrel_hi(slot)
 *     ld    t3, %pcrel_lo(slot)(t3)
 *     jalr  t1, t3
 *     nop
 * 1 and the GOT slot if `w` (its four words, at `at`) is one. */
static inline int rv_plt_entry(const uint32_t *w, uint64_t at, uint64_t *slot)
{
    if ((w[0] & 0xfff) != 0xe17 ||                        /* auipc t3 */
        (w[1] & 0xfffff) != 0xe3e03 ||                       /* ld t3, lo(t3) */
        w[2] != 0x000e0367 || w[3] != 0x00000013)
        return 0;
    *slot = at + (uint64_t)rv_u_imm(w[0]) + (uint64_t)rv_i_imm(w[1]);
    return 1;
}

#endif
