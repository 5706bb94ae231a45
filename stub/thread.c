/*
 * Per-thread state: each thread's one state for the whole process (in
 * the process block's pool), how this copy finds it (its TLS slot), and
 * what fills it: the thread's chunks of the trace, time marks, control
 * records.  The per-call path (call.c) and the process events
 * (events.c) use it; it uses the trace file (tracefile.c), this copy
 * (copy.c) and the process block (process.c).
 */
#include <stddef.h>
#include <stdint.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

#define BUDGET_EVERY 256u           /* LITIFUT_BUDGET: record words between refills */
#define CLOCK_EVERY 2048u           /* a clock per event: record words between refills
                                       (the control file's polls; about 0.5 guest
                                       instructions per call) */

static struct litifut_thread early_thread;  /* before TLS exists: one thread only */
static struct litifut_thread thread_off = { .busy = BUSY_OFF, .state = THREAD_OFF };
/* What a thread's slot points to until its first call through this copy
 * attaches it: busy, so the hot path sends the call here (the C library
 * copies this initial value into every thread's TLS). */
static struct litifut_thread thread_unattached = { .busy = BUSY_OFF, .state = THREAD_OFF };
__thread struct tls_slot litifut_tls_slot __attribute__((tls_model(TLS_MODEL))) = {
    .t = &thread_unattached,
};

#define compiler_barrier() __asm__ volatile("" ::: "memory")

static inline struct tls_slot *tls_slot(uintptr_t tp)
{
    return (struct tls_slot *)(tp + SLOT_OFFSET());
}

/* NULL if the thread has no state through this copy yet (a pointer is
 * set only once the copy is registered).  A library's copy must not
 * read its TLS slot before it is relocated (see thread_attach), so it
 * checks that first. */
static inline struct litifut_thread *thread_fast(void)
{
#ifdef LITIFUT_SHARED
    if (litifut_copy.state != COPY_READY)
        return NULL;
#endif
    uintptr_t tp = arch_thread_pointer();
    if (!tp)
        return litifut_copy.state == COPY_READY ? &early_thread : NULL;
    struct litifut_thread *t = tls_slot(tp)->t;
    return t == &thread_unattached ? NULL : t;
}

int thread_is_real(const struct litifut_thread *t)
{
    return t != &thread_off;
}

static void slot_set(uintptr_t tp, struct litifut_thread *t)
{
    struct tls_slot *s = tls_slot(tp);
    s->pages = litifut_copy.pages;
    s->rec_delta = litifut_copy.rec_delta;
    s->rec_delta_cached = litifut_copy.rec_delta | LITIFUT_REC_CALL_CACHED;
    compiler_barrier();
    s->t = t;
}

/*
 * The calling thread's first call through this copy (or a call before
 * this copy can record): register the object with the process if it is
 * the first call of all, find the thread's state in the process's pool
 * and keep a pointer to it in our TLS slot.  The static "off" state
 * when nothing can be recorded: a library not relocated yet, no process
 * block, or the lock held by this very thread (a call made while it
 * forks, between the fork handlers).
 */
static __attribute__((noinline)) struct litifut_thread *thread_attach(void)
{
#ifdef LITIFUT_SHARED
    if (!litifut_copy.ctor_done)
        return &thread_off;
#endif
    copy_start();
    uintptr_t tp = arch_thread_pointer();
    if (litifut_copy.state != COPY_READY) {
        if (tp && litifut_copy.state == COPY_OFF)   /* for good: later calls go fast */
            slot_set(tp, &thread_off);
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
         * it goes on in its early chunk (and its cache). */
        for (unsigned i = 0; i < LITIFUT_TARGET_CACHE; i++)
            t->cache[i] = early_thread.cache[i];
        t->chunk_end = early_thread.chunk_end;
        t->chunk = early_thread.chunk;
        t->next_size = early_thread.next_size;
        t->ring_slot = early_thread.ring_slot;
        t->ring_prev = early_thread.ring_prev;
        t->chunk_seq = early_thread.chunk_seq;
        t->words_before = early_thread.words_before;
        t->cur = early_thread.cur;
        t->time_last = early_thread.time_last;
        t->state = THREAD_ON;
        early_thread.state = THREAD_OFF;
        early_thread.busy = BUSY_OFF;
    }
    if (t && !t->shadow && early_thread.shadow && early_thread.tid == tid) {
        /* ... and its hooked calls (LITIFUT_RETURNS) */
        t->shadow = early_thread.shadow;
        t->shadow_end = early_thread.shadow_end;
        t->shadow_top = early_thread.shadow_top;
        t->set_aside = early_thread.set_aside;
        early_thread.shadow = early_thread.shadow_top = early_thread.shadow_end = NULL;
    }
    unlock(mask);
    if (!t)
        return &thread_off;
#ifdef LITIFUT_SHARED
    litifut_copy.tls_offset = SLOT_OFFSET();    /* the hot path may use the slot now */
#endif
    slot_set(tp, t);
    if (litifut_copy.proc->objects_pending && t->cur)
        t->lim = t->cur;        /* the next record emits the new object first */
    return t;
}

