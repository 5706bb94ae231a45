/*
 * The tracer module's sled: at the end of the program's code (the
 * tracer module is linked last).  See sled.S.
 */
#include "sled.S"

    SLED_COPY .text.litifut_sled, litifut_sled, litifut_mips

/* The tail jumps' half (sled.h; the module's copy only: thunks lie
 * after the code) and its paths with exact returns. */
    .section .text.litifut_sled, "ax", @progbits
    .p2align 4
    .global litifut_sled_jump
    .hidden litifut_sled_jump
    .type litifut_sled_jump, @function
litifut_sled_jump:
    SLED_HALF litifut_mips_start
    .size litifut_sled_jump, . - litifut_sled_jump
    JUMP_PATHS litifut_mips, ret_marks, CLOCK_NONE
    JUMP_PATHS litifut_mips, ret_clock, CLOCK_SYSCALL
    JUMP_PATHS litifut_mips, ret_counter, CLOCK_COUNTER

/* LITIFUT_ARGS (stub/args.c): a selected call's site word sends it
 * here from its hot path, as if to its callee (t9 this address, ra as
 * the call left it, or the return trampoline): a sled entry's frame and
 * "4k" ARGS_K4, on to the slow path, which records what the call was
 * given and goes on to the callee. */
    .global litifut_args_entry
    .hidden litifut_args_entry
    .type litifut_args_entry, @function
litifut_args_entry:
    addiu   $sp, $sp, -FRAME_SIZE
    sw      $a0, FRAME_R(4)($sp)
    b       litifut_mips_start
    addiu   $a0, $zero, -1          /* (delay slot) ARGS_K4 */
    .size litifut_args_entry, . - litifut_args_entry

/* The tail jumps' half in the modes with no jump paths of their own
 * (off, dedup, count, paused): a direct jump's site word gives its
 * thunk's continuation, which the mode's fixed-target path takes as a
 * call's target; a jump through a register (LITIFUT_DB_JUMP_REG) goes to
 * the slow path.  As a sled entry left it (a0 = 4k); both ways on are
 * the paths' _t9 entries (t9 saved here); litifut_mips_jump_paths:
 * sleds.c's words (the two ways, this copy's page table). */
    .global litifut_mips_jump_any
    .hidden litifut_mips_jump_any
    .type litifut_mips_jump_any, @function
litifut_mips_jump_any:
    SAVE 25
    SAVE 2
    SAVE 3
    sw      $ra, FRAME_R(31)($sp)
    bal     1f                      /* ra = the word below */
    nop
    .word   litifut_mips_jump_paths - .
1:  lw      $v0, 0($ra)
    addu    $v0, $v0, $ra           /* &litifut_mips_jump_paths */
    lw      $ra, FRAME_R(31)($sp)
    lw      $v1, 8($v0)             /* the page table */
    srl     $t9, $ra, DB_PAGE_SHIFT
    sll     $t9, $t9, 2
    addu    $t9, $t9, $v1
    lw      $t9, 0($t9)             /* &sites[first site of the page] */
    addu    $t9, $t9, $a0
    lw      $t9, 0($t9)             /* the site word */
    sltiu   $t9, $t9, LITIFUT_DB_INDIRECT
    sll     $t9, $t9, 2
    addu    $v0, $v0, $t9
    lw      $t9, 0($v0)             /* the way on */
    RESTORE 2
    jr      $t9
    RESTORE 3                       /* (delay slot) */
    .size litifut_mips_jump_any, . - litifut_mips_jump_any

    .data
    .p2align 2
    .global litifut_mips_jump_paths
    .hidden litifut_mips_jump_paths
litifut_mips_jump_paths:
    .word   0, 0, 0
    .section .text.litifut_sled, "ax", @progbits

    BRIDGE_TEMPLATE litifut_bridge_template

/*
 * LITIFUT_RETURNS: a hooked call's callee returns here (stub/returns.c),
 * with sp as at the call.  litifut_return records the return and gives
 * the real return address.  Every register comes back as the callee
 * left it but ra (which the call changed anyway), not only v0 and v1:
 * GCC's -fipa-ra keeps values in call-clobbered registers across calls
 * of local functions that do not clobber them.  The tracer's C code
 * touches no floating-point register.
 */
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .text
    .type litifut_return_unwind, @function
