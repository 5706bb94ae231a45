/*
 * Exact returns (LITIFUT_RETURNS=1).  Every recorded call is *hooked*:
 * its return address goes onto the thread's shadow stack, with the
 * stack pointer of the call, and the callee gets this copy's return
 * trampoline (arch/<arch>/: litifut_return_trampoline) as its return
 * address instead.  The trampoline calls litifut_return, which records
 * the return (a RETURN word with its time) and gives back the real
 * address.
 *
 * A stack pointer says which frames are gone: a callee returns with sp
 * as it was at the call, so at a return with sp S every entry whose sp
 * is below S belongs to a frame that was left without returning
 * (longjmp, siglongjmp, a C++ exception: its RETURN is written now),
 * and at a call with sp S every entry at or below S is gone too.
 * Frames on an alternate signal stack placed above the thread's stack
 * would look gone to a call made on it: not handled.
 */
#include "tracer.h"
#include "sys.h"
#include "litifut/trace-format.h"

extern const char litifut_return_trampoline[] HIDDEN;
extern const char litifut_trampolines[] HIDDEN, litifut_trampolines_end[] HIDDEN;
extern const char __wrap_vfork[] HIDDEN;
extern const char __wrap_setjmp[] HIDDEN, __wrap__setjmp[] HIDDEN, __wrap___sigsetjmp[] HIDDEN,
                  __wrap_sigsetjmp[] HIDDEN;
extern const char __wrap_getcontext[] HIDDEN;

/*
 * A call made at the stack pointer of the thread's innermost hooked call
 * usually shows that call's frame gone (a jump left it, and its caller
 * calls again).  Not glibc's AArch64 swapcontext's call of __setcontext:
 * swapcontext keeps its return address in a register and calls from the
 * stack pointer it was called with.  __setcontext never returns (it
 * jumps to the other context; the context saved returns from
 * swapcontext through the trampoline), so its call is not hooked, and
 * the entry of swapcontext's call stays: a return at that sp, when the
 * context is resumed, must find swapcontext's entry, not a twin.  The
 * wrapper links that call (and only it: a program calls setcontext) to
 * __wrap___setcontext, which tells it (ARCH_WRAPS_SETCONTEXT).
 */
#ifdef ARCH_WRAPS_SETCONTEXT
extern const char __wrap___setcontext[] HIDDEN;
#define SWAPCONTEXT_INNER(target) ((target) == (uintptr_t)__wrap___setcontext)
#else
#define SWAPCONTEXT_INNER(target) ((void)(target), 0)
#endif

static void die_unmatched(uintptr_t sp)
{
    die_at("a return at sp ", sp, " has no call on the shadow stack (LITIFUT_RETURNS)");
}

/* The RETURN word of the thread's innermost open call, at `p`, timed
 * now.  Returns where the next record goes, NULL if the thread records
 * no more. */
uint32_t *returns_put(struct litifut_thread *t, uint32_t *p)
{
    uint32_t delta;
    if (t->lim <= p && !(p = control_refill(t)))
        return NULL;
    if (!(p = event_time(t, p, &delta)))
        return NULL;
    *p++ = LITIFUT_REC_RETURN_WORD | delta << LITIFUT_REC_DELTA_SHIFT;
    t->cur = p;
    if (t->lim <= p)
        p = control_refill(t);
    return p;
}

/* The thread's innermost open hooked call, NULL if none. */
static struct shadow_entry *top_entry(const struct litifut_thread *t)
{
    return t->shadow_top && t->shadow_top - 1 > t->shadow ? t->shadow_top - 1 : NULL;
}

/*
 * Frames closed early.  A stack pointer tells which frames are gone only
 * on one stack: a program that switches stacks (swapcontext, coroutines)
 * leaves frames suspended on one while it calls and returns on another,
 * and those look gone.  So an entry popped without its own return keeps
 * its real return address in a ring after the shadow stack: a return to
 * the trampoline that finds no entry on the shadow stack takes it from
 * there (the newest of that sp).  Its RETURN is in the trace already,
 * where the frame looked gone: the frame is closed early, as an inferred
 * return would be, and such returns are counted (header: resumed).  A
 * frame really left (longjmp, an exception) stays in the ring until
 * 16384 later ones push it out.
 */