struct litifut_thread *thread_self(void)
{
    struct litifut_thread *t = thread_fast();
    return t ? t : thread_attach();
}

int spawn_child(const struct litifut_thread *t)
{
    return t->busy == BUSY_SPAWN && (uint32_t)sys_getpid() != t->spawn_pid;
}

int copy_wraps_now(void)
{
    struct litifut_process *p = litifut_copy.proc;
    return litifut_copy.ctor_done && litifut_copy.state == COPY_READY && p && p->settings_read &&
           !p->settings.off && p->trace != TRACE_OFF && !spawn_child(thread_self());
}

uint32_t *put_time_record(uint32_t *p, uint32_t *units, uint64_t *ns_out)
{
    uint32_t clock = tracefile_clock();
    uint64_t ticks = clock_ticks(units);
    uint64_t ns = clock == LITIFUT_CLOCK_MONOTONIC ? ticks : sys_monotonic_ns();
    if (ns_out)
        *ns_out = ns;
    if (clock == LITIFUT_CLOCK_MARKS) {
        *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 2);      /* no ticks */
    } else {
        *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 4);
        *p++ = (uint32_t)ticks;
        *p++ = (uint32_t)(ticks >> 32);
    }
    *p++ = (uint32_t)ns;
    *p++ = (uint32_t)(ns >> 32);
    return p;
}

uint64_t thread_put_time_mark(struct litifut_thread *t)
{
    uint32_t units;
    uint64_t ns;
    t->cur = put_time_record(t->cur, &units, &ns);
    t->time_last = units;
    return ns;
}

/* cur < lim must leave room for a whole call (CALL_MAX_WORDS). */
/* LITIFUT_ARGS: room kept after the hot path's last call in a chunk,
 * for its ARGS record (args.c), which must follow it there. */
static uint32_t args_reserve(void)
{
    const struct litifut_process *p = litifut_copy.proc;   /* (read before any chunk) */
    return p && p->settings_read && p->settings.args[0] ? ARGS_RECORD_MAX : 0;
}

static void set_limit(struct litifut_thread *t)
{
    uint32_t every = tracefile_time_every();
    if (!every)                 /* (a clock per call has no marks: the refills still come) */
        every = litifut_copy.proc->budget_units ? BUDGET_EVERY : CLOCK_EVERY;
    uint32_t room = (uint32_t)(t->chunk_end - t->cur) - (CALL_MAX_WORDS - 1) - args_reserve();
#if TRACER_LP64
    t->counter_shift = litifut_copy.proc->time_shift;   /* (before the hot path may run) */
#endif
    t->lim = t->cur + (every && every < room ? every : room);
}

void thread_cache_clear(struct litifut_thread *t)
{
    for (unsigned i = 0; i < LITIFUT_TARGET_CACHE; i++)
        t->cache[i] = 0;
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

/* Where a thread that records no more says so: TIME and STOPPED
 * records at `p`, in the room its chunk keeps for them (STOP_RESERVE
 * words past chunk_end), if the trace has stopped for good. */
static void put_stopped(uint32_t *p)
{
    const struct litifut_process *proc = litifut_copy.proc;
    if (!p || !proc->stop_why)
        return;
    uint32_t units;
    p = put_time_record(p, &units, NULL);
    p[0] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_STOPPED, 2);
    p[1] = proc->stop_why;
    p[2] = proc->stop_errno;
}

/* The CHUNK record after a chunk's first time mark: its number in the
 * thread and the words of the chunks before (so that a reader sees
 * what a ring overwrote, or a stream dropped), the thread's open hooked
 * calls, and in a ring the return addresses of the innermost of them
 * (as many as a quarter of the chunk holds), outermost first, so that
 * a reader starting here knows the stack. */
