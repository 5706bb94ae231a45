/*
 * MIPS sled, frame and DB geometry: the one place these numbers live.
 * Included by the sleds (sled.S), the tracer's C code (tracer-arch.h,
 * bridge.c) and the host modules (arch-mips.c, read-mips.c,
 * rewrite-mips.c); only #defines, so assembly can include it.
 *
 * A sled (a copy, or a run-time bridge) has two halves of SLED_ENTRIES
 * entries: the first for calls with a fixed target, the second for calls
 * through a register (jalr), each going to its own hot path.  A
 * rewritten call branches (bal, jal, or its own REGIMM branch) to entry
 * k of its half; its delay slot has run.  Entry k is
 *     addiu sp, sp, -FRAME_SIZE
 *     sw    a0, FRAME_R(4)(sp)
 *     b     <the half's code for the sled mode: arch/mips/sleds.c>
 *     li    a0, 4k              (delay slot)
 * so that code starts with ra = the call's return address, a0 =
 * 4k, every other register as the call left it.
 */
#ifndef LITIFUT_ARCH_MIPS_SLED_H
#define LITIFUT_ARCH_MIPS_SLED_H

#define DB_PAGE_SHIFT     9     /* 512-byte pages of code */
#define SLED_ENTRIES      128   /* per half: one per word of a page */
#define SLED_ENTRY_SIZE   16
#define SLED_BYTES        4096  /* both halves */
#define RA_OFFSET         8     /* return address - call address (the delay slot) */

/* LITIFUT_CLOCK=counter: a time unit is 2^COUNTER_SHIFT ticks of CP0
 * Count (half the core clock, 50 to 600 MHz: units of 27 to 320 ns, as
 * monotonic's 32 ns; the record word's 8-bit delta then reaches
 * microseconds, not 256 ticks). */
#define COUNTER_SHIFT     4

/* The frame (struct arch_frame): r[32] by register number, hi, lo.
 * The hot path fills only the slots of the registers it uses; the slow
 * path fills the rest before it calls C. */
#define FRAME_R(n)        (4 * (n))
#define FRAME_HI          128
#define FRAME_LO          132
#define FRAME_SIZE        136

/* A DB site word below LITIFUT_DB_INDIRECT is a jalr rs: FRAME_R(rs),
 * plus 1 if rs is not among the registers the hot path saves (then the
 * slow path, which saves them all, reads it). */
#define HOT_SAVED_REGS    ((1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | (1u << 25))

/* The run-time bridge: code (two pages: the entries; the lanes and the
 * dispatchers) at BRIDGE_OFFSET of each 256 MB region that needs one,
 * the table of (lo, hi, fixed, reg) entries after it, and in the table
 * page's last 8 bytes (the terminating entry's unread words) each
 * half's lane word: where its calls go. */
#define BRIDGE_OFFSET     0x0e000000
#define BRIDGE_CODE       8192
#define BRIDGE_TABLE      4096
#define BRIDGE_ENTRY      16
#define BRIDGE_LANE_WORDS     (BRIDGE_TABLE - 8)

/* A tail jump's thunk (its layout: host-mips.h): its size, its
 * continuation (the site word's target: the jumper's ra popped, then
 * the jump), the word whose address plus itself is the jump's target,
 * the original jump's word; and what it pushed below the call's sp (8
 * bytes: the jumper's ra, sp 8-aligned).  Tail jumps enter a third
 * half, litifut_sled_jump (the module's copy only), as calls from the
 * jump (ra = the jump + 8). */
#define JUMP_THUNK_SIZE   88
#define JUMP_THUNK_CONT   48
#define JUMP_THUNK_TARGET 80
#define JUMP_THUNK_ORIGINAL 84
#define JUMP_PUSHED       8

#endif