static void set_aside(struct litifut_thread *t, const struct shadow_entry *e)
{
    if (!e->ra)
        return;                     /* (a call not hooked: no return address to keep) */
    t->shadow[(int32_t)(t->set_aside % SET_ASIDE_ENTRIES) - (int32_t)SET_ASIDE_ENTRIES] = *e;
    t->set_aside++;
}

/* The entry set aside for a return at sp, NULL if none. */
static struct shadow_entry *set_aside_find(const struct litifut_thread *t, uintptr_t sp)
{
    uint32_t n = t->set_aside < SET_ASIDE_ENTRIES ? t->set_aside : SET_ASIDE_ENTRIES;
    for (uint32_t i = 1; i <= n; i++) {
        struct shadow_entry *e =
            &t->shadow[(int32_t)((t->set_aside - i) % SET_ASIDE_ENTRIES) - (int32_t)SET_ASIDE_ENTRIES];
        if (e->sp == sp && e->ra)
            return e;
    }
    return NULL;
}

/* Pops the entries of frames that are gone: sp below `sp` (or at it,
 * `inclusive`), writing their RETURN words at `p` if p is not NULL.
 * Returns p as it moved. */
static uint32_t *unwind(struct litifut_thread *t, uint32_t *p, uintptr_t sp, int inclusive)
{
    const struct shadow_entry *e;
    while ((e = top_entry(t))) {
        if (e->sp > sp || (e->sp == sp && !inclusive))
            break;
        set_aside(t, e);
        t->shadow_top--;
        if (p)
            p = returns_put(t, p);
    }
    return p;
}

uint32_t *returns_signal_end(struct litifut_thread *t, uint32_t *p, uintptr_t sp)
{
    if (!t->shadow_top)
        return p;
    p = unwind(t, p, sp, 0);        /* the handler's frames left without returning */
    struct shadow_entry *e = t->shadow_top;
    while (e && e-- > t->shadow + 1 && !(e->sp == sp && !e->ra))
        ;
    if (!e || e <= t->shadow)
        return p;                   /* not there (a stack switch set it aside): nothing to pop */
    while (t->shadow_top - 1 > e) { /* frames of another stack above it, as resume() has them */
        set_aside(t, t->shadow_top - 1);
        t->shadow_top--;
        if (p)
            p = returns_put(t, p);
    }
    t->shadow_top--;                /* the signal's own: SIGNAL_END closes it */
    return p;
}

/* Functions that return twice keep their return address for the second
 * time (setjmp in its jmp_buf, for longjmp; getcontext in its context,
 * for setcontext and swapcontext; vfork's child returns through the
 * caller's frame): their calls are not hooked.  Their entry holds no
 * return address, and their RETURN is written when a later event shows
 * the frame gone (the caller's next call, or its return), after the
 * calls made inside them.  The wrapper links the program's calls of
 * them to the __wrap_ functions (arch/<arch>/stub.S), so that the
 * target says which. */
int returns_hookable(uintptr_t target)
{
    return target != (uintptr_t)__wrap_vfork && target != (uintptr_t)__wrap_setjmp &&
           target != (uintptr_t)__wrap__setjmp && target != (uintptr_t)__wrap___sigsetjmp &&
           target != (uintptr_t)__wrap_sigsetjmp &&
           target != (uintptr_t)__wrap_getcontext && !SWAPCONTEXT_INNER(target);
}

static int shadow_make(struct litifut_thread *t);

uint32_t *returns_before_call(struct litifut_thread *t, uint32_t *p, uintptr_t sp_call,
                              uintptr_t target)
{
    shadow_make(t);     /* now, before the call's time: a thread's first makes it (a system
                           call: under qemu, time the callee would seem to take) */
    return unwind(t, p, sp_call, !SWAPCONTEXT_INNER(target));
}