litifut_return_unwind:                  /* an unwinder finds the real caller: .eh_frame below */
    nop                             /* unwinders look up the return address - 1 */
    .global litifut_trampolines
    .hidden litifut_trampolines
litifut_trampolines:                /* every trampoline, to litifut_trampolines_end */
    .global litifut_return_trampoline
    .hidden litifut_return_trampoline
    .type litifut_return_trampoline, @function
litifut_return_trampoline:
    addiu   $sp, $sp, -84
    sw      $1, 0($sp)
    sw      $2, 4($sp)
    sw      $3, 8($sp)
    sw      $4, 12($sp)
    sw      $5, 16($sp)
    sw      $6, 20($sp)
    sw      $7, 24($sp)
    sw      $8, 28($sp)
    sw      $9, 32($sp)
    sw      $10, 36($sp)
    sw      $11, 40($sp)
    sw      $12, 44($sp)
    sw      $13, 48($sp)
    sw      $14, 52($sp)
    sw      $15, 56($sp)
    sw      $24, 60($sp)
    sw      $25, 64($sp)
    sw      $16, 68($sp)
    sw      $28, 72($sp)
    mfhi    $t0
    sw      $t0, 76($sp)
    mflo    $t0
    sw      $t0, 80($sp)
    move    $s0, $sp
    OWN_GP
    lw      $t9, %call16(litifut_return)($gp)
    li      $at, -8
    and     $sp, $sp, $at
    addiu   $sp, $sp, -16           /* o32 argument area */
    jalr    $t9
    addiu   $a0, $s0, 84            /* (delay slot) arg: sp as the callee returned it */
    move    $sp, $s0
    move    $ra, $v0
    lw      $t0, 76($sp)
    mthi    $t0
    lw      $t0, 80($sp)
    mtlo    $t0
    lw      $1, 0($sp)
    lw      $2, 4($sp)
    lw      $3, 8($sp)
    lw      $4, 12($sp)
    lw      $5, 16($sp)
    lw      $6, 20($sp)
    lw      $7, 24($sp)
    lw      $8, 28($sp)
    lw      $9, 32($sp)
    lw      $10, 36($sp)
    lw      $11, 40($sp)
    lw      $12, 44($sp)
    lw      $13, 48($sp)
    lw      $14, 52($sp)
    lw      $15, 56($sp)
    lw      $24, 60($sp)
    lw      $25, 64($sp)
    lw      $16, 68($sp)
    lw      $28, 72($sp)
    jr      $ra
    addiu   $sp, $sp, 84            /* (delay slot) */
    .size litifut_return_trampoline, . - litifut_return_trampoline

/*
 * The hot paths' trampolines, one per clock (the hooked call's hot path
 * chose it): the return recorded in assembly, as a call is.  The
 * thread's state through this copy's TLS slot; not busy (then busy with
 * this frame) and room in the chunk; the shadow stack's top entry must
 * be this very frame's (sp as the callee returned it: no frame left by
 * a jump in between); the RETURN word with its time delta; the entry
 * popped, busy clear, every register back but ra, on to the real
 * return address.  Anything else goes to the C trampoline above, which
 * does it all (busy back to 0 first if this frame had marked it).  The
 * frame is the sled's (sled.h), so that the clock reads work alike.
 */
    .macro RETURN_FAST name, time
    .global \name
    .hidden \name
    .type \name, @function
\name:
    addiu   $sp, $sp, -FRAME_SIZE
    SAVE 2
    SAVE 3
    SAVE 4
    SAVE 5
    SAVE 6
#ifdef LITIFUT_SHARED
    SHARED_TLS_SLOT
    lw      $a1, TLS_THREAD($v1)
#else
    rdhwr   $v1, $29
    lw      $a1, %tprel_lo(litifut_tls_slot + TLS_THREAD)($v1)
