/*
 * The MIPS sled, its hot path and the bridge template, as macros:
 * arch/mips/stub.S puts a copy at the end of the object's code (in the
 * tracer module), arch/mips/island.S one at its start, and the tracer
 * copies the bridge template to run-time bridges (arch/mips/bridge.c).
 * Geometry in sled.h; the contract, the register use and the
 * instruction budget line by line in docs/DESIGN.md ("MIPS: the hot
 * path").
 *
 * At entry k (sled.h): ra = the call's return address, a0 = 4k (the
 * entry saved a0), every other register as the call left it.  The
 * common code saves v0, v1, a1, a2 and t9 (its scratch registers), then:
 *   1. gets this thread's state through this copy's TLS slot (t, record
 *      delta, page table; stub/layout.h);
 *   2. goes on only if TLS is set up, the thread attached and not busy
 *      (then marks it busy with this frame) and its chunk has room;
 *   3. finds the site word (page table, then 4k) and from it the target
 *      and the record word;
 *   4. stores the record (a call through a register: tag 1 and its
 *      target, or tag 2 if the thread's target cache holds it), bumps
 *      cur, clears busy;
 *   5. restores what it saved and jumps to the target through t9 (as
 *      PIC callees expect; a jalr $25 call had that anyway).
 * Anything else goes to the slow path, which saves every other register
 * and calls litifut_slow(frame, 4k) in C (stub/call.c).  Nothing is
 * stored below sp, and k0/k1 are never used.
 */
#include "sled.h"
#include "layout.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"
#include <asm/unistd.h>

/* SLED_ENTRIES entries, all going to `to` for now. */
    .macro SLED_HALF to
    .set k, 0
    .rept SLED_ENTRIES
    addiu   $sp, $sp, -FRAME_SIZE
    sw      $a0, FRAME_R(4)($sp)
    b       \to
    addiu   $a0, $zero, 4 * k       /* (delay slot) */
    .set k, k + 1
    .endr
    .endm

    .macro SLED name, start
    /* a page of its own at the start (see arch/arm/stub.S: qemu-user
     * and code that rewrites its own page) */
    .p2align 12
    .global \name
    .hidden \name
    .type \name, @function
\name:
    /* SLED_ENTRIES for calls with a fixed target, then as many for
     * calls through a register: each half has its own hot path; all go
     * to the slow path until this copy is ready (sleds.c) */
    SLED_HALF \start
    SLED_HALF \start
    .size \name, . - \name
    .endm

/* gp for this module's PIC code, from our own address (clobbers ra). */
    .macro OWN_GP
    bal     1f                      /* ra = 1f: our address, for _gp_disp */
    nop
1:  lui     $gp, %hi(_gp_disp)
    addiu   $gp, $gp, %lo(_gp_disp)
    addu    $gp, $gp, $ra
    .endm

    .macro SAVE r
    sw      $\r, FRAME_R(\r)($sp)
    .endm
    .macro RESTORE r
    lw      $\r, FRAME_R(\r)($sp)
    .endm

/* The call-clobbered registers a system call or C may change beyond
 * the hot paths' own (at, a3, t0-t8; hi and lo through t0), into their
 * frame slots and back. */
    .macro TEMPS_SAVE
    SAVE 1
    SAVE 7
    SAVE 8
    SAVE 9
    SAVE 10
    SAVE 11
    SAVE 12
    SAVE 13
    SAVE 14
    SAVE 15
    SAVE 24
    mfhi    $t0
    sw      $t0, FRAME_HI($sp)
    mflo    $t0
    sw      $t0, FRAME_LO($sp)
    .endm
    .macro TEMPS_RESTORE
    lw      $t0, FRAME_HI($sp)
    mthi    $t0
    lw      $t0, FRAME_LO($sp)
    mtlo    $t0
    RESTORE 1
    RESTORE 7
    RESTORE 8
    RESTORE 9
    RESTORE 10
    RESTORE 11
    RESTORE 12
    RESTORE 13
    RESTORE 14
    RESTORE 15
    RESTORE 24
    .endm

/* A library's hot path (LITIFUT_SHARED): v1 = this copy's TLS slot,
 * whose offset its copy keeps (it is in the library's GOT).  Clobbers
 * v0 and ra. */
    .macro SHARED_TLS_SLOT
    bal     1f                      /* ra = the word below */
    rdhwr   $v1, $29                /* (delay slot) the thread pointer */
    .word   litifut_copy + COPY_TLS_OFFSET - .
