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
 * exception leaves are dropped at the thread's next call or return; a
 * forced unwinding (pthread_exit, cancellation: the thread ends) writes
 * the frame's RETURN as it leaves it.
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
    if ((actions & _UA_FORCE_UNWIND) && (actions & _UA_CLEANUP_PHASE))
        returns_forced_unwind((uintptr_t)get_cfa(context));    /* (the thread ends) */
    return _URC_CONTINUE_UNWIND;
}

/*
 * backtrace(): the wrapper links the program's calls of it here.  The
 * unwinder would stop at the first hooked frame (the trampoline's FDE
 * says x30 is unchanged: no personality routine runs for a backtrace).
 * So for the time of the call each hooked frame's saved x30 holds its
 * real return address, signed as the callee signed the trampoline (the
 * unwinder authenticates it with the frame's CFA, sp at the call: key A
 * or B, whichever gives the value found; unsigned if neither): the saved
 * x30 is the first word holding a trampoline from the bottom of the
 * callee's frame up (from the next inner entry's sp, or this function's
 * frame record, to the entry's sp): GCC keeps the frame record {x29,
 * x30} at the bottom of a frame, and the words above may be stale
 * copies (the slow path's frame held the trampoline too).  Then the
 * frames the program would not see (this function's, the trampolines)
 * are taken out.  Without PAC the hints are no-ops: the raw address.
 * The calls backtrace makes meanwhile (a static program's C library is
 * traced: the unwinder's, its callbacks') are recorded but not hooked
 * (returns.c, BUSY_UNHOOKED): none puts a trampoline in a frame the
 * unwinder is about to read.
 */
extern const char litifut_trampolines[] HIDDEN, litifut_trampolines_end[] HIDDEN;
extern int __real_backtrace(void **, int) __attribute__((weak));

/* PAC hints (NOPs without PAC): x30 stripped; x17 signed with modifier x16. */
static uintptr_t strip(uintptr_t a)
{
    register uintptr_t x30 __asm__("x30") = a;
    __asm__("hint #7" : "+r"(x30));             /* xpaclri */
    return x30;
}
static uintptr_t sign(uintptr_t a, uintptr_t modifier, int key_b)
{
    register uintptr_t x17 __asm__("x17") = a;
    register uintptr_t x16 __asm__("x16") = modifier;
    if (key_b)
        __asm__("hint #10" : "+r"(x17) : "r"(x16));    /* pacib1716 */
    else
        __asm__("hint #8" : "+r"(x17) : "r"(x16));     /* pacia1716 */
    return x17;
}

/* How this tracer's own functions save theirs (-mbranch-protection). */
#if defined(__ARM_FEATURE_PAC_DEFAULT)
#define OWN_SIGNING (__ARM_FEATURE_PAC_DEFAULT & 1 ? 0 : 1)
#else
#define OWN_SIGNING (-1)
#endif

/* How a frame saved its return address: signed with key A (0), B (1), or
 * not (-1), for the rare word that reads both ways (a trampoline whose
 * signature with that frame's modifier happens to be 0: 1 in 128 with 7
 * PAC bits).  Told by the code before `pc` in the function holding it:
 * the nearest paciasp or pacibsp (signed) or return (the code before is
 * another function's, or a path that returned before any signing);
 * within pc's own page only (the one known to be mapped), else as this
 * tracer was built (the toolchain's default, likely the program's). */
static int frame_signing(uintptr_t pc)
{
    const uint32_t *p = (const uint32_t *)(pc & ~(uintptr_t)3);
    const uint32_t *page = (const uint32_t *)(pc & ~(uintptr_t)4095);
    while (p > page) {
        uint32_t insn = *--p;
        if (insn == 0xd503233f)                 /* paciasp */
            return 0;
        if (insn == 0xd503237f)                 /* pacibsp */
            return 1;
        if (insn == 0xd65f03c0 || insn == 0xd65f0bff || insn == 0xd65f0fff)
            return -1;                          /* ret, retaa, retab */
    }
    return OWN_SIGNING;
}

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
    /* The scan starts above this function's own frame (its CFA): its
     * locals (these arrays, uninitialized) may hold stale trampoline
     * words of calls made deeper before; a word found there would be
     * the wrong one, and slot[] itself could be it.  Its own saved x30
     * (the call to it hooked) is in its frame record. */
    uintptr_t below = (uintptr_t)__builtin_dwarf_cfa();
    uintptr_t *own = (uintptr_t *)FRAME_ADDRESS() + 1;
    /* code of the callee of the entry at hand (below: this function's
     * own, if the call to it was hooked; else its caller's) */
    uintptr_t callee_pc = strip((uintptr_t)__builtin_return_address(0));
    for (const struct shadow_entry *e = t->shadow_top;
         t->shadow && n < HOOKED_MAX && e-- > t->shadow + 1;) {
        if (e->sp < below || !e->ra)
            continue;
        uintptr_t *w = e->sp == below ? own : (uintptr_t *)below;
        uintptr_t *end = e->sp == below ? own + 1 : (uintptr_t *)e->sp;
        for (; w < end; w++) {
            uintptr_t v = *w, tramp = strip(v);
            if (tramp - (uintptr_t)litifut_trampolines >=
                (uintptr_t)(litifut_trampolines_end - litifut_trampolines))
                continue;
            slot[n] = w;
            saved[n++] = v;
            int key = v != tramp ? (v == sign(tramp, e->sp, 0) ? 0 : v == sign(tramp, e->sp, 1) ? 1 : -1)
                    : sign(tramp, e->sp, 0) == tramp || sign(tramp, e->sp, 1) == tramp
                      ? (w == own ? OWN_SIGNING : frame_signing(callee_pc))  /* (reads both ways) */
                      : -1;
            *w = key < 0 ? e->ra : sign(e->ra, e->sp, key);
            break;
        }
        below = e->sp;
        callee_pc = strip(e->ra);
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