#endif
    lw      $v1, THREAD_BUSY($a1)
    bnez    $v1, 7f
    nop
    sw      $sp, THREAD_BUSY($a1)
    lw      $v1, THREAD_CUR($a1)
    lw      $a2, THREAD_LIM($a1)
    sltu    $a2, $v1, $a2
    beqz    $a2, 6f                 /* no room */
    lw      $a0, THREAD_SHADOW_TOP($a1)     /* (delay slot) */
    sltiu   $a2, $a0, 4096
    bnez    $a2, 6f                 /* no shadow stack: not this thread's hook */
    addiu   $v0, $sp, FRAME_SIZE    /* (delay slot) sp as the callee returned */
    lw      $a2, -8($a0)            /* the top entry's sp */
    bne     $a2, $v0, 6f
    nop
    .ifc \time, CLOCK_NONE
    addiu   $a2, $zero, LITIFUT_REC_RETURN_WORD
    .else
    \time                           /* v0 = now */
    TIME_DELTA $ra, $a2, 6f
    ori     $a2, $ra, LITIFUT_REC_RETURN_WORD
    .endif
    sw      $a2, 0($v1)
    addiu   $v1, $v1, 4
    sw      $v1, THREAD_CUR($a1)
    lw      $ra, -4($a0)            /* the real return address */
    addiu   $a0, $a0, -8            /* the entry popped */
    sw      $a0, THREAD_SHADOW_TOP($a1)
    sw      $zero, THREAD_BUSY($a1)
    RESTORE 2
    RESTORE 3
    RESTORE 4
    RESTORE 5
    RESTORE 6
    jr      $ra
    addiu   $sp, $sp, FRAME_SIZE    /* (delay slot) */
6:  sw      $zero, THREAD_BUSY($a1) /* busy was this frame's: clear it again */
7:  RESTORE 2
    RESTORE 3
    RESTORE 4
    RESTORE 5
    RESTORE 6
    b       litifut_return_trampoline
    addiu   $sp, $sp, FRAME_SIZE    /* (delay slot) */
    .size \name, . - \name
    .endm

    .set mips32r2
    RETURN_FAST litifut_return_marks, CLOCK_NONE
    RETURN_FAST litifut_return_clock, CLOCK_SYSCALL
    RETURN_FAST litifut_return_counter, CLOCK_COUNTER
    .global litifut_trampolines_end
    .hidden litifut_trampolines_end
litifut_trampolines_end:
.Lreturn_unwind_end:
    .size litifut_return_unwind, . - litifut_return_unwind

/*
 * The trampoline's frame description (unwind.c), written out rather
 * than with .cfi directives so that it can end with a terminator: the
 * tracer is linked after crtend.o, whose terminator ld then drops as
 * one in the middle, and a static program's unwinder walks .eh_frame
 * from its start to a terminator (there is no .eh_frame_hdr).  The
 * caller's sp is this sp; its return address is at this sp; the CFA,
 * which unwinders use as a frame's identity, is sp + 1: the caller's
 * CFA-based identity (this CFA) must differ from this frame's (sp, the
 * callee's CFA), or phase 2 takes this frame for the handler's.
 */
    .section .eh_frame, "a", @progbits
    .p2align 2
.Lcie:
    .4byte  .Lcie_end - .Lcie_start
.Lcie_start:
    .4byte  0                       /* a CIE */
    .byte   1                       /* version */
    .asciz  "zPR"
    .uleb128 1                      /* code alignment */
    .sleb128 -4                     /* data alignment */
    .byte   31                      /* return address column: ra */
    .uleb128 6                      /* augmentation data: */
    .byte   0x9b                    /*   personality: indirect, pc-relative, 4 bytes */
    .4byte  litifut_return_personality_ref - .
    .byte   0x1b                    /*   FDE addresses: pc-relative, 4 bytes */
    .byte   0x0c, 29, 1             /* DW_CFA_def_cfa sp, 1 */
    .p2align 2                      /* (DW_CFA_nop) */
.Lcie_end:
    .4byte  .Lfde_end - .Lfde_start