1:  lw      $v0, 0($ra)
    addu    $v0, $v0, $ra
    lw      $v0, 0($v0)             /* the slot's offset */
    addu    $v1, $v1, $v0           /* &slot */
    .endm

/* v0 = now (units) minus the thread's last event (a1): \d = that
 * delta, shifted to the record word's top bits, and now the thread's
 * last event; or \slow if it does not fit in 8 bits (\s: scratch). */
    .macro TIME_DELTA d, s, slow
    lw      \d, THREAD_TIME($a1)
    subu    \d, $v0, \d
    srl     \s, \d, 8
    bnez    \s, \slow               /* too long for the record word */
    sll     \d, \d, LITIFUT_REC_DELTA_SHIFT   /* (delay slot) */
    sw      $v0, THREAD_TIME($a1)
    .endm

/* \name (where sled entries go) and \name\()_t9 (where a bridge's
 * dispatcher comes in, with t9 in the frame already): the registers the
 * hot paths use, into the frame; t9 too if `save_t9` (a jalr $t9 goes
 * to t9). */
    .macro ENTRY_POINTS name, save_t9
    .global \name
    .hidden \name
    .type \name, @function
\name:
    .if \save_t9
    SAVE 25
    .endif
    .global \name\()_t9
    .hidden \name\()_t9
\name\()_t9:
    SAVE 2
    SAVE 3
    SAVE 5
    SAVE 6
    .endm

/* The slow path of one sled copy: where its sleds go until the copy is
 * ready (\p\()_start; \p\()_start_t9 for a bridge's dispatcher, which
 * saved t9), and where its hot paths go for anything else (\p\()_slow,
 * with v0, v1, a0-a2, t9 saved and a0 = 4k). */
    .macro SLOW_PATH p
    ENTRY_POINTS \p\()_start, 1
\p\()_slow:
    TEMPS_SAVE
    SAVE 16
    SAVE 17
    SAVE 18
    SAVE 19
    SAVE 20
    SAVE 21
    SAVE 22
    SAVE 23
    SAVE 28
    SAVE 30
    SAVE 31
    move    $a1, $a0                /* arg 1: 4k */
    move    $a0, $sp                /* arg 0: the frame */
    move    $s0, $sp                /* callee-saved: the frame across the call */
    OWN_GP
    lw      $t9, %call16(litifut_slow)($gp)
    li      $at, -8
    and     $sp, $sp, $at
    addiu   $sp, $sp, -16           /* o32 argument area */
    jalr    $t9
    nop
    move    $sp, $s0
    move    $t9, $v0                /* the target */
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
    .endm

/* The hot path up to the site word, for both halves (\name: where the
 * sleds go; \name\()_t9: where a bridge's dispatcher comes in, with t9
 * already in the frame; the half for fixed targets needs no t9): the thread's state, busy or no room (then the
 * slow path \p\()_slow), busy with this frame, the site word (t9) and its
 * address (v0).  The sleds come here only once TLS is set up and this
 * copy ready. */
    .macro HOT_PATH_START name, p, save_t9, delta
    ENTRY_POINTS \name, \save_t9
#ifdef LITIFUT_SHARED
    move    $t9, $ra
    SHARED_TLS_SLOT
    move    $ra, $t9
    lw      $a1, TLS_THREAD($v1)
    lw      $a2, \delta($v1)
    lw      $v0, TLS_PAGES($v1)
#else
    rdhwr   $v1, $29                /* the thread pointer */
    /* tprel_lo alone: copy.c checks that the offsets fit 16 bits */
    lw      $a1, %tprel_lo(litifut_tls_slot + TLS_THREAD)($v1)
    lw      $a2, %tprel_lo(litifut_tls_slot + \delta)($v1)
    lw      $v0, %tprel_lo(litifut_tls_slot + TLS_PAGES)($v1)
#endif
    srl     $t9, $ra, DB_PAGE_SHIFT
    lw      $v1, THREAD_BUSY($a1)   /* (a thread new to this copy has a busy dummy) */
    bnez    $v1, \p\()_slow
    sll     $t9, $t9, 2             /* (delay slot) the page's entry offset */
    sw      $sp, THREAD_BUSY($a1)   /* busy: this frame */
    lw      $v1, THREAD_CUR($a1)    /* (after the busy mark: see DESIGN) */
    addu    $v0, $v0, $t9
    lw      $t9, THREAD_LIM($a1)
    sltu    $t9, $v1, $t9
    beqz    $t9, \p\()_slow         /* no room: litifut_slow finds busy = this frame */
    lw      $v0, 0($v0)             /* (delay slot) &sites[first site of the page] */
    addu    $v0, $v0, $a0           /* &site word */
    lw      $t9, 0($v0)
    .endm