/* A tail jump at sp_jump (stub/call.c): the frames below it are gone;
 * the one at it is the jumper's, whose callee now runs in it. */
uint32_t *returns_before_jump(struct litifut_thread *t, uint32_t *p, uintptr_t sp_jump)
{
    return unwind(t, p, sp_jump, 0);
}

/*
 * A thread that ends inside frames (pthread_exit, a cancellation: the C
 * library unwinds them, forcedly, and jumps back to the thread's start)
 * makes no further event that would show them gone: so the forced
 * unwinding, as it steps over each hooked frame (the trampoline's
 * personality routine, arch/<arch>/unwind.c), writes that frame's
 * RETURN and those of the frames inside it.  (No thread destructor is
 * registered for it: glibc's __cxa_thread_atexit_impl takes memory
 * from the program's heap, which moves every later allocation.)
 */
void returns_forced_unwind(uintptr_t sp)
{
    struct litifut_thread *t = thread_self();
    uintptr_t frame = FRAME_ADDRESS();
    if (!t || !t->shadow || t->state != THREAD_ON || t->busy)
        return;
    t->busy = frame;
    __asm__ volatile("" ::: "memory");
    uint32_t *p = t->cur;
    if (t->lim <= p)
        p = control_refill(t);
    unwind(t, p, sp, 1);
    if (t->busy == frame) {             /* (a thread whose trace failed is BUSY_OFF) */
        __asm__ volatile("" ::: "memory");
        t->busy = 0;
    }
}

/* The thread's shadow stack: entry 0 is a sentinel whose sp is above
 * any stack pointer, so that the hot paths (arch/<arch>/) read the top
 * entry without testing whether there is one; before it, the ring of
 * frames set aside.  0 if it cannot be made. */
static int shadow_make(struct litifut_thread *t)
{
    if (t->shadow)
        return 1;
    struct shadow_entry *m =
        map_aside((SET_ASIDE_ENTRIES + SHADOW_ENTRIES) * sizeof(struct shadow_entry),
                 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sys_mmap_failed(m))
        return 0;
    t->shadow = m + SET_ASIDE_ENTRIES;
    t->shadow[0].ra = 0;
    t->shadow[0].sp = ~(uintptr_t)0 >> TRACER_LP64;  /* (LP64: the hot path compares signed) */
    t->shadow_end = t->shadow + SHADOW_ENTRIES;
    __asm__ volatile("" ::: "memory");
    t->shadow_top = t->shadow + 1;
    return 1;
}

/* A full shadow stack doubled (a deep recursion), with every signal
 * blocked: a handler's return would read it as it moves.  0 if it
 * cannot grow: the call is then not hooked, its return not recorded. */
static int shadow_grow(struct litifut_thread *t)
{
    unsigned long n = (unsigned long)(t->shadow_end - t->shadow);
    if (n >= SHADOW_ENTRIES_MAX)
        return 0;
    uint32_t mask[SIGSET_WORDS];
    process_block_signals(mask);
    unsigned long old = shadow_mapping_bytes(t), top = (unsigned long)(t->shadow_top - t->shadow);
    struct shadow_entry *m = sys_mremap(shadow_mapping(t), old,
                                        old + n * sizeof(struct shadow_entry), MREMAP_MAYMOVE);
    int ok = !sys_mmap_failed(m);
    if (ok) {
        t->shadow = m + SET_ASIDE_ENTRIES;
        t->shadow_top = t->shadow + top;
        t->shadow_end = t->shadow + 2 * n;
    }
    process_restore_signals(mask);
    return ok;
}

/* ra_slot NULL: a call not hooked (returns_hookable) */
void returns_hook(struct litifut_thread *t, uintptr_t *ra_slot, uintptr_t sp_call)
{
    if (!shadow_make(t))
        return;                     /* (its return is then not recorded) */
    if (t->shadow_top == t->shadow_end && !shadow_grow(t))
        return;
    t->shadow_top->ra = ra_slot ? *ra_slot : 0;
    t->shadow_top->sp = sp_call;
    t->shadow_top++;
    if (ra_slot)
        *ra_slot = (uintptr_t)litifut_return_trampoline;
}