.Lfde_start:
    .4byte  .Lfde_start - .Lcie     /* its CIE */
    .4byte  litifut_return_unwind - .
    .4byte  .Lreturn_unwind_end - litifut_return_unwind
    .uleb128 0                      /* augmentation data */
    .byte   0x10, 31, 2, 0x8d, 0x00 /* DW_CFA_expression ra: DW_OP_breg29 0 */
    .byte   0x16, 29, 2, 0x8d, 0x00 /* DW_CFA_val_expression sp: DW_OP_breg29 0 */
    .p2align 2
.Lfde_end:
    .4byte  0                       /* the terminator */
    .section .data.rel.local.litifut_return_personality_ref, "aw", @progbits
    .p2align 2
    .type litifut_return_personality_ref, @object
litifut_return_personality_ref:
    .word   litifut_return_personality
    .size litifut_return_personality_ref, 4
    .text

/* The start of __wrap_NAME, which goes on to __real_NAME (weak: only
 * what the program uses is linked in). */
    .macro WRAPPER_START name
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .text
    .global __wrap_\name
    .hidden __wrap_\name
    .type __wrap_\name, @function
    .weak __real_\name
__wrap_\name:
    .endm

/*
 * __wrap_vfork, __wrap_clone, __wrap___clone_internal: the wrapper
 * links the program's calls of these (and static glibc's) here with
 * ld --wrap.  Each tells the tracer (litifut_before_spawn: a child
 * sharing this memory must not record), then goes on to the real
 * function with a0-a3, ra, gp, sp and the stacked arguments as the
 * caller left them (so vfork returns straight to the caller) and t9 =
 * the real function's address, as PIC callees expect.  a0-a3 are kept
 * in the caller's argument save area, which o32 reserves for this.
 */
    .macro SPAWN_WRAPPER name
    WRAPPER_START \name
    addiu   $sp, $sp, -32           /* 16-byte argument area, gp, ra */
    sw      $ra, 28($sp)
    sw      $gp, 24($sp)
    sw      $a0, 32($sp)
    sw      $a1, 36($sp)
    sw      $a2, 40($sp)
    sw      $a3, 44($sp)
    OWN_GP
    lw      $t9, %call16(litifut_before_spawn)($gp)
    lw      $a1, 28($sp)            /* arg 1: the return address (a trampoline if hooked) */
    jalr    $t9
    addiu   $a0, $sp, 32            /* (delay slot) arg 0: the caller's sp */
    lw      $t9, %call16(__real_\name)($gp)
    lw      $a0, 32($sp)
    lw      $a1, 36($sp)
    lw      $a2, 40($sp)
    lw      $a3, 44($sp)
    lw      $gp, 24($sp)
    move    $ra, $v0                /* the real one: vfork's child returns through it */
    jr      $t9
    addiu   $sp, $sp, 32            /* (delay slot) */
    .size __wrap_\name, . - __wrap_\name
    .endm

    SPAWN_WRAPPER vfork
    SPAWN_WRAPPER clone
    SPAWN_WRAPPER __clone_internal

/*
 * __wrap_setjmp, __wrap__setjmp, __wrap___sigsetjmp, __wrap_sigsetjmp,
 * __wrap_getcontext:
 * the program's calls of these come here (ld --wrap) so that the tracer
 * knows them by their target: they return twice, and their calls are
 * not hooked for LITIFUT_RETURNS (stub/returns.c).  A hot path hooks
 * every call: if the return address is a trampoline, litifut_unhook
 * gives the real one back (the shadow stack's entry stays, closed by a
 * later event).
 * Every register as it came but at, t9 (the real function's address,
 * as PIC callees expect), gp (this object's, which is the caller's: the
 * wrapper is linked into it) and, when it was hooked, ra (the real
 * return address) and the call-clobbered registers.
 */
    .macro TWICE_WRAPPER name
    WRAPPER_START \name
    move    $at, $ra
    bal     1f                      /* ra = the words below */
    nop
    .word   litifut_trampolines - .
    .word   litifut_trampolines_end - litifut_trampolines
