/*
 * ARM sled, frame and DB geometry: the one place these numbers live.
 * Included by the sled (stub.S), the tracer's C code (tracer-arch.h)
 * and the host modules (arch-arm.c, read-arm.c, rewrite-arm.c); only
 * #defines, so assembly can include it.
 *
 * A sled has two halves of SLED_ENTRIES entries: the first for calls
 * with a fixed target, the second for calls through a register, each
 * going to its own hot path.  A rewritten call is `bl<c> litifut_sled +
 * SLED_ENTRY_SIZE * (k + half * SLED_ENTRIES)`; entry k of a half is
 *     push {r0-r12, lr, pc}     the frame (pc: a slot for the target)
 *     mov  r12, #4k
 *     b    <the half's code for the sled mode: arch/arm/sleds.c>
 * so that code starts with lr = the call's return address and r12 = 4k,
 * every other register as the call left it.
 *
 * A third half, litifut_sled_jump (after the far sleds' way in), is
 * for tail jumps, which their thunks (host-arm.h) send there looking
 * like calls from the jump: lr = the jump's address + 4, the jumper's
 * lr pushed below the frame (JUMP_PUSHED), and a site word whose
 * target is the thunk's continuation.  Its entries are the same; only
 * with exact returns does it have paths of its own (a jump is not
 * hooked: stub.S).
 */
#ifndef LITIFUT_ARCH_ARM_SLED_H
#define LITIFUT_ARCH_ARM_SLED_H

#define DB_PAGE_SHIFT     10    /* 1 KB pages of code */
#define SLED_ENTRIES      256   /* per half: one per word of a page */
#define SLED_ENTRY_SIZE   12
#define RA_OFFSET         4     /* return address - call address */

/* The frame the entry pushes (struct arch_frame): r0..r12, lr, pc. */
#define FRAME_R(n)        (4 * (n))
#define FRAME_LR          52
#define FRAME_PC          56    /* the target goes here; `ldm ... pc` jumps to it */
#define FRAME_SIZE        60

/* A DB site word below LITIFUT_DB_INDIRECT is a blx rM: FRAME_R(M). */

/* A tail jump's thunk (its layout: host-arm.h): its size, its
 * continuation (the site word's target: the jumper's lr popped, then
 * the jump), the word whose address plus itself is the jump's target;
 * and what it pushed below the sled's frame (the jumper's lr). */
#define JUMP_THUNK_SIZE   32
#define JUMP_THUNK_CONT   20
#define JUMP_THUNK_TARGET 28
#define JUMP_PUSHED       4

#endif
