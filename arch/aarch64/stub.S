/*
 * AArch64 tracer entry: the sled that rewritten calls branch to, the hot
 * paths that record a call and go on to its target (one per sled half:
 * calls with a fixed target, calls through a register; per clock, with
 * and without exact returns), the slow-path entry, the "off" code, the
 * return trampolines and the wrappers (vfork, setjmp, getcontext,
 * swapcontext's __setcontext; backtrace: unwind.c).
 * Geometry in sled.h; struct offsets in stub/layout.h.
 *
 * At entry k (sled.h): x30 = the call's return address, x16 = 4k, every
 * other register, NZCV and sp as the call left them.  Only x16 and x17
 * may change before the callee runs (AAPCS64's veneer registers); every
 * other register is saved before use and restored.  A hot path:
 *   1. pushes x0-x3 (32 bytes, with one stp that moves sp: nothing is
 *      ever stored below sp, so a signal may come at any instruction);
 *   2. gets the thread's state through this copy's TLS slot (t, record
 *      delta, page table);
 *   3. not busy (then busy with the slow path's frame address: sp at the
 *      call - FRAME_SIZE) and room in the chunk (cur < lim), else the
 *      slow path; no instruction changes NZCV (cbnz, tbz on a sub);
 *   4. the site word's address (page table, then 4k) and the record word
 *      (rec_delta + &site word, 32 bits);
 *   5. with exact returns: a shadow stack with room whose top entry's
 *      frame is live, then the new entry written above the top (x30
 *      free from here on); with the counter: the delta since the
 *      thread's last event fits 8 bits (else the slow path, with x16 =
 *      &site word);
 *   6. the target: the site word's offset, or the register the site word
 *      names (x0-x3 from the push, any other through a jump table);
 *   7. the record (a register call: tag 1 and its 8-byte target, or tag
 *      2 if the thread's target cache holds it), busy 0 and cur in one
 *      stp, the hook (the new top stored, x30 = the clock's
 *      trampoline), x0-x3 back, `br x16`.
 * Anything else goes to litifut_slow(frame, 4k) in C (stub/call.c),
 * whose frame (struct arch_frame) holds every register and NZCV, and
 * which returns the target.
 *
 * BTI: sled entries, hot paths and the slow path are reached by `bl` and
 * `b` (BTYPE 00), the trampolines by `ret`: none needs a landing pad but
 * the jump tables' entries (`bti j`) and the wrappers (`bti c`: a
 * function pointer may name them).  The callee is reached by `br x16`
 * (BTYPE 01: `bti c`, `paciasp` and unguarded pages take it).
 */
#include "sled.h"
#include "layout.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

#include "property.h"

/* x\reg = the address of this copy's TLS slot (struct tls_slot).  An
 * executable: local-exec (reaches 16 MB of TLS); a library: its offset
 * from the GOT (initial-exec), \tmp clobbered. */
    .macro SLOT_ADDRESS reg, tmp