uintptr_t returns_real_address(uintptr_t sp)
{
    struct litifut_thread *t = thread_self();
    for (struct shadow_entry *e = t->shadow_top; e && e-- > t->shadow + 1;)
        if (e->sp == sp && e->ra)
            return e->ra;
    const struct shadow_entry *e = t->shadow ? set_aside_find(t, sp) : NULL;
    return e ? e->ra : 0;
}

/* Whether `ra` is one of this copy's return trampolines (arch/<arch>/:
 * the C one and the hot paths'). */
int returns_is_trampoline(uintptr_t ra)
{
    return ra - (uintptr_t)litifut_trampolines <
           (uintptr_t)(litifut_trampolines_end - litifut_trampolines);
}

uintptr_t returns_unhook(struct litifut_thread *t, uintptr_t ra)
{
    struct shadow_entry *e = top_entry(t);
    if (!returns_is_trampoline(ra) || !e || !e->ra)
        return ra;
    uintptr_t real = e->ra;
    e->ra = 0;                      /* a call not hooked: closed by a later event */
    return real;
}

/* From a wrapper of a function that returns twice (arch/<arch>/stub.S),
 * whose call a hot path hooked: the real return address. */
HIDDEN uintptr_t litifut_unhook(uintptr_t ra)
{
    if (!returns_is_trampoline(ra))
        return ra;
    struct litifut_thread *t = thread_self();
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    uintptr_t real = returns_unhook(t, ra);
    busy_leave(t, busy);
    return real;
}

/* A return at sp that is not the top entry's: a frame on another stack
 * (swapcontext).  Entries above its own on the shadow stack (frames of
 * the stack left, suspended) are closed early and set aside, then its
 * own is popped with its RETURN; or its entry was set aside already
 * (its RETURN written then).  The real return address; the program
 * cannot go on without one. */
static uintptr_t resume(struct litifut_thread *t, uint32_t *p, uintptr_t sp)
{
    struct shadow_entry *e = t->shadow_top;
    while (e && e-- > t->shadow + 1 && !(e->sp == sp && e->ra))
        ;
    if (e && e > t->shadow) {
        while (t->shadow_top - 1 > e) {
            set_aside(t, t->shadow_top - 1);
            t->shadow_top--;
            if (p)
                p = returns_put(t, p);
        }
        uintptr_t ra = e->ra;
        t->shadow_top--;
        if (p)
            returns_put(t, p);
        return ra;
    }
    if (!t->shadow || !(e = set_aside_find(t, sp)))
        die_unmatched(sp);
    uintptr_t ra = e->ra;
    e->ra = 0;                      /* (taken: a stale twin of the same sp stays unused) */
    struct litifut_trace_header *h = litifut_copy.proc ? litifut_copy.proc->header : NULL;
    if (h)
        count_up(&h->returns_resumed);
    return ra;
}

/* From the trampoline: sp is the stack pointer the callee returned
 * with, which is the one of its call. */
