/*
 * The per-call path's C half.  Every traced call runs the assembly hot
 * path (arch/<arch>/stub.S or sled.S), which records it on its own when
 * it can; everything else comes here, through litifut_slow(): a
 * thread's first call through this copy, calls before TLS exists or
 * before this copy is ready, a full chunk or a time mark due, a busy
 * thread, a MIPS call through a register the hot path did not save.
 * litifut_slow does what the hot path does, in C, and more.  Also the
 * vfork/clone marks.
 */
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

static void die_no_site(uintptr_t ra)
{
    die_at("no call site for return address ", ra,
           "; the instruction DB does not match this program");
}

#define compiler_barrier() __asm__ volatile("" ::: "memory")

/* arch/<arch>/unwind.c: the return trampoline's personality routine */
extern const char litifut_return_personality[] HIDDEN;

/* The DB object's thunk area (src/db.c): a fixed target there is a tail
 * jump's thunk continuation (arch/<arch>/sled.h).  (Weak: a link with
 * no DB object has none.) */
extern const char litifut_thunks[] __attribute__((weak)) HIDDEN;
extern const char litifut_thunks_end[] __attribute__((weak)) HIDDEN;

static int is_jump_continuation(uintptr_t target)
{
    return target - (uintptr_t)litifut_thunks < (uintptr_t)(litifut_thunks_end - litifut_thunks);
}

/* Records one call as the hot path does (the same words, the same
 * cache); `busy_after` is what busy goes back to (0, or BUSY_SPAWN for
 * the parent's calls made inside vfork or clone).  `reset`: the cache
 * may hold a target whose record was abandoned: empty it first.
 * `hook`: LITIFUT_RETURNS, the frame whose return address to hook.
 * `jump`: a tail jump (its thunk pushed the jumper's lr above the
 * frame): recorded as a call, never hooked nor a pending entry, and the
 * frames gone are the ones below sp at the jump (at it: the jumper's).
 * Returns 1 if the call was recorded. */
static void unrecorded_call(struct litifut_process *proc);

static int record_call(struct litifut_thread *t, uintptr_t frame, uint32_t site, int indirect,
                       uintptr_t target, uintptr_t busy_after, int reset,
                       struct arch_frame *hook, int jump)
{
    t->busy = frame;
    compiler_barrier();
    uint32_t *p = t->cur;
    if (t->lim <= p) {
        if (!(p = control_refill(t)))
            return 0;       /* this thread records no more: BUSY_OFF */
        if (litifut_copy.proc->recording_off) {
            /* the refill paused recording (LITIFUT_BUDGET, the control
             * file): this call comes after the pause's STATE record */
            t->busy = busy_after;
            unrecorded_call(litifut_copy.proc);
            return 0;
        }
    }
    if (reset) {
        thread_cache_clear(t);
        *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CACHE_RESET, 0);
        t->cur = p;
        if (t->lim <= p && !(p = control_refill(t)))
            return 0;
    }
    uintptr_t sp_call = (uintptr_t)frame + sizeof(struct arch_frame) +   /* sp at the call */
                        (jump ? JUMP_PUSHED : 0);
    if (litifut_copy.returns && !(p = jump ? returns_before_jump(t, p, sp_call)
                                           : returns_before_call(t, p, sp_call, target)))
        return 0;
    uint32_t delta;
    if (!(p = event_time(t, p, &delta)))
        return 0;
    uint32_t w = LITIFUT_REC_CALL_WORD(site, LITIFUT_REC_CALL) | delta << LITIFUT_REC_DELTA_SHIFT;
    int marks = tracefile_clock() == LITIFUT_CLOCK_MARKS;   /* (trace-format.h: the cache) */
    uint32_t e = marks ? LITIFUT_CACHE_ENTRY_OF_TARGET(target) : LITIFUT_CACHE_ENTRY_OF_SITE(w);
    if (!indirect) {
        p[0] = w;
        t->cur = p + 1;
    } else if (t->cache[e] == target) {
        p[0] = w | LITIFUT_REC_CALL_CACHED | (marks ? e << LITIFUT_REC_AUX_SHIFT : 0);
        t->cur = p + 1;
    } else {
        p[0] = w | LITIFUT_REC_CALL_TARGET;
        put_address(p + 1, target);
        t->cache[e] = target;
        t->cur = p + CALL_MAX_WORDS;
    }
    if (litifut_copy.returns && !jump)
        returns_hook(t, hook ? arch_return_address_slot(hook) : NULL, sp_call);
    compiler_barrier();
    t->busy = busy_after;
    return 1;
}

