/*
 * What the AArch64 host modules share: arch-aarch64.c (finding calls),
 * read-aarch64.c (reading rewritten code, the PLT and ld's veneers),
 * rewrite-aarch64.c (redirecting).  The encodings (Arm ARM, A64): every
 * instruction is one little-endian 32-bit word.
 */
#ifndef LITIFUT_HOST_AARCH64_H
#define LITIFUT_HOST_AARCH64_H

#include <stdint.h>
#include "arch/aarch64/sled.h"
#include "lib/arch.h"

/* Call kinds (struct arch_ops.kinds): bl imm26 (the sled's first
 * half), blr Xn (its second); tail jumps (b imm26, b.cond imm19 to a
 * function's first instruction or a PLT entry, through a thunk of
 * their own to the jump half: docs/DESIGN.md "Tail jumps"). */
enum { KIND_BL, KIND_BLR, KIND_B_JUMP, KIND_BCOND_JUMP, KIND_BR_JUMP, N_A64_KINDS };

/* A tail jump through a register (KIND_BR_JUMP: br Xn, n not 30), in
 * litifut_thunks, entered by `b` from the br's place:
 *     +0  mov x15, Xn (n 16 or 17: the sled's registers), else nop
 *     +4  str x30, [sp, #-16]!
 *     +8  adrp x30, A + 4          x30 = the br + 4: the DB keys the site by it
 *     +12 add x30, x30, :lo12:A + 4
 *     +16 b <the jump half's sled entry k>
 *     +20 the original br Xn (never run: kept for readers)
 * Its site word is SITE_REG_WORD(n) | LITIFUT_DB_JUMP_REG: the tracer
 * reads x16 and x17 from x15 (dead at a jump to a function: neither an
 * argument nor kept), and goes on through Xn's way in
 * litifut_a64_jump_cont (stub.S), which pops x30 and jumps through Xn
 * as it was (x16 and x17 again from x15: a `bti c` landing pad takes a
 * br through them only). */
#define REGJUMP_SIZE      24
#define REGJUMP_BR        20
#define A64_MOV_X15(n)    (0xaa0003efu | (uint32_t)(n) << 16)    /* orr x15, xzr, Xn */

/* A tail jump's thunk, in litifut_thunks (sizes and offsets: sled.h):
 *     +0  str x30, [sp, #-16]!     the jumper's x30 (the callee's return address)
 *     +4  adrp x30, A + 4          x30 = the jump + 4: the DB keys the site by it
 *     +8  add x30, x30, :lo12:A + 4
 *     +12 b <the jump half's sled entry k>
 *     +16 ldr x30, [sp], #16       the continuation: the site word's "target"
 *     +20 b f                      (the original jump, moved)
 *     +24 .word f - (thunk + 24)   the real target, for the tracer
 *     +28 .word 0
 * The callee gets every register, NZCV and sp as the jump left them
 * (x16, x17: the veneers' registers, free at a branch to a function). */
#define JUMP_THUNK_BRANCH 12
#define JUMP_THUNK_JUMP   20
#define A64_PUSH_X30      0xf81f0ffeu   /* str x30, [sp, #-16]! */
#define A64_POP_X30       0xf84107feu   /* ldr x30, [sp], #16 */

/* A constructor's or destructor's entry thunk (src/entries.h):
 *     +0  bti c                  (the C library calls it through a pointer)
 *     +4  adrp x16, fn
 *     +8  add x16, x16, :lo12:fn  x16 = the function
 *     +12 b <litifut_init_entry or litifut_fini_entry> */
#define ENTRY_THUNK_SIZE  16

/* b imm26 (0 00101) and b.cond imm19 (0101010 0 imm19 0 cond; +-1 MB). */
static inline int a64_is_b(uint32_t w)
{
    return (w & 0xfc000000u) == 0x14000000u;
}

static inline int a64_is_bcond(uint32_t w)
{
    return (w & 0xff000010u) == 0x54000000u;
}

/* Where a b or b.cond at addr goes. */
static inline uint64_t a64_jump_target(uint64_t addr, uint32_t w)
{
    int64_t off = a64_is_b(w) ? (int64_t)((int32_t)(w << 6) >> 6) * 4
                              : (int64_t)((int32_t)(w << 8) >> 13) * 4;
    return addr + (uint64_t)off;
}

/* The same jump as `w` (b, or b.cond with its condition) from `from` to
 * `to`; 0 if out of reach or `to` is not a word. */
static inline uint32_t a64_jump_encode(uint64_t from, uint32_t w, uint64_t to)
{
    int64_t off = (int64_t)(to - from);
    if (off & 3)
        return 0;
    if (a64_is_b(w))
        return off < -(INT64_C(1) << 27) || off >= (INT64_C(1) << 27)
                   ? 0 : 0x14000000u | ((uint32_t)(off >> 2) & 0x03ffffffu);
    return off < -(INT64_C(1) << 20) || off >= (INT64_C(1) << 20)
               ? 0 : (w & 0xff00001fu) | ((uint32_t)(off >> 2) & 0x7ffffu) << 5;
}

/* adrp Xd, the page of `to`, at `from`; 0 if beyond +-4 GB. */
static inline uint32_t a64_adrp_encode(uint64_t from, uint64_t to, unsigned rd)
{
    int64_t pages = (int64_t)(to >> 12) - (int64_t)(from >> 12);
    if (pages < -(INT64_C(1) << 20) || pages >= (INT64_C(1) << 20))
        return 0;
    uint32_t imm = (uint32_t)pages & 0x1fffff;
    return 0x90000000u | (imm & 3) << 29 | (imm >> 2) << 5 | rd;
}

/* bl reaches +-128 MB from itself (imm26 * 4). */
#define BL_REACH (INT64_C(1) << 27)

