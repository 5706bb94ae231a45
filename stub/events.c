/*
 * Process events: this copy's constructor and destructor (start, exit,
 * dlclose), fork, and signal deliveries.  Every copy of the tracer in a
 * process has its own handlers; they act on the shared process block, so
 * whichever copies are loaded, each event is handled once.
 *
 * Signals: the wrapper links the program's calls of sigaction, signal,
 * bsd_signal, ssignal, sysv_signal, __sysv_signal and sigset to the
 * __wrap_ functions below (ld --wrap; lib/arch.c).  They keep the
 * program's handler and flags in the process block (struct signal_slot:
 * one table for every copy, inherited by a fork child) and install this
 * copy's signal_entry in its place, with SA_SIGINFO added and the
 * program's mask and other flags as given, so that the kernel delivers
 * as it would have (SA_ONSTACK, SA_RESTART, SA_NODEFER, SA_RESETHAND).
 * The entry records the delivery (call.c: SIGNAL, SIGNAL_END), calling
 * the program's handler in between.  What the program asks back is the
 * kernel's answer with the program's handler and SA_SIGINFO put back
 * where the kernel holds an entry of the tracer's; where it holds
 * anything else (an uninstrumented library's handler, the default after
 * SA_RESETHAND) the kernel's answer stands, so the table can never make
 * the program see what the kernel does not do.
 */
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
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

/* The C library's start, where the wrapper wraps it (a shared C
 * library: stub/entries.c), else 0. */
extern char __real___libc_start_main[] __attribute__((weak));
extern char __real___uClibc_main[] __attribute__((weak));

/* glibc's pthread_atfork is libc_nonshared.a's call of the shared
 * library's __register_atfork: linked into the object, so instrumented
 * (its jump is a call site), and the tracer's own call of it would be
 * counted as a call of the program's while recording is off.  Called
 * directly where it is there (weak: a static program's libc.a is not
 * linked in for it). */
extern int __register_atfork(void (*)(void), void (*)(void), void (*)(void), void *)
    __attribute__((weak));
extern void *__dso_handle __attribute__((weak));

/* pthread_atfork needs an initialised C library: from our constructor. */
static void register_fork_hooks_once(void)
{
    if (!litifut_copy.atfork_done) {
        litifut_copy.atfork_done = 1;
        if (__register_atfork && (__real___libc_start_main || __real___uClibc_main))
            __register_atfork(before_fork, after_fork_parent, after_fork_child,
                              &__dso_handle ? __dso_handle : NULL);
        else
            pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    }
}

/* --- signal deliveries --- */

typedef void (*handler_t)(int);
/* The C library's (ld --wrap binds each __real_NAME to NAME; weak, so
 * that nothing the program does not use is linked in). */
extern int __real_sigaction(int, const struct sigaction *, struct sigaction *)
    __attribute__((weak));
extern handler_t __real_signal(int, handler_t) __attribute__((weak));
extern handler_t __real_bsd_signal(int, handler_t) __attribute__((weak));
extern handler_t __real_ssignal(int, handler_t) __attribute__((weak));
extern handler_t __real_sysv_signal(int, handler_t) __attribute__((weak));
extern handler_t __real___sysv_signal(int, handler_t) __attribute__((weak));
extern handler_t __real_sigset(int, handler_t) __attribute__((weak));

/* (no memcpy: the C library's may be traced, and struct sigaction is
 * large enough for GCC to call it) */
static void copy_bytes(void *to, const void *from, unsigned long n)
{
    volatile unsigned char *d = to;
    const volatile unsigned char *f = from;
    while (n--)
        *d++ = *f++;
}

static int is_function(uintptr_t h)
{
    return h != (uintptr_t)SIG_DFL && h != (uintptr_t)SIG_IGN && h != (uintptr_t)SIG_ERR &&
           h != (uintptr_t)SIG_HOLD;
}

/* The program's slot for `sig`, or NULL if the tracer leaves this call
 * alone (it goes straight to the C library): no trace in this process
 * (LITIFUT_TRACE=0, a failed start), this copy not ready (a library's
 * before its constructor), a vfork child, a signal no handler may take. */
static struct signal_slot *slot_of(int sig)
{
    if (sig < 1 || sig > ARCH_NSIG || sig == SIGKILL || sig == SIGSTOP || !__real_sigaction ||
        !copy_wraps_now())
        return NULL;
    return &litifut_copy.proc->signals[sig];
}

static void slot_copy(struct signal_slot *to, const struct signal_slot *from)
{
    to->handler = from->handler;
    to->entry = from->entry;
    to->flags = from->flags;
    to->kind = from->kind;
}

/* What the kernel said it held (k) as the program would have it, given
 * the slot as it was then (prev). */