1:  lw      $t9, 0($ra)
    addu    $t9, $t9, $ra           /* litifut_trampolines */
    lw      $ra, 4($ra)             /* their size */
    subu    $t9, $at, $t9
    sltu    $t9, $t9, $ra
    beqz    $t9, 2f                 /* not hooked */
    nop
    addiu   $sp, $sp, -32           /* 16-byte argument area, a0-a3 */
    sw      $a0, 16($sp)
    sw      $a1, 20($sp)
    sw      $a2, 24($sp)
    sw      $a3, 28($sp)
    OWN_GP
    lw      $t9, %call16(litifut_unhook)($gp)
    jalr    $t9
    move    $a0, $at                /* (delay slot) arg: the return address */
    move    $at, $v0                /* the real one */
    lw      $a0, 16($sp)
    lw      $a1, 20($sp)
    lw      $a2, 24($sp)
    lw      $a3, 28($sp)
    addiu   $sp, $sp, 32
2:  OWN_GP
    lw      $t9, %call16(__real_\name)($gp)
    jr      $t9
    move    $ra, $at                /* (delay slot) */
    .size __wrap_\name, . - __wrap_\name
    .endm

/*
 * __wrap___libc_start_main, __wrap___uClibc_main: the start files' call
 * (main, argc, argv, ...): main into litifut_main, litifut_main_entry
 * in its place, every other argument as it came (stub/entries.c); t9 =
 * the real function.
 */
    .macro START_WRAPPER name
    WRAPPER_START \name
    move    $at, $ra
    bal     1f                      /* ra = the words below */
    nop
    .word   litifut_main - .
    .word   litifut_main_entry - (. - 4)
1:  lw      $t9, 0($ra)
    addu    $t9, $t9, $ra           /* &litifut_main */
    sw      $a0, 0($t9)
    lw      $a0, 4($ra)
    addu    $a0, $a0, $ra           /* litifut_main_entry */
    OWN_GP
    lw      $t9, %call16(__real_\name)($gp)
    jr      $t9
    move    $ra, $at                /* (delay slot) */
    .size __wrap_\name, . - __wrap_\name
    .endm

    START_WRAPPER __libc_start_main
    START_WRAPPER __uClibc_main

/*
 * Entries with no frame of the tracer's (stub/entries.c litifut_entry):
 * main (litifut_main_entry, above) and the constructors and destructors
 * whose array words the rewriter points at thunks of their own (at =
 * the function).  The sled's frame (every register), the return
 * address hooked in it, every register back, and on to the function
 * through t9 (as PIC functions expect) with sp as its caller left it.
 */
    .macro ENTRY_PATH name, how
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .text
    .global \name
    .hidden \name
    .type \name, @function
\name:
    addiu   $sp, $sp, -FRAME_SIZE
    SAVE 2
    SAVE 3
    SAVE 4
    SAVE 5
    SAVE 6
    TEMPS_SAVE
    SAVE 16
    SAVE 17
    SAVE 18
    SAVE 19
    SAVE 20
    SAVE 21
    SAVE 22
    SAVE 23
    SAVE 25
    SAVE 28
    SAVE 30
    SAVE 31
    move    $s0, $sp                /* callee-saved: the frame across the call */
    OWN_GP
    lw      $t9, %call16(litifut_entry)($gp)
    li      $at, -8
    and     $sp, $sp, $at
    addiu   $sp, $sp, -16           /* o32 argument area */
    li      $a1, \how
    jalr    $t9
    move    $a0, $s0                /* (delay slot) arg 0: the frame */
    move    $sp, $s0
    move    $t9, $v0                /* the function */
    TEMPS_RESTORE
    RESTORE 2
    RESTORE 3
    RESTORE 4
    RESTORE 5
    RESTORE 6
    RESTORE 16
    RESTORE 17
    RESTORE 18
    RESTORE 19
    RESTORE 20
    RESTORE 21
    RESTORE 22
    RESTORE 23
    RESTORE 28
    RESTORE 30
    RESTORE 31
    jr      $t9
    addiu   $sp, $sp, FRAME_SIZE    /* (delay slot) */
    .size \name, . - \name
    .endm

    ENTRY_PATH litifut_main_entry, LITIFUT_ENTRY_START
    ENTRY_PATH litifut_init_entry, LITIFUT_ENTRY_INIT
    ENTRY_PATH litifut_fini_entry, LITIFUT_ENTRY_FINI

    TWICE_WRAPPER setjmp
    TWICE_WRAPPER _setjmp
    TWICE_WRAPPER __sigsetjmp
    TWICE_WRAPPER sigsetjmp
    TWICE_WRAPPER getcontext

