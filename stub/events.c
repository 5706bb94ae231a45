/*
 * Process events: this copy's constructor and destructor (start, exit,
 * dlclose) and fork.  Every copy of the tracer in a process has its own
 * handlers; they act on the shared process block, so whichever copies
 * are loaded, each event is handled once.
 */
#include <stddef.h>
#include <stdint.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/trace-format.h"

extern int pthread_atfork(void (*)(void), void (*)(void), void (*)(void));

/* --- fork: the child must not write into the parent's file ---
 * glibc runs every copy's prepare handler, then every copy's parent
 * (or child) handler: the first prepare takes the lock, the last
 * parent or child handler lets it go.  Since glibc 2.35 two threads'
 * forks may interleave their handlers (glibc lets its own fork lock go
 * while a handler runs), so the count of copies in this fork is the
 * lock holder's alone: a prepare that finds the lock its own adds
 * itself; any other waits for the lock, so a second fork starts only
 * once the first one's last handler has run.  Each copy notes whether
 * its prepare took part, so a copy that registered during the fork
 * (its prepare skipped) does not take part in the rest. */

static void before_fork(void)
{
    struct litifut_process *p = litifut_copy.proc;
    if (!p)
        return;
    if (p->fork_depth && p->lock == (uint32_t)sys_gettid()) {
        p->fork_depth++;            /* a later copy's prepare, in the same fork */
        litifut_copy.in_fork = 1;
        return;
    }
    struct litifut_thread *t = thread_self();
    uintptr_t busy = thread_is_real(t) ? busy_enter(t, FRAME_ADDRESS()) : 0;
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    for (unsigned i = 0; i < SIGSET_WORDS; i++)
        p->fork_sigmask[i] = mask[i];
    p->fork_busy = busy;
    p->fork_depth = 1;
    litifut_copy.in_fork = 1;
}

/* The lock holder's: 1 if this was the fork's last copy. */
static int fork_copy_done(struct litifut_process *p)
{
    if (!p || !litifut_copy.in_fork)
        return 0;
    litifut_copy.in_fork = 0;
    return --p->fork_depth == 0;
}

static void after_fork_parent(void)
{
    struct litifut_process *p = litifut_copy.proc;
    if (!fork_copy_done(p))
        return;
    uintptr_t busy = p->fork_busy;
    unlock(p->fork_sigmask);
    struct litifut_thread *t = thread_self();
    if (thread_is_real(t))
        busy_leave(t, busy);
}

static void after_fork_child(void)
{
    struct litifut_process *p = litifut_copy.proc;
    if (!fork_copy_done(p))
        return;
    uintptr_t busy = p->fork_busy;
    /* (thread_self would take the lock for a thread new to this copy) */
    struct litifut_thread *self = pool_after_fork_child(arch_thread_pointer());
    tracefile_after_fork_child();
    objects_after_fork_child();
    pairs_after_fork_child();
    p->lock = 0;
    if (self)
        busy_leave(self, busy);
    process_restore_signals(p->fork_sigmask);
    control_after_fork_child();
}

/* pthread_atfork needs an initialised C library: from our constructor. */
static void register_fork_hooks_once(void)
{
    if (!litifut_copy.atfork_done) {
        litifut_copy.atfork_done = 1;
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    }
}

/* --- start and end of this object --- */

__attribute__((constructor(101))) static void at_start(void)
{
    litifut_copy.ctor_done = 1;
    struct litifut_thread *t = thread_self();      /* registers the object */
    pairs_prepare();            /* (LITIFUT_MODE dedup, count: before the sleds go there) */
    copy_sleds_ready();
    if (!thread_is_real(t))
        return;
    /* Not busy: in a static program the C library is traced, and its
     * pthread_atfork makes calls the trace must have (AArch64's glibc
     * takes its lock through libgcc's outline atomics); it holds no
     * lock of ours and calls none of our handlers now. */
    register_fork_hooks_once();
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    copyout_catch_signals();
    control_start();
    busy_leave(t, busy);
}

/* Runs late in exit() (or in dlclose for a library): records made after
 * it still land in the file (it stays mapped), only the maps copy would
 * miss later mappings.  A library says it is being unloaded: its site
 * ids stay valid for the records before, and a fork child's trace will
 * not describe it. */
__attribute__((destructor(101))) static void at_end(void)
{
    struct litifut_thread *t = thread_self();
    if (!thread_is_real(t))
        return;
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    uint32_t mask[SIGSET_WORDS];
    if (t->state == THREAD_ON && t->cur &&
        (uint32_t)(t->chunk_end - t->cur) >= TIME_MARK_WORDS)
        thread_put_time_mark(t);
    if (t->state == THREAD_ON && litifut_copy.proc->objects_pending)
        thread_emit_objects(t);
#ifdef LITIFUT_SHARED
    lock(mask);
    object_unloaded(litifut_copy.base);
    unlock(mask);
    thread_events_control(LITIFUT_REC_UNLOAD, &litifut_copy.base, 1);
#endif
    lock(mask);
    if (litifut_copy.proc->trace == TRACE_ON)
        tracefile_copy_maps();
    if (objects_end(litifut_copy.base)) {  /* the last instrumented object to end */
        control_at_end();
        copyout_at_end();
    }
    unlock(mask);
    busy_leave(t, busy);
}
