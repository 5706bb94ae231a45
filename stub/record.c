/*
 * The per-call path of the tracer: find the call site that entered the
 * sled, compute where the original instruction would have gone, record
 * the call in this thread's chunk.  litifut_enter() runs on every
 * traced call; keep it short and free of library calls.
 */
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

/* The DB (generated per object by the rewriter) and the sled (stub.S). */
extern const struct litifut_db_header litifut_db_header HIDDEN;
extern const uint32_t litifut_db_pages[] HIDDEN;
extern const uint32_t litifut_db_insns[] HIDDEN;
extern const char litifut_sled[] HIDDEN;

/*
 * The thread's state, as this copy finds it: a TLS pointer of its own.
 * An executable's copy uses local-exec TLS (no relocation needed: it
 * works from the first instruction); a library's must use initial-exec
 * (its offset is in the GOT, relocated by the dynamic linker), so a
 * library's copy records nothing before its constructor has run.
 */
#ifdef LITIFUT_SHARED
#define TLS_MODEL "initial-exec"
#define SLOT_OFFSET() ARCH_TPOFF_IE(litifut_tls_slot)
#else
#define TLS_MODEL "local-exec"
#define SLOT_OFFSET() ARCH_TPOFF(litifut_tls_slot)
#endif
HIDDEN __thread struct litifut_thread *litifut_tls_slot __attribute__((tls_model(TLS_MODEL)));

static struct litifut_thread early_thread;  /* before TLS exists: one thread only */
static struct litifut_thread thread_off = { .busy = BUSY_OFF, .state = THREAD_OFF };

#define compiler_barrier() __asm__ volatile("" ::: "memory")

/* The hot path's view: NULL if the thread has no state through this
 * copy yet (a pointer is set only once the copy is registered).  A
 * library's copy must not read its TLS pointer before it is relocated
 * (see thread_attach), so it checks that first. */
static inline struct litifut_thread *thread_fast(void)
{
#ifdef LITIFUT_SHARED
    if (litifut_copy.state != COPY_READY)
        return NULL;
#endif
    uintptr_t tp = arch_thread_pointer();
    if (!tp)
        return litifut_copy.state == COPY_READY ? &early_thread : NULL;
    return *(struct litifut_thread **)(tp + SLOT_OFFSET());
}

/* Runtime minus link-time address of this object's code. */
static inline uintptr_t load_bias(void)
{
    return (uintptr_t)litifut_sled - litifut_db_header.sled_vaddr;
}

uintptr_t object_load_bias(void)
{
    return load_bias();
}

int thread_is_real(const struct litifut_thread *t)
{
    return t != &thread_off;
}

/*
 * The calling thread's first call through this copy (or a call before
 * this copy can record): register the object with the process if it is
 * the first call of all, find the thread's state in the process's pool
 * and keep a pointer to it in our TLS.  The static "off" state when
 * nothing can be recorded: a library not relocated yet, no process
 * block, or the lock held by this very thread (a call made while it
 * forks, between the fork handlers).
 */
static __attribute__((noinline)) struct litifut_thread *thread_attach(void)
{
#ifdef LITIFUT_SHARED
    if (!litifut_copy.ctor_done)
        return &thread_off;
#endif
    if (litifut_copy.state == COPY_NEW)
        copy_register();
    uintptr_t tp = arch_thread_pointer();
    if (litifut_copy.state != COPY_READY) {
        if (tp && litifut_copy.state == COPY_OFF)       /* for good: later calls go fast */
            *(struct litifut_thread **)(tp + SLOT_OFFSET()) = &thread_off;
        return &thread_off;
    }
    if (!tp)
        return &early_thread;
    uint32_t mask[SIGSET_WORDS];
    if (!lock_unless_mine(mask))
        return &thread_off;
    uint32_t tid = (uint32_t)sys_gettid();
    struct litifut_thread *t = pool_thread(tid, tp);
    if (t && t->state == THREAD_NEW && early_thread.state == THREAD_ON &&
        early_thread.tid == tid) {
        /* The main thread of a static program, now that TLS exists:
         * it goes on in its early chunk. */
        t->chunk_end = early_thread.chunk_end;
        t->chunk = early_thread.chunk;
        t->cur = early_thread.cur;
        t->tid = tid;
        t->state = THREAD_ON;
        early_thread.state = THREAD_OFF;
        early_thread.busy = BUSY_OFF;
    }
    unlock(mask);
    if (!t)
        return &thread_off;
    *(struct litifut_thread **)(tp + SLOT_OFFSET()) = t;
    if (litifut_copy.proc->objects_pending && t->cur)
        t->lim = t->cur;        /* the next record emits the new object first */
    return t;
}

struct litifut_thread *thread_self(void)
{
    struct litifut_thread *t = thread_fast();
    return t ? t : thread_attach();
}