/* Far sleds (far-sled.S) at most every 64 MB of the inputs' code, as the
 * wrapper estimates it before ld runs: a site then lies within about
 * 64 MB of one, half bl's reach, room for what the estimate misses. */
#define A64_FAR_SLED_SPACING (64u << 20)

#define A64_NOP       0xd503201fu
#define A64_BTI_C     0xd503245fu
#define A64_AUTIA1716 0xd503219fu

/* bl imm26 / b imm26: 1 00101 / 0 00101, offset imm26 * 4 from itself. */
static inline int a64_is_bl(uint32_t w)
{
    return (w & 0xfc000000u) == 0x94000000u;
}

static inline int64_t a64_branch_offset(uint32_t w)
{
    return (int64_t)((int32_t)(w << 6) >> 6) * 4;     /* sign-extended imm26 * 4 */
}

/* bl from `from` to `to`; 0 if out of reach or `to` is not a word. */
static inline uint32_t a64_bl_encode(uint64_t from, uint64_t to)
{
    int64_t off = (int64_t)(to - from);
    if (off < -BL_REACH || off >= BL_REACH || (off & 3))
        return 0;
    return 0x94000000u | ((uint32_t)(off >> 2) & 0x03ffffffu);
}

/* blr Xn: 1101011 0001 11111 000000 Rn 00000. */
static inline int a64_is_blr(uint32_t w)
{
    return (w & 0xfffffc1fu) == 0xd63f0000u;
}

/* blraa, blrab (Xn, Xm), blraaz, blrabz (Xn): pointer-authenticating
 * calls, Z = bit 24, key B = bit 10. */
static inline int a64_is_blra(uint32_t w)
{
    return (w & 0xfefff800u) == 0xd63f0800u;
}

/* Bits 9..5: Rn of blr, br, add, ldr. */
static inline unsigned a64_rn(uint32_t w)
{
    return w >> 5 & 31;
}

/* adrp Xd, page: 1 immlo 10000 immhi Rd; the page is the instruction's
 * 4 KB page + imm * 4 KB. */
static inline int a64_is_adrp(uint32_t w, unsigned rd)
{
    return (w & 0x9f00001fu) == (0x90000000u | rd);
}

static inline uint64_t a64_adrp_page(uint64_t addr, uint32_t w)
{
    uint32_t imm = (w >> 3 & 0x1ffffcu) | (w >> 29 & 3);      /* immhi:immlo */
    int64_t pages = (int32_t)(imm << 11) >> 11;                 /* sign-extended imm21 */
    return (addr & ~UINT64_C(0xfff)) + (uint64_t)(pages * 4096);
}

/* add Xd, Xn, #imm12 (unshifted, 64-bit): its immediate if `w` is one
 * with these registers, else -1. */
static inline int32_t a64_add_imm(uint32_t w, unsigned rd, unsigned rn)
{
    return (w & 0xffc003ffu) == (0x91000000u | rn << 5 | rd) ? (int32_t)(w >> 10 & 0xfff) : -1;
}

/* ldr Xt, [Xn, #imm12 * 8] (unsigned offset, 64-bit): its byte offset
 * if `w` is one with these registers, else -1. */
static inline int32_t a64_ldr_imm(uint32_t w, unsigned rt, unsigned rn)
{
    return (w & 0xffc003ffu) == (0xf9400000u | rn << 5 | rt) ? (int32_t)(w >> 10 & 0xfff) * 8
                                                              : -1;
}

/* br Xn */
static inline int a64_is_br(uint32_t w, unsigned rn)
{
    return w == (0xd61f0000u | rn << 5);
}

static inline int a64_is_br_any(uint32_t w)
{
    return (w & 0xfffffc1fu) == 0xd61f0000u;
}

/* add Xd, Xn, Wm, <extend> #amount (add, extended register, 64-bit):
 * a switch's jump into its table of offsets (GCC: add x1, x2, w1,
 * sxtb #2; br x1) */
static inline int a64_is_add_ext(uint32_t w)
{
    return (w & 0xffe00000u) == 0x8b200000u;
}

/*
 * A PLT entry as GNU ld writes it, from its first words w[0..4] at
 * `addr`:
 *     adrp x16, slot page ; ldr x17, [x16, #lo12] ; add x16, x16, #lo12
 *     [autia1716]         ; br x17          (autia1716: -z pac-plt)
 * Its size up to the br (16 or 20 bytes), *got the GOT slot it jumps
 * through; 0 if it is none.
 */
static inline unsigned a64_plt_entry(const uint32_t w[5], uint64_t addr, uint64_t *got)
{
    int32_t off = a64_ldr_imm(w[1], 17, 16);
    if (!a64_is_adrp(w[0], 16) || off < 0 || a64_add_imm(w[2], 16, 16) != off % 4096)
        return 0;
    int pac = w[3] == A64_AUTIA1716;
    if (!a64_is_br(w[3 + pac], 17))
        return 0;
    *got = a64_adrp_page(addr, w[0]) + (uint64_t)off;
    return 16 + 4 * (unsigned)pac;
}

/* ld's long-branch veneer (a bl beyond +-128 MB goes there; x16 is
 * free at a call), from its words w[0..2] at `addr`:
 *     adrp x16, target page ; add x16, x16, #lo12 ; br x16
 * 1 and *target where it goes, 0 if it is none. */
static inline int a64_veneer(const uint32_t w[3], uint64_t addr, uint64_t *target)
{
    int32_t lo = a64_add_imm(w[1], 16, 16);
    if (!a64_is_adrp(w[0], 16) || lo < 0 || !a64_is_br(w[2], 16))
        return 0;
    *target = a64_adrp_page(addr, w[0]) + (uint64_t)lo;
    return 1;
}

#endif
