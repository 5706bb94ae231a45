/*
 * C++ exceptions (and pthread_cancel) through calls hooked for exact
 * returns (stub/returns.c).  A hooked callee's saved return address is
 * the return trampoline, which the DWARF unwinder would find no frame
 * description for.  So the trampoline has one (stub.S): an empty frame
 * (its sp is sp at the call, which is the callee's CFA) whose return
 * address is saved at sp + 0, with this personality routine, which the
 * unwinder calls before it reads that slot, and which puts the real
 * return address there: the shadow stack entry whose stack pointer is
 * the callee's CFA.  The
 * slot is the first word of the caller's o32 argument area, which the
 * callee owned and the caller does not read after a call.
 *
 * _Unwind_GetCFA is weak: a program without an unwinder never calls
 * this, and must not get libgcc_s for it.  A C program that calls
 * pthread_exit or is cancelled has it nowhere a weak reference sees:
 * glibc dlopens libgcc_s privately; it is looked up there then
 * (stub/returns.c).  (backtrace() calls no
 * personality routine: it stops at the trampoline.)
 */
#include <unwind.h>
#include "tracer.h"

extern _Unwind_Word _Unwind_GetCFA(struct _Unwind_Context *) __attribute__((weak));

HIDDEN _Unwind_Reason_Code litifut_return_personality(int version, _Unwind_Action actions,
                                                      _Unwind_Exception_Class cls,
                                                      struct _Unwind_Exception *ue,
                                                      struct _Unwind_Context *context)
{
    (void)cls;
    (void)ue;
    _Unwind_Reason_Code fail = actions & _UA_SEARCH_PHASE ? _URC_FATAL_PHASE1_ERROR
                                                          : _URC_FATAL_PHASE2_ERROR;
    static _Unwind_Word (*get_cfa)(struct _Unwind_Context *);
    if (!get_cfa)
        get_cfa = _Unwind_GetCFA ? _Unwind_GetCFA : returns_unwinder_function("_Unwind_GetCFA");
    if (version != 1 || !get_cfa)
        return fail;
    uintptr_t cfa = (uintptr_t)get_cfa(context);
    uintptr_t ra = returns_real_address(cfa);
    if (!ra)
        return fail;
    *(volatile uint32_t *)cfa = (uint32_t)ra;
    return _URC_CONTINUE_UNWIND;
}

/* backtrace() (stub/returns.c) calls no personality routine: each of the
 * top hooked frames' slots (above) gets its real return address for the
 * time of the call, the frames being of this stack (at or above sp, the
 * caller's) and their callees still running. */
unsigned unwind_slots_fill(const struct litifut_thread *t, uintptr_t sp, uint32_t *saved,
                           unsigned max)
{
    unsigned n = 0;
    for (const struct shadow_entry *e = t->shadow_top; n < max && e-- > t->shadow + 1;) {
        if (e->sp < sp || !e->ra)
            continue;               /* (another stack's, or a call not hooked) */
        volatile uint32_t *slot = (volatile uint32_t *)(uintptr_t)e->sp;
        saved[n++] = *slot;
        *slot = e->ra;
    }
    return n;
}

void unwind_slots_restore(const struct litifut_thread *t, uintptr_t sp, const uint32_t *saved,
                          unsigned n)
{
    unsigned i = 0;
    for (const struct shadow_entry *e = t->shadow_top; i < n && e-- > t->shadow + 1;)
        if (e->sp >= sp && e->ra)
            *(volatile uint32_t *)(uintptr_t)e->sp = saved[i++];
}

/* backtrace() of a static program (stub/returns.c): glibc's backtrace is
 * linked in and instrumented, and its own call of the unwinder is hooked
 * after the slots above were filled; so the unwinder, linked in too, is
 * called from here.  -1 if there is none here to call. */
extern _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn, void *) __attribute__((weak));
extern _Unwind_Ptr _Unwind_GetIP(struct _Unwind_Context *) __attribute__((weak));

struct frames {
    void **pc;
    int n, max;
};

static _Unwind_Reason_Code frame_seen(struct _Unwind_Context *context, void *arg)
{
    struct frames *f = arg;
    if (f->n == f->max)
        return _URC_END_OF_STACK;
    f->pc[f->n++] = (void *)_Unwind_GetIP(context);
    return _URC_NO_REASON;
}

int unwind_backtrace(void **pc, int max)
{
    if (!_Unwind_Backtrace || !_Unwind_GetIP)
        return -1;
    struct frames f = { pc, 0, max };
    _Unwind_Backtrace(frame_seen, &f);
    return f.n;
}
