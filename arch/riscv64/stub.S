/*
 * RISC-V tracer entry: the sled that rewritten calls jump to, the
 * slow-path entry that records a call (stub/call.c) and goes on to its
 * target, the return trampoline and the wrappers (vfork, clone,
 * setjmp, getcontext, the C library's start; backtrace: unwind.c).
 * Geometry in sled.h; struct offsets in stub/layout.h.
 *
 * At entry k (sled.h): ra = the call's return address, t1 = 4k (t3 in
 * the third half, calls through t1), every other register and sp as
 * the call left them.  Only t1 (t3) may change before the callee runs
 * (the register PLT entries clobber); every other register is saved
 * before use and restored.  This first runtime
 * has no assembly hot path: every call goes to litifut_slow(frame, 4k)
 * in C, whose frame (struct arch_frame) holds every register, and which
 * returns the target (and may have hooked ra in the frame: exact
 * returns).  sleds.c leaves the entries there in every mode.
 *
 * Nothing is ever stored below sp (the psABI has no red zone: a signal
 * may come at any instruction).  The C code gets gp as the program set
 * it, and uses it not (-mno-relax: no gp-relative access).
 */
#include "sled.h"
#include "layout.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

/* Every register of the frame at sp (struct arch_frame) as it came but
 * t1 (4k, in x[0] and x[6]) and sp (x[2]: sp + FRAME_SIZE). */
    .macro SAVE_ALL
    sd      t1, FRAME_X(0)(sp)
    .irp n, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
    sd      x\n, FRAME_X(\n)(sp)
    .endr
    addi    t1, sp, FRAME_SIZE
    sd      t1, FRAME_X(2)(sp)
    .endm
/* ... and back, but t1 (the target, set after) and sp. */
    .macro RESTORE_ALL
    .irp n, 1, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
    ld      x\n, FRAME_X(\n)(sp)
    .endr
    .endm

    .section .text.litifut_sled, "ax", %progbits
    /* A page of its own at the start: the code that rewrites the sled's
     * branches (sleds.c) must not share a page with it (qemu-user
     * retranslates a page's code after every store into it). */
    .p2align 12
    .global litifut_sled
    .hidden litifut_sled
    .type litifut_sled, %function
litifut_sled:
    /* SLED_ENTRIES for calls with a fixed target, then as many for calls
     * through a register; 8 bytes each (no compressed forms) */
    .option push
    .option norvc
    .rept 2
    .set k, 0
    .rept SLED_ENTRIES
    addi    t1, zero, 4 * k
    j       litifut_rv_start
    .set k, k + 1
    .endr
    .endr
    .set k, 0                           /* calls through t1: 4k in t3 */
    .rept SLED_ENTRIES
    addi    t3, zero, 4 * k
    j       litifut_rv_start_t1
    .set k, k + 1
    .endr
    .option pop
    .size litifut_sled, . - litifut_sled
    .global litifut_sled_end
    .hidden litifut_sled_end
litifut_sled_end:
    /* The far sleds' way in (far-sled.S: their relays jump here with t2
     * pushed): per half, popped and on as the half's entries go. */
    .global litifut_sled_far
    .hidden litifut_sled_far
    .type litifut_sled_far, %function
litifut_sled_far:
    .option push
    .option norvc
    .rept 2
    ld      t2, 0(sp)
    addi    sp, sp, 16
    j       litifut_rv_start
    nop                                 /* (FAR_ENTRY_SIZE) */
    .endr
    ld      t2, 0(sp)
    addi    sp, sp, 16
    j       litifut_rv_start_t1
    nop
    .option pop
    .size litifut_sled_far, . - litifut_sled_far

/* What the sled runs, to the trampolines' end, is in the sled's
 * section: litifut-emu knows a traced call's way to its callee by it. */

/* LITIFUT_ARGS (stub/args.c): a selected call's site word sends it
 * here, as if to its callee (ra as the call left it, or the return
 * trampoline): "4k" ARGS_K4, on to the slow path, which records what
 * the call was given and goes on to the callee. */
    .p2align 2
    .global litifut_args_entry
    .hidden litifut_args_entry
    .type litifut_args_entry, %function
