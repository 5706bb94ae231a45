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
    if ((actions & _UA_FORCE_UNWIND) && (actions & _UA_CLEANUP_PHASE))
        returns_forced_unwind(cfa);     /* (the thread ends: the frame's RETURN now) */
    return _URC_CONTINUE_UNWIND;
}

/*
 * backtrace() (stub/returns.c): the program's calls of it come here.  It
 * calls no personality routine, so each of the top hooked frames' slots
 * (above) gets its real return address for the time of the call (the
 * frames at or above this one's: of this stack, their callees still
 * running).  The calls backtrace makes meanwhile (a static program's C
 * library is traced: the unwinder's, its callbacks') are recorded but
 * not hooked (returns.c, BUSY_UNHOOKED): none puts a trampoline in a
 * frame the unwinder is about to read.
 * This file is built with unwind tables: the unwinder steps over this
 * function's frame.
 */
extern int __real_backtrace(void **, int) __attribute__((weak));

#define BACKTRACE_MAX 1024          /* frames asked for, hooked ones included */
#define WRAP_BACKTRACE_BYTES 2048   /* more than __wrap_backtrace's code */

int __wrap_backtrace(void **buf, int size);
int __wrap_backtrace(void **buf, int size)
{
    if (!__real_backtrace || size <= 0)
        return 0;                   /* (__real_: never missing, the wrapper asks ld for it) */
    struct litifut_thread *t = thread_self();
    int hooked = t->shadow && t->shadow_top - 1 > t->shadow;
    int ask = 1 + (hooked ? 2 : 1) * (size < BACKTRACE_MAX / 2 ? size : BACKTRACE_MAX / 2 - 1);
    void *all[ask];
    uint32_t saved[BACKTRACE_MAX / 2];
    uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
    unsigned filled = 0;
    for (const struct shadow_entry *e = t->shadow_top; hooked && filled < (unsigned)ask / 2 &&
                                                        e-- > t->shadow + 1;)
        if (e->sp >= sp && e->ra) {
            volatile uint32_t *slot = (volatile uint32_t *)(uintptr_t)e->sp;
            saved[filled++] = *slot;
            *slot = e->ra;
        }
    int marked = returns_unhooked_begin(t, sp);
    int n = __real_backtrace(all, ask);
    returns_unhooked_end(t, marked);
    unsigned i = 0;
    for (const struct shadow_entry *e = t->shadow_top; i < filled && e-- > t->shadow + 1;)
        if (e->sp >= sp && e->ra)
            *(volatile uint32_t *)(uintptr_t)e->sp = saved[i++];
    uintptr_t lo = (uintptr_t)__wrap_backtrace;
    n = returns_backtrace_filter(all, n, lo, lo + WRAP_BACKTRACE_BYTES);
    for (i = 0; (int)i < n && (int)i < size; i++)
        buf[i] = all[i];
    return (int)i;
}