static void put_chunk_record(struct litifut_thread *t)
{
    uint32_t depth = t->shadow ? (uint32_t)(t->shadow_top - t->shadow) - 1 : 0;
    uint32_t n = 0;
    if (litifut_copy.proc->ring_chunk) {
        uint32_t room = (uint32_t)(t->chunk_end - t->cur) / 4 / WORD_WORDS;
        n = depth < room ? depth : room;
        if (n > (0xffffu - LITIFUT_CHUNK_REC_WORDS) / WORD_WORDS)
            n = (0xffffu - LITIFUT_CHUNK_REC_WORDS) / WORD_WORDS;
    }
    uint32_t *p = t->cur;
    *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CHUNK, LITIFUT_CHUNK_REC_WORDS + n * WORD_WORDS);
    *p++ = t->chunk_seq;
    *p++ = (uint32_t)t->words_before;
    *p++ = (uint32_t)(t->words_before >> 32);
    *p++ = depth;
    for (const struct shadow_entry *e = t->shadow_top - n; e < t->shadow_top; e++) {
        *p++ = (uint32_t)e->ra;             /* (a word_size address, low first) */
#if TRACER_LP64
        *p++ = (uint32_t)(e->ra >> 32);
#endif
    }
    t->cur = p;
    t->chunk_seq++;
}

/* The OWN_TIME record: `ns` of the tracer's own work, up to the time
 * mark just written (trace-format.h). */
static void put_own_time(struct litifut_thread *t, uint64_t ns)
{
    uint32_t *p = t->cur;
    p[0] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OWN_TIME, 2);
    p[1] = (uint32_t)ns;
    p[2] = (uint32_t)(ns >> 32);
    t->cur = p + 3;
}

/* A new chunk for t, with a time mark, its CHUNK record, the time it
 * took (an OWN_TIME record) and an empty
 * target cache; 0 if the trace file failed (then the old chunk says
 * the thread stopped).  A thread's chunks start at a page and double
 * up to the trace's chunk size: a short-lived thread costs a page, not
 * a whole chunk (a ring's are all one size).  Signals are blocked
 * meanwhile, so a handler that leaves with siglongjmp can never
 * abandon this half done (or the file's lock). */
static int next_chunk(struct litifut_thread *t)
{
    uint32_t saved[SIGSET_WORDS];
    struct chunk c;
    int ok;
    uint64_t began = sys_monotonic_ns();    /* (the OWN_TIME record's start) */
    process_block_signals(saved);
    /* The old chunk stays mapped until the next switch: a record store
     * that a handler interrupted may still land in it (so a ring's
     * slot stays held as long). */
    if (t->prev_chunk)
        process_unmap_chunk(t->prev_chunk, t->prev_chunk_end);
    if (t->stale)
        process_unmap_chunk(t->stale, t->stale_end);
    t->stale = NULL;
    uint32_t *old_cur = t->cur;
    if (t->chunk && old_cur)
        t->words_before += (uint64_t)(old_cur - t->chunk);
    t->prev_chunk = t->chunk;
    t->prev_chunk_end = t->chunk_end;
    t->ring_prev = t->ring_slot;        /* (held until the next switch) */
    /* (chunk and cur stay as they were until the new chunk comes: a
     * freeze meanwhile, under the lock this waits for, reads where the
     * thread's records end: pool_frozen; no record can be stored, with
     * signals blocked and the thread busy) */
    t->lim = NULL;
    c.ring_hold = &t->ring_slot;
    c.ring_held = t->ring_prev;
    ok = tracefile_new_chunk(t->tid, t->next_size, &c);
    t->cur = t->chunk = NULL;
    if (ok) {
        uint32_t size = (uint32_t)(c.end - c.base) * 4;
        t->next_size = 2 * size;        /* (tracefile_new_chunk caps it) */
        thread_cache_clear(t);
        t->chunk_end = c.end - STOP_RESERVE;
        t->chunk = c.base;
        t->cur = c.base + sizeof(struct litifut_chunk_header) / 4;
        uint64_t now = thread_put_time_mark(t);
        put_chunk_record(t);
        put_own_time(t, now > began ? now - began : 0);
    } else if (t->prev_chunk) {
        put_stopped(old_cur);
    }
    process_restore_signals(saved);
    return ok;
}