/* Both halves' ends: cur (v1, bumped), not busy, back, to t9. */
    .macro HOT_PATH_END
    sw      $v1, THREAD_CUR($a1)
    sw      $zero, THREAD_BUSY($a1)
    RESTORE 4
    RESTORE 2
    RESTORE 3
    RESTORE 5
    RESTORE 6
    jr      $t9
    addiu   $sp, $sp, FRAME_SIZE    /* (delay slot) */
    .endm

/* The hot paths of one sled copy, and its slow path. */
    .macro COMMON p
    HOT_PATH_START \p\()_common, \p, 0, TLS_REC_DELTA
    addu    $t9, $v0, $t9           /* a fixed target: relative to the site word */
    addu    $a2, $a2, $v0           /* the record word: (site id + 1) << 2 */
    sw      $a2, 0($v1)
    addiu   $v1, $v1, 4
    HOT_PATH_END

    HOT_PATH_START \p\()_common_reg, \p, 1, TLS_REC_DELTA_REG
    addu    $a2, $a2, $v0           /* the record word, tag 2 (cached) */
    andi    $v0, $t9, 1
    bnez    $v0, \p\()_slow         /* a register the hot path did not save */
    addu    $v0, $sp, $t9           /* (delay slot) its frame slot */
    lw      $t9, 0($v0)             /* the target */
    andi    $a0, $t9, 4 * (LITIFUT_TARGET_CACHE - 1)    /* 4 * its cache entry */
    sll     $v0, $a0, LITIFUT_REC_AUX_SHIFT - 2
    or      $a2, $a2, $v0           /* the entry, in bits 31..24 (clock marks) */
    addu    $a0, $a0, $a1
    lw      $v0, THREAD_CACHE($a0)
    bne     $v0, $t9, 2f
    sw      $a2, 0($v1)             /* (delay slot) the record, if the cache has it */
    addiu   $v1, $v1, 4
3:  HOT_PATH_END
2:  andi    $v0, $t9, 4 * (LITIFUT_TARGET_CACHE - 1)
    sll     $v0, $v0, LITIFUT_REC_AUX_SHIFT - 2
    xor     $a2, $a2, $v0
    addiu   $a2, $a2, LITIFUT_REC_CALL_TARGET - LITIFUT_REC_CALL_CACHED
    sw      $a2, 0($v1)             /* tag 1, and the target after it */
    sw      $t9, 4($v1)
    sw      $t9, THREAD_CACHE($a0)
    b       3b
    addiu   $v1, $v1, 8             /* (delay slot) */

    SLOW_PATH \p
    .endm

/*
 * A clock per event (LITIFUT_CLOCK=monotonic or counter) and
 * LITIFUT_RETURNS: the same hot paths with v0 = now (\time: CLOCK_NONE,
 * CLOCK_SYSCALL or CLOCK_COUNTER) and the time since the thread's last
 * event in the record word's top bits, and, with returns, the call
 * hooked (stub/returns.c): {sp at the call, ra} onto the thread's
 * shadow stack and the clock's return trampoline (arch/mips/stub.S) as
 * the callee's return address.  These paths also use a3, t0, t1 and t2
 * (saved in the frame).  Anything unusual goes to the slow path, which
 * records (and hooks) the call itself, busy holding this frame: a delta
 * that does not fit in 8 bits (the slow path writes a TIME record), no
 * shadow stack yet or a full one (top == end; both 0 before the
 * thread's first hooked call), or the top entry's frame gone (its sp at
 * or below this call's: a longjmp or an exception left it).  Entry 0 is
 * a sentinel whose sp is above any, so the top entry can be read without
 * asking whether there is one.
 */