static void die_no_site(uintptr_t ra)
{
    static const char hex[] = "0123456789abcdef";
    static char msg[] = "litifut: no call site for return address 0x00000000; "
                 "the instruction DB does not match this program\n";
    for (int i = 0; i < 8; i++)
        msg[43 + i] = hex[(ra >> (28 - 4 * i)) & 15];
    sys_write(2, msg, sizeof msg - 1);
    arch_syscall6(__NR_kill, sys_getpid(), SIGABRT, 0, 0, 0, 0);
    arch_syscall6(__NR_exit_group, 134, 0, 0, 0, 0, 0);
}

void thread_put_time_mark(struct litifut_thread *t)
{
    uint64_t ns = sys_monotonic_ns();
    t->cur[0] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 2);
    t->cur[1] = (uint32_t)ns;
    t->cur[2] = (uint32_t)(ns >> 32);
    t->cur += TIME_MARK_WORDS;
}

static void set_limit(struct litifut_thread *t)
{
    uint32_t every = tracefile_time_every();
    uint32_t room = (uint32_t)(t->chunk_end - t->cur);
    t->lim = t->cur + (every && every < room ? every : room);
}

/* This thread's first traced call. */
static int thread_start(struct litifut_thread *t)
{
    if (!tracefile_start())
        return 0;
    if (!t->tid)
        t->tid = (uint32_t)sys_gettid();    /* early_thread; pool entries have it */
    t->state = THREAD_ON;
    return 1;
}

/* A new chunk for t, with a time mark; 0 if the trace file failed.
 * Signals are blocked meanwhile, so a handler that leaves with
 * siglongjmp can never abandon this half done (or the file's lock). */
static int next_chunk(struct litifut_thread *t)
{
    uint32_t saved[SIGSET_WORDS];
    struct chunk c;
    int ok;
    process_block_signals(saved);
    /* The old chunk stays mapped until the next switch: a record store
     * that a handler interrupted may still land in it. */
    if (t->prev_chunk)
        tracefile_drop_chunk(t->prev_chunk);
    t->prev_chunk = t->chunk;
    t->cur = t->lim = t->chunk = NULL;
    ok = tracefile_new_chunk(t->tid, &c);
    if (ok) {
        t->chunk_end = c.end;
        t->chunk = c.base;
        t->cur = c.base + sizeof(struct litifut_chunk_header) / 4;
        thread_put_time_mark(t);
    }
    process_restore_signals(saved);
    return ok;
}

/* Room for `words` more words in t's chunk (and a call after them):
 * a new chunk if needed.  0 if the trace file failed. */
static int thread_make_room(struct litifut_thread *t, uint32_t words)
{
    if (t->cur && (uint32_t)(t->chunk_end - t->cur) >= words + CALL_MAX_WORDS)
        return 1;
    return next_chunk(t);
}

/* Writes the OBJECT records of the objects registered since the trace
 * began whose records are not in it yet. */
void thread_emit_objects(struct litifut_thread *t)
{
    uint32_t mask[SIGSET_WORDS];
    for (;;) {
        if (!thread_make_room(t, TIME_MARK_WORDS)) {
            t->state = THREAD_OFF;
            return;
        }
        lock(mask);
        long n = object_take_pending(t->cur, (uint32_t)(t->chunk_end - t->cur) - CALL_MAX_WORDS);
        if (n > 0)
            t->cur += n;
        unlock(mask);
        if (n == 0)
            return;
        if (n < 0 && !next_chunk(t)) {      /* did not fit: a whole chunk has room */
            t->state = THREAD_OFF;
            return;
        }
    }
}

void thread_put_control(struct litifut_thread *t, uint32_t type, const uint32_t *payload,
                        uint32_t n)
{
    if (t->state == THREAD_NEW && !thread_start(t))
        t->state = THREAD_OFF;
    if (t->state == THREAD_ON && litifut_copy.proc->objects_pending)
        thread_emit_objects(t);
    if (t->state != THREAD_ON || !thread_make_room(t, 1 + n + TIME_MARK_WORDS))
        return;
    t->cur[0] = LITIFUT_REC_CONTROL_WORD(type, n);
    for (uint32_t i = 0; i < n; i++)
        t->cur[1 + i] = payload[i];
    t->cur += 1 + n;
    if (t->lim < t->cur)
        t->lim = t->cur;
}

/* Slow path: returns where to store the next record, or NULL when this
 * thread does not record (tracing off, or the trace file failed); then
 * it is marked BUSY_OFF for good. */
static uint32_t *refill(struct litifut_thread *t)
{
    if (t->state == THREAD_NEW && !thread_start(t))
        t->state = THREAD_OFF;
    if (t->state == THREAD_ON) {
        if (t->cur && (uint32_t)(t->chunk_end - t->cur) >= TIME_MARK_WORDS + CALL_MAX_WORDS)
            thread_put_time_mark(t);
        else if (!next_chunk(t))
            t->state = THREAD_OFF;
    }
    if (t->state == THREAD_ON && litifut_copy.proc && litifut_copy.proc->objects_pending)
        thread_emit_objects(t);
    if (t->state != THREAD_ON) {
        t->busy = BUSY_OFF;
        return NULL;
    }
    set_limit(t);
    return t->cur;
}

