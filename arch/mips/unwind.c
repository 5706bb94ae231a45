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
 * this, and must not get libgcc_s for it.  (backtrace() calls no
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
    if (version != 1 || !_Unwind_GetCFA)
        return fail;
    uintptr_t cfa = (uintptr_t)_Unwind_GetCFA(context);
    uintptr_t ra = returns_real_address(cfa);
    if (!ra)
        return fail;
    *(volatile uint32_t *)cfa = (uint32_t)ra;
    return _URC_CONTINUE_UNWIND;
}
