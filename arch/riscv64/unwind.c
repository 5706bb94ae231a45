/*
 * C++ exceptions (and forced unwinding) through calls hooked for exact
 * returns (stub/returns.c).  A hooked callee's saved return address is
 * the return trampoline, so the trampoline has an FDE (stub.S): an
 * empty frame (CFA = sp) whose caller's ra is where the callee saved
 * its own, with this personality routine, which writes the real return
 * address (the shadow stack entry whose sp is the CFA: sp at the call)
 * there.  Only the two phases of a throw call it, and in both the
 * callee never returns normally past that point.  Nothing else is
 * changed: entries of frames an exception leaves are dropped at the
 * thread's next call or return; a forced unwinding (pthread_exit,
 * cancellation: the thread ends) writes the frame's RETURN as it
 * leaves it.
 *
 * The unwinder's functions are weak: a program without an unwinder
 * never calls this, and must not get libgcc_s for it; where glibc
 * loaded libgcc_s privately (pthread_exit) they are looked up there
 * (stub/returns.c).
 */
#include <unwind.h>
#include "tracer.h"

extern _Unwind_Word _Unwind_GetCFA(struct _Unwind_Context *) __attribute__((weak));
extern void _Unwind_SetGR(struct _Unwind_Context *, int, _Unwind_Word) __attribute__((weak));

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
    static void (*set_gr)(struct _Unwind_Context *, int, _Unwind_Word);
    if (!get_cfa || !set_gr) {
        get_cfa = _Unwind_GetCFA ? _Unwind_GetCFA : returns_unwinder_function("_Unwind_GetCFA");
        set_gr = _Unwind_SetGR ? _Unwind_SetGR : returns_unwinder_function("_Unwind_SetGR");
    }
    if (version != 1 || !get_cfa || !set_gr)
        return fail;
    uintptr_t ra = returns_real_address((uintptr_t)get_cfa(context));
    if (!ra)
        return fail;
    set_gr(context, 1, ra);         /* ra (DWARF register 1): the caller's return address */
    if ((actions & _UA_FORCE_UNWIND) && (actions & _UA_CLEANUP_PHASE))
        returns_forced_unwind((uintptr_t)get_cfa(context));    /* (the thread ends) */
    return _URC_CONTINUE_UNWIND;
}

/*
 * backtrace(): the wrapper links the program's calls of it here.  The
 * unwinder would stop at the first hooked frame (the trampoline's FDE
 * says ra is unchanged: no personality routine runs for a backtrace).
 * So for the time of the call each hooked frame's saved ra holds its
 * real return address: the first word holding the trampoline from the
 * top of the callee's frame down (GCC saves ra at the frame's top, CFA
 * - 8; the words below may be stale copies: the slow path's frame held
 * the trampoline too).  Then the frames the program would not see (this
 * function's, the trampolines) are taken out.  The calls backtrace
 * makes meanwhile (a static program's C library is traced) are
 * recorded but not hooked (returns.c, BUSY_UNHOOKED).
 */
extern const char litifut_trampolines[] HIDDEN, litifut_trampolines_end[] HIDDEN;
extern int __real_backtrace(void **, int) __attribute__((weak));

#define BACKTRACE_MAX 1024          /* frames asked for, hooked ones included */
#define HOOKED_MAX 256              /* hooked frames given their real address */

int __wrap_backtrace(void **buf, int size);
int __wrap_backtrace(void **buf, int size)
{
    if (!__real_backtrace || size <= 0)
        return 0;                   /* (__real_: never missing, the wrapper asks ld for it) */
    struct litifut_thread *t = thread_self();
    int ask = size < BACKTRACE_MAX ? size + 8 : BACKTRACE_MAX;
    void *all[ask];
    uintptr_t *slot[HOOKED_MAX], saved[HOOKED_MAX];
    unsigned n = 0;
    /* from its own saved ra (CFA - 8: the call to it hooked) up: its
     * locals, below, may hold stale trampoline words of calls made
     * deeper before */
    uintptr_t below = (uintptr_t)__builtin_dwarf_cfa() - 8;
    for (const struct shadow_entry *e = t->shadow_top;
         t->shadow && n < HOOKED_MAX && e-- > t->shadow + 1;) {
        if (e->sp < below || !e->ra)
            continue;
        for (uintptr_t *w = (uintptr_t *)e->sp; w-- > (uintptr_t *)below;) {
            if (*w - (uintptr_t)litifut_trampolines >=
                (uintptr_t)(litifut_trampolines_end - litifut_trampolines))
                continue;
            slot[n] = w;
            saved[n++] = *w;
            *w = e->ra;
            break;
        }
        below = e->sp;
    }
    int marked = returns_unhooked_begin(t, FRAME_ADDRESS());
    int got = __real_backtrace(all, ask);
    returns_unhooked_end(t, marked);
    while (n--)
        *slot[n] = saved[n];
    uintptr_t lo = (uintptr_t)__wrap_backtrace;
    got = returns_backtrace_filter(all, got, lo, lo + 1024);
    int i;
    for (i = 0; i < got && i < size; i++)
        buf[i] = all[i];
    return i;
}