/* A thread that lost its chunk (fork child): start afresh on next call. */
void thread_forget(struct litifut_thread *t)
{
    t->state = THREAD_NEW;
    t->cur = t->lim = t->chunk = t->chunk_end = t->prev_chunk = NULL;
    t->busy = 0;
}

/* Records one call; `busy_after` is what busy goes back to (0, or
 * BUSY_SPAWN for the parent's calls made inside vfork or clone). */
static inline void record_call(struct litifut_thread *t, uintptr_t frame, uint32_t site,
                               uint32_t insn, uintptr_t target, uintptr_t busy_after)
{
    t->busy = frame;
    compiler_barrier();
    uint32_t *p = t->cur;
    if (t->lim - p < (ptrdiff_t)CALL_MAX_WORDS && !(p = refill(t)))
        return;             /* this thread records no more: BUSY_OFF */
    if (arch_insn_is_indirect(insn)) {
        p[0] = (site + 1) | LITIFUT_REC_HAS_TARGET;
        p[1] = (uint32_t)target;
        t->cur = p + 2;
    } else {
        p[0] = site + 1;
        t->cur = p + 1;
    }
    compiler_barrier();
    t->busy = busy_after;
}

/*
 * Was the tracer frame that marked this thread busy at `busy` abandoned,
 * now that the thread enters the tracer again with its frame at `frame`?
 * Stacks grow down, so on one stack an entry at or above the busy frame
 * proves that frame is gone (a signal handler that interrupted the
 * tracer left with siglongjmp); an entry below it is nested in it (the
 * tracer's own calls, or a handler).  A handler on the alternate signal
 * stack is not on the same stack: leaving the alternate stack proves
 * its frames gone, entering it proves nothing.  (With SS_AUTODISARM the
 * kernel hides the alternate stack while a handler runs on it; then
 * only the address comparison is left.)
 */
static int busy_abandoned(uintptr_t busy, uintptr_t frame)
{
    struct arch_stack ss;
    if (sys_sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE)) {
        int busy_on_alt = busy - ss.ss_sp < ss.ss_size;
        int now_on_alt = frame - ss.ss_sp < ss.ss_size;
        if (busy_on_alt != now_on_alt)
            return busy_on_alt;
    }
    return frame >= busy;   /* at the same address: the same caller again */
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
    if (busy == BUSY_SPAWN) {
        if ((uint32_t)sys_getpid() != t->spawn_pid)
            return BUSY_OFF;        /* the child: its calls are not recorded */
        /* The parent: still inside vfork or clone (whose own calls
         * come before the child exists) keeps the mark; back from it,
         * it is done. */
        return (uintptr_t)(frame + 1) < t->spawn_sp ? BUSY_SPAWN : 0;
    }
    if (!busy_abandoned(busy, (uintptr_t)frame))
        return BUSY_OFF;
    return 0;
}

/*
 * Called by the sled (stub.S) for every rewritten call that executes.
 * Returns the address the original instruction would have jumped to.
 * A call made while this thread is busy in the tracer is not recorded.
 */
HIDDEN uintptr_t litifut_enter(struct arch_frame *frame, uintptr_t sled_lr)
{
    const struct litifut_db_header *db = &litifut_db_header;
    uintptr_t bias = load_bias();
    uintptr_t ra = arch_return_address(frame);
    uint32_t k = arch_sled_index(sled_lr);
    uint32_t page = (uint32_t)(ra - bias - db->key_origin) >> db->page_shift;
    if (page >= db->n_pages)
        die_no_site(ra);
    uint32_t site = litifut_db_pages[page] + k;
    if (site >= litifut_db_pages[page + 1])
        die_no_site(ra);
    uint32_t insn = litifut_db_insns[site];
    uintptr_t target = arch_calc_next_pc(insn, frame, bias);

    struct litifut_thread *t = thread_fast();
    if (!t)
        t = thread_attach();
    site += litifut_copy.base;
    if (!t->busy) {
        record_call(t, (uintptr_t)frame, site, insn, target, 0);
    } else if (t->busy != BUSY_OFF) {   /* off: nothing to ask, at "off" cost */
        uintptr_t after = busy_after_record(t, frame);
        if (after != BUSY_OFF)
            record_call(t, (uintptr_t)frame, site, insn, target, after);
    }
    return target;
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
HIDDEN void litifut_before_spawn(uintptr_t caller_sp)
{
    struct litifut_thread *t = thread_self();
    if (t->busy)
        return;             /* off, or called from inside the tracer's window */
    t->spawn_pid = (uint32_t)sys_getpid();
    t->spawn_sp = caller_sp;
    compiler_barrier();
    t->busy = BUSY_SPAWN;
}
