/*
 * AArch64 sled, frame and DB geometry: the one place these numbers
 * live.  Included by the sled (stub.S), the tracer's C code
 * (tracer-arch.h) and the host modules (arch-aarch64.c,
 * read-aarch64.c, rewrite-aarch64.c); only #defines, so assembly can
 * include this.
 *
 * A sled has two halves of SLED_ENTRIES entries: the first for calls
 * with a fixed target (`bl`), the second for calls through a register
 * (`blr Xn`), each going to its own hot path.  A rewritten call is
 * `bl litifut_sled + SLED_ENTRY_SIZE * (k + half * SLED_ENTRIES)` (the
 * same size as the call, and the same return address); entry k of a
 * half is
 *     movz x16, #4k
 *     b    <the half's code for the sled mode>
 * so that code starts with x30 = the call's return address and x16 =
 * 4k, every other register as the call left it.  Only x16 and x17 may
 * change before the callee runs: AAPCS64 lets any `bl` with a
 * relocation go through a veneer that clobbers them, and GCC keeps
 * values live across a call in every other register (x18 too, with
 * -fipa-ra).  So `blr x16`, `blr x17` (the sled needs them) and `blr
 * x30` (`bl` writes it) are never rewritten.
 *
 * No entry needs a BTI landing pad: a rewritten `bl` and the tracer's
 * own branches are direct (BTYPE 00).
 */
#ifndef LITIFUT_ARCH_AARCH64_SLED_H
#define LITIFUT_ARCH_AARCH64_SLED_H

#define DB_PAGE_SHIFT     10    /* 1 KB pages of code */
#define SLED_ENTRIES      256   /* per half: one per instruction of a page */
#define SLED_ENTRY_SIZE   8
#define RA_OFFSET         4     /* return address - call address */

/* A DB site word below LITIFUT_DB_INDIRECT is a `blr Xn`: SITE_REG_WORD(n),
 * n in 0..15 or 18..29. */
#define SITE_REG_WORD(n)  (4 * (n))
#define SITE_WORD_REG(w)  ((w) / 4)

/* The runtime's slow-path frame (struct arch_frame, tracer-arch.h):
 * x0..x30, then NZCV, right below the call's sp. */
#define FRAME_X(n)        (8 * (n))
#define FRAME_NZCV        248
#define FRAME_SIZE        256

/* A tail jump's thunk (its layout: host-aarch64.h): its size, its
 * continuation (the site word's target: x30 popped, then the jump),
 * the word whose address plus itself is the jump's target; and what it
 * pushed below the call's sp (the jumper's x30, 16 bytes: sp stays
 * 16-aligned).  Tail jumps enter a third half, litifut_sled_jump, as
 * calls from the jump (x30 = the jump + 4). */
#define JUMP_THUNK_SIZE   32
#define JUMP_THUNK_CONT   16
#define JUMP_THUNK_TARGET 24
#define JUMP_PUSHED       16

#endif
