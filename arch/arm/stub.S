/*
 * ARM tracer entry: the sled that rewritten calls branch to, the hot
 * paths that record a call and go on to its target (one per sled half:
 * calls with a fixed target, calls through a register), the slow-path
 * entry and the "off" code.  Geometry in sled.h; the contract, the
 * register use and the instruction budget line by line in
 * docs/DESIGN.md ("ARM: the hot path").
 *
 * At entry k (sled.h): lr = the call's return address, every other
 * register, the flags and sp as the call left them.  The entry pushes
 * r0-r12, lr and a slot for the target (struct arch_frame), puts 4k in
 * r12 and goes where the copy's sled mode says (sleds.c): the slow path
 * until the copy is ready, then its half's hot path, which:
 *   1. gets this thread's state through this copy's TLS slot (t, record
 *      delta, page table; stub/layout.h);
 *   2. one chain of conditional instructions decides "fast": not busy
 *      (then marks it busy with this frame; a thread new to the copy
 *      has a busy dummy) and room in the chunk (cur < lim);
 *   3. finds the site word (page table, then 4k) and from it the target
 *      and the record word;
 *   4. stores the record (a call through a register: tag 1 and its
 *      target, or tag 2 if the thread's target cache holds it), bumps
 *      cur, clears busy;
 *   5. restores the flags and pops r0-r12, lr = the return address and
 *      pc = the target (`ldm` interworks: Thumb targets work).
 * Anything else goes to litifut_slow(frame, 4k) in C (stub/call.c),
 * which returns the target.  Nothing is ever stored below sp, so a
 * signal may arrive at any instruction.
 */
#include "sled.h"
#include "layout.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"
#include <asm/unistd.h>

    .syntax unified
    .arm

/* The thread pointer into r0.  ARMv6K and later have it in a register
 * (TPIDRURO); before that the kernel's user helper __kuser_get_tls at
 * 0xffff0fe0 (which clobbers lr: the hot path reloads the return
 * address from the frame). */
#ifdef LITIFUT_ARM_V6K
    .macro THREAD_POINTER
    mrc     p15, 0, r0, c13, c0, 3
    .endm
    .macro RELOAD_RA
    .endm