/*
 * void litifut_calibrate(uint32_t rounds, uint32_t *scratch): `rounds`
 * rounds of what the hot path executes to record a call (the sled's
 * frame, the thread pointer, its loads, tests and record store, the
 * restores and an indirect jump), on `scratch` (its own address, then
 * 0, 0, 0, 0, 0, 1, 0) instead of the thread's state: LITIFUT_BUDGET
 * times it to reckon a call's cost on this machine (stub/budget.c).
 */
    .text
    .global litifut_calibrate
    .hidden litifut_calibrate
    .type litifut_calibrate, @function
litifut_calibrate:
    move    $t7, $ra
    bal     1f
    nop
1:  addiu   $t8, $ra, 3f - 1b       /* the "target" */
    move    $ra, $t7
    move    $t6, $a0
2:  addiu   $sp, $sp, -32           /* the sled's entry */
    sw      $a0, 0($sp)
    b       4f
    addiu   $a0, $zero, 4
4:  sw      $v0, 4($sp)
    sw      $v1, 8($sp)
    sw      $a2, 12($sp)
    sw      $t9, 16($sp)
    rdhwr   $v1, $29                /* (its result unused) */
    lw      $v0, 0($a1)
    lw      $a2, 4($a1)
    lw      $v0, 8($a1)
    srl     $t9, $ra, 10
    lw      $v1, 16($a1)            /* "busy": 0 */
    bnez    $v1, 3f
    sll     $t9, $t9, 2
    sw      $sp, 16($a1)
    lw      $v1, 20($a1)            /* "cur", "lim": 0, 1 */
    addu    $v0, $v0, $t9
    lw      $t9, 24($a1)
    sltu    $t9, $v1, $t9
    beqz    $t9, 3f
    lw      $v0, 0($a1)
    addu    $v0, $v0, $a0
    lw      $t9, 0($v0)
    addu    $t9, $v0, $t9
    addu    $a2, $a2, $v0
    sw      $a2, 28($a1)            /* the "record" */
    addiu   $v1, $v1, 4
    sw      $zero, 20($a1)
    sw      $zero, 16($a1)          /* not busy */
    lw      $a0, 0($sp)
    lw      $v0, 4($sp)
    lw      $v1, 8($sp)
    lw      $a2, 12($sp)
    lw      $t9, 16($sp)
    jr      $t8                     /* the indirect jump */
    addiu   $sp, $sp, 32
3:  addiu   $t6, $t6, -1
    bnez    $t6, 2b
    nop
    jr      $ra
    nop
    .size litifut_calibrate, . - litifut_calibrate

/* A tail jump through a register goes on here (LITIFUT_DB_JUMP_REG;
 * stub/call.c, the jump paths): the jumper's ra, which its thunk pushed
 * (8 bytes), back, and the jump to the target, which the thunk put in
 * v1 (through t9, as PIC callees expect; rs still has it). */
    .section .text.litifut_sled, "ax", @progbits  /* (with the sled: litifut-emu's trampolines) */
    .set noreorder
    .p2align 4
    .global litifut_mips_jump_cont
    .hidden litifut_mips_jump_cont
    .type litifut_mips_jump_cont, @function
litifut_mips_jump_cont:
    lw      $ra, 4($sp)
    or      $t9, $v1, $zero
    jr      $t9
    addiu   $sp, $sp, 8
    .size litifut_mips_jump_cont, . - litifut_mips_jump_cont
    .set reorder

    .section .note.GNU-stack, "", @progbits