HIDDEN uintptr_t litifut_return(uintptr_t sp)
{
    struct litifut_thread *t = thread_self();
    uintptr_t frame = FRAME_ADDRESS(), busy = t->busy;
    /* the parent's calls inside vfork or clone are recorded (call.c);
     * a mark whose tracer frame a handler's siglongjmp abandoned is
     * cleared (call.c, busy_abandoned) */
    if (busy == BUSY_UNHOOKED ? returns_unhooked_left(t, sp)
                              : busy != 0 && busy != BUSY_OFF && busy != BUSY_SPAWN &&
                                    t->state == THREAD_ON && busy_abandoned(busy, sp))
        busy = 0;
    int rec = t->state == THREAD_ON &&
              (busy == 0 || busy == BUSY_UNHOOKED ||
               (busy == BUSY_SPAWN && (uint32_t)sys_getpid() == t->spawn_pid));
    uint32_t *p = NULL;
    if (rec) {
        t->busy = frame;
        __asm__ volatile("" ::: "memory");
        p = t->cur;
        if (t->lim <= p)
            p = control_refill(t);
    }
    p = unwind(t, p, sp, 0);
    struct shadow_entry *e = top_entry(t);
    uintptr_t ra;
    if (e && e->sp == sp && e->ra) {
        ra = e->ra;
        t->shadow_top--;
        if (p && t->args_marks)
            args_on_return(t, p, sp, sp);   /* (LITIFUT_ARGS: maybe its return value) */
        else if (p)
            returns_put(t, p);
    } else {
        ra = resume(t, p, sp);
    }
    if (rec && t->busy == frame) {      /* (a thread whose trace failed is BUSY_OFF) */
        __asm__ volatile("" ::: "memory");
        t->busy = busy;
    }
    return ra;
}

/* The unwinder's function `name`, for a trampoline's personality
 * routine (arch/<arch>/unwind.c) whose weak reference found none: a C
 * program that calls pthread_exit or is cancelled unwinds with the
 * libgcc_s glibc loaded for itself, privately (RTLD_LOCAL).  NULL if
 * there is none (a static program: its unwinder, if any, is linked in
 * and the weak reference found it). */
void *returns_unwinder_function(const char *name)
{
    return (void *)loaded_symbol("libgcc_s.so", name);
}

/*
 * backtrace() (glibc), which the wrapper links the program's calls of to
 * __wrap_backtrace (arch/<arch>/): the unwinder sees each hooked frame's
 * return address as a trampoline, a frame of its own (ARM: the
 * trampoline's personality routine leads it on to the real caller; MIPS:
 * the wrapper fills the trampoline frames' slots for the time of the
 * call).  Here the frames the program would not see are taken out of
 * the n that backtrace found in buf: those up to the wrapper's own (its
 * code from `lo` to `hi`; in a static program backtrace's calls are
 * hooked too), and the trampolines.  Returns how many are left.
 */
int returns_backtrace_filter(void **buf, int n, uintptr_t lo, uintptr_t hi)
{
    int first = 0, k = 0;
    for (int i = 0; i < n; i++)
        if (ARCH_CODE_ADDRESS(buf[i]) - lo < hi - lo) {
            first = i + 1;
            break;
        }
    for (int i = first; i < n; i++)
        if (!returns_is_trampoline((uintptr_t)buf[i]))
            buf[k++] = buf[i];
    return k;
}

/*
 * ... and while the C library's backtrace runs (traced in a static
 * program) no call of the thread is hooked: the wrapper gave the frames
 * hooked before their real return addresses, but a call hooked now (the
 * unwinder's, by backtrace) would put a trampoline where the unwinder
 * reads, and the walk would stop there.  busy BUSY_UNHOOKED sends every
 * call to the slow path (call.c), which records it as a call not hooked
 * (a pending entry: its RETURN at the next event that shows it gone, as
 * setjmp's).  Only a thread whose calls are recorded (busy 0) is marked.
 */
int returns_unhooked_begin(struct litifut_thread *t, uintptr_t frame)
{
    if (t->busy != 0)
        return 0;
    t->spawn_sp = frame;
    __asm__ volatile("" ::: "memory");
    t->busy = BUSY_UNHOOKED;
    return 1;
}

void returns_unhooked_end(struct litifut_thread *t, int marked)
{
    if (marked && t->busy == BUSY_UNHOOKED) {   /* (else it failed meanwhile: BUSY_OFF) */
        __asm__ volatile("" ::: "memory");
        t->busy = 0;
    }
}

/* A handler that interrupted backtrace() and left with siglongjmp: the
 * thread's next event comes from above the wrapper's frame. */
int returns_unhooked_left(const struct litifut_thread *t, uintptr_t sp)
{
    return busy_abandoned(t->spawn_sp, sp);
}
