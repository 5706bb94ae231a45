/*
 * C++ exceptions (and forced unwinding) through calls hooked for exact
 * returns (stub/returns.c).  A hooked callee's saved return address is
 * the return trampoline, so the trampoline has an FDE (stub.S): an
 * empty frame (CFA = sp) whose caller's x30 is where the callee saved
 * its own, with this personality routine, which writes the real return
 * address (the shadow stack entry whose sp is the CFA: sp at the call)
 * there.  Only the two phases of a throw call it, and in both the
 * callee never returns normally past that point, so overwriting its
 * saved (PAC-signed) x30 with the raw address is harmless; the
 * trampoline's FDE has no negate_ra_state, so the unwinder does not
 * authenticate it.  Nothing else is changed: entries of frames an
 * exception leaves are dropped at the thread's next call or return.
 *
 * The unwinder's functions are weak: a program without an unwinder
 * never calls this, and must not get libgcc_s for it.  A C program that
 * calls pthread_exit or is cancelled has them nowhere a weak reference
 * sees (glibc dlopens libgcc_s privately for its forced unwinding):
 * they are looked up there then (stub/returns.c).
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
    set_gr(context, 30, ra);        /* x30: the caller's return address */
    return _URC_CONTINUE_UNWIND;
}