/*
 * Was the tracer frame that marked this thread busy at `busy` abandoned,
 * now that the thread enters the tracer again from a program whose stack
 * pointer is `caller_sp`?  Stacks grow down, and every busy mark is an
 * address below the stack pointer the tracer was entered with, so on one
 * stack an entry from at or above the mark proves that tracer frame gone
 * (a signal handler that interrupted the tracer left with siglongjmp);
 * an entry from below it is nested in it (the tracer's own calls, or a
 * handler).  The caller's stack pointer, not the new frame's address, is
 * compared: the call path and the return path push frames of different
 * sizes, so the same loop calling again after a jump out of a return
 * would otherwise look nested for ever.  A handler on the alternate
 * signal stack is not on the same stack: leaving the alternate stack
 * proves its frames gone, entering it proves nothing.  (With
 * SS_AUTODISARM the kernel hides the alternate stack while a handler
 * runs on it; then only the address comparison is left.)
 */
HIDDEN int busy_abandoned(uintptr_t busy, uintptr_t caller_sp)
{
    struct arch_stack ss;
    if (sys_sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
        int busy_on_alt = busy - ss.ss_sp < ss.ss_size;
        int now_on_alt = caller_sp - ss.ss_sp < ss.ss_size;
        if (busy_on_alt != now_on_alt)
            return busy_on_alt;
    }
    return caller_sp > busy;
}

/* A call found this thread busy: may it be recorded after all?  Rare
 * (signal handlers, vfork, abandoned frames), so system calls are fine.
 * Not for BUSY_OFF (the caller has checked).  Returns what busy goes
 * back to after the record, or BUSY_OFF if the call is not recorded
 * (BUSY_OFF is never cleared, so it cannot be a value to go back to). */
static __attribute__((noinline)) uintptr_t busy_after_record(const struct litifut_thread *t,
                                                             const struct arch_frame *frame)
{
    uintptr_t busy = t->busy;
    if (busy == BUSY_UNHOOKED)
        return busy;                /* inside backtrace(): recorded, not hooked (returns.c) */
    if (busy == BUSY_SPAWN) {
        if ((uint32_t)sys_getpid() != t->spawn_pid)
            return BUSY_OFF;        /* the child: its calls are not recorded */
        /* The parent: still inside vfork or clone (whose own calls
         * come before the child exists) keeps the mark; back from it,
         * it is done. */
        return (uintptr_t)(frame + 1) < t->spawn_sp ? BUSY_SPAWN : 0;
    }
    if (!busy_abandoned(busy, (uintptr_t)(frame + 1)))  /* (the frame sits just below the caller's sp) */
        return BUSY_OFF;
    return 0;
}

/* A call made while recording is off: counted (the paused path counts
 * the others), the control file polled (every 4th time), and the
 * budget's next period looked for. */
static void unrecorded_call(struct litifut_process *proc)
{
    count_up(&proc->unrecorded);
    control_poll(4);
    budget_poll();              /* LITIFUT_BUDGET: a new period resumes */
}

/*
 * A call in LITIFUT_MODE dedup or count (pairs.c), or one before this
 * copy knows its mode (-1: its first calls; a library's before its
 * constructor has run are not counted, as they are not recorded in the
 * full trace).  No thread state: nothing is written to a thread's
 * chunks, so a call from inside the tracer or a vfork child's needs no
 * telling apart (a vfork child's pairs and counts are its parent's).
 * 1: done; 0: the mode is full after all.
 */
/* LITIFUT_EXCLUDE_CALLEE at run time put site `index` back to a plain
 * call (skip.c): the call that went through it meanwhile is not
 * recorded either. */
static int site_skipped(uint32_t index)
{
    const uint8_t *bits = litifut_copy.skipped;
    return bits && (bits[index / 8] >> (index % 8) & 1);
}