static void answer(struct sigaction *k, const struct signal_slot *prev)
{
    uintptr_t h = (uintptr_t)k->sa_handler;
    if (prev->kind == SIGNAL_TRACER && h == prev->entry) {
        unsigned char *b = (unsigned char *)k;  /* the default: all zeros, as at exec */
        for (unsigned long i = 0; i < sizeof *k; i++)
            ((volatile unsigned char *)b)[i] = 0;
        return;
    }
    if ((prev->kind == SIGNAL_ENTRY && h == prev->entry) ||
        (prev->kind == SIGNAL_RESET && h == (uintptr_t)SIG_DFL)) {
        k->sa_handler = (handler_t)prev->handler;
        k->sa_flags = (int)(((uint32_t)k->sa_flags & ~(uint32_t)SA_SIGINFO) |
                            (prev->flags & SA_SIGINFO));
    }
}

/* ... the same for a handler alone (signal() and kin return it) */
static handler_t answer_handler(handler_t r, const struct signal_slot *prev)
{
    if (prev->kind == SIGNAL_TRACER && (uintptr_t)r == prev->entry)
        return SIG_DFL;
    if (prev->kind == SIGNAL_ENTRY && (uintptr_t)r == prev->entry)
        return (handler_t)prev->handler;
    return r;
}

static void signal_entry(int sig, siginfo_t *info, void *uc);

int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
int __wrap_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct signal_slot *s = slot_of(sig);
    if (!s)
        return __real_sigaction ? __real_sigaction(sig, act, old) : -1;
    /* the calling thread's own handler must not see the slot half written */
    uint32_t mask[SIGSET_WORDS];
    process_block_signals(mask);
    struct signal_slot prev;
    slot_copy(&prev, s);
    struct sigaction mine, k;
    const struct sigaction *give = act;
    uintptr_t h = act ? (uintptr_t)act->sa_handler : 0;
    uint32_t flags = act ? (uint32_t)act->sa_flags : 0;
    if (act && is_function(h)) {
        /* the slot first: a delivery to another thread meanwhile runs the
         * new handler a moment early, never a stale one */
        copy_bytes(&mine, act, sizeof mine);
        mine.sa_sigaction = signal_entry;
        mine.sa_flags = (int)(flags | SA_SIGINFO);
        give = &mine;
        s->handler = h;
        s->flags = flags;
        s->entry = (uintptr_t)signal_entry;
        __asm__ volatile("" ::: "memory");
        s->kind = SIGNAL_ENTRY;
    }
    int r = __real_sigaction(sig, give, &k);
    if (r != 0) {
        slot_copy(s, &prev);
    } else if (act && !is_function(h)) {
        /* the kernel first (above): a delivery to the entry meanwhile
         * still finds the handler it was delivered for */
        s->kind = SIGNAL_RAW;
        s->handler = h;
        s->flags = flags;
    }
    process_restore_signals(mask);
    if (r == 0 && old) {
        answer(&k, &prev);
        copy_bytes(old, &k, sizeof k);
    }
    return r;
}

/* After the C library's signal() or kin installed handler h for sig:
 * the slot says so, and a handler gets the entry in its place, with the
 * mask and flags that function chose (BSD or System V semantics,
 * siginterrupt's). */
static void adopt(int sig, struct signal_slot *s, uintptr_t h)
{
    if (h == (uintptr_t)SIG_DFL || h == (uintptr_t)SIG_IGN) {
        s->kind = SIGNAL_RAW;
        s->handler = h;
        return;
    }
    struct sigaction k;
    if (!is_function(h) || __real_sigaction(sig, 0, &k) != 0 || (uintptr_t)k.sa_handler != h)
        return;                     /* (SIG_HOLD installs nothing) */
    s->handler = h;
    s->flags = (uint32_t)k.sa_flags;
    s->entry = (uintptr_t)signal_entry;
    __asm__ volatile("" ::: "memory");
    s->kind = SIGNAL_ENTRY;
    k.sa_sigaction = signal_entry;
    k.sa_flags = (int)((uint32_t)k.sa_flags | SA_SIGINFO);
    if (__real_sigaction(sig, &k, 0) != 0)
        s->kind = SIGNAL_RAW;
}

static handler_t signal_family(handler_t (*real)(int, handler_t), int sig, handler_t h)
{
    struct signal_slot *s = slot_of(sig);
    if (!s)
        return real(sig, h);
    uint32_t mask[SIGSET_WORDS];
    process_block_signals(mask);
    struct signal_slot prev;
    slot_copy(&prev, s);
    handler_t r = real(sig, h);
    if (r != SIG_ERR) {
        adopt(sig, s, (uintptr_t)h);
        r = answer_handler(r, &prev);
    }
    process_restore_signals(mask);
    return r;
}