#ifdef LITIFUT_SHARED
    mrs     \tmp, tpidr_el0
    adrp    \reg, :gottprel:litifut_tls_slot
    ldr     \reg, [\reg, #:gottprel_lo12:litifut_tls_slot]
    add     \reg, \reg, \tmp
#else
    mrs     \reg, tpidr_el0
    add     \reg, \reg, #:tprel_hi12:litifut_tls_slot, lsl #12
    add     \reg, \reg, #:tprel_lo12_nc:litifut_tls_slot
#endif
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
     * through a register: each half has its own hot path */
    .rept 2
    .set k, 0
    .rept SLED_ENTRIES
    movz    x16, #4 * k
    b       litifut_a64_start       /* until this copy is ready: see sleds.c */
    .set k, k + 1
    .endr
    .endr
    .size litifut_sled, . - litifut_sled
    .global litifut_sled_end
    .hidden litifut_sled_end
litifut_sled_end:
    /* The far sleds' way in (far-sled.S: `br x17` from their relays):
     * per half, a landing pad and the half's branch, which sleds.c
     * writes with the sled's. */
    .global litifut_sled_far
    .hidden litifut_sled_far
    .type litifut_sled_far, %function
litifut_sled_far:
    .rept 2
    bti     j
    b       litifut_a64_start
    .endr
    .size litifut_sled_far, . - litifut_sled_far
    /* The tail jumps' half (sled.h): their thunks come here */
    .global litifut_sled_jump
    .hidden litifut_sled_jump
litifut_sled_jump:
    .set k, 0
    .rept SLED_ENTRIES
    movz    x16, #4 * k
    b       litifut_a64_start
    .set k, k + 1
    .endr

/* A jump table of 16-byte entries (a `br` to entry n needs `bti j` in a
 * BTI-marked object): entry n puts xn into x16, from the stack (sp + 8n)
 * for the first `pushed`, then `next` (the way back, or `br x16`).
 * x30 is never such a site (sled.h), x16 and x17 a tail jump's only,
 * whose thunk moved them to x15. */
    .macro REG_TABLE pushed, next:vararg
    .irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
    bti     j
    .if \n < \pushed
    ldr     x16, [sp, #8 * \n]
    .elseif \n == 16 || \n == 17      /* (only a jump's: its thunk moved it to x15) */
    mov     x16, x15
    .elseif \n >= 30
    udf     #0
    .else
    mov     x16, x\n
    .endif
    \next
    udf     #0
    .endr
    .endm

/*
 * Steps 1-4 for both halves: x0 = t, w1 = the record word, x2 = cur,
 * x16 = the site word's address; x3 and x17 free.  Busy or no room:
 * .Lslow_k (x16 still 4k).
 */
    .macro HOT_START
    stp     x0, x1, [sp, #-32]!
    stp     x2, x3, [sp, #16]
    SLOT_ADDRESS x17, x0
    ldp     x0, x1, [x17, #TLS_THREAD]  /* t, rec_delta (w1) */
    ldr     x2, [x0, #THREAD_BUSY]      /* (a thread new to this copy has a busy dummy) */
    cbnz    x2, .Lslow_k
    sub     x2, sp, #FRAME_SIZE - 32    /* the slow path's frame, if it comes to that */
    str     x2, [x0, #THREAD_BUSY]
    ldp     x2, x3, [x0, #THREAD_CUR]   /* cur, lim (after the busy mark: see DESIGN) */
    sub     x3, x2, x3
    tbz     x3, #63, .Lslow_k           /* cur >= lim: no room (busy: this frame) */
    ldr     x3, [x17, #TLS_PAGES]
    lsr     x17, x30, #DB_PAGE_SHIFT
    ldr     x3, [x3, x17, lsl #3]       /* &sites[first site of the page] */
    add     x16, x3, x16                /* the site word's address */
    add     w1, w1, w16                 /* the record word: (site id + 1) << 2 */
    .endm

/* Step 5, exact returns: a shadow stack with room (top < end; both 0
 * before the thread's first hooked call) whose top entry's frame is
 * live (its sp above sp at the call; entry 0 is a sentinel above any).
 * Else the slow path hooks it, and writes the returns of frames gone.
 * Then the entry {sp at the call, x30} is written above the top (x3 =
 * the top past it, stored by HOOK): x30 is free from here on, and a
 * way out restores it (.Lslow_hooked). */
    .macro HOOK_CHECK
    ldp     x3, x17, [x0, #THREAD_SHADOW_TOP]   /* top (next free), end */
    sub     x17, x3, x17
    tbz     x17, #63, .Lslow_word
    ldur    x17, [x3, #-16]             /* the top entry's sp */
    sub     x17, sp, x17
    add     x17, x17, #32               /* sp at the call - its sp */
    tbz     x17, #63, .Lslow_word       /* >= 0: its frame is gone */
    add     x17, sp, #32
    stp     x17, x30, [x3], #16         /* (not on the stack until HOOK stores the top) */
    .endm

/* Step 5, the counter: the time since the thread's last event, in units
 * of 2^counter_shift ticks (shift 0: of ticks, no shift read), into the
 * record word's bits 31..24; a delta of 8 bits or more goes to `slow`
 * (an ADVANCE or TIME record).  xa, xb: free registers. */
    .macro TIME_COUNTER a, b, shift, slow
    .if \shift
    ldr     w\a, [x0, #THREAD_SHIFT]
    mrs     x\b, cntvct_el0
    lsr     x\b, x\b, x\a               /* now, in units */
    .else
    mrs     x\b, cntvct_el0
    .endif
    ldr     w\a, [x0, #THREAD_TIME]
    sub     w\a, w\b, w\a               /* the delta */
    orr     w1, w1, w\a, lsl #LITIFUT_REC_DELTA_SHIFT
    lsr     w\a, w\a, #8
    cbnz    w\a, \slow
    str     w\b, [x0, #THREAD_TIME]
    .endm

/* Step 6, a fixed target: relative to the site word. */
    .macro TARGET_FIXED
    ldrsw   x17, [x16]
    add     x16, x16, x17
    .endm

/* Step 6, a register: the site word is SITE_REG_WORD(n).  x0-x3 (the
 * registers GCC calls through most) from the push; any other through
 * a table whose entry n (16 bytes, out of line) puts xn into x16.  x16,
 * x17 and x30 are never such sites (sled.h).  xt: a free register. */
    .macro TARGET_REG t, load=1
    .if \load
    ldr     w17, [x16]
    .endif
    lsr     x\t, x17, #4
    cbnz    x\t, 7f                     /* not x0-x3 */
    add     x17, sp, x17, uxtx #1       /* x<n>'s slot */
    ldr     x16, [x17]
9:
    .subsection 1
7:  adr     x\t, 8f
    add     x17, x\t, x17, lsl #2
    br      x17
    .p2align 4
8:  REG_TABLE 4, b 9b
    .subsection 0
    .endm

/* Step 7's record, a fixed target. */
    .macro RECORD_FIXED t
    str     w1, [x2], #4
    .endm

/* Step 7's record, a call through a register (x16 the target): one word
 * if the thread's target cache has it, else the word and the target
 * (two words, low first) and the cache updated.  Clock marks key the
 * cache by target (its entry into bits 31..24), the counter by site (the
 * delta is there; trace-format.h).  xt: a free register.  A miss is out
 * of line, after all the paths, with its own copy of the path's end
 * (`tramp`, `jump`: HOT_PATH's). */
    .macro RECORD_REG t, by_target, tramp, jump
    .if \by_target
    ubfx    x\t, x16, #2, #8            /* the target's cache entry */
    add     x17, x0, x\t, lsl #3
    ldr     x17, [x17, #THREAD_CACHE]
    .else
    ubfx    x\t, x1, #LITIFUT_REC_SITE_SHIFT, #8     /* the site's */
    add     x\t, x0, x\t, lsl #3        /* (its address, for a miss) */
    ldr     x17, [x\t, #THREAD_CACHE]
    .endif
    sub     x17, x17, x16
    cbnz    x17, 1f
    .if \by_target
    orr     w1, w1, w\t, lsl #LITIFUT_REC_AUX_SHIFT
    .endif
    orr     w1, w1, #LITIFUT_REC_CALL_CACHED
    str     w1, [x2], #4
    .subsection 1
1:  orr     w1, w1, #LITIFUT_REC_CALL_TARGET
    str     w1, [x2], #4
    str     x16, [x2], #8
    .if \by_target
    add     x\t, x0, x\t, lsl #3
    .endif
    str     x16, [x\t, #THREAD_CACHE]
    HOT_TAIL \tramp, \jump
    .subsection 0
    .endm

/* Step 7's hook: the entry HOOK_CHECK wrote is on the shadow stack now,
 * x30 = the trampoline. */
    .macro HOOK tramp
    str     x3, [x0, #THREAD_SHADOW_TOP]
    adr     x30, \tramp
    .endm

/* Step 7's end: busy 0 and cur in one store, x0-x3 back, on: `br x16`,
 * or in a BTI-marked object's fixed half `ret x16` (sleds.c). */
    .macro HOT_END jump
    stp     xzr, x2, [x0, #THREAD_BUSY]
    ldp     x2, x3, [sp, #16]
    ldp     x0, x1, [sp], #32
    \jump   x16
    .endm

/* One hot path: for a register (`reg`) or a fixed target; hooked for
 * its return with trampoline `tramp` (0: not hooked); `clock` 0 (marks:
 * no time), 1 (the counter), 2 (the counter in ticks: shift 0); the
 * target cache keyed `by_target` (or by site); ending in `jump` (br,
 * ret).  Its temporary: x3, or x30 once a hook freed it. */
    .macro HOT_PATH name, reg, tramp, clock, by_target, jump=br
    .p2align 4
    .global \name
    .hidden \name
    .type \name, %function
\name:
    HOT_START
    .ifc \tramp, 0
    HOT_BODY 3, \reg, \clock, \by_target, .Lslow_word, \tramp, \jump
    .else
    HOOK_CHECK
    HOT_BODY 30, \reg, \clock, \by_target, .Lslow_hooked, \tramp, \jump
    .endif
    HOT_TAIL \tramp, \jump
    .size \name, . - \name
    .endm

/* The hook, if any, and the end. */
    .macro HOT_TAIL tramp, jump
    .ifnc \tramp, 0
    HOOK    \tramp
    .endif
    HOT_END \jump
    .endm

/* Steps 5 (the clock) to 7 (the record), with temporary x<t>. */
    .macro HOT_BODY t, reg, clock, by_target, slow, tramp, jump
    .if \clock
    TIME_COUNTER \t, 17, 2-\clock, \slow      /* shift: clock 1 */
    .endif
    .if \reg
    TARGET_REG \t
    RECORD_REG \t, \by_target, \tramp, \jump
    .else
    TARGET_FIXED
    RECORD_FIXED
    .endif
    .endm

/* Every hot path (sleds.c picks them): calls only or exact returns;
 * clock marks, the counter in units of 2^shift ticks, or in ticks. */
    HOT_PATH litifut_a64_on, 0, 0, 0, 1
    HOT_PATH litifut_a64_on_reg, 1, 0, 0, 1
    HOT_PATH litifut_a64_counter, 0, 0, 1, 0
    HOT_PATH litifut_a64_counter_reg, 1, 0, 1, 0
    HOT_PATH litifut_a64_counter0, 0, 0, 2, 0
    HOT_PATH litifut_a64_counter0_reg, 1, 0, 2, 0
    HOT_PATH litifut_a64_ret, 0, litifut_return_marks, 0, 1
    HOT_PATH litifut_a64_ret_reg, 1, litifut_return_marks, 0, 1
    HOT_PATH litifut_a64_ret_counter, 0, litifut_return_counter, 1, 0
    HOT_PATH litifut_a64_ret_counter_reg, 1, litifut_return_counter, 1, 0
    HOT_PATH litifut_a64_ret_counter0, 0, litifut_return_counter0, 2, 0
    HOT_PATH litifut_a64_ret_counter0_reg, 1, litifut_return_counter0, 2, 0

/*
 * A tail jump (the jump half: its thunk sent it here with x30 = the
 * jump + 4 and the jumper's x30 pushed, JUMP_PUSHED bytes above the 32
 * of HOT_START): recorded as a call, not hooked (the callee returns
 * where the jumper would have).  Frames that are gone go to the slow
 * path first, which writes their returns: the top entry's sp below sp
 * at the jump (at it: the jumper's own frame, live until its callee
 * returns); no shadow stack (top 0: none yet, or no exact returns):
 * none.  A direct jump's target is its thunk's continuation; one
 * through a register (its site word SITE_REG_WORD(n) |
 * LITIFUT_DB_JUMP_REG) is recorded as a call through xn and goes on
 * through xn's way in litifut_a64_jump_cont (x30, which the
 * continuation pops, holds it meanwhile).  These paths serve the full
 * modes with and without exact returns (sleds.c); the others' jump half
 * goes through litifut_a64_jump_any.
 */
    .macro JUMP_CHECK
    ldr     x3, [x0, #THREAD_SHADOW_TOP]
    cbz     x3, 1f
    ldur    x17, [x3, #-16]             /* the top entry's sp */
    add     x3, sp, #32 + JUMP_PUSHED   /* sp at the jump */
    sub     x17, x17, x3
    tbnz    x17, #63, .Lslow_word       /* < 0: its frame is gone */
1:
    .endm

/* The way on of a jump through a register: xn's continuation, in x30. */
    .macro CONT_BR reg
    mov     \reg, x30
    br      \reg
    .endm
    .macro CONT_RET reg
    mov     \reg, x30
    ret     \reg
    .endm

    .macro JUMP_PATH name, clock, jump=br, cont=CONT_BR
    .p2align 4
    .global \name
    .hidden \name
    .type \name, %function
\name:
    HOT_START
    JUMP_CHECK
    ldr     w17, [x16]
    lsr     x3, x17, #7                 /* < LITIFUT_DB_INDIRECT: through a register */
    cbz     x3, 5f
    HOT_BODY 3, 0, \clock, 1, .Lslow_word, 0, \jump
    HOT_END \jump
5:
    .if \clock
    TIME_COUNTER 3, 17, 2-\clock, .Lslow_word      /* (x30 the key until here) */
    .endif
    ldr     w17, [x16]
    and     w17, w17, #~LITIFUT_DB_JUMP_REG
    adrp    x30, litifut_a64_jump_cont
    add     x30, x30, :lo12:litifut_a64_jump_cont
    add     x30, x30, x17, lsl #2       /* xn's way on (16 bytes each) */
    TARGET_REG 3, 0
    .if \clock
    RECORD_REG 3, 0, 0, \cont
    .else
    RECORD_REG 3, 1, 0, \cont
    .endif
    HOT_END \cont
    .size \name, . - \name
    .endm

    JUMP_PATH litifut_a64_jump_ret, 0
    JUMP_PATH litifut_a64_jump_ret_counter, 1
    JUMP_PATH litifut_a64_jump_ret_counter0, 2
    JUMP_PATH litifut_a64_jump_ret_bti, 0, ret, CONT_RET
    JUMP_PATH litifut_a64_jump_ret_counter_bti, 1, ret, CONT_RET
    JUMP_PATH litifut_a64_jump_ret_counter0_bti, 2, ret, CONT_RET

/* A BTI-marked object's pages are guarded, and a fixed target need not
 * start with a landing pad (a static function, a PLT entry, a veneer):
 * its fixed halves end in `ret x16` (BTYPE 00; on hardware the return
 * predictor mispredicts it).  A register's target took a `blr` before,
 * which needs the same landing pad as `br x16`. */
    HOT_PATH litifut_a64_on_bti, 0, 0, 0, 1, ret
    HOT_PATH litifut_a64_counter_bti, 0, 0, 1, 0, ret
    HOT_PATH litifut_a64_counter0_bti, 0, 0, 2, 0, ret
    HOT_PATH litifut_a64_ret_bti, 0, litifut_return_marks, 0, 1, ret
    HOT_PATH litifut_a64_ret_counter_bti, 0, litifut_return_counter, 1, 0, ret
    HOT_PATH litifut_a64_ret_counter0_bti, 0, litifut_return_counter0, 2, 0, ret

/*
 * The slow path: litifut_slow(frame, 4k) with struct arch_frame (every
 * register but sp, and NZCV) right below the call's sp; it returns the
 * target, and may have changed the frame's x30 (the hook).  Also where
 * the sled sends every call until this copy is ready (sleds.c).  It
 * ends in `ret x16` unless this object is known not to be BTI-marked
 * (litifut_a64_bti, sleds.c: the target may have no landing pad).
 */
    .macro SAVE_ALL
    stp     x0, x1, [sp, #FRAME_X(0)]
    stp     x2, x3, [sp, #FRAME_X(2)]
    stp     x4, x5, [sp, #FRAME_X(4)]
    stp     x6, x7, [sp, #FRAME_X(6)]
    stp     x8, x9, [sp, #FRAME_X(8)]
    stp     x10, x11, [sp, #FRAME_X(10)]
    stp     x12, x13, [sp, #FRAME_X(12)]
    stp     x14, x15, [sp, #FRAME_X(14)]
    stp     x16, x17, [sp, #FRAME_X(16)]
    stp     x18, x19, [sp, #FRAME_X(18)]
    stp     x20, x21, [sp, #FRAME_X(20)]
    stp     x22, x23, [sp, #FRAME_X(22)]
    stp     x24, x25, [sp, #FRAME_X(24)]
    stp     x26, x27, [sp, #FRAME_X(26)]
    stp     x28, x29, [sp, #FRAME_X(28)]
    mrs     x17, nzcv
    stp     x30, x17, [sp, #FRAME_X(30)]
    .endm

/* LITIFUT_ARGS (stub/args.c): a selected call's site word sends it
 * here from its hot path, as if to its callee (x30 as the call left it,
 * or the return trampoline): "4k" ARGS_K4, on to the slow path, which
 * records what the call was given and goes on to the callee. */
    .p2align 2
    .global litifut_args_entry
    .hidden litifut_args_entry
    .type litifut_args_entry, %function
litifut_args_entry:
    bti     jc
    movn    x16, #0                     /* ARGS_K4 */
    b       litifut_a64_start
    .size litifut_args_entry, . - litifut_args_entry

/* litifut_fp_registers(uint64_t d[8]): d0-d7 as they are (args.c reads
 * them where no code has touched them since the call or the return). */
    .global litifut_fp_registers
    .hidden litifut_fp_registers
    .type litifut_fp_registers, %function
litifut_fp_registers:
    bti     c
    stp     d0, d1, [x0]
    stp     d2, d3, [x0, #16]
    stp     d4, d5, [x0, #32]
    stp     d6, d7, [x0, #48]
    ret
    .size litifut_fp_registers, . - litifut_fp_registers

    .p2align 4
    .global litifut_a64_start
    .hidden litifut_a64_start
    .type litifut_a64_start, %function
litifut_a64_start:
    sub     sp, sp, #FRAME_SIZE
    SAVE_ALL
    mov     w1, w16                     /* arg 1: 4k */
.Lslow_call:
    mov     x0, sp                      /* arg 0: struct arch_frame * */
    bl      litifut_slow                /* x0 = where the call must go */
    mov     x16, x0
    ldp     x30, x17, [sp, #FRAME_X(30)]
    msr     nzcv, x17
    ldp     x0, x1, [sp, #FRAME_X(0)]
    ldp     x2, x3, [sp, #FRAME_X(2)]
    ldp     x4, x5, [sp, #FRAME_X(4)]
    ldp     x6, x7, [sp, #FRAME_X(6)]
    ldp     x8, x9, [sp, #FRAME_X(8)]
    ldp     x10, x11, [sp, #FRAME_X(10)]
    ldp     x12, x13, [sp, #FRAME_X(12)]
    ldp     x14, x15, [sp, #FRAME_X(14)]
    ldp     x18, x19, [sp, #FRAME_X(18)]
    ldp     x20, x21, [sp, #FRAME_X(20)]
    ldp     x22, x23, [sp, #FRAME_X(22)]
    ldp     x24, x25, [sp, #FRAME_X(24)]
    ldp     x26, x27, [sp, #FRAME_X(26)]
    ldp     x28, x29, [sp, #FRAME_X(28)]
    add     sp, sp, #FRAME_SIZE
    adrp    x17, litifut_a64_bti
    ldr     w17, [x17, #:lo12:litifut_a64_bti]
    cbnz    w17, 1f                     /* BTI-marked, or not known yet */
    br      x16
1:  ret     x16

/* A hot path's way out before it changed x16 (4k). */
.Lslow_k:
    ldp     x2, x3, [sp, #16]
    ldp     x0, x1, [sp], #32
    b       litifut_a64_start

/* ... and after (x16 = the site word's address): 4k again from the page
 * table, with every register saved; after HOOK_CHECK wrote its entry
 * (x3 past it), x30 back from the entry first. */
.Lslow_hooked:
    ldur    x30, [x3, #-8]
.Lslow_word:
    ldp     x2, x3, [sp, #16]
    ldp     x0, x1, [sp], #32
.Lslow_site:                            /* (the mode paths': nothing pushed) */
    sub     sp, sp, #FRAME_SIZE
    SAVE_ALL
    adrp    x0, litifut_copy
    ldr     x0, [x0, #:lo12:litifut_copy + COPY_PAGES]
    lsr     x1, x30, #DB_PAGE_SHIFT
    ldr     x0, [x0, x1, lsl #3]
    sub     w1, w16, w0                 /* 4k */
    b       .Lslow_call
    .size litifut_a64_start, . - litifut_a64_start

/*
 * The sled's entries go here instead (sleds.c) while this process
 * records nothing (LITIFUT_TRACE=0): find the target, jump; only x16
 * and x17 change.  The page table comes from this copy, not from TLS;
 * it is 8-aligned, so its entry for the return address's page is at
 * (pages + (ra >> (DB_PAGE_SHIFT - 3))) & ~7.  The "off" code lies in
 * the sled's section, after it, with the word litifut_sled_pages
 * (litifut_copy.pages) that sleds.c writes with the sled's branches:
 * one PC-relative load.  The mode paths, elsewhere, load it from
 * litifut_copy (OFF_SITE_WORD).
 */
    .macro SITE_WORD_AT_PAGES
    add     x17, x17, x30, lsr #DB_PAGE_SHIFT - 3
    and     x17, x17, #~7
    ldr     x17, [x17]
    add     x16, x17, x16               /* the site word's address */
    .endm
    .macro OFF_SITE_WORD
    adrp    x17, litifut_copy
    ldr     x17, [x17, #:lo12:litifut_copy + COPY_PAGES]
    SITE_WORD_AT_PAGES
    .endm
    .macro SLED_OFF_SITE_WORD
    ldr     x17, litifut_sled_pages
    SITE_WORD_AT_PAGES
    .endm

    .pushsection .text.litifut_sled, "ax", %progbits
    .p2align 3
    .global litifut_sled_pages
    .hidden litifut_sled_pages
litifut_sled_pages:
    .quad   0                           /* litifut_copy.pages */
    .global litifut_a64_jump_paths
    .hidden litifut_a64_jump_paths
litifut_a64_jump_paths:                 /* (litifut_a64_jump_any's: sleds.c writes them) */
    .quad   0                           /* the mode's fixed-target path */
    .quad   0                           /* the slow path */

/* The tail jumps' half in the modes with no jump paths of their own
 * (off, dedup, count, paused): a direct jump's site word gives its
 * thunk's continuation, which the mode's fixed-target path takes as a
 * call's target; a jump through a register (LITIFUT_DB_JUMP_REG) goes to
 * the slow path.  x16 stays 4k; `ret` needs no landing pad. */
    .p2align 4
    .global litifut_a64_jump_any
    .hidden litifut_a64_jump_any
    .type litifut_a64_jump_any, %function
litifut_a64_jump_any:
    ldr     x17, litifut_sled_pages
    add     x17, x17, x30, lsr #DB_PAGE_SHIFT - 3
    and     x17, x17, #~7
    ldr     x17, [x17]                  /* &sites[first site of the page] */
    ldr     w17, [x17, x16]             /* the site word */
    lsr     x17, x17, #7
    cbz     x17, 1f
    ldr     x17, litifut_a64_jump_paths
    ret     x17
1:  ldr     x17, litifut_a64_jump_paths + 8
    ret     x17
    .size litifut_a64_jump_any, . - litifut_a64_jump_any

    .p2align 4
    .global litifut_a64_off
    .hidden litifut_a64_off
    .type litifut_a64_off, %function
litifut_a64_off:                        /* a call with a fixed target */
    SLED_OFF_SITE_WORD
    ldrsw   x17, [x16]
    add     x16, x16, x17
    br      x16
    .size litifut_a64_off, . - litifut_a64_off

    .p2align 4
    .global litifut_a64_off_bti
    .hidden litifut_a64_off_bti
    .type litifut_a64_off_bti, %function
litifut_a64_off_bti:                    /* ... in a BTI-marked object */
    SLED_OFF_SITE_WORD
    ldrsw   x17, [x16]
    add     x16, x16, x17
    ret     x16
    .size litifut_a64_off_bti, . - litifut_a64_off_bti

    .p2align 4
    .global litifut_a64_off_reg
    .hidden litifut_a64_off_reg
    .type litifut_a64_off_reg, %function
litifut_a64_off_reg:                    /* a call through a register */
    SLED_OFF_SITE_WORD
    ldr     w17, [x16]
    adr     x16, 8f
    add     x16, x16, x17, lsl #2
    br      x16
    .p2align 4
8:  REG_TABLE 0, br x16
    .size litifut_a64_off_reg, . - litifut_a64_off_reg
    .popsection

/*
 * LITIFUT_MODE dedup and count (stub/pairs.c): the site's pairs (this
 * copy's pair pointers, at 2 * the site word's address + pair_delta:
 * the newest, each linked to the one before); if one has the call's
 * target, the call is known: count mode adds one to its count,
 * atomically (threads share it: ldxr/stxr, Armv8.0); then on to the
 * target.  Else (a target new to the site) the slow path makes or
 * finds the pair.  No thread state: no TLS, no busy mark, nothing
 * written but the count.  x0 = the site word's address, x1 the pair,
 * x16 the target; x0 and x1 pushed.
 */
/* The start of a mode or paused path `name`: x0 = the site word's
 * address, x16 = the target (`reg`: the register the site word names,
 * x0 and x1 from the push), x17 = litifut_copy's `field`. */
    .macro MODE_START name, reg, field
    .p2align 4
    .global \name
    .hidden \name
    .type \name, %function
\name:
    stp     x0, x1, [sp, #-16]!
    OFF_SITE_WORD
    mov     x0, x16
    .if \reg
    ldr     w17, [x0]
    adr     x16, 8f
    add     x17, x16, x17, lsl #2
    br      x17
    .p2align 4
8:  REG_TABLE 2, b 9f
9:
    .else
    ldrsw   x17, [x0]
    add     x16, x0, x17
    .endif
    adrp    x17, litifut_copy
    ldr     x17, [x17, #:lo12:litifut_copy + \field]
    .endm

/* The way on: x0, x1 back, `jump x16`; or to the slow path with x16 =
 * the site word's address (.Lslow_site finds 4k again). */
    .macro MODE_END jump
    ldp     x0, x1, [sp], #16
    \jump   x16
7:  mov     x16, x0
    ldp     x0, x1, [sp], #16
    b       .Lslow_site
    .endm

/* [x<a>] += 1, atomically; w17 and w<b> clobbered. */
    .macro COUNT_ONE a, b
3:  ldxr    w17, [x\a]
    add     w17, w17, #1
    stxr    w\b, w17, [x\a]
    cbnz    w\b, 3b
    .endm

    .macro MODE_PATH name, reg, count, jump=br
    MODE_START \name, \reg, COPY_PAIR_DELTA
    add     x17, x17, x0, lsl #1
    ldr     x1, [x17]                   /* the site's newest pair */
    .if \reg
5:  ldr     x17, [x1, #PAIR_TARGET]
    sub     x17, x17, x16
    cbz     x17, 6f
    ldr     x1, [x1, #PAIR_NEXT]        /* the site's pair before */
    cbnz    x1, 5b
    b       7f                          /* a target new to the site */
6:
    .else
    ldr     x17, [x1, #PAIR_TARGET]     /* (a fixed target: one pair) */
    sub     x17, x17, x16
    cbnz    x17, 7f
    .endif
    .if \count
    add     x1, x1, #PAIR_COUNT
    COUNT_ONE 1, 0
    .endif
    MODE_END \jump
    .size \name, . - \name
    .endm

/*
 * Recording off while the process traces (LITIFUT_SIGNAL, LITIFUT_RECORD,
 * LITIFUT_CONTROL, ...; stub/control.c): the "off" code that also
 * counts the call in the process block (`unrecorded`, atomically), but
 * every 2^PAUSED_POLL_BITS-th call goes to the slow path instead, which
 * counts it and polls the control file.
 */
    .macro PAUSED_PATH name, reg, jump=br
    MODE_START \name, \reg, COPY_PROC
    add     x1, x17, #PROCESS_UNRECORDED
    ldr     w17, [x1]
    mvn     w17, w17
    lsl     w17, w17, #32 - PAUSED_POLL_BITS    /* 0: the low bits all set: the poll's turn */
    cbz     w17, 7f
    COUNT_ONE 1, 0
    MODE_END \jump
    .size \name, . - \name
    .endm

    MODE_PATH litifut_a64_dedup, 0, 0
    MODE_PATH litifut_a64_dedup_reg, 1, 0
    MODE_PATH litifut_a64_count, 0, 1
    MODE_PATH litifut_a64_count_reg, 1, 1
    PAUSED_PATH litifut_a64_paused, 0
    PAUSED_PATH litifut_a64_paused_reg, 1
    /* a BTI-marked object's fixed halves: `ret x16` (the HOT_PATHs') */
    MODE_PATH litifut_a64_dedup_bti, 0, 0, ret
    MODE_PATH litifut_a64_count_bti, 0, 1, ret
    PAUSED_PATH litifut_a64_paused_bti, 0, ret

/*
 * LITIFUT_RETURNS: a hooked call's callee returns here (stub/returns.c),
 * with sp as at the call.  litifut_return records the return and gives
 * the real return address.  Every register comes back as the callee
 * left it but x30 (which the call changed anyway), not only the return
 * values: GCC's -fipa-ra keeps values in call-clobbered registers across
 * calls of local functions that do not clobber them; x19-x29 are the C
 * code's to keep.  The tracer's C code touches no FP/SIMD register
 * (-mgeneral-regs-only).
 *
 * Unwinders: the trampolines' FDE says the frame is empty (CFA = sp)
 * with x30 unchanged, and its personality routine (unwind.c) puts the
 * real return address into x30's location, the hooked callee's saved
 * x30 (the callee never returns normally after an exception passed
 * it).  No negate_ra_state: the address is not signed.  The `nop`
 * before: unwinders look up the return address - 1.
 */
    .p2align 4
    .type litifut_return_unwind, %function
litifut_return_unwind:
    .cfi_startproc
    .cfi_personality 0x9b, litifut_return_personality_ref
    .cfi_def_cfa sp, 0
    .cfi_same_value x30
    nop
    .global litifut_trampolines
    .hidden litifut_trampolines
litifut_trampolines:                    /* every trampoline, to litifut_trampolines_end */
    .global litifut_return_trampoline
    .hidden litifut_return_trampoline
    .type litifut_return_trampoline, %function
litifut_return_trampoline:
    bti     jc
    stp     x0, x1, [sp, #-160]!
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]
    stp     x10, x11, [sp, #80]
    stp     x12, x13, [sp, #96]
    stp     x14, x15, [sp, #112]
    stp     x16, x17, [sp, #128]
    mrs     x17, nzcv
    stp     x18, x17, [sp, #144]
    add     x0, sp, #160                /* arg: sp as the callee returned it */
    bl      litifut_return
    mov     x30, x0                     /* the real return address */
    ldp     x18, x17, [sp, #144]
    msr     nzcv, x17
    ldp     x16, x17, [sp, #128]
    ldp     x14, x15, [sp, #112]
    ldp     x12, x13, [sp, #96]
    ldp     x10, x11, [sp, #80]
    ldp     x8, x9, [sp, #64]
    ldp     x6, x7, [sp, #48]
    ldp     x4, x5, [sp, #32]
    ldp     x2, x3, [sp, #16]
    ldp     x0, x1, [sp], #160
    ret

/*
 * The hot paths' trampolines, one per clock (the hooked call's hot path
 * chose it): the return recorded in assembly, as a call is.  x16, x17
 * and x30 are free at a return (x16, x17: any call may go through a
 * veneer; GCC's -fipa-ra never keeps them across a call), so the checks
 * come before anything is pushed, and only x0 and x1 are.  Not busy
 * (then busy with this frame), the shadow stack's top entry this very
 * frame's (its sp = sp as the callee returned: no frame left by a jump
 * in between), room in the chunk, the RETURN word with its time delta;
 * the entry popped, busy clear, on to the real return address.
 * Anything else goes to the C trampoline above (busy back to 0 first
 * if this frame had marked it, the time back if it moved).  No
 * instruction changes NZCV.
 */
/* x16 = this thread (struct litifut_thread), x17 clobbered. */
    .macro RETURN_THREAD
#ifdef LITIFUT_SHARED
    SLOT_ADDRESS x17, x16
    ldr     x16, [x17, #TLS_THREAD]
#else
    mrs     x17, tpidr_el0
    add     x17, x17, #:tprel_hi12:litifut_tls_slot, lsl #12
    ldr     x16, [x17, #:tprel_lo12_nc:litifut_tls_slot + TLS_THREAD]
#endif
    .endm

    .macro RETURN_FAST name, clock
    .p2align 4
    .global \name
    .hidden \name
    .type \name, %function
\name:
    bti     jc
    RETURN_THREAD
    ldr     x30, [x16, #THREAD_BUSY]
    cbnz    x30, 8f
    sub     x30, sp, #16            /* below sp as returned: a jump out of a */
    str     x30, [x16, #THREAD_BUSY]    /* handler here leaves it abandoned (call.c) */
    ldr     x17, [x16, #THREAD_SHADOW_TOP]
    cbz     x17, 7f                     /* no shadow stack: not this thread's hook */
    ldur    x30, [x17, #-16]            /* the top entry's sp */
    sub     x30, sp, x30
    cbnz    x30, 7f
    stp     x0, x1, [sp, #-16]!
    ldp     x0, x1, [x16, #THREAD_CUR]  /* cur, lim */
    sub     x1, x0, x1
    tbz     x1, #63, 6f
    .if \clock
    .if \clock == 1
    ldr     w1, [x16, #THREAD_SHIFT]
    mrs     x30, cntvct_el0
    lsr     x30, x30, x1
    .else
    mrs     x30, cntvct_el0
    .endif
    ldr     w1, [x16, #THREAD_TIME]
    sub     w1, w30, w1                 /* the delta */
    str     w30, [x16, #THREAD_TIME]
    lsr     w30, w1, #8
    cbnz    w30, 4f
    lsl     w1, w1, #LITIFUT_REC_DELTA_SHIFT
    orr     w1, w1, #LITIFUT_REC_RETURN_WORD
    .else
    mov     w1, #LITIFUT_REC_RETURN_WORD
    .endif
    ldur    x30, [x17, #-8]             /* the real return address */
    cbz     x30, 5f                     /* 0: a call not hooked at this sp (swapcontext's) */
    sub     x17, x17, #16               /* the entry popped */
    str     w1, [x0], #4
    str     x17, [x16, #THREAD_SHADOW_TOP]
    stp     xzr, x0, [x16, #THREAD_BUSY]
    ldp     x0, x1, [sp], #16
    ret
5:
    .if \clock
    lsr     w1, w1, #LITIFUT_REC_DELTA_SHIFT     /* the word's delta */
4:  ldr     w30, [x16, #THREAD_TIME]    /* the time back: the C trampoline records */
    sub     w30, w30, w1
    str     w30, [x16, #THREAD_TIME]
    .endif
6:  ldp     x0, x1, [sp], #16
7:  str     xzr, [x16, #THREAD_BUSY]    /* busy was this frame's */
8:  b       litifut_return_trampoline
    .size \name, . - \name
    .endm

    RETURN_FAST litifut_return_marks, 0
    RETURN_FAST litifut_return_counter, 1
    RETURN_FAST litifut_return_counter0, 2
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
    .xword  litifut_return_personality
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
    bti     c
    .endm

/*
 * __wrap_vfork, __wrap_clone, __wrap___clone_internal: the wrapper
 * links the program's calls of these here with ld --wrap.  Each tells
 * the tracer (litifut_before_spawn: a child sharing this memory must not
 * record), then goes on to the real function with x0-x8, sp and the
 * stacked arguments as the caller left them, x30 the real return
 * address, so vfork returns straight to the caller.
 */
    .macro SPAWN_WRAPPER name
    WRAPPER_START \name
    stp     x0, x1, [sp, #-80]!
    .cfi_adjust_cfa_offset 80
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x30, [sp, #64]
    .cfi_rel_offset x30, 72
    add     x0, sp, #80                 /* arg 0: the caller's sp */
    mov     x1, x30                     /* arg 1: the return address (a trampoline if hooked) */
    bl      litifut_before_spawn
    mov     x30, x0                     /* the real one: vfork's child returns through it */
    ldp     x8, x17, [sp, #64]
    ldp     x6, x7, [sp, #48]
    ldp     x4, x5, [sp, #32]
    ldp     x2, x3, [sp, #16]
    ldp     x0, x1, [sp], #80
    .cfi_adjust_cfa_offset -80
    .cfi_restore x30
    b       __real_\name
    .cfi_endproc
    .size __wrap_\name, . - __wrap_\name
    .endm

    SPAWN_WRAPPER vfork
    SPAWN_WRAPPER clone
    SPAWN_WRAPPER __clone_internal

/*
 * __wrap_setjmp, __wrap__setjmp, __wrap___sigsetjmp, __wrap_sigsetjmp,
 * __wrap_getcontext:
 * their calls come here (ld --wrap) so that the tracer knows them by
 * their target: they return twice, and setjmp keeps its return address
 * for longjmp (getcontext for setcontext), so
 * a call a hot path hooked (it has no time to look) goes back to the
 * real return address here (litifut_unhook: the entry stays, as a
 * call not hooked).  __wrap___setcontext: glibc's swapcontext's call
 * of __setcontext, made at swapcontext's own stack pointer, is not
 * hooked either (stub/returns.c: the slow path sees it, its sp being
 * the top entry's; unhooked here if a hot path hooked it after all).
 * Every register as it came but x16, x17, x30.
 */
    .macro UNHOOK_WRAPPER name
    WRAPPER_START \name
    adrp    x16, litifut_trampolines
    add     x16, x16, #:lo12:litifut_trampolines
    sub     x16, x30, x16
    cmp     x16, #litifut_trampolines_end - litifut_trampolines
    b.lo    1f                          /* (the flags: setjmp saves none) */
    b       __real_\name                /* not hooked */
1:
    stp     x0, x1, [sp, #-32]!
    .cfi_adjust_cfa_offset 32
    stp     x2, x30, [sp, #16]
    mov     x0, x30
    bl      litifut_unhook
    mov     x30, x0                     /* the real return address */
    ldp     x2, x17, [sp, #16]
    ldp     x0, x1, [sp], #32
    .cfi_adjust_cfa_offset -32
    b       __real_\name
    .cfi_endproc
    .size __wrap_\name, . - __wrap_\name
    .endm

/*
 * __wrap___libc_start_main, __wrap___uClibc_main: the start files' call
 * (main, argc, argv, ...): main into litifut_main, litifut_main_entry
 * in its place, every other argument as it came (stub/entries.c).
 */
    .macro START_WRAPPER name
    WRAPPER_START \name
    adrp    x16, litifut_main
    str     x0, [x16, #:lo12:litifut_main]
    adrp    x0, litifut_main_entry
    add     x0, x0, #:lo12:litifut_main_entry
    b       __real_\name
    .cfi_endproc
    .size __wrap_\name, . - __wrap_\name
    .endm

    START_WRAPPER __libc_start_main
    START_WRAPPER __uClibc_main

/*
 * Entries with no frame of the tracer's (stub/entries.c litifut_entry):
 * main (litifut_main_entry, above) and the constructors and destructors
 * whose array words the rewriter points at thunks of their own (x16 =
 * the function, then a b here: host-aarch64.h).  The slow path's frame,
 * the return address hooked in it, every register back, and on to the
 * function (br x16: its bti c takes it) with sp as its caller left it.
 */
    .macro ENTRY_PATH name, how
    .text
    .p2align 2
    .global \name
    .hidden \name
    .type \name, %function
\name:
    bti     c                           /* (litifut_main_entry: a pointer to it is called) */
    sub     sp, sp, #FRAME_SIZE
    SAVE_ALL
    mov     x0, sp                      /* arg 0: struct arch_frame * */
    mov     w1, #\how
    bl      litifut_entry               /* x0 = the function */
    mov     x16, x0
    ldp     x30, x17, [sp, #FRAME_X(30)]
    msr     nzcv, x17
    ldp     x0, x1, [sp, #FRAME_X(0)]
    ldp     x2, x3, [sp, #FRAME_X(2)]
    ldp     x4, x5, [sp, #FRAME_X(4)]
    ldp     x6, x7, [sp, #FRAME_X(6)]
    ldp     x8, x9, [sp, #FRAME_X(8)]
    ldp     x10, x11, [sp, #FRAME_X(10)]
    ldp     x12, x13, [sp, #FRAME_X(12)]
    ldp     x14, x15, [sp, #FRAME_X(14)]
    ldp     x18, x19, [sp, #FRAME_X(18)]
    ldp     x20, x21, [sp, #FRAME_X(20)]
    ldp     x22, x23, [sp, #FRAME_X(22)]
    ldp     x24, x25, [sp, #FRAME_X(24)]
    ldp     x26, x27, [sp, #FRAME_X(26)]
    ldp     x28, x29, [sp, #FRAME_X(28)]
    add     sp, sp, #FRAME_SIZE
    br      x16
    .size \name, . - \name
    .endm

    ENTRY_PATH litifut_main_entry, LITIFUT_ENTRY_START
    ENTRY_PATH litifut_init_entry, LITIFUT_ENTRY_INIT
    ENTRY_PATH litifut_fini_entry, LITIFUT_ENTRY_FINI

    UNHOOK_WRAPPER setjmp
    UNHOOK_WRAPPER _setjmp
    UNHOOK_WRAPPER __sigsetjmp
    UNHOOK_WRAPPER sigsetjmp
    UNHOOK_WRAPPER getcontext
    UNHOOK_WRAPPER __setcontext

/*
 * void litifut_calibrate(uint32_t rounds, uint32_t *scratch): `rounds`
 * rounds of what the hot path executes to record a call (the push, the
 * thread pointer, its loads, tests, record store, the pop and an
 * indirect branch), on `scratch` (8 words: 0 but word 6) instead of the
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
    bti     c
    adr     x16, 3f
    mov     x9, x16
1:  stp     x0, x1, [sp, #-32]!
    stp     x2, x3, [sp, #16]
    mrs     x17, tpidr_el0              /* (its result unused) */
    mov     x17, x1
    ldp     w2, w3, [x17, #8]           /* 0, 0 */
    ldr     w0, [x17, #16]              /* "busy": 0 */
    cbnz    w0, 3f
    mov     x0, sp
    str     w3, [x17, #16]
    ldp     w2, w3, [x17, #4]
    sub     w3, w2, w3
    tbnz    w3, #31, 3f                 /* (not taken) */
    ldr     w3, [x17, #20]
    lsr     x0, x30, #DB_PAGE_SHIFT
    ldr     w3, [x17, #24]
    add     x16, x9, #0
    add     w1, w3, w16
    ldrsw   x0, [x17, #20]
    str     w1, [x17, #28]              /* the "record" */
    stp     wzr, w2, [x17, #16]         /* not busy */
    add     x16, x16, x0
    ldp     x2, x3, [sp, #16]
    ldp     x0, x1, [sp], #32
    br      x16                         /* the indirect branch */
    .p2align 4
3:  bti     j
    subs    w0, w0, #1
    b.ne    1b
    ret
    .cfi_endproc
    .size litifut_calibrate, . - litifut_calibrate

/* A tail jump through a register goes on here (LITIFUT_DB_JUMP_REG;
 * stub/call.c, the jump paths): one way per register x0-x30, 16 bytes
 * each (x30 is never such a site): the jumper's x30, which its thunk
 * pushed, back, and the jump, xn as the jump left it (x16 and x17 from
 * x15, where the thunk moved them).  Reached by the paths' own jump
 * (`br x16`, or `ret x16` where BTI guards: no landing pad needed). */
    .section .text.litifut_sled, "ax", %progbits   /* (with the sled: litifut-emu's trampolines) */
    .p2align 4
    .global litifut_a64_jump_cont
    .hidden litifut_a64_jump_cont
    .type litifut_a64_jump_cont, %function
litifut_a64_jump_cont:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30
    ldr     x30, [sp], #16
    .if \n == 16 || \n == 17
    mov     x\n, x15
    .else
    nop
    .endif
    br      x\n
    udf     #0
    .endr
    .size litifut_a64_jump_cont, . - litifut_a64_jump_cont

    .section .note.GNU-stack, "", %progbits