static __attribute__((noinline)) int mode_call(uint32_t index, uint32_t site, uintptr_t target)
{
    int mode = *(volatile int *)&litifut_copy.mode;   /* once: another thread may set it */
    if (mode < 0) {
#ifdef LITIFUT_SHARED
        if (!litifut_copy.ctor_done)
            return 1;
#endif
        if (!copy_start())
            return 1;
        if (site_skipped(index))
            return 1;
        const struct litifut_process *p = litifut_copy.proc;
        mode = (int)(p->settings_read ? p->settings.mode : tracefile_settings()->mode);
        litifut_copy.mode = mode;
    }
    if (mode == LITIFUT_MODE_FULL)
        return 0;
    struct litifut_process *proc = litifut_copy.proc;
    if (proc->n_triggers)
        control_before_call(target);    /* LITIFUT_START_AT */
    if (!proc->recording_off)
        pairs_call(index, site, target);
    else
        unrecorded_call(proc);
    if (proc->n_triggers)
        control_after_call(target);     /* LITIFUT_STOP_AT */
    return 1;
}

/*
 * Called by the hot path (stub.S, sled.S) for every call it does not
 * record itself, with the frame of saved registers and 4k (k: the sled
 * entry).  Returns the address the original instruction would have
 * jumped to.  A call made while this thread is busy in the tracer is
 * not recorded.  If the hot path marked the thread busy before it went
 * to the slow path (the chunk had no room), busy is this frame.
 */
HIDDEN uintptr_t litifut_slow(struct arch_frame *frame, uint32_t k4)
{
    if (k4 == ARGS_K4)
        return args_call(frame);            /* a LITIFUT_ARGS call, recorded (args.c) */
    const struct litifut_db_header *h = db_header();
    uintptr_t ra = arch_return_address(frame);
    uint32_t page = (uint32_t)(ra >> h->page_shift) -
                    (h->first_page + (uint32_t)(object_load_bias() >> h->page_shift));
    if (page >= h->n_pages)
        die_no_site(ra);
    uint32_t index = (db_pages()[page] + k4) / 4;
    if (index >= h->n_sites || (page + 1 < h->n_pages && 4 * index >= db_pages()[page + 1]))
        die_no_site(ra);
    uintptr_t word_addr = (uintptr_t)&db_sites()[index];
    uint32_t w = db_sites()[index];
    int indirect = w < LITIFUT_DB_INDIRECT;
    uintptr_t target = indirect ? arch_frame_register(frame, w)
                                : word_addr + (uintptr_t)(intptr_t)(int32_t)w;   /* (signed) */
    /* a tail jump through a register: the target is rM's, and the way
     * on its continuation, which pops the jumper's return address that
     * the thunk pushed (db-format.h); every return below goes there */
    int jump_reg = indirect && (w & LITIFUT_DB_JUMP_REG);
    uintptr_t go = jump_reg ? arch_jump_reg_continuation(w) : target;
    /* LITIFUT_ARGS: a selected call's word sends it on to the args entry,
     * `go`; the callee is still its own (args.c) */
    const struct args_site *args = litifut_copy.n_args ? args_site_at(ARCH_CODE_ADDRESS(ra)) : NULL;
    if (args)
        target = args_target(args, target);

    uint32_t site = litifut_copy.base + index;
    if (litifut_copy.mode != LITIFUT_MODE_FULL && mode_call(index, site, target))
        return go;
    /* a direct tail jump: its target is its thunk's continuation, which
     * goes on to the callee (the pairs above keep the continuation: the
     * mode paths compare that) */
    int jump = jump_reg || (!indirect && is_jump_continuation(target));
    uintptr_t callee = jump && !jump_reg ? arch_jump_target(target) : target;

    struct litifut_thread *t = thread_self();
    uintptr_t busy = t->busy;
    if (busy == BUSY_UNHOOKED && returns_unhooked_left(t, (uintptr_t)(frame + 1)))
        t->busy = busy = 0;         /* (a handler left backtrace() with siglongjmp) */
    if (site_skipped(index)) {      /* (the call that registered the copy, before) */
        if (busy == (uintptr_t)frame)
            t->busy = 0;
        return go;
    }
    /* a stopped trace (frozen by a snapshot, a failed file): nothing
     * more is recorded; the sleds go to the "off" code then (copy.c),
     * but for calls under way, and on an arch whose sleds always come
     * here (RISC-V: no hot path yet) */
    if (litifut_copy.proc && litifut_copy.proc->trace == TRACE_OFF) {
        if (busy == (uintptr_t)frame)
            t->busy = 0;
        return go;
    }
    if (litifut_copy.returns < 0)
        litifut_copy.returns = tracefile_returns();
    if (litifut_copy.returns && target == (uintptr_t)litifut_return_personality)
        return go;      /* an unwinder linked into the program calls the tracer's own code */
    /* function triggers: only for a call the thread may record (not a
     * vfork child's, not one made inside the tracer) */
    struct litifut_process *proc = litifut_copy.proc;
    int triggers = proc && proc->n_triggers &&
                   (!busy || busy == (uintptr_t)frame || busy == BUSY_UNHOOKED);
    if (triggers)
        control_before_call(callee);    /* LITIFUT_START_AT */
    if (proc && proc->recording_off) {  /* LITIFUT_SIGNAL, LITIFUT_RECORD, ... (control.c) */
        /* counted if it would have been recorded (not the tracer's own
         * calls: a full run records them neither) */
        int counted = !busy || busy == (uintptr_t)frame || busy_after_record(t, frame) != BUSY_OFF;
        if (busy == (uintptr_t)frame)
            t->busy = 0;            /* (the hot path's, begun before it went off) */
        if (proc->trace == TRACE_ON && counted)
            unrecorded_call(proc);
        return go;
    }
    struct arch_frame *hook =
        litifut_copy.returns && busy != BUSY_UNHOOKED && !jump && returns_hookable(target) ? frame
                                                                                          : NULL;
    int recorded = 0;
    if (!busy || busy == (uintptr_t)frame) {
        recorded = record_call(t, (uintptr_t)frame, site, indirect, target, 0, 0, hook, jump);
    } else if (busy != BUSY_OFF) {   /* off: nothing to ask, at "off" cost */
        uintptr_t after = busy_after_record(t, frame);
        if (after != BUSY_OFF)
            recorded = record_call(t, (uintptr_t)frame, site, indirect, target, after, after == 0,
                                   hook, jump) && after == 0;
    }
    /* a selected call through a register (MIPS) goes straight on: its
     * arguments now */
    if (args && indirect && recorded && !t->busy && proc && !proc->recording_off)
        args_after_call(t, frame, args, (uintptr_t)(frame + 1));
    if (triggers)
        control_after_call(callee);     /* LITIFUT_STOP_AT */
    return go;
}