#define SIGNAL_WRAPPER(name)                                                    \
    handler_t __wrap_##name(int sig, handler_t h);                              \
    handler_t __wrap_##name(int sig, handler_t h)                               \
    {                                                                           \
        return signal_family(__real_##name, sig, h);                            \
    }
SIGNAL_WRAPPER(signal)
SIGNAL_WRAPPER(bsd_signal)
SIGNAL_WRAPPER(ssignal)
SIGNAL_WRAPPER(sysv_signal)
SIGNAL_WRAPPER(__sysv_signal)
SIGNAL_WRAPPER(sigset)

/* The program's handler gone from the table after the delivery (another
 * thread changed the action meanwhile): what that action does. */
static void act_as(int sig, uintptr_t h)
{
    if (h == (uintptr_t)SIG_IGN || h == (uintptr_t)SIG_HOLD)
        return;
    /* SIG_DFL: the default action, as copyout.c's handler takes it (the
     * kernel's sigaction is all zeros for it, whatever its field order);
     * the signal is blocked until this handler returns */
    static const uint32_t dfl[8 + SIGSET_WORDS];
    arch_syscall6(__NR_rt_sigaction, sig, (long)dfl, 0, ARCH_NSIG / 8, 0, 0);
    arch_syscall6(__NR_tgkill, sys_getpid(), sys_gettid(), sig, 0, 0, 0);
}

/*
 * What the kernel runs for every handler the program installed: the
 * delivery recorded (call.c), the program's handler called as the
 * kernel would have (three arguments with SA_SIGINFO, else one), its
 * end recorded.  Async-signal-safe: system calls only, no lock taken
 * with a signal deliverable.  SA_RESETHAND: the kernel has put the
 * default back already; the slot says so too.
 */
static void signal_entry(int sig, siginfo_t *info, void *uc)
{
    struct signal_slot *s = &litifut_copy.proc->signals[sig];
    uintptr_t h = s->handler;
    uint32_t flags = s->flags;
    if ((flags & SA_RESETHAND) && s->kind == SIGNAL_ENTRY && !spawn_child(thread_self())) {
        s->kind = SIGNAL_RESET;
        s->handler = (uintptr_t)SIG_DFL;
    }
    if (!is_function(h)) {
        act_as(sig, h);
        return;
    }
    struct signal_mark m;
    /* (the entry's frame: below every frame the signal interrupted, above
     * every frame of the handler) */
    entry_enter(&m, LITIFUT_REC_SIGNAL, (uint32_t)sig, h, FRAME_ADDRESS(), NULL);
    if (flags & SA_SIGINFO)
        ((void (*)(int, siginfo_t *, void *))h)(sig, info, uc);
    else
        ((handler_t)h)(sig);
    entry_leave(&m);
}

#ifdef LITIFUT_SHARED
/* This library is being unloaded: its entry with it.  Each action whose
 * entry it is goes back to the program's own (not recorded from now on,
 * but run as the program installed it). */
static void signals_unload(void)
{
    struct litifut_process *p = litifut_copy.proc;
    if (!p || litifut_copy.state != COPY_READY || !__real_sigaction)
        return;
    for (int sig = 1; sig <= ARCH_NSIG; sig++) {
        struct signal_slot *s = &p->signals[sig];
        if (s->kind != SIGNAL_ENTRY || s->entry != (uintptr_t)signal_entry)
            continue;
        uint32_t mask[SIGSET_WORDS];
        process_block_signals(mask);
        struct sigaction k;
        if (__real_sigaction(sig, 0, &k) == 0 && k.sa_sigaction == signal_entry) {
            answer(&k, s);
            s->kind = SIGNAL_RAW;
            __real_sigaction(sig, &k, 0);
        }
        process_restore_signals(mask);
    }
}
#endif

/* --- start and end of this object --- */

__attribute__((constructor(101))) static void at_start(void)
{
    litifut_copy.ctor_done = 1;
    struct litifut_thread *t = thread_self();      /* registers the object */
    pairs_prepare();            /* (LITIFUT_MODE dedup, count: before the sleds go there) */
    copy_sleds_ready();
    if (!thread_is_real(t))
        return;
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    copyout_catch_signals();
    control_start();
    busy_leave(t, busy);
    /* Not busy where the C library is linked in (a static program: the
     * wrapper then wraps no __libc_start_main): it is traced, and its
     * pthread_atfork makes calls the trace must have, as the oracle sees
     * them (AArch64's glibc takes its lock through libgcc's outline
     * atomics); it holds no lock of ours and calls none of our handlers
     * now.  After control_start: recording off at the start counts them
     * as not recorded.  With a shared C library only glibc's own
     * pthread_atfork, which libc_nonshared.a links into the object,
     * runs here, and its jump to __register_atfork is no call of the
     * program's: busy. */
    if (__real___libc_start_main || __real___uClibc_main)
        busy = busy_enter(t, FRAME_ADDRESS());
    register_fork_hooks_once();
    if (__real___libc_start_main || __real___uClibc_main)
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
    signals_unload();
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