#else
    .macro THREAD_POINTER
    mvn     r0, #0xf000             @ 0xffff0fff
    mov     lr, pc
    sub     pc, r0, #31             @ 0xffff0fe0: r0 = the thread pointer
    .endm
    .macro RELOAD_RA
    ldr     lr, [sp, #FRAME_LR]
    .endm
#endif

    .section .text.litifut_sled, "ax", %progbits
    /* A page of its own at the start: the code that rewrites the sled's
     * branches (sleds.c) must not share a page with it, or qemu-user
     * retranslates that code after every store into the page, turning a
     * switch into hundreds of faults. */
    .p2align 12
    .global litifut_sled
    .hidden litifut_sled
    .type litifut_sled, %function
litifut_sled:
    /* SLED_ENTRIES for calls with a fixed target, then as many for calls
     * through a register: each half has its own hot path */
    .rept 2
    .set k, 0
    .rept SLED_ENTRIES
    push    {r0-r12, lr, pc}
    mov     r12, #4 * k
    b       litifut_arm_start       @ until this copy is ready: see sleds.c
    .set k, k + 1
    .endr
    .endr
    /* The far sleds' way in (far-sled.S), one branch per half, patched
     * with the entries' */
    .global litifut_sled_far
    .hidden litifut_sled_far
litifut_sled_far:
    b       litifut_arm_start
    b       litifut_arm_start
    /* The tail jumps' half (sled.h): their thunks come here */
    .global litifut_sled_jump
    .hidden litifut_sled_jump
litifut_sled_jump:
    .set k, 0
    .rept SLED_ENTRIES
    push    {r0-r12, lr, pc}
    mov     r12, #4 * k
    b       litifut_arm_start
    .set k, k + 1
    .endr
    .size litifut_sled, . - litifut_sled
    .global litifut_sled_end
    .hidden litifut_sled_end
litifut_sled_end:

/*
 * The sled's entries go here instead (arch/arm/sleds.c patches their
 * branch) while this process records nothing (LITIFUT_TRACE=0): find
 * the target, jump.  In the sled's own pages, after it: the page table
 * (this copy's, not TLS's) is the word litifut_sled_pages, which
 * sleds.c writes with the branches (these pages are writable then), so
 * one pc-relative load finds it.
 */
    .p2align 2
    .global litifut_sled_pages
    .hidden litifut_sled_pages
litifut_sled_pages:
    .word   0                       @ litifut_copy.pages
    .global litifut_arm_jump_paths
    .hidden litifut_arm_jump_paths
litifut_arm_jump_paths:             @ (litifut_arm_jump_any's: sleds.c writes them)
    .word   0                       @ the mode's fixed-target path
    .word   0                       @ the slow path

    .macro SLED_OFF_START
    ldr     r4, litifut_sled_pages
    bic     r8, lr, #0x3fc
    ldr     r5, [r4, r8, lsr #8]
    ldr     r9, [r5, r12]!          @ the site word
    .endm

    .global litifut_arm_off
    .hidden litifut_arm_off
    .type litifut_arm_off, %function
litifut_arm_off:                    @ a call with a fixed target
    SLED_OFF_START
    add     r9, r5, r9
    str     r9, [sp, #FRAME_PC]
    pop     {r0-r12, lr, pc}

    .global litifut_arm_off_reg
    .hidden litifut_arm_off_reg
    .type litifut_arm_off_reg, %function
litifut_arm_off_reg:                @ a call through a register
    SLED_OFF_START
    ldr     r9, [sp, r9]            @ rM as the call left it
    str     r9, [sp, #FRAME_PC]
    pop     {r0-r12, lr, pc}

/*
 * The tail jumps' half in the modes with no jump paths of their own
 * (off, dedup, count, paused): a direct jump's site word gives its
 * thunk's continuation, which the mode's fixed-target path takes as a
 * call's target; a jump through a register (LITIFUT_DB_JUMP_REG) goes
 * to the slow path.  The flags as they came.
 */
    .global litifut_arm_jump_any
    .hidden litifut_arm_jump_any
    .type litifut_arm_jump_any, %function
litifut_arm_jump_any:
    mrs     r11, APSR
    SLED_OFF_START
    cmp     r9, #LITIFUT_DB_INDIRECT
    ldrhs   r10, litifut_arm_jump_paths
    ldrlo   r10, litifut_arm_jump_paths + 4
    msr     APSR_nzcvq, r11
    bx      r10

/* A tail jump through a register goes on here (LITIFUT_DB_JUMP_REG;
 * stub/call.c, the jump paths): one way per register r0-r12, 8 bytes
 * each: the jumper's lr, which its thunk pushed, back, and the jump,
 * rM as the jump left it. */
    .p2align 3
    .global litifut_arm_jump_cont
    .hidden litifut_arm_jump_cont
    .type litifut_arm_jump_cont, %function
litifut_arm_jump_cont:
    .irp r, r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12
    ldr     lr, [sp], #4
    bx      \r
    .endr
    .size litifut_arm_jump_cont, . - litifut_arm_jump_cont


/*
 * The hot path up to the site word, for both halves: the thread's state,
 * one test for "busy or no room" (then busy with this frame), the site
 * word (r9) and its address (r5), the record word (r3).
 */
    .macro HOT_PATH_START name
    mrs     r11, APSR               @ the flags: the compares below change them
\name\()_again:
#ifdef LITIFUT_SHARED
    ldr     r1, \name\()_slot
1:  ldr     r1, [pc, r1]            @ the slot's offset (a library's is in its GOT)
#else
    ldr     r1, \name\()_slot
#endif
    THREAD_POINTER                  @ (the sleds come here only once TLS is set up)
    add     r0, r0, r1
    ldm     r0, {r2, r3, r4}        @ t, record delta, page table base
    ldr     r1, [r2, #THREAD_BUSY]  @ (a thread new to this copy has a busy dummy)
    cmp     r1, #0
    streq   sp, [r2, #THREAD_BUSY]  @ not busy: busy with this frame now
    ldmibeq r2, {r6, r7}            @ cur, lim (after the busy mark: see DESIGN)
    cmpeq   r6, r7                  @ lo: room (cur < lim)
    bhs     \name\()_full           @ busy (ne and hs), or no room
    RELOAD_RA
    bic     r8, lr, #0x3fc          @ the return address's page * 1024
    ldr     r5, [r4, r8, lsr #8]    @ &sites[first site of the page]
    ldr     r9, [r5, r12]!          @ the site word; r5 = its address
    add     r3, r3, r5              @ the record word: (site id + 1) << 2
    .endm

/* Both halves' ends: busy = 0 and cur (r6, bumped) in one store, the
 * flags back, every register back, lr = the return address, pc = the
 * target (ldm interworks: Thumb targets work). */
    .macro HOT_PATH_END
    stmia   r2, {r1, r6}
    msr     APSR_nzcvq, r11
    pop     {r0-r12, lr, pc}
    .endm

/* LITIFUT_CLOCK=monotonic: the time since the thread's last event into
 * the record word (r3).  A clock_gettime system call (r0, r1, r7; every
 * other register stays) into the thread's timespec; units of 32 ns are
 * sec * 31250000 + nsec / 32, exactly ns >> 5 (trace-format.h).  A
 * delta that does not fit in 8 bits goes to the slow path (busy holds
 * this frame: it records the call).  r0, r7, r8, r10 are free
 * here; r1 must end 0 (busy, stored by HOT_PATH_END).  The slow path
 * writes the TIME record and the call after it with delta 0: retrying
 * here could take longer than a delta again, and again. */
    .macro HOT_PATH_TIME name, slow=litifut_arm_slow
    add     r1, r2, #THREAD_TIMESPEC
    mov     r0, #1                  @ CLOCK_MONOTONIC
    ldr     r7, \name\()_nr
    svc     #0
    ldm     r1, {r0, r1}            @ sec, nsec (the 32-bit kernel timespec)
    ldr     r7, \name\()_units
    lsr     r1, r1, #5
    mla     r0, r7, r0, r1          @ now, in units (Rd != Rm: ARMv5 asks)
    HOT_PATH_DELTA \slow
    .endm

/* r0 = now, in units: the delta since the thread's last event into the
 * record word (r3), or `slow` if it does not fit; r1 = 0 after. */
    .macro HOT_PATH_DELTA slow=litifut_arm_slow
    ldr     r10, [r2, #THREAD_TIME]
    mov     r1, #0
    sub     r8, r0, r10             @ the delta
    cmp     r8, #LITIFUT_REC_DELTA_LIMIT
    bhs     \slow
    str     r0, [r2, #THREAD_TIME]
    orr     r3, r3, r8, lsl #LITIFUT_REC_DELTA_SHIFT
    .endm

/* Out of line, after each hot path: busy (r1 = the mark): the slow path
 * decides.  Else no room, and busy with this frame: a time mark or a new
 * chunk (litifut_refill, which clears busy, or leaves the thread off),
 * then the hot path again. */
    .macro HOT_PATH_FULL name, clock=0
    .if \clock
\name\()_nr:
    .word   __NR_clock_gettime
\name\()_units:
    .word   1000000000 >> 5
    .endif
\name\()_full:
    cmp     r1, #0
    bne     litifut_arm_slow
    mov     r0, r2                  @ arg 0: the thread's state
    mov     r10, r12                @ (C may change r12)
    mov     r4, sp
    bic     sp, sp, #7
    bl      litifut_refill
    mov     sp, r4
    mov     r12, r10
    ldr     lr, [sp, #FRAME_LR]     @ the return address, which bl took
    b       \name\()_again
#ifdef LITIFUT_SHARED
\name\()_slot:
    .word   litifut_copy + COPY_TLS_OFFSET - (1b + 8)
#else
\name\()_slot:
    .word   litifut_tls_slot(tpoff)
#endif
    .endm

    .global litifut_arm_common
    .hidden litifut_arm_common
    .type litifut_arm_common, %function
litifut_arm_common:                 @ a call with a fixed target
    HOT_PATH_START .Lfixed
    add     r9, r5, r9              @ the target: relative to the site word
    str     r9, [sp, #FRAME_PC]
    str     r3, [r6], #4
    HOT_PATH_END
    HOT_PATH_FULL .Lfixed

/*
 * A call through a register's record (r3 the record word, r9 the
 * target, r6 cur): one word if the thread's target cache has the target,
 * else two and the cache updated.  Clock marks key the cache by target
 * (its entry goes into the word's top bits); the per-event clocks, whose
 * delta is there, by site.
 */
    .macro RECORD_REG_BY_TARGET
    and     r8, r9, #4 * (LITIFUT_TARGET_CACHE - 1)  @ 4 * the target's cache entry
    add     r10, r2, r8
    ldr     r10, [r10, #THREAD_CACHE]
    cmp     r10, r9
    orreq   r3, r3, r8, lsl #22     @ the entry, in bits 31..24 (clock marks)
    orreq   r3, r3, #LITIFUT_REC_CALL_CACHED
    streq   r3, [r6], #4
    orrne   r3, r3, #LITIFUT_REC_CALL_TARGET
    stmiane r6!, {r3, r9}
    addne   r10, r2, r8
    strne   r9, [r10, #THREAD_CACHE]
    .endm

    .macro RECORD_REG_BY_SITE
    and     r8, r3, #4 * (LITIFUT_TARGET_CACHE - 1)  @ 4 * the site's cache entry
    add     r8, r2, r8
    ldr     r10, [r8, #THREAD_CACHE]
    cmp     r10, r9
    orreq   r3, r3, #LITIFUT_REC_CALL_CACHED
    streq   r3, [r6], #4
    orrne   r3, r3, #LITIFUT_REC_CALL_TARGET
    stmiane r6!, {r3, r9}
    strne   r9, [r8, #THREAD_CACHE]
    .endm

    .global litifut_arm_common_reg
    .hidden litifut_arm_common_reg
    .type litifut_arm_common_reg, %function
litifut_arm_common_reg:             @ a call through a register
    HOT_PATH_START .Lreg
    ldr     r9, [sp, r9]            @ rM as the call left it
    str     r9, [sp, #FRAME_PC]
    RECORD_REG_BY_TARGET
    HOT_PATH_END
    HOT_PATH_FULL .Lreg

/* LITIFUT_CLOCK=counter: as HOT_PATH_TIME with the generic timer's
 * virtual count (tracer-arch.h), units of one tick. */
    .macro HOT_PATH_COUNTER name, slow=litifut_arm_slow
    mrrc    p15, 1, r0, r1, c14     @ CNTVCT
    HOT_PATH_DELTA \slow
    .endm

/* Both halves with a clock read per call (LITIFUT_CLOCK=monotonic or
 * counter: \time is HOT_PATH_TIME or HOT_PATH_COUNTER); the target cache
 * is keyed by site, as the delta has bits 31..24 (trace-format.h). */
    .macro CLOCK_HOT_PATHS suffix, time, fixed, reg, literals
    .global litifut_arm_common_\suffix
    .hidden litifut_arm_common_\suffix
    .type litifut_arm_common_\suffix, %function
litifut_arm_common_\suffix:
    HOT_PATH_START \fixed
    \time \fixed
    add     r9, r5, r9
    str     r9, [sp, #FRAME_PC]
    str     r3, [r6], #4
    HOT_PATH_END
    HOT_PATH_FULL \fixed, \literals

    .global litifut_arm_common_reg_\suffix
    .hidden litifut_arm_common_reg_\suffix
    .type litifut_arm_common_reg_\suffix, %function
litifut_arm_common_reg_\suffix:
    HOT_PATH_START \reg
    \time \reg
    ldr     r9, [sp, r9]
    str     r9, [sp, #FRAME_PC]
    RECORD_REG_BY_SITE
    HOT_PATH_END
    HOT_PATH_FULL \reg, \literals
    .endm

    CLOCK_HOT_PATHS clock, HOT_PATH_TIME, .Lfixedclk, .Lregclk, 1
    CLOCK_HOT_PATHS counter, HOT_PATH_COUNTER, .Lfixedcnt, .Lregcnt, 0

/*
 * LITIFUT_RETURNS: the same hot paths, and the call is hooked (stub/
 * returns.c): its return address and stack pointer onto the thread's
 * shadow stack, the clock's return trampoline as the callee's return
 * address.  Anything unusual goes to the slow path, which records and
 * hooks the call itself (busy holds this frame): no shadow stack yet or
 * a full one (top == end; both 0 before the thread's first hooked call),
 * or the top entry's frame gone (its sp at or below this call's: a
 * longjmp or an exception left it; the slow path writes its return
 * first).  Entry 0 is a sentinel whose sp is above any, so the top
 * entry can be read without asking whether there is one.  The target
 * is known by then (r9, in the frame): r4 (the top) and r5 (sp at the
 * call) are free and outlive the clock's registers; r7 too.
 */
    .macro HOOK_CHECK
    ldrd    r4, r5, [r2, #THREAD_SHADOW_TOP]    @ top (next free), end
    cmp     r4, r5
    bhs     litifut_arm_slow        @ none yet, or full
    ldr     r7, [r4, #-8]           @ the top entry's sp
    add     r5, sp, #FRAME_SIZE     @ sp at the call (r4, r5 outlive the clock)
    cmp     r5, r7
    bhs     litifut_arm_slow        @ its frame is gone
    .endm

/* After the record: the entry pushed, the callee's return address the
 * trampoline (lr is the real one: RELOAD_RA / the call's). */
    .macro HOOK name
    stmia   r4!, {r5, lr}           @ {sp at the call, ra}
    str     r4, [r2, #THREAD_SHADOW_TOP]
    ldr     r5, \name\()_tramp
9:  add     r5, pc, r5
    str     r5, [sp, #FRAME_LR]
    .endm

    .macro HOOK_REF name, tramp
\name\()_tramp:
    .word   \tramp - (9b + 8)
    .endm

    .macro RETURNS_HOT_PATHS suffix, time, fixed, reg, literals, tramp
    .global litifut_arm_ret_\suffix
    .hidden litifut_arm_ret_\suffix
    .type litifut_arm_ret_\suffix, %function
litifut_arm_ret_\suffix:
    HOT_PATH_START \fixed
    add     r9, r5, r9
    str     r9, [sp, #FRAME_PC]
    HOOK_CHECK
    \time \fixed
    str     r3, [r6], #4
    HOOK \fixed
    HOT_PATH_END
    HOOK_REF \fixed, \tramp
    HOT_PATH_FULL \fixed, \literals

    .global litifut_arm_ret_reg_\suffix
    .hidden litifut_arm_ret_reg_\suffix
    .type litifut_arm_ret_reg_\suffix, %function
litifut_arm_ret_reg_\suffix:
    HOT_PATH_START \reg
    ldr     r9, [sp, r9]
    str     r9, [sp, #FRAME_PC]
    HOOK_CHECK
    \time \reg
    .ifc \suffix, marks
    RECORD_REG_BY_TARGET
    .else
    RECORD_REG_BY_SITE
    .endif
    HOOK \reg
    HOT_PATH_END
    HOOK_REF \reg, \tramp
    HOT_PATH_FULL \reg, \literals
    .endm

    .macro NO_TIME name
    mov     r1, #0                  @ (busy: cleared by HOT_PATH_END)
    .endm

    RETURNS_HOT_PATHS marks, NO_TIME, .Lrfixed, .Lrreg, 0, litifut_return_marks
    RETURNS_HOT_PATHS clock, HOT_PATH_TIME, .Lrfixedclk, .Lrregclk, 1, litifut_return_clock
    RETURNS_HOT_PATHS counter, HOT_PATH_COUNTER, .Lrfixedcnt, .Lrregcnt, 0, litifut_return_counter

/*
 * A tail jump (the jump half: its thunk sent it here with lr = the jump
 * + 4, or the bx + 2 in Thumb code, and the jumper's lr pushed, sled.h)
 * is recorded as a call is, but not hooked: the callee returns where
 * the jumper would have, through the jumper's hook if it had one
 * (LITIFUT_RETURNS).  Frames that are gone go to the slow path first,
 * which writes their returns: the top entry's sp below sp at the jump
 * (at it: the jumper's own frame, live until its callee returns; no
 * shadow stack, as without exact returns: none).  A direct jump's
 * target is its thunk's continuation, which pops the jumper's lr and
 * jumps on; one through a register (its site word rM's, with
 * LITIFUT_DB_JUMP_REG) is recorded as a call through rM, and goes on
 * through rM's way in litifut_arm_jump_cont.  These paths serve the
 * full modes with and without exact returns (sleds.c); the others go
 * through litifut_arm_jump_any.  The frame's pc slot keeps the entry's
 * pc until the record is sure.
 */
    .macro JUMP_CHECK
    ldr     r4, [r2, #THREAD_SHADOW_TOP]
    cmp     r4, #4096               @ (no shadow stack yet: nothing can be gone)
    ldrhs   r7, [r4, #-8]           @ the top entry's sp
    addhs   r5, sp, #FRAME_SIZE + JUMP_PUSHED   @ sp at the jump
    cmphs   r5, r7
    bhi     litifut_arm_slow        @ its frame is gone
    .endm

    .macro JUMP_HOT_PATH suffix, time, name, literals
    .global litifut_arm_jump_\suffix
    .hidden litifut_arm_jump_\suffix
    .type litifut_arm_jump_\suffix, %function
litifut_arm_jump_\suffix:
    HOT_PATH_START \name
    cmp     r9, #LITIFUT_DB_INDIRECT
    blo     \name\()_reg
    add     r9, r5, r9              @ the continuation
    JUMP_CHECK
    \time \name
    str     r9, [sp, #FRAME_PC]
    str     r3, [r6], #4
    HOT_PATH_END
\name\()_reg:                      @ through a register: its word rM's | LITIFUT_DB_JUMP_REG
    bic     r9, r9, #LITIFUT_DB_JUMP_REG
    JUMP_CHECK
    mov     r5, r9                  @ rM's frame slot
    ldr     r9, [sp, r9]            @ the target: rM as the jump left it
    \time \name
    ldr     r4, \name\()_cont
\name\()_cpc:
    add     r4, pc, r4              @ litifut_arm_jump_cont
    add     r4, r4, r5, lsl #1      @ rM's way on (8 bytes each)
    str     r4, [sp, #FRAME_PC]
    .ifc \suffix, marks
    RECORD_REG_BY_TARGET
    .else
    RECORD_REG_BY_SITE
    .endif
    HOT_PATH_END
\name\()_cont:
    .word   litifut_arm_jump_cont - (\name\()_cpc + 8)
    HOT_PATH_FULL \name, \literals
    .endm

    JUMP_HOT_PATH marks, NO_TIME, .Ljump, 0
    JUMP_HOT_PATH clock, HOT_PATH_TIME, .Ljumpclk, 1
    JUMP_HOT_PATH counter, HOT_PATH_COUNTER, .Ljumpcnt, 0

/* The slow path; also where the sled sends every call until this
 * copy is ready (sleds.c). */
/* LITIFUT_ARGS (stub/args.c): a selected call's site word sends it
 * here from its hot path, as if to its callee (lr as the call left it,
 * or the return trampoline): a sled entry's frame and "4k" ARGS_K4, on
 * to the slow path, which records what the call was given and goes on
 * to the callee. */
    .global litifut_args_entry
    .hidden litifut_args_entry
    .type litifut_args_entry, %function
litifut_args_entry:
    push    {r0-r12, lr, pc}
    mvn     r12, #0                 @ ARGS_K4
    b       litifut_arm_start
    .size litifut_args_entry, . - litifut_args_entry

#ifdef __ARM_PCS_VFP
/* litifut_fp_registers(uint64_t d[8]): d0-d7 as they are (args.c reads
 * them where no code has touched them since the call or the return). */
    .global litifut_fp_registers
    .hidden litifut_fp_registers
    .type litifut_fp_registers, %function
    .fpu    vfp
litifut_fp_registers:
    vstmia  r0, {d0-d7}
    bx      lr
    .size litifut_fp_registers, . - litifut_fp_registers
#endif

    .global litifut_arm_start
    .hidden litifut_arm_start
litifut_arm_start:
    mrs     r11, APSR
litifut_arm_slow:
    mov     r0, sp                  @ arg 0: struct arch_frame *
    mov     r1, r12                 @ arg 1: 4k
    mov     r4, sp
    bic     sp, sp, #7              @ AAPCS: 8-byte aligned sp for C
    bl      litifut_slow            @ r0 = where the call must go
    mov     sp, r4
    str     r0, [sp, #FRAME_PC]
    msr     APSR_nzcvq, r11
    pop     {r0-r12, lr, pc}

/*
 * LITIFUT_MODE dedup and count (stub/pairs.c): the site's pairs (this
 * copy's pair pointers, at the site word's address + pair_delta: the
 * newest, each linked to the one before); if one has the call's target,
 * the call is known: count mode adds one to its count, atomically
 * (threads share it); then on to the target.  Else (a target new to the
 * site) the slow path makes or finds the pair.  No thread state: no TLS, no busy mark, nothing written but the
 * count.
 */
#ifdef LITIFUT_ARM_V6K
    .macro COUNT_ONE                @ [r10] += 1; r0, r1, flags
    .arch   armv6k
3:  ldrex   r0, [r10]
    add     r0, r0, #1
    strex   r1, r0, [r10]
    cmp     r1, #0
    bne     3b
    .arch   armv5te
    .endm
#else
    .macro COUNT_ONE                @ [r10] += 1; r0-r3, r12, lr, flags
3:  ldr     r0, [r10]
    add     r1, r0, #1
    mov     r2, r10
    mvn     r3, #0xf000             @ 0xffff0fff
    mov     lr, pc
    sub     pc, r3, #63             @ __kuser_cmpxchg at 0xffff0fc0: C set if stored
    bcc     3b
    .endm
#endif

/* The page table (this copy's, not TLS's) and the site word (r9 at
 * r5), for the mode and paused paths, far from the sled: their own
 * PC-relative word of litifut_copy.pages (OFF_END). */
    .macro OFF_START name
    ldr     r4, \name\()_pages
1:  ldr     r4, [pc, r4]            @ litifut_copy.pages
    bic     r8, lr, #0x3fc
    ldr     r5, [r4, r8, lsr #8]
    ldr     r9, [r5, r12]!          @ the site word
    .endm
    .macro OFF_END name
\name\()_pages:
    .word   litifut_copy + COPY_PAGES - (1b + 8)
    .endm

/* The start of the mode and paused paths: the flags kept (they compare),
 * the site word (r9 at r5), the target in r9. */
    .macro SITE_TARGET name, reg
    .global litifut_arm_\name
    .hidden litifut_arm_\name
litifut_arm_\name:
    mrs     r11, APSR
    OFF_START .L\name
    .if \reg
    ldr     r9, [sp, r9]            @ rM as the call left it
    .else
    add     r9, r5, r9              @ the fixed target
    .endif
    .endm

/* The end of the mode and paused paths: the flags and every register
 * back, on to the target; the PC-relative word of litifut_copy's
 * `field` that their label 2 loads. */
    .macro SITE_DONE name, field
    msr     APSR_nzcvq, r11
    pop     {r0-r12, lr, pc}
    OFF_END .L\name
.L\name\()_field:
    .word   litifut_copy + \field - (2b + 8)
    .endm

    .macro MODE_PATH name, reg, count
    SITE_TARGET \name, \reg
    ldr     r10, .L\name\()_field
2:  ldr     r10, [pc, r10]          @ litifut_copy.pair_delta
    ldr     r10, [r5, r10]          @ the site's newest pair
    .if \reg
5:  ldr     r8, [r10, #LITIFUT_PAIR_TARGET]
    cmp     r8, r9
    beq     6f
    ldr     r10, [r10, #LITIFUT_PAIR_NEXT]  @ the site's pair before
    cmp     r10, #0
    bne     5b
    b       litifut_arm_slow        @ a target new to the site
6:
    .else
    ldr     r8, [r10, #LITIFUT_PAIR_TARGET]     @ (a fixed target: one pair)
    cmp     r8, r9
    bne     litifut_arm_slow
    .endif
    str     r9, [sp, #FRAME_PC]
    .if \count
    add     r10, r10, #LITIFUT_PAIR_COUNT
    COUNT_ONE
    .endif
    SITE_DONE \name, COPY_PAIR_DELTA
    .endm

/*
 * Recording off while the process traces (LITIFUT_SIGNAL, LITIFUT_RECORD,
 * LITIFUT_CONTROL, ...; stub/control.c): the "off" code that also
 * counts the call in the process block (`unrecorded`, atomically), but
 * every 2^PAUSED_POLL_BITS-th call goes to the slow path instead, which
 * counts it and polls the control file.
 */
    .macro PAUSED_PATH name, reg
    SITE_TARGET \name, \reg
    str     r9, [sp, #FRAME_PC]
    ldr     r10, .L\name\()_field
2:  ldr     r10, [pc, r10]          @ litifut_copy.proc
    add     r10, r10, #PROCESS_UNRECORDED
    ldr     r0, [r10]
    mvn     r0, r0
    lsls    r0, r0, #32 - PAUSED_POLL_BITS  @ eq: the low bits all set: the poll's turn
    beq     litifut_arm_slow
    COUNT_ONE
    SITE_DONE \name, COPY_PROC
    .endm

    PAUSED_PATH paused, 0
    PAUSED_PATH paused_reg, 1

    MODE_PATH dedup, 0, 0
    MODE_PATH dedup_reg, 1, 0
    MODE_PATH count, 0, 1
    MODE_PATH count_reg, 1, 1

/*
 * backtrace() (stub/returns.c): the program's calls of it come here, and
 * its frames are the ones it would see untraced.  The unwinder steps
 * over this frame with litifut_backtrace_personality (unwind.c), which
 * knows its layout.
 */
    .text
    .global __wrap_backtrace
    .hidden __wrap_backtrace
    .type __wrap_backtrace, %function
__wrap_backtrace:
    .fnstart
    .personality litifut_backtrace_personality
    push    {r4, r5, r6, lr}        @ (the personality routine's layout)
    mov     r4, r0
    bl      __real_backtrace        @ (weak; the wrapper asks ld for it in a static link)
    mov     r1, r0
    mov     r0, r4
    ldr     r2, .Lwrap_lo
1:  add     r2, pc, r2              @ this function's code
    add     r3, r2, #.Lwrap_end - __wrap_backtrace
    bl      returns_backtrace_filter
    pop     {r4, r5, r6, pc}
.Lwrap_lo:
    .word   __wrap_backtrace - (1b + 8)
.Lwrap_end:
    .fnend
    .size __wrap_backtrace, . - __wrap_backtrace
    .weak __real_backtrace

/*
 * LITIFUT_RETURNS: a hooked call's callee returns here (stub/returns.c),
 * with sp as at the call.  litifut_return records the return and gives
 * the real return address (Thumb bit included: bx).  Every register
 * comes back as the callee left it but lr (which the call changed
 * anyway), not only the return values: GCC's -fipa-ra keeps values in
 * call-clobbered registers across calls of local functions that do not
 * clobber them.  The tracer's C code touches no VFP register
 * (-mgeneral-regs-only).
 */
    .text
    .type litifut_return_unwind, %function
litifut_return_unwind:
    .fnstart                        @ an unwinder finds the real caller (unwind.c)
    .personality litifut_return_personality
    nop                             @ unwinders look up the return address - 2
    .global litifut_trampolines
    .hidden litifut_trampolines
litifut_trampolines:                @ every trampoline, to litifut_trampolines_end
    .global litifut_return_trampoline
    .hidden litifut_return_trampoline
    .type litifut_return_trampoline, %function
litifut_return_trampoline:
    push    {r0-r5, r12, lr}        @ 32 bytes
    mrs     r5, APSR
    add     r0, sp, #32             @ arg: sp as the callee returned it
    mov     r4, sp
    bic     sp, sp, #7
    bl      litifut_return
    mov     sp, r4
    msr     APSR_nzcvq, r5
    str     r0, [sp, #28]           @ the real return address, into lr's slot
    pop     {r0-r5, r12, lr}
    bx      lr
    .size litifut_return_trampoline, . - litifut_return_trampoline

/*
 * The hot paths' trampolines, one per clock (the hooked call's hot path
 * chose it): the return recorded in assembly, as a call is.  The
 * thread's state through this copy's TLS slot; not busy (then busy with
 * this frame) and room in the chunk; the shadow stack's top entry must
 * be this very frame's (sp as the callee returned it: no frame left by
 * a jump in between); the RETURN word with its time delta; the entry
 * popped, busy clear, every register back but lr, on to the real
 * return address (bx interworks).  Anything else goes to the C
 * trampoline above, which does it all (busy back to 0 first if this
 * frame had marked it).
 */
    .macro RETURN_FAST name, time, literals
    .global \name
    .hidden \name
    .type \name, %function
\name:
    push    {r0-r8, r10, r11, lr}   @ 48 bytes; lr's slot: the real return address
    mrs     r11, APSR
#ifdef LITIFUT_SHARED
    ldr     r1, \name\()_slot
1:  ldr     r1, [pc, r1]            @ the slot's offset (a library's is in its GOT)
#else
    ldr     r1, \name\()_slot
#endif
    THREAD_POINTER
    add     r0, r0, r1
    ldr     r2, [r0, #TLS_THREAD]
    ldr     r1, [r2, #THREAD_BUSY]
    cmp     r1, #0
    streq   sp, [r2, #THREAD_BUSY]
    ldmibeq r2, {r6, r7}            @ cur, lim
    cmpeq   r6, r7
    bhs     \name\()_slow
    ldr     r4, [r2, #THREAD_SHADOW_TOP]
    add     r5, sp, #48             @ sp as the callee returned
    cmp     r4, #4096               @ (no shadow stack: not this thread's hook)
    ldrhs   r7, [r4, #-8]           @ the top entry's sp
    cmphs   r7, r5
    bne     \name\()_slow
    ldr     r5, [r4, #-4]           @ its return address
    sub     r4, r4, #8              @ the entry popped
    mov     r3, #LITIFUT_REC_RETURN_WORD
    \time   \name, \name\()_slow
    str     r3, [r6], #4
    str     r4, [r2, #THREAD_SHADOW_TOP]
    stmia   r2, {r1, r6}            @ busy 0, cur
    str     r5, [sp, #44]           @ into lr's slot
    msr     APSR_nzcvq, r11
    pop     {r0-r8, r10, r11, lr}
    bx      lr
\name\()_slow:
    cmp     r1, #0                  @ busy was this frame's: clear it again
    streq   r1, [r2, #THREAD_BUSY]
    msr     APSR_nzcvq, r11
    pop     {r0-r8, r10, r11, lr}
    b       litifut_return_trampoline
    .if \literals
\name\()_nr:
    .word   __NR_clock_gettime
\name\()_units:
    .word   1000000000 >> 5
    .endif
#ifdef LITIFUT_SHARED
\name\()_slot:
    .word   litifut_copy + COPY_TLS_OFFSET - (1b + 8)
#else
\name\()_slot:
    .word   litifut_tls_slot(tpoff)
#endif
    .size \name, . - \name
    .endm

    .macro NO_RETURN_TIME name, slow
    mov     r1, #0
    .endm

    RETURN_FAST litifut_return_marks, NO_RETURN_TIME, 0
    RETURN_FAST litifut_return_clock, HOT_PATH_TIME, 1
    RETURN_FAST litifut_return_counter, HOT_PATH_COUNTER, 0
    .global litifut_trampolines_end
    .hidden litifut_trampolines_end
litifut_trampolines_end:
    .fnend
    .size litifut_return_unwind, . - litifut_return_unwind

/*
 * Entries with no frame of the tracer's (stub/entries.c litifut_entry):
 * main, which __wrap___libc_start_main gives the C library's start as
 * litifut_main_entry, and the constructors and destructors whose array
 * words the rewriter points at thunks of their own (ip = the function,
 * then a b here: src/rewrite.c, rewrite-arm.c).  The sled's frame; the
 * return address hooked in it; every register back and on to the
 * function (pop interworks) with sp as its caller left it.
 */
    .macro ENTRY_PATH name, how
    .text
    .global \name
    .hidden \name
    .type \name, %function
\name:
    push    {r0-r12, lr, pc}
    mrs     r11, APSR
    mov     r0, sp                  @ arg 0: struct arch_frame *
    mov     r1, #\how
    mov     r4, sp
    bic     sp, sp, #7
    bl      litifut_entry           @ r0 = the function
    mov     sp, r4
    str     r0, [sp, #FRAME_PC]
    msr     APSR_nzcvq, r11
    pop     {r0-r12, lr, pc}
    .size \name, . - \name
    .endm

    ENTRY_PATH litifut_main_entry, LITIFUT_ENTRY_START
    ENTRY_PATH litifut_init_entry, LITIFUT_ENTRY_INIT
    ENTRY_PATH litifut_fini_entry, LITIFUT_ENTRY_FINI

/* The start of __wrap_NAME, which goes on to __real_NAME (weak: only
 * what the program uses is linked in). */
    .macro WRAPPER_START name
    .text
    .global __wrap_\name
    .hidden __wrap_\name
    .type __wrap_\name, %function
    .weak __real_\name
__wrap_\name:
    .endm

/*
 * __wrap_vfork, __wrap_clone, __wrap___clone_internal: the wrapper
 * links the program's calls of these (and static glibc's) here with
 * ld --wrap.  Each tells the tracer (litifut_before_spawn: a child
 * sharing this memory must not record), then goes on to the real
 * function with r0-r3, r12, lr, sp and the stacked arguments as the
 * caller left them, so vfork returns straight to the caller.
 */
    .macro SPAWN_WRAPPER name
    WRAPPER_START \name
    push    {r0, r1, r2, r3, r12, lr}   @ 24 bytes: sp stays 8-byte aligned
    add     r0, sp, #24                 @ arg 0: the caller's sp
    mov     r1, lr                      @ arg 1: the return address (a trampoline if hooked)
    bl      litifut_before_spawn
    str     r0, [sp, #20]               @ the real one: vfork's child returns through it
    pop     {r0, r1, r2, r3, r12, lr}
    b       __real_\name
    .size __wrap_\name, . - __wrap_\name
    .endm

    SPAWN_WRAPPER vfork
    SPAWN_WRAPPER clone
    SPAWN_WRAPPER __clone_internal

/*
 * __wrap_setjmp, __wrap__setjmp, __wrap___sigsetjmp, __wrap_sigsetjmp,
 * __wrap_getcontext:
 * the program's calls of these come here (ld --wrap) so that the tracer
 * knows them by their target: they return twice, so their calls must
 * not be hooked for LITIFUT_RETURNS (stub/returns.c): setjmp keeps its
 * return address for longjmp, getcontext for setcontext.  The slow path does not hook them; a hot path does (it
 * has no time to look), so a return address that is one of this
 * copy's trampolines goes back to the real one here
 * (litifut_unhook: the entry stays, as a call not hooked).  Every
 * register as it came but ip.
 */
    .macro TWICE_WRAPPER name
    WRAPPER_START \name
    ldr     r12, 1f
2:  add     r12, pc, r12            @ litifut_trampolines
    sub     r12, lr, r12
    cmp     r12, #litifut_trampolines_end - litifut_trampolines
    bhs     __real_\name            @ not hooked
    push    {r0, r1, r2, r3, r12, lr}
    mov     r0, lr
    bl      litifut_unhook
    str     r0, [sp, #20]           @ the real return address, into lr's slot
    pop     {r0, r1, r2, r3, r12, lr}
    b       __real_\name
1:  .word   litifut_trampolines - (2b + 8)
    .size __wrap_\name, . - __wrap_\name
    .endm

/*
 * __wrap___libc_start_main, __wrap___uClibc_main: the start files' call
 * (main, argc, argv, ...): main into litifut_main, litifut_main_entry
 * in its place, every other argument as it came (stub/entries.c).
 */
    .macro START_WRAPPER name
    WRAPPER_START \name
    ldr     ip, 1f
2:  add     ip, pc, ip
    str     r0, [ip]                @ litifut_main
    ldr     r0, 3f
4:  add     r0, pc, r0              @ litifut_main_entry
    b       __real_\name
1:  .word   litifut_main - (2b + 8)
3:  .word   litifut_main_entry - (4b + 8)
    .size __wrap_\name, . - __wrap_\name
    .endm

    START_WRAPPER __libc_start_main
    START_WRAPPER __uClibc_main

    TWICE_WRAPPER setjmp
    TWICE_WRAPPER _setjmp
    TWICE_WRAPPER __sigsetjmp
    TWICE_WRAPPER sigsetjmp
    TWICE_WRAPPER getcontext

/*
 * void litifut_calibrate(uint32_t rounds, uint32_t *scratch): `rounds`
 * rounds of what the hot path executes to record a call (the sled's
 * push, the thread pointer, its loads, tests and record store, the pop
 * and an indirect jump), on `scratch` (its own address, then 0, 0, 0,
 * 0, 0, 1, 0) instead of the thread's state: LITIFUT_BUDGET times it to
 * reckon a call's cost on this machine (stub/budget.c).
 */
    .text
    .p2align 2
    .global litifut_calibrate
    .hidden litifut_calibrate
    .type litifut_calibrate, %function
litifut_calibrate:
    push    {r4-r11, lr}
    adr     r10, 3f                 @ the "target" (kept in the frame below)
1:  push    {r0-r12, lr}            @ the sled's frame
    mov     r12, #4
    b       2f
2:  mrs     r11, APSR
    ldr     r2, [r1]
    THREAD_POINTER                  @ (its result unused)
    mov     r0, r2
    ldm     r0, {r2, r3, r4}        @ scratch, 0, 0
    ldr     r5, [r2, #16]           @ "busy": 0
    cmp     r5, #0
    streq   sp, [r2, #16]
    ldmibeq r2, {r6, r7}            @ 0, 0
    cmpeq   r6, r7
    bhi     3f                      @ (not taken, as the hot path's bhs)
    RELOAD_RA
    bic     r8, lr, #0x3fc
    ldr     r5, [r2, #20]
    ldr     r9, [r2, #24]
    add     r3, r3, r5
    str     r3, [r2, #28]           @ the "record"
    mov     r1, #0
    str     r1, [r2, #16]           @ not busy
    msr     APSR_nzcvq, r11
    pop     {r0-r12, lr}
    mov     pc, r10                 @ the indirect jump
3:  subs    r0, r0, #1
    bne     1b
    pop     {r4-r11, pc}
    .size litifut_calibrate, . - litifut_calibrate

    .section .note.GNU-stack, "", %progbits