/* v0 = CLOCK_MONOTONIC now, in units of 32 ns (sec * 31250000 + nsec /
 * 32: exactly ns >> 5, trace-format.h), a system call into the thread's
 * timespec (a1 = the thread).  Every other register stays: the call may
 * change at, v1, a3, t0-t9, hi and lo (as glibc assumes), which are
 * kept in their frame slots (v1, a0 and t9, whose slots may hold the
 * program's values, in the unused ones of sp, k0 and k1). */
    .macro CLOCK_SYSCALL
    TEMPS_SAVE
    sw      $v1, FRAME_R(29)($sp)
    sw      $a0, FRAME_R(26)($sp)
    sw      $t9, FRAME_R(27)($sp)
    addiu   $v0, $zero, __NR_clock_gettime
    addiu   $a0, $zero, 1           /* CLOCK_MONOTONIC */
    addiu   $a1, $a1, THREAD_TIMESPEC
    syscall
    addiu   $a1, $a1, -THREAD_TIMESPEC
    lw      $t0, THREAD_TIMESPEC($a1)       /* sec */
    lw      $t1, THREAD_TIMESPEC + 4($a1)   /* nsec */
    lui     $t2, 0x01dc
    ori     $t2, $t2, 0xd650        /* 31250000 */
    mul     $t0, $t0, $t2
    srl     $t1, $t1, 5
    addu    $v0, $t0, $t1           /* now */
    lw      $v1, FRAME_R(29)($sp)
    lw      $a0, FRAME_R(26)($sp)
    lw      $t9, FRAME_R(27)($sp)
    TEMPS_RESTORE
    .endm

/* v0 = the cycle counter (CP0 Count, tracer-arch.h), in units. */
    .macro CLOCK_COUNTER
    rdhwr   $v0, $2
    srl     $v0, $v0, COUNTER_SHIFT
    .endm

    .macro CLOCK_NONE
    .endm

/* The call's record (a2: the record word, t9: the target, v1: cur, v0:
 * now unless CLOCK_NONE, a0 = 4k) and, if \hook, the hook, then on to
 * the target.  \reg: the half for calls through a register (tag 2 in
 * a2): one word if the thread's target cache has the target, else two.
 * Clock marks key the cache by target (its entry into the word's top
 * bits), a clock per event by site (the delta is there). */
    .macro TIMED_CALL p, time, reg, hook, tramp, cont=0
    .ifnc \time, CLOCK_NONE
    \time
    .endif
    .ifnc \time, CLOCK_SYSCALL         /* (which kept them in these slots) */
    SAVE 7
    SAVE 8
    SAVE 9
    SAVE 10
    .endif
    .if \hook == 2                  /* a tail jump: frames gone first (stub.S) */
    lw      $a3, THREAD_SHADOW_TOP($a1)
    beqz    $a3, 9f                 /* no shadow stack yet: nothing can be gone */
    addiu   $t1, $sp, FRAME_SIZE + JUMP_PUSHED  /* (delay slot) sp at the jump */
    lw      $t0, -8($a3)            /* the top entry's sp */
    sltu    $t0, $t0, $t1
    bnez    $t0, 8f                 /* below sp at the jump: its frame is gone */
    nop
9:
    .endif
    .if \hook == 1
    lw      $a3, THREAD_SHADOW_TOP($a1)     /* top (next free) */
    lw      $t0, THREAD_SHADOW_TOP + 4($a1) /* end */
    sltu    $t0, $a3, $t0
    beqz    $t0, 8f                 /* none yet, or full */
    addiu   $t1, $sp, FRAME_SIZE    /* (delay slot) sp at the call */
    lw      $t0, -8($a3)            /* the top entry's sp */
    sltu    $t0, $t1, $t0
    beqz    $t0, 8f                 /* its frame is gone */
    nop
    .endif
    .ifnc \time, CLOCK_NONE
    TIME_DELTA $t0, $t2, 8f
    or      $a2, $a2, $t0
    .endif
    .if \reg
    .ifc \time, CLOCK_NONE
    andi    $a0, $t9, 4 * (LITIFUT_TARGET_CACHE - 1)    /* 4 * the target's entry */
    sll     $v0, $a0, LITIFUT_REC_AUX_SHIFT - 2
    or      $a2, $a2, $v0           /* the entry, in bits 31..24 */
    .else
    andi    $a0, $a2, 4 * (LITIFUT_TARGET_CACHE - 1)    /* 4 * the site's entry */
    .endif
    addu    $a0, $a0, $a1
    lw      $v0, THREAD_CACHE($a0)
    beq     $v0, $t9, 2f
    sw      $a2, 0($v1)             /* (delay slot) the record, if the cache has it */
    .ifc \time, CLOCK_NONE
    andi    $v0, $t9, 4 * (LITIFUT_TARGET_CACHE - 1)
    sll     $v0, $v0, LITIFUT_REC_AUX_SHIFT - 2
    xor     $a2, $a2, $v0
    .endif
    addiu   $a2, $a2, LITIFUT_REC_CALL_TARGET - LITIFUT_REC_CALL_CACHED
    sw      $a2, 0($v1)             /* tag 1, and the target after it */
    sw      $t9, 4($v1)
    sw      $t9, THREAD_CACHE($a0)
    addiu   $v1, $v1, 4