/* Pending OBJECT records into the process's own chunk (thread id 0),
 * which a ring never takes over and a stream's agent never drops (the
 * modes dedup and count: before any pair that names their sites).
 * Signals blocked, lock not held. */
void thread_events_objects(void)
{
    struct litifut_process *p = litifut_copy.proc;
    for (int i = 0; i < 64 && p->objects_pending; i++) {
        if (!tracefile_events_room(1 + LITIFUT_OBJECT_RECORD_WORDS + WORD_WORDS - 1 +
                                   LITIFUT_OBJECT_PATH_MAX / 4))
            return;
        lock_signals_blocked();
        long n = p->events_cur ? object_take_pending(p->events_cur,
                                                     (uint32_t)(p->events_end - p->events_cur))
                               : -1;
        if (n > 0)
            p->events_cur += n;
        unlock_signals_blocked();
        if (n == 0)
            return;
    }
}

/* Writes the OBJECT records of the objects registered since the trace
 * began whose records are not in it yet, into the process's own chunk;
 * t records no more if the trace has stopped. */
void thread_emit_objects(struct litifut_thread *t)
{
    uint32_t mask[SIGSET_WORDS];
    process_block_signals(mask);
    thread_events_objects();
    process_restore_signals(mask);
    if (litifut_copy.proc->trace != TRACE_ON)
        t->state = THREAD_OFF;
}

/* A control record into the process's own chunk, after any OBJECT
 * record still pending (an UNLOAD: with the OBJECT records, as thread
 * chunks may be taken over by a ring or dropped by a stream). */
void thread_events_control(uint32_t type, const uint32_t *payload, uint32_t n)
{
    uint32_t mask[SIGSET_WORDS];
    process_block_signals(mask);
    thread_events_objects();
    if (tracefile_events_room(1 + n)) {
        lock_signals_blocked();
        struct litifut_process *p = litifut_copy.proc;
        if (p->events_cur && (uint32_t)(p->events_end - p->events_cur) >= 1 + n) {
            p->events_cur[0] = LITIFUT_REC_CONTROL_WORD(type, n);
            for (uint32_t i = 0; i < n; i++)
                p->events_cur[1 + i] = payload[i];
            p->events_cur += 1 + n;
        }
        unlock_signals_blocked();
    }
    process_restore_signals(mask);
}

/* Slow path: returns where to store the next record, or NULL when this
 * thread does not record (tracing off, or the trace file failed); then
 * it is marked BUSY_OFF for good. */
uint32_t *thread_refill(struct litifut_thread *t)
{
    if (t->state == THREAD_NEW && !thread_start(t))
        t->state = THREAD_OFF;
    if (t->state == THREAD_ON) {
        if (t->cur && (uint32_t)(t->chunk_end - t->cur) >=
                          TIME_MARK_WORDS + CALL_MAX_WORDS + args_reserve())
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

/* Room for `words` record words at t's cur (LITIFUT_ARGS' records,
 * which lim does not provide for): a new chunk if this one lacks it.
 * Where they go; NULL if not: the thread records no more (state off,
 * BUSY_OFF), or (still on) even a new chunk is too small. */
uint32_t *thread_room(struct litifut_thread *t, uint32_t words)
{
    if (t->state == THREAD_ON && t->cur && (uint32_t)(t->chunk_end - t->cur) >= words)
        return t->cur;
    if (t->state != THREAD_ON || !next_chunk(t)) {
        t->state = THREAD_OFF;
        t->busy = BUSY_OFF;
        return NULL;
    }
    if (litifut_copy.proc && litifut_copy.proc->objects_pending)
        thread_emit_objects(t);
    set_limit(t);
    return (uint32_t)(t->chunk_end - t->cur) >= words ? t->cur : NULL;
}

uint32_t *event_time(struct litifut_thread *t, uint32_t *p, uint32_t *delta)
{
    uint32_t units;
    clock_ticks(&units);
    uint32_t d = units - t->time_last;
    *delta = 0;
    if (d >= LITIFUT_REC_ADVANCE_LIMIT)
        return thread_refill(t);        /* a TIME record (it read the clock a moment later) */
    t->time_last = units;
    if (d < LITIFUT_REC_DELTA_LIMIT) {
        *delta = d;
        return p;
    }
    *p++ = d << 8 | LITIFUT_REC_ADVANCE;        /* one word, not a TIME record */
    t->cur = p;
    return t->lim <= p ? thread_refill(t) : p;  /* (its TIME record sets time_last) */
}