/*
 * The ARM hot path found no room in t's chunk and marked t busy with its
 * frame: a time mark or a new chunk, then busy is clear again (or t is
 * off for good: BUSY_OFF), and the hot path tries once more.  If the
 * refill paused recording (LITIFUT_BUDGET, the control file), busy
 * stays the hot path's frame: its retry goes to the slow path, which
 * counts the call as not recorded (it comes after the pause's STATE
 * record).
 */
HIDDEN void litifut_refill(struct litifut_thread *t)
{
    if (control_refill(t) && !litifut_copy.proc->recording_off)
        t->busy = 0;
}

/*
 * The program is about to call vfork or clone (the wrapper links those
 * calls to __wrap_vfork and friends in stub.S, which call this first).
 * A vfork child runs on this thread's memory until it calls exec or
 * _exit, and a CLONE_VM child without a TLS of its own sees this
 * thread's state: mark it, so that such a child records nothing (it
 * would write into the parent's chunk) and the parent resumes
 * recording once it is back in the caller (its stack pointer at the
 * call, caller_sp, tells).  A child that calls exec starts its own
 * trace there.
 */
HIDDEN uintptr_t litifut_before_spawn(uintptr_t caller_sp, uintptr_t ra)
{
    struct litifut_thread *t = thread_self();
    if (t->busy)
        return ra;          /* off, or called from inside the tracer's window */
    t->busy = FRAME_ADDRESS();
    compiler_barrier();
    ra = returns_unhook(t, ra);     /* vfork's child returns through its caller's frame */
    t->spawn_pid = (uint32_t)sys_getpid();
    t->spawn_sp = caller_sp;
    compiler_barrier();
    t->busy = BUSY_SPAWN;
    return ra;
}