litifut_args_entry:
    addi    t1, zero, -1                /* ARGS_K4 */
    j       litifut_rv_start
    .size litifut_args_entry, . - litifut_args_entry

/* litifut_fp_registers(uint64_t d[8]): fa0-fa7 as they are (args.c reads
 * them where no code has touched them since the call or the return). */
    .global litifut_fp_registers
    .hidden litifut_fp_registers
    .type litifut_fp_registers, %function
litifut_fp_registers:
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7
    fsd     fa\n, 8 * \n(a0)
    .endr
    ret
    .size litifut_fp_registers, . - litifut_fp_registers

    .p2align 2
    .global litifut_rv_start
    .hidden litifut_rv_start
    .type litifut_rv_start, %function
litifut_rv_start:
    addi    sp, sp, -FRAME_SIZE
    SAVE_ALL
    mv      a0, sp                      /* arg 0: struct arch_frame * */
    lw      a1, FRAME_X(0)(sp)          /* arg 1: 4k (a uint32_t: sign-extended, as the ABI) */
    call    litifut_slow                /* a0 = where the call must go */
    mv      t1, a0
    RESTORE_ALL                         /* (ra: the frame's, hooked or not) */
    addi    sp, sp, FRAME_SIZE
    jr      t1
    .size litifut_rv_start, . - litifut_rv_start

/* The third half's (a call through t1, 4k in t3): the same, but for t3
 * (meaningless at a call: sled.h), which takes the target, and t1,
 * which comes back as the call left it. */
    .p2align 2
    .global litifut_rv_start_t1
    .hidden litifut_rv_start_t1
    .type litifut_rv_start_t1, %function
litifut_rv_start_t1:
    addi    sp, sp, -FRAME_SIZE
    sd      t3, FRAME_X(0)(sp)
    .irp n, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
    sd      x\n, FRAME_X(\n)(sp)
    .endr
    addi    t3, sp, FRAME_SIZE
    sd      t3, FRAME_X(2)(sp)
    mv      a0, sp
    lw      a1, FRAME_X(0)(sp)
    call    litifut_slow
    mv      t3, a0
    .irp n, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 29, 30, 31
    ld      x\n, FRAME_X(\n)(sp)
    .endr
    addi    sp, sp, FRAME_SIZE
    jr      t3
    .size litifut_rv_start_t1, . - litifut_rv_start_t1

/*
 * The return trampoline: a call hooked for exact returns (stub/
 * returns.c) returns here, with sp as at the call.  litifut_return(sp)
 * records the return and gives the real return address.  Every
 * register is as the callee left it but ra: t0-t6 and a0-a7 are saved
 * (a0, a1: the return value; the others as a caller may expect of a
 * callee it knows), s0-s11 are the C code's to keep; fa0/fa1 the C
 * code leaves alone.
 *
 * Unwinders: the trampoline's FDE says the frame is empty (CFA = sp)
 * with ra unchanged, and its personality routine (unwind.c) puts the
 * real return address into ra's location, the hooked callee's saved
 * ra (the callee never returns normally after an exception passed
 * it).  The `nop` before: unwinders look up the return address - 1.
 */
    .p2align 2
    .type litifut_return_unwind, %function
litifut_return_unwind:
    .cfi_startproc
    .cfi_personality 0x9b, litifut_return_personality_ref
    .cfi_def_cfa sp, 0
    .cfi_same_value ra
    nop
    .global litifut_trampolines
    .hidden litifut_trampolines
litifut_trampolines:                    /* every trampoline, to litifut_trampolines_end */
    .global litifut_return_trampoline
    .hidden litifut_return_trampoline
    .type litifut_return_trampoline, %function