2:  addiu   $v1, $v1, 4
    .else
    sw      $a2, 0($v1)
    addiu   $v1, $v1, 4
    .endif
    .if \hook == 1
    sw      $t1, 0($a3)             /* {sp at the call, ra} */
    sw      $ra, 4($a3)
    addiu   $a3, $a3, 8
    sw      $a3, THREAD_SHADOW_TOP($a1)
    bal     1f                      /* ra = the word below */
    nop
    .word   \tramp - .
1:  lw      $t0, 0($ra)
    addu    $ra, $ra, $t0           /* the callee returns to the trampoline */
    .endif
    .if \cont                       /* a jump through a register: on through its way */
    bal     1f                      /* (ra: the continuation pops the jumper's) */
    nop
    .word   litifut_mips_jump_cont - .
1:  lw      $t9, 0($ra)
    addu    $t9, $t9, $ra
    .endif
    RESTORE 7
    RESTORE 8
    RESTORE 9
    RESTORE 10
    HOT_PATH_END
8:  RESTORE 7                       /* the slow path: a0 = 4k still */
    RESTORE 8
    RESTORE 9
    b       \p\()_slow
    RESTORE 10                      /* (delay slot) */
    .endm

/* Both halves of one clock's paths: \name (calls only) or \name with
 * returns hooked (\tramp: the clock's return trampoline). */
    .macro TIMED_PATHS p, name, time, hook, tramp=0
    HOT_PATH_START \p\()_\name, \p, 0, TLS_REC_DELTA
    addu    $t9, $v0, $t9           /* a fixed target: relative to the site word */
    addu    $a2, $a2, $v0           /* the record word: (site id + 1) << 2 */
    TIMED_CALL \p, \time, 0, \hook, \tramp

    HOT_PATH_START \p\()_\name\()_reg, \p, 1, TLS_REC_DELTA_REG
    addu    $a2, $a2, $v0           /* the record word, tag 2 (cached) */
    andi    $v0, $t9, 1
    bnez    $v0, \p\()_slow         /* a register the hot path did not save */
    addu    $v0, $sp, $t9           /* (delay slot) its frame slot */
    lw      $t9, 0($v0)             /* the target */
    TIMED_CALL \p, \time, 1, \hook, \tramp
    .endm

/* A tail jump (the jump half: its thunk sent it here with ra = the jump
 * + 8 and the jumper's ra pushed, sled.h): recorded as a call, not
 * hooked (the callee returns where the jumper would have); frames gone
 * first (TIMED_CALL's hook 2; none without a shadow stack, as without
 * exact returns).  A direct jump's target is its thunk's continuation;
 * one through a register (its site word FRAME_R(3) |
 * LITIFUT_DB_JUMP_REG: the thunk put the target in v1) is recorded as a
 * call through v1 and goes on through litifut_mips_jump_cont.  These
 * paths serve the full modes with and without exact returns (sleds.c);
 * the others' jump half goes through litifut_mips_jump_any. */
    .macro JUMP_PATHS p, name, time
    HOT_PATH_START \p\()_jump_\name, \p, 0, TLS_REC_DELTA
    SAVE 7
    sltiu   $a3, $t9, LITIFUT_DB_INDIRECT
    bnez    $a3, 5f
    RESTORE 7                       /* (delay slot) */
    addu    $t9, $v0, $t9           /* the thunk's continuation */
    addu    $a2, $a2, $v0           /* the record word: (site id + 1) << 2 */
    TIMED_CALL \p, \time, 0, 2, 0
5:  addu    $a2, $a2, $v0
    addiu   $a2, $a2, LITIFUT_REC_CALL_CACHED   /* tag 2 (cached), the register half's */
    lw      $t9, FRAME_R(3)($sp)    /* the target */
    TIMED_CALL \p, \time, 1, 2, 0, 1
    .endm