/* --- signal deliveries (events.c's entry) --- */

/* Whether the thread runs on its alternate signal stack now. */
static int on_alt_stack(void)
{
    struct arch_stack ss;
    return sys_sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
}

/* A signal's control record (type, n payload words) at p, at the
 * thread's clock as it stands: an ADVANCE word (or a TIME record) first
 * if the clock moved since the thread's last event, as for a call whose
 * delta does not fit.  p is t->cur, below t->lim.  Returns where the
 * next record goes, NULL if the thread records no more. */
static uint32_t *put_signal_record(struct litifut_thread *t, uint32_t *p, uint32_t type,
                                   const uint32_t *payload, uint32_t n)
{
    uint32_t delta;
    if (!(p = event_time(t, p, &delta)))
        return NULL;
    if (delta) {
        *p++ = delta << 8 | LITIFUT_REC_ADVANCE;
        t->cur = p;
        if (t->lim <= p && !(p = control_refill(t)))
            return NULL;
    }
    /* Below lim is room for a call (CALL_MAX_WORDS) before the chunk's
     * end; a SIGNAL record is a word more: a time mark or a new chunk
     * first if it does not fit (the room past chunk_end is the STOPPED
     * record's). */
    while ((uint32_t)(t->chunk_end - p) < 1 + n)
        if (!(p = control_refill(t)))
            return NULL;
    p[0] = LITIFUT_REC_CONTROL_WORD(type, n);
    for (uint32_t i = 0; i < n; i++)
        p[1 + i] = payload[i];
    t->cur = p + 1 + n;
    return t->cur;
}

/*
 * A function of the program's about to be entered by no traced call:
 * a signal's handler (type SIGNAL, how: the signal's number) or a
 * thread's start routine (ENTRY, LITIFUT_ENTRY_THREAD), called from
 * the tracer's entry (events.c) whose frame is at `sp`; entry_leave()
 * after it returned writes the END record.  Or (`ra_slot` not NULL) a
 * function the tracer jumps to with sp as its caller left it (main, a
 * constructor: entries.c litifut_entry), its return address in
 * *ra_slot: with exact returns that is hooked, and its RETURN ends the
 * entry (no entry_leave).  Told for a signal below;
 * an entry is the same.  Recorded where a
 * call made at this moment would be (call.c's rules for a busy thread):
 * a thread that records (busy 0, inside backtrace(), a vfork parent),
 * or whose busy mark a handler's siglongjmp abandoned (CACHE_RESET
 * first, as for a call).  Not recorded while the tracer is at work for
 * the thread (the signal interrupted its hot path, slow path, a
 * trampoline or a chunk switch): that frame holds `cur` and may be
 * storing a record at it, so no record of any kind may go into the
 * thread's chunk now, and the process's own chunk is not the thread's
 * stream.  The handler's calls are not recorded either then (busy), so
 * the trace stays consistent: that delivery is simply not there.  Nor
 * in a vfork child, in modes dedup and count (no thread records), or
 * while recording is off.  A thread whose trace has not started starts
 * it here, as its first call would.
 *
 * With exact returns the signal is one more frame on the shadow stack
 * (sp: the entry's frame, below every frame the signal interrupted and
 * above every frame of the handler; no return address, as a call not
 * hooked): frames left before it are closed first, as a call at that sp
 * closes them (not on the alternate signal stack, whose addresses say
 * nothing about the thread's stack), and a handler left by siglongjmp
 * is closed by the RETURN that the next event at the jump's target
 * writes for this entry (returns.c), as for any frame a jump left.
 */
