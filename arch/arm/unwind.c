/*
 * C++ exceptions (and backtrace()) through calls hooked for exact
 * returns (stub/returns.c).  A hooked callee's saved return address is
 * the return trampoline, which the ARM EHABI unwinder would find no
 * unwind entry for.  So the trampoline has one (stub.S: .personality),
 * and this is its personality routine: the "frame" at the trampoline is
 * empty, and its caller is the real return address of the shadow stack
 * entry whose stack pointer is the unwinder's (sp at the call is sp
 * after the callee's frame).  Nothing is changed: entries of frames an
 * exception leaves are dropped at the thread's next call or return; a
 * forced unwinding (pthread_exit, cancellation: the thread ends) writes
 * the frame's RETURN as it leaves it.
 *
 * The unwinder's register access functions are weak: a program without
 * an unwinder never calls this, and must not get libgcc_s for it.  A C
 * program that calls pthread_exit or is cancelled has them nowhere a
 * weak reference sees: glibc dlopens libgcc_s privately for its forced
 * unwinding; they are looked up there then (stub/returns.c).
 */
#include <unwind.h>
#include "tracer.h"

extern _Unwind_VRS_Result _Unwind_VRS_Get(_Unwind_Context *, _Unwind_VRS_RegClass, _uw,
                                          _Unwind_VRS_DataRepresentation, void *)
    __attribute__((weak));
extern _Unwind_VRS_Result _Unwind_VRS_Set(_Unwind_Context *, _Unwind_VRS_RegClass, _uw,
                                          _Unwind_VRS_DataRepresentation, void *)
    __attribute__((weak));

typedef _Unwind_VRS_Result vrs_get_fn(_Unwind_Context *, _Unwind_VRS_RegClass, _uw,
                                       _Unwind_VRS_DataRepresentation, void *);
typedef vrs_get_fn vrs_set_fn;

HIDDEN _Unwind_Reason_Code litifut_return_personality(_Unwind_State state,
                                                      _Unwind_Control_Block *ucbp,
                                                      _Unwind_Context *context)
{
    (void)ucbp;
    uint32_t sp, ra;
    static vrs_get_fn *get;
    static vrs_set_fn *set;
    if (!get || !set) {
        get = _Unwind_VRS_Get ? _Unwind_VRS_Get : returns_unwinder_function("_Unwind_VRS_Get");
        set = _Unwind_VRS_Set ? _Unwind_VRS_Set : returns_unwinder_function("_Unwind_VRS_Set");
    }
    if (!get || !set || get(context, _UVRSC_CORE, 13, _UVRSD_UINT32, &sp) != _UVRSR_OK)
        return _URC_FAILURE;
    if (!(ra = returns_real_address(sp)))
        return _URC_FAILURE;
    if (set(context, _UVRSC_CORE, 15, _UVRSD_UINT32, &ra) != _UVRSR_OK)
        return _URC_FAILURE;
    if ((state & _US_FORCE_UNWIND) && (state & _US_ACTION_MASK) == _US_UNWIND_FRAME_STARTING)
        returns_forced_unwind(sp);      /* (the thread ends: the frame's RETURN now) */
    return _URC_CONTINUE_UNWIND;
}

/* backtrace() through __wrap_backtrace (stub.S), whose frame is
 * {r4, r5, r6, lr} at sp while it calls backtrace: this personality
 * routine unwinds it (the compact model's would bring in libgcc's). */
HIDDEN _Unwind_Reason_Code litifut_backtrace_personality(_Unwind_State state,
                                                         _Unwind_Control_Block *ucbp,
                                                         _Unwind_Context *context)
{
    (void)state;
    (void)ucbp;
    uint32_t sp;
    vrs_get_fn *get = _Unwind_VRS_Get ? _Unwind_VRS_Get : returns_unwinder_function("_Unwind_VRS_Get");
    vrs_set_fn *set = _Unwind_VRS_Set ? _Unwind_VRS_Set : returns_unwinder_function("_Unwind_VRS_Set");
    if (!get || !set || get(context, _UVRSC_CORE, 13, _UVRSD_UINT32, &sp) != _UVRSR_OK)
        return _URC_FAILURE;
    const uint32_t *frame = (const uint32_t *)(uintptr_t)sp;
    uint32_t r[4] = { frame[0], frame[1], frame[2], frame[3] };
    sp += 16;
    for (unsigned i = 0; i < 3; i++)
        if (set(context, _UVRSC_CORE, 4 + i, _UVRSD_UINT32, &r[i]) != _UVRSR_OK)
            return _URC_FAILURE;
    if (set(context, _UVRSC_CORE, 13, _UVRSD_UINT32, &sp) != _UVRSR_OK ||
        set(context, _UVRSC_CORE, 15, _UVRSD_UINT32, &r[3]) != _UVRSR_OK)
        return _URC_FAILURE;
    return _URC_CONTINUE_UNWIND;
}