litifut_return_trampoline:
    addi    sp, sp, -128
    sd      t0, 0(sp)
    sd      t1, 8(sp)
    sd      t2, 16(sp)
    sd      t3, 24(sp)
    sd      t4, 32(sp)
    sd      t5, 40(sp)
    sd      t6, 48(sp)
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7
    sd      a\n, 56 + 8 * \n(sp)        /* (a0 at 56: tracer-arch.h) */
    .endr
    addi    a0, sp, 128                 /* arg: sp as the callee returned it */
    call    litifut_return
    mv      ra, a0                      /* the real return address */
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7
    ld      a\n, 56 + 8 * \n(sp)
    .endr
    ld      t0, 0(sp)
    ld      t1, 8(sp)
    ld      t2, 16(sp)
    ld      t3, 24(sp)
    ld      t4, 32(sp)
    ld      t5, 40(sp)
    ld      t6, 48(sp)
    addi    sp, sp, 128
    ret
    .global litifut_trampolines_end
    .hidden litifut_trampolines_end
litifut_trampolines_end:
    .cfi_endproc
    .size litifut_return_unwind, . - litifut_return_unwind

    /* the personality routine's address, for the FDE's indirect pointer */
    .section .data.rel.ro.litifut_return_personality_ref, "aw", %progbits
    .p2align 3
    .hidden litifut_return_personality_ref
    .type litifut_return_personality_ref, %object
litifut_return_personality_ref:
    .dword  litifut_return_personality
    .size litifut_return_personality_ref, 8

/* The start of __wrap_NAME, which goes on to __real_NAME (weak: only
 * what the program uses is linked in); a function pointer may name it. */
    .macro WRAPPER_START name
    .text
    .p2align 2
    .global __wrap_\name
    .hidden __wrap_\name
    .type __wrap_\name, %function
    .weak __real_\name
__wrap_\name:
    .cfi_startproc
    .endm

/*
 * __wrap_vfork, __wrap_clone, __wrap___clone_internal: the wrapper
 * links the program's calls of these here with ld --wrap.  Each tells
 * the tracer (litifut_before_spawn: a child sharing this memory must not
 * record), then goes on to the real function with a0-a7, sp and the
 * stacked arguments as the caller left them, ra the real return
 * address, so vfork returns straight to the caller.
 */
    .macro SPAWN_WRAPPER name
    WRAPPER_START \name
    addi    sp, sp, -80
    .cfi_adjust_cfa_offset 80
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7
    sd      a\n, 8 * \n(sp)
    .endr
    sd      ra, 64(sp)
    .cfi_rel_offset ra, 64
    addi    a0, sp, 80                  /* arg 0: the caller's sp */
    mv      a1, ra                      /* arg 1: the return address (a trampoline if hooked) */
    call    litifut_before_spawn
    mv      ra, a0                      /* the real one: vfork's child returns through it */
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7
    ld      a\n, 8 * \n(sp)
    .endr
    addi    sp, sp, 80
    .cfi_adjust_cfa_offset -80
    .cfi_restore ra
    tail    __real_\name
    .cfi_endproc
    .size __wrap_\name, . - __wrap_\name
    .endm

    SPAWN_WRAPPER vfork
    SPAWN_WRAPPER clone
    SPAWN_WRAPPER __clone_internal

/*
 * __wrap_setjmp, __wrap__setjmp, __wrap___sigsetjmp, __wrap_sigsetjmp,
 * __wrap_getcontext: their calls come here (ld --wrap) so that the
 * tracer knows them by their target: they return twice, and setjmp
 * keeps its return address for longjmp (getcontext for setcontext), so
 * a hooked call goes back to the real return address here
 * (litifut_unhook: the entry stays, as a call not hooked).  Every
 * register as it came but t1 and ra.
 */
    .macro UNHOOK_WRAPPER name
    WRAPPER_START \name
    lla     t1, litifut_trampolines
    bltu    ra, t1, 1f
    lla     t1, litifut_trampolines_end
    bltu    ra, t1, 2f
1:  tail    __real_\name                /* not hooked */
2:  addi    sp, sp, -32
    .cfi_adjust_cfa_offset 32
    sd      a0, 0(sp)
    sd      a1, 8(sp)
    sd      a2, 16(sp)
    mv      a0, ra
    call    litifut_unhook
    mv      ra, a0                      /* the real return address */
    ld      a0, 0(sp)
    ld      a1, 8(sp)
    ld      a2, 16(sp)
    addi    sp, sp, 32
    .cfi_adjust_cfa_offset -32
    tail    __real_\name
    .cfi_endproc
    .size __wrap_\name, . - __wrap_\name
    .endm

    UNHOOK_WRAPPER setjmp
    UNHOOK_WRAPPER _setjmp
    UNHOOK_WRAPPER __sigsetjmp
    UNHOOK_WRAPPER sigsetjmp
    UNHOOK_WRAPPER getcontext