void entry_enter(struct signal_mark *m, uint32_t type, uint32_t how, uintptr_t fn, uintptr_t sp,
                 uintptr_t *ra_slot)
{
    m->t = NULL;
    struct litifut_process *proc = litifut_copy.proc;
    if (!proc || !proc->settings_read || proc->settings.mode != LITIFUT_MODE_FULL ||
        proc->recording_off || proc->trace == TRACE_OFF)
        return;
    struct litifut_thread *t = thread_self();
    uintptr_t busy = t->busy, after = busy;
    int reset = 0;
    if (busy == BUSY_OFF)
        return;
    if (busy == BUSY_SPAWN) {
        if ((uint32_t)sys_getpid() != t->spawn_pid)
            return;                 /* the vfork child */
    } else if (busy != 0 && busy != BUSY_UNHOOKED) {
        if (!busy_abandoned(busy, sp)) {
            if (proc->header && type == LITIFUT_REC_SIGNAL)  /* (counted: every view says so) */
                count_up(&proc->header->signals_unrecorded);
            return;                 /* the tracer is at work for this thread (above) */
        }
        after = 0;
        reset = 1;
    }
    if (litifut_copy.returns < 0)
        litifut_copy.returns = tracefile_returns();
    uintptr_t frame = FRAME_ADDRESS();
    t->busy = frame;
    compiler_barrier();
    uint32_t *p = t->cur;
    if (t->lim <= p) {
        if (!(p = control_refill(t)))
            return;                 /* this thread records no more: BUSY_OFF */
        if (proc->recording_off) {  /* the refill paused recording (the budget) */
            t->busy = after;
            return;
        }
    }
    if (reset) {
        thread_cache_clear(t);
        *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CACHE_RESET, 0);
        t->cur = p;
        if (t->lim <= p && !(p = control_refill(t)))
            return;
    }
    if (litifut_copy.returns && !on_alt_stack() && !(p = returns_before_call(t, p, sp, 0)))
        return;
    uint32_t payload[1 + WORD_WORDS];
    payload[0] = how & 0xffu;
    put_address(payload + 1, fn);
    if (!put_signal_record(t, p, type, payload, 1 + WORD_WORDS))
        return;
    int hooked = 0;
    if (litifut_copy.returns) {
        struct shadow_entry *top = t->shadow_top;
        returns_hook(t, ra_slot, sp);
        hooked = t->shadow_top && t->shadow_top != top;
    }
    m->sp = sp;
    m->end_type = type == LITIFUT_REC_SIGNAL ? LITIFUT_REC_SIGNAL_END : LITIFUT_REC_ENTRY_END;
    m->busy_after = after;
    m->changes = proc->recording_changes;
    m->hooked = hooked;
    m->t = t;
    compiler_barrier();
    if (t->busy == frame)
        t->busy = after;
}

/*
 * The handler returned: SIGNAL_END (the frames it left open closed
 * first, with exact returns, and its shadow stack entry popped).  Only
 * if the SIGNAL record is still the innermost thing open that the
 * reader knows of: recording did not go off meanwhile (the reader ends
 * every frame then), the thread still records.  The entry is popped
 * all the same.
 */
void entry_leave(const struct signal_mark *m)
{
    struct litifut_thread *t = m->t;
    if (!t)
        return;
    struct litifut_process *proc = litifut_copy.proc;
    uintptr_t busy = t->busy, after = busy;
    int reset = 0, rec = 1;
    if (busy == BUSY_OFF) {
        rec = 0;                    /* (the trace stopped meanwhile) */
    } else if (busy == BUSY_SPAWN) {
        if ((uint32_t)sys_getpid() != t->spawn_pid)
            return;                 /* a vfork child: the shadow stack is its parent's */
    } else if (busy != 0 && busy != BUSY_UNHOOKED) {
        if (!busy_abandoned(busy, m->sp))
            return;                 /* (no tracer frame can be open below a returning handler) */
        after = 0;                  /* a handler nested in this one jumped out of the tracer */
        reset = 1;
    }
    if (proc->recording_off || proc->recording_changes != m->changes || t->state != THREAD_ON)
        rec = 0;
    uintptr_t frame = FRAME_ADDRESS();
    if (busy != BUSY_OFF) {
        t->busy = frame;
        compiler_barrier();
    }
    uint32_t *p = NULL;
    if (rec) {
        p = t->cur;
        if (t->lim <= p && (!(p = control_refill(t)) || proc->recording_off))
            p = NULL;
    }
    if (p && reset) {
        thread_cache_clear(t);
        *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CACHE_RESET, 0);
        t->cur = p;
        if (t->lim <= p)
            p = control_refill(t);
    }
    if (m->hooked)
        p = returns_signal_end(t, p, m->sp);
    if (p)
        put_signal_record(t, p, m->end_type, NULL, 0);
    compiler_barrier();
    if (busy != BUSY_OFF && t->busy == frame)
        t->busy = after;
}