/*
 * The sled's entries go here instead (arch/mips/sleds.c patches their
 * branch) while this process records nothing (LITIFUT_TRACE=0): find
 * the target, jump.  Calls through a register other than t9, and a
 * thread new to this copy, go on to the slow path (\p\()_start), which
 * records nothing either.  \name\()_t9 is where a bridge's dispatcher
 * comes in (it saved t9).
 */
    .macro OFF_START name, p
    .global \name\()_t9
    .hidden \name\()_t9
\name\()_t9:
    RESTORE 25
    .global \name
    .hidden \name
\name:
    SAVE 2
    SAVE 3
#ifdef LITIFUT_SHARED
    /* this copy's page table (made before the sled came here) */
    srl     $v0, $ra, DB_PAGE_SHIFT
    sw      $ra, FRAME_R(31)($sp)
    bal     1f                      /* ra = the word below */
    sll     $v0, $v0, 2             /* (delay slot) */
    .word   litifut_copy + COPY_PAGES - .
1:  lw      $v1, 0($ra)
    addu    $v1, $v1, $ra
    lw      $v1, 0($v1)             /* litifut_copy.pages */
    lw      $ra, FRAME_R(31)($sp)
    addu    $v0, $v0, $v1           /* &page entry */
    lw      $v0, 0($v0)
    addu    $v0, $v0, $a0           /* &site word */
    lw      $v1, 0($v0)
#else
    OFF_SITE_WORD_TLS $v1
#endif
    .endm

/* An executable's: the page table through TLS (\r; 0: a thread new to
 * this copy, then on to 2f), &site word in v0, the site word in \r. */
    .macro OFF_SITE_WORD_TLS r
    rdhwr   \r, $29
    srl     $v0, $ra, DB_PAGE_SHIFT
    lw      \r, %tprel_lo(litifut_tls_slot + TLS_PAGES)(\r)
    sll     $v0, $v0, 2
    beqz    \r, 2f                  /* a thread new to this copy */
    addu    $v0, $v0, \r            /* (delay slot) &page entry */
    lw      $v0, 0($v0)
    addu    $v0, $v0, $a0           /* &site word */
    lw      \r, 0($v0)
    .endm

    .macro OFF_END p
3:  RESTORE 4
    RESTORE 2
    RESTORE 3
    jr      $t9
    addiu   $sp, $sp, FRAME_SIZE    /* (delay slot) */
2:  RESTORE 2
    b       \p\()_start
    RESTORE 3                       /* (delay slot) */
    .endm

/* The fixed half in an executable: t9 is scratch (the callee gets the
 * target in it; the bridge's lane saved it for nothing), so only v0 is
 * saved: 19 instructions with the entry, not 21. */
    .macro OFF_FIXED name, p
    .global \name\()_t9
    .hidden \name\()_t9
\name\()_t9:
    .global \name
    .hidden \name
\name:
    SAVE 2
    OFF_SITE_WORD_TLS $t9
    addu    $t9, $v0, $t9           /* the fixed target */
    RESTORE 4
    RESTORE 2
    jr      $t9
    addiu   $sp, $sp, FRAME_SIZE    /* (delay slot) */
2:  b       \p\()_start             /* (v0, v1, a1, a2 as the call left them) */
    RESTORE 2                       /* (delay slot) */
    .endm

    .macro OFF p
#ifdef LITIFUT_SHARED
    OFF_START \p\()_off, \p
    addu    $t9, $v0, $v1           /* the fixed target */
    OFF_END \p
#else
    OFF_FIXED \p\()_off, \p
#endif

    OFF_START \p\()_off_reg, \p
    addiu   $v1, $v1, -FRAME_R(25)
    beqz    $v1, 3f                 /* jalr $t9: t9 is the target */
    nop
    b       2f
    nop
    OFF_END \p
    .endm

/*
 * LITIFUT_MODE dedup and count (stub/pairs.c): the sleds' entries go
 * here instead while recording.  The site's pairs (this copy's pair
 * pointers, at the site word's address + pair_delta, both from
 * litifut_copy: no TLS, no thread state; the newest, each linked to the
 * one before); if one has the call's target,
 * the call is known: count mode adds one to its count (ll/sc: threads
 * share it); then on to the target.  Else (a first call, another
 * target, a jalr through another register than t9) everything goes
 * back as it came and on to the slow path (\p\()_start), which makes
 * or finds the pair.  \name\()_t9 is where a bridge's dispatcher comes
 * in (it saved t9).
 */
    .macro MODE_START name, paused=0
    .global \name\()_t9
    .hidden \name\()_t9