/*
 * __wrap___libc_start_main, __wrap___uClibc_main: the start files' call
 * (main, argc, argv, ...): main into litifut_main, litifut_main_entry
 * in its place, every other argument as it came (stub/entries.c).
 */
    .macro START_WRAPPER name
    WRAPPER_START \name
    lla     t1, litifut_main
    sd      a0, 0(t1)
    lla     a0, litifut_main_entry
    tail    __real_\name
    .cfi_endproc
    .size __wrap_\name, . - __wrap_\name
    .endm

    START_WRAPPER __libc_start_main
    START_WRAPPER __uClibc_main

/*
 * Entries with no frame of the tracer's (stub/entries.c litifut_entry):
 * main (litifut_main_entry, above), and the constructors and
 * destructors whose array words the rewriter points at thunks of their
 * own (t1 = the function, then a jal here: host-riscv64.h).  The slow
 * path's frame,
 * the return address hooked in it, every register back, and on to the
 * function with sp as its caller left it.
 */
    .macro ENTRY_PATH name, how
    .text
    .p2align 2
    .global \name
    .hidden \name
    .type \name, %function
\name:
    addi    sp, sp, -FRAME_SIZE
    SAVE_ALL
    mv      a0, sp                      /* arg 0: struct arch_frame * */
    li      a1, \how
    call    litifut_entry               /* a0 = the function */
    mv      t1, a0
    RESTORE_ALL
    addi    sp, sp, FRAME_SIZE
    jr      t1
    .size \name, . - \name
    .endm

    ENTRY_PATH litifut_main_entry, LITIFUT_ENTRY_START
    ENTRY_PATH litifut_init_entry, LITIFUT_ENTRY_INIT
    ENTRY_PATH litifut_fini_entry, LITIFUT_ENTRY_FINI

/*
 * void litifut_calibrate(uint32_t rounds, uint32_t *scratch): `rounds`
 * rounds of what a hot path executes to record a call (the push, the
 * thread pointer, its loads, tests, record store, the pop and an
 * indirect jump), on `scratch` (8 words: 0 but word 6) instead of the
 * thread's state: LITIFUT_BUDGET times it to reckon a call's cost on
 * this machine (stub/budget.c).
 */
    .text
    .p2align 2
    .global litifut_calibrate
    .hidden litifut_calibrate
    .type litifut_calibrate, %function
litifut_calibrate:
    .cfi_startproc
    lla     t1, 3f
1:  addi    sp, sp, -32
    sd      a0, 0(sp)
    sd      a1, 8(sp)
    sd      a2, 16(sp)
    sd      a3, 24(sp)
    mv      a2, tp                      /* (its result unused) */
    lw      a2, 8(a1)                   /* 0, 0 */
    lw      a3, 12(a1)
    lw      a0, 16(a1)                  /* "busy": 0 */
    bnez    a0, 4f                      /* (not taken) */
    sw      a3, 16(a1)
    lw      a2, 4(a1)
    lw      a3, 8(a1)
    sub     a3, a2, a3
    bltz    a3, 4f                      /* (not taken) */
    lw      a3, 20(a1)
    srli    a0, ra, DB_PAGE_SHIFT
    lw      a3, 24(a1)
    addw    a0, a3, a0
    sw      a0, 28(a1)                  /* the "record" */
    sw      zero, 16(a1)                /* not busy */
    ld      a0, 0(sp)
    ld      a1, 8(sp)
    ld      a2, 16(sp)
    ld      a3, 24(sp)
    addi    sp, sp, 32
    jr      t1                          /* the indirect jump */
3:  addiw   a0, a0, -1
    bnez    a0, 1b
4:  ret
    .cfi_endproc
    .size litifut_calibrate, . - litifut_calibrate

    .section .note.GNU-stack, "", %progbits
