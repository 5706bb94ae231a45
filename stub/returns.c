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
extern const char __wrap_setjmp[] HIDDEN, __wrap__setjmp[] HIDDEN, __wrap___sigsetjmp[] HIDDEN;

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
    if (t->lim <= p && !(p = thread_refill(t)))
        return NULL;
    if (!(p = event_time(t, p, &delta)))
        return NULL;
    *p++ = LITIFUT_REC_RETURN_WORD | delta << LITIFUT_REC_DELTA_SHIFT;
    t->cur = p;
    if (t->lim <= p)
        p = thread_refill(t);
    return p;
}

/* The thread's innermost open hooked call, NULL if none. */
static struct shadow_entry *top_entry(const struct litifut_thread *t)
{
    return t->shadow_top && t->shadow_top - 1 > t->shadow ? t->shadow_top - 1 : NULL;
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
        t->shadow_top--;
        if (p)
            p = returns_put(t, p);
    }
    return p;
}

/* Functions that return twice keep their return address for the second
 * time (setjmp in its jmp_buf, for longjmp; vfork's child returns through
 * the caller's frame): their calls are not hooked.  Their entry holds no
 * return address, and their RETURN is written when a later event shows
 * the frame gone (the caller's next call, or its return), after the
 * calls made inside them.  The wrapper links the program's calls of
 * them to the __wrap_ functions (arch/<arch>/stub.S), so that the
 * target says which. */
int returns_hookable(uintptr_t target)
{
    return target != (uintptr_t)__wrap_vfork && target != (uintptr_t)__wrap_setjmp &&
           target != (uintptr_t)__wrap__setjmp && target != (uintptr_t)__wrap___sigsetjmp;
}

uint32_t *returns_before_call(struct litifut_thread *t, uint32_t *p, uintptr_t sp_call)
{
    return unwind(t, p, sp_call, 1);
}

/* The thread's shadow stack: entry 0 is a sentinel whose sp is above
 * any stack pointer, so that the hot paths (arch/<arch>/) read the top
 * entry without testing whether there is one.  0 if it cannot be made. */
static int shadow_make(struct litifut_thread *t)
{
    if (t->shadow)
        return 1;
    void *m = sys_mmap(NULL, SHADOW_ENTRIES * sizeof(struct shadow_entry),
                       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (sys_mmap_failed(m))
        return 0;
    t->shadow = m;
    t->shadow[0].ra = 0;
    t->shadow[0].sp = ~(uint32_t)0;
    t->shadow_end = t->shadow + SHADOW_ENTRIES;
    __asm__ volatile("" ::: "memory");
    t->shadow_top = t->shadow + 1;
    return 1;
}

/* ra_slot NULL: a call not hooked (returns_hookable) */
void returns_hook(struct litifut_thread *t, uint32_t *ra_slot, uintptr_t sp_call)
{
    if (!shadow_make(t))
        return;                     /* (its return is then not recorded) */
    if (t->shadow_top == t->shadow_end)
        return;
    t->shadow_top->ra = ra_slot ? *ra_slot : 0;
    t->shadow_top->sp = (uint32_t)sp_call;
    t->shadow_top++;
    if (ra_slot)
        *ra_slot = (uint32_t)(uintptr_t)litifut_return_trampoline;
}

uintptr_t returns_real_address(uintptr_t sp)
{
    struct litifut_thread *t = thread_self();
    for (struct shadow_entry *e = t->shadow_top; e && e-- > t->shadow + 1;)
        if (e->sp == sp && e->ra)
            return e->ra;
    return 0;
}

/* Whether `ra` is one of this copy's return trampolines (arch/<arch>/:
 * the C one and the hot paths'). */
static int is_trampoline(uintptr_t ra)
{
    return ra - (uintptr_t)litifut_trampolines <
           (uintptr_t)(litifut_trampolines_end - litifut_trampolines);
}

uintptr_t returns_unhook(struct litifut_thread *t, uintptr_t ra)
{
    struct shadow_entry *e = top_entry(t);
    if (!is_trampoline(ra) || !e || !e->ra)
        return ra;
    uintptr_t real = e->ra;
    e->ra = 0;                      /* a call not hooked: closed by a later event */
    return real;
}

/* From a wrapper of a function that returns twice (arch/<arch>/stub.S),
 * whose call a hot path hooked: the real return address. */
HIDDEN uintptr_t litifut_unhook(uintptr_t ra)
{
    if (!is_trampoline(ra))
        return ra;
    struct litifut_thread *t = thread_self();
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    uintptr_t real = returns_unhook(t, ra);
    busy_leave(t, busy);
    return real;
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
    if (busy != 0 && busy != BUSY_OFF && busy != BUSY_SPAWN && t->state == THREAD_ON &&
        busy_abandoned(busy, sp))
        busy = 0;
    int rec = t->state == THREAD_ON &&
              (busy == 0 || (busy == BUSY_SPAWN && (uint32_t)sys_getpid() == t->spawn_pid));
    uint32_t *p = NULL;
    if (rec) {
        t->busy = frame;
        __asm__ volatile("" ::: "memory");
        p = t->cur;
        if (t->lim <= p)
            p = thread_refill(t);
    }
    p = unwind(t, p, sp, 0);
    struct shadow_entry *e = top_entry(t);
    if (!e || e->sp != sp || !e->ra)
        die_unmatched(sp);
    uintptr_t ra = e->ra;
    t->shadow_top--;
    if (p)
        returns_put(t, p);
    if (rec && t->busy == frame) {      /* (a thread whose trace failed is BUSY_OFF) */
        __asm__ volatile("" ::: "memory");
        t->busy = busy;
    }
    return ra;
}