\name\()_t9:
    RESTORE 25
    .global \name
    .hidden \name
\name:
    SAVE 2
    SAVE 3
    SAVE 5
    srl     $v0, $ra, DB_PAGE_SHIFT
    sw      $ra, FRAME_R(31)($sp)
    bal     1f                      /* ra = the word below */
    sll     $v0, $v0, 2             /* (delay slot) */
    .word   litifut_copy + COPY_PAGES - .
1:  lw      $v1, 0($ra)
    addu    $v1, $v1, $ra           /* &litifut_copy.pages */
    .if \paused
    lw      $a1, COPY_PROC - COPY_PAGES($v1)
    .else
    lw      $a1, COPY_PAIR_DELTA - COPY_PAGES($v1)
    .endif
    lw      $v1, 0($v1)             /* (made before the sled came here) */
    lw      $ra, FRAME_R(31)($sp)
    addu    $v0, $v0, $v1           /* &page entry */
    lw      $v0, 0($v0)             /* &sites[first site of the page] */
    addu    $v0, $v0, $a0           /* &site word */
    lw      $v1, 0($v0)             /* the site word */
    .if \paused
    addiu   $a1, $a1, PROCESS_UNRECORDED    /* &the process's count */
    .else
    addu    $a1, $a1, $v0           /* &the site's pair pointer */
    .endif
    .endm

/* The site's pairs (a1: the newest) against the target (t9): known, or
 * the slow path. */
    .macro MODE_END p, count
5:  lw      $v1, LITIFUT_PAIR_TARGET($a1)
    beq     $v1, $t9, 6f
    nop
    lw      $a1, LITIFUT_PAIR_NEXT($a1)     /* the site's pair before */
    bnez    $a1, 5b
    nop
    b       2f                      /* a target new to the site */
    nop
6:
    .if \count
4:  ll      $v1, LITIFUT_PAIR_COUNT($a1)
    addiu   $v1, $v1, 1
    sc      $v1, LITIFUT_PAIR_COUNT($a1)
    beqz    $v1, 4b
    nop
    .endif
    MODE_DONE \p
    .endm

/* The end of the mode and paused paths: what they saved back, on to the
 * target (t9); at 2, back as they came and on to the slow path. */
    .macro MODE_DONE p
    RESTORE 4
    RESTORE 2
    RESTORE 3
    RESTORE 5
    jr      $t9
    addiu   $sp, $sp, FRAME_SIZE    /* (delay slot) */
2:  RESTORE 2
    RESTORE 5
    b       \p\()_start
    RESTORE 3                       /* (delay slot) */
    .endm

    .macro MODE_PATHS p, mode, count
    MODE_START \p\()_\mode
    addu    $t9, $v0, $v1           /* the fixed target */
    lw      $a1, 0($a1)             /* the site's pair */
    MODE_END \p, \count

    MODE_START \p\()_\mode\()_reg
    addiu   $v1, $v1, -FRAME_R(25)
    bnez    $v1, 2f                 /* not jalr $t9 */
    lw      $a1, 0($a1)             /* (delay slot) the site's pair */
    MODE_END \p, \count
    .endm

/*
 * Recording off while the process traces (stub/control.c): the "off"
 * code that also counts the call in the process block (`unrecorded`,
 * ll/sc), but every 2^PAUSED_POLL_BITS-th call, and a jalr through
 * another register than t9, go to the slow path instead, which counts
 * it (and polls the control file).
 */
    .macro PAUSED_END p
    lw      $v1, 0($a1)
    nor     $v1, $v1, $zero
    sll     $v1, $v1, 32 - PAUSED_POLL_BITS
    beqz    $v1, 2f                 /* the low bits all set: the poll's turn */
    nop
4:  ll      $v1, 0($a1)
    addiu   $v1, $v1, 1
    sc      $v1, 0($a1)
    beqz    $v1, 4b
    nop
    MODE_DONE \p
    .endm

    .macro PAUSED_PATHS p
    MODE_START \p\()_paused, 1
    addu    $t9, $v0, $v1           /* the fixed target */
    PAUSED_END \p

    MODE_START \p\()_paused_reg, 1
    addiu   $v1, $v1, -FRAME_R(25)
    bnez    $v1, 2f                 /* not jalr $t9 */
    nop
    PAUSED_END \p
    .endm

