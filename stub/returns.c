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

/* Pops the entries of frames that are gone: sp below `sp` (or at it,
 * `inclusive`), writing their RETURN words at `p` if p is not NULL.
 * Returns p as it moved. */
static uint32_t *unwind(struct litifut_thread *t, uint32_t *p, uintptr_t sp, int inclusive)
{
    while (t->shadow_n) {
        const struct shadow_entry *e = &t->shadow[t->shadow_n - 1];
        if (e->sp > sp || (e->sp == sp && !inclusive))
            break;
        t->shadow_n--;
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

/* ra_slot NULL: a call not hooked (returns_hookable) */
void returns_hook(struct litifut_thread *t, uint32_t *ra_slot, uintptr_t sp_call)
{
    if (!t->shadow) {
        void *m = sys_mmap(NULL, SHADOW_ENTRIES * sizeof(struct shadow_entry),
                           PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                           -1, 0);
        if (sys_mmap_failed(m))
            return;                     /* (its return is then not recorded) */
        t->shadow = m;
    }
    if (t->shadow_n == SHADOW_ENTRIES)
        return;
    t->shadow[t->shadow_n].ra = ra_slot ? *ra_slot : 0;
    t->shadow[t->shadow_n].sp = (uint32_t)sp_call;
    t->shadow_n++;
    if (ra_slot)
        *ra_slot = (uint32_t)(uintptr_t)litifut_return_trampoline;
}

uintptr_t returns_real_address(uintptr_t sp)
{
    struct litifut_thread *t = thread_self();
    for (uint32_t i = t->shadow_n; i-- > 0;)
        if (t->shadow[i].sp == sp && t->shadow[i].ra)
            return t->shadow[i].ra;
    return 0;
}

/* From the trampoline: sp is the stack pointer the callee returned
 * with, which is the one of its call. */
HIDDEN uintptr_t litifut_return(uintptr_t sp)
{
    struct litifut_thread *t = thread_self();
    uintptr_t frame = FRAME_ADDRESS(), busy = t->busy;
    /* the parent's calls inside vfork or clone are recorded (call.c) */
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
    if (!t->shadow_n || t->shadow[t->shadow_n - 1].sp != sp || !t->shadow[t->shadow_n - 1].ra)
        die_unmatched(sp);
    uintptr_t ra = t->shadow[--t->shadow_n].ra;
    if (p)
        returns_put(t, p);
    if (rec && t->busy == frame) {      /* (a thread whose trace failed is BUSY_OFF) */
        __asm__ volatile("" ::: "memory");
        t->busy = busy;
    }
    return ra;
}
