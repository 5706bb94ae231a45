/*
 * C++ exceptions (and backtrace()) through calls hooked for exact
 * returns (stub/returns.c).  A hooked callee's saved return address is
 * the return trampoline, which the ARM EHABI unwinder would find no
 * unwind entry for.  So the trampoline has one (stub.S: .personality),
 * and this is its personality routine: the "frame" at the trampoline is
 * empty, and its caller is the real return address of the shadow stack
 * entry whose stack pointer is the unwinder's (sp at the call is sp
 * after the callee's frame).  Nothing is changed: entries of frames an
 * exception leaves are dropped at the thread's next call or return.
 *
 * The unwinder's register access functions are weak: a program without
 * an unwinder never calls this, and must not get libgcc_s for it.
 */
#include <unwind.h>
#include "tracer.h"

extern _Unwind_VRS_Result _Unwind_VRS_Get(_Unwind_Context *, _Unwind_VRS_RegClass, _uw,
                                          _Unwind_VRS_DataRepresentation, void *)
    __attribute__((weak));
extern _Unwind_VRS_Result _Unwind_VRS_Set(_Unwind_Context *, _Unwind_VRS_RegClass, _uw,
                                          _Unwind_VRS_DataRepresentation, void *)
    __attribute__((weak));

HIDDEN _Unwind_Reason_Code litifut_return_personality(_Unwind_State state,
                                                      _Unwind_Control_Block *ucbp,
                                                      _Unwind_Context *context)
{
    (void)state;
    (void)ucbp;
    uint32_t sp, ra;
    if (!_Unwind_VRS_Get || !_Unwind_VRS_Set ||
        _Unwind_VRS_Get(context, _UVRSC_CORE, 13, _UVRSD_UINT32, &sp) != _UVRSR_OK)
        return _URC_FAILURE;
    if (!(ra = returns_real_address(sp)))
        return _URC_FAILURE;
    if (_Unwind_VRS_Set(context, _UVRSC_CORE, 15, _UVRSD_UINT32, &ra) != _UVRSR_OK)
        return _URC_FAILURE;
    return _URC_CONTINUE_UNWIND;
}