/* A whole sled copy: its entries and its common code, in `section`. */
    .macro SLED_COPY section, name, prefix
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .set mips32r2
    .section \section, "ax", @progbits
    SLED \name, \prefix\()_start
    COMMON \prefix
    OFF \prefix
    MODE_PATHS \prefix, dedup, 0
    MODE_PATHS \prefix, count, 1
    PAUSED_PATHS \prefix
    TIMED_PATHS \prefix, clock, CLOCK_SYSCALL, 0
    TIMED_PATHS \prefix, counter, CLOCK_COUNTER, 0
    TIMED_PATHS \prefix, ret_marks, CLOCK_NONE, 1, litifut_return_marks
    TIMED_PATHS \prefix, ret_clock, CLOCK_SYSCALL, 1, litifut_return_clock
    TIMED_PATHS \prefix, ret_counter, CLOCK_COUNTER, 1, litifut_return_counter
    .section .note.GNU-stack, "", @progbits
    .endm

/*
 * The run-time bridge's code, as a template the tracer copies to offset
 * BRIDGE_OFFSET of each 256 MB region that far call sites need
 * (arch/mips/bridge.c).  One bridge serves every object with far sites
 * in its region: its entries are a sled's (two halves), and each half
 * goes to its lane: saves t9 and jumps through the half's word at
 * BRIDGE_LANE_WORDS of the table page (the lane's `lui`/`lw` get that
 * word's address when the bridge is mapped).  While one object has
 * entries in the table the word is that object's code for the half and
 * its sled mode (the `_t9` entry points), 5 instructions; with more it
 * is the half's dispatcher, which finds, in the table after the code
 * (BRIDGE_CODE bytes from the start, which is 4 KB aligned), the object
 * whose code holds the call's return address (still in ra), and goes on
 * to that object's code for the half, with a0 = 4k as the entry left
 * it.  It borrows at, v0 and ra (finding its own address with bal),
 * whose frame slots the object's code fills only later, and puts them
 * back.  A return address in no object (impossible unless the table is
 * damaged) ends in `break`.  Table entries (BRIDGE_ENTRY bytes): lo, hi
 * (the object's code, run time), then the code for each half; lo = 0
 * ends the table, hi = lo is a removed entry.
 */
    .macro LANE name
    .global \name
    .hidden \name
\name:
    sw      $t9, FRAME_R(25)($sp)
    lui     $t9, 0                  /* the word's %hi, when mapped */
    lw      $t9, 0($t9)             /* its %lo */
    jr      $t9
    nop
    .endm

    .macro DISPATCH name, column
    .global \name
    .hidden \name
\name:
    sw      $at, FRAME_R(1)($sp)
    sw      $v0, FRAME_R(2)($sp)
    sw      $ra, FRAME_R(31)($sp)
    bal     3f
    nop
3:  ori     $v0, $ra, 4095
    xori    $v0, $v0, 4095          /* the dispatchers' page, the code's second */
    lw      $at, FRAME_R(31)($sp)   /* the call's return address */
    addiu   $v0, $v0, BRIDGE_CODE - 4096    /* the table */
4:  lw      $t9, 0($v0)             /* lo */
    beqz    $t9, 6f
    sltu    $t9, $at, $t9           /* (delay slot) below lo? */
    bnez    $t9, 5f
    lw      $t9, 4($v0)             /* (delay slot) hi */
    sltu    $t9, $at, $t9
    bnez    $t9, 7f
    nop
5:  b       4b
    addiu   $v0, $v0, BRIDGE_ENTRY  /* (delay slot) */
6:  break   7
7:  lw      $t9, \column($v0)       /* the object's code for this half */
    move    $ra, $at
    lw      $at, FRAME_R(1)($sp)
    jr      $t9
    lw      $v0, FRAME_R(2)($sp)    /* (delay slot) */
    .endm

    .macro BRIDGE_TEMPLATE name
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .section .rodata.litifut_bridge, "a", @progbits
    .p2align 12
    .global \name
    .hidden \name
\name:
    SLED_HALF \name\()_lane0
    SLED_HALF \name\()_lane1
    LANE \name\()_lane0
    LANE \name\()_lane1
    DISPATCH \name\()_dispatch0, 8
    DISPATCH \name\()_dispatch1, 12
    .global \name\()_end
    .hidden \name\()_end
\name\()_end:
    .section .note.GNU-stack, "", @progbits
    .endm
