/*
 * Rebuilding a thread's call stack from its records.
 *
 * Returns recorded (a trace with return records, the default): the
 * records are the stack.  A call pushes its callee's frame; a RETURN
 * ends the innermost frame of a traced call and the synthetic frames
 * above it (the tracer writes the RETURNs of frames that longjmp, an
 * exception or a cancellation left, in order, at the thread's next
 * event: every traced call gets exactly one).  So a frame of a traced
 * call ends at its RETURN and never at a call: the call's caller F is
 * the code running above the innermost frame of a traced call, which is
 * that frame's function or one entered from it without a traced call
 * (a tail call, a call the link left untraced, a callback from the C
 * library or other uninstrumented code): a *synthetic* frame above it.
 *   - if F is the function of one of those frames (the innermost
 *     traced frame and the synthetic frames above it), the synthetic
 *     frames above F's have returned (their returns are not in the
 *     trace): they end at T;
 *   - else F was entered without a traced call from one of them: the
 *     topmost that can have entered it (the rules below), else the
 *     traced frame; the synthetic frames above that end at T and a
 *     synthetic frame for F is pushed, starting at T;
 *   - G's frame is pushed, starting at T.
 * Recursion through any sites, tail calls and the calls of a catch
 * block nest as they ran.  With no traced frame open (the thread's
 * start, a ring's or a fork child's history), the rules of inferred
 * returns below place F among the synthetic frames.  Recording off and
 * on again ends nothing: the tracer still writes the RETURNs of the
 * calls it hooked before (only a stop for good ends every frame).
 *
 * Returns inferred (LITIFUT_RETURNS=0: calls only).  A
 * call record says: function F (the one holding the call site) called
 * G at time T.  So F was running at T, and every frame above F's had
 * returned by then:
 *   - if F is on the stack, the frames above F's frame end at T (their
 *     end is when F is seen running again, not when they returned: the
 *     time from a callee's return to the caller's next traced call
 *     counts as the callee's).  F's frame is its topmost one, unless a
 *     frame of F below it made its last call from a site before this
 *     call's (same object, address order: straight-line code goes on)
 *     and the frames of F above it did not: then that one (a recursion
 *     with two call sites: the first call's frames have returned);
 *   - if F is not on the stack, F was entered without a traced call,
 *     from the running code of a frame on the stack: the topmost one
 *     (within ENTRY_SCAN) whose function can have entered it
 *     (names.h: func_code, jumps): an instrumented function that can
 *     reach F by tail jumps or has calls the link left untraced, a C
 *     library function that calls back (qsort, raise, exit, ...), any
 *     other code without instrumentation.  The C library's other
 *     functions (malloc) have returned, and instrumented functions
 *     that can neither jump to F nor call it untraced cannot have
 *     entered it: both are passed over.  If F is an entry (main, a
 *     constructor or destructor: names.h), other uninstrumented code is
 *     passed over too, and if none can, every frame has returned.  Else
 *     if none can, F goes above the topmost frame that is not such a C
 *     library call (a signal handler, or a way in the code does not
 *     show).  The frames above
 *     that frame end at T; a *synthetic* frame for F is pushed on it,
 *     starting at T: its time counts as F's, but it is not a call of
 *     F;
 *   - G's frame is pushed, starting at T.
 * longjmp, C++ exceptions and thread cancellation need nothing more:
 * the frames they skipped end at the next call from below them.
 * Recursion through one call site cannot be told apart from a return
 * followed by a call from the same function (f calls f, f returns, f
 * calls f again): the topmost frame of F is taken as the caller, so
 * such a recursion's frames end together, at the next call from below
 * it.  A stack deeper than CALLSTACK_MAX_DEPTH (a long recursion read
 * that way; with return records, CALLSTACK_MAX_DEPTH_RETURNS) ends its
 * top frame before each push: memory stays bounded; one warning per
 * trace.
 *
 * An emulator's trace (litifut-emu) has every call and return: as
 * recorded returns, but a function not among the frames above the
 * innermost traced one goes on top of them, none ended (a stripped
 * library's symbols may name its code wrongly).
 *
 * A fork child's thread that forked starts with the frames its parent
 * had at the fork (forks.c): inherited, not calls; each is a traced
 * call for a RETURN if it was one in the parent.  The child's trace
 * starts at its first call: the returns before it (fork's own, at
 * least) are not in it, so that call is placed by the rules of inferred
 * returns, which end the inherited frames above its caller's.
 *
 * At the thread's end, every open frame ends at the thread's last time.
 * Times never go back within a thread: an earlier time (a damaged
 * trace) counts as the latest so far.
 *
 * Finding F's frame: `on_stack` counts the frames per hash of their
 * function, so a function not on the stack is known at once; if it may
 * be there, the stack is searched from the top.  Every frame passed on
 * the way is popped, so the search costs one step per frame popped,
 * plus one; and where the count says F may have more frames, at most
 * RECURSION_SCAN of them within RECURSION_PASS frames below.  With
 * recorded returns the search stops at the innermost traced frame.
 */
#include <stdlib.h>
#include <string.h>
#include "postproc/reader/callstack.h"
#include "postproc/view.h"
#include "lib/error.h"

#define ON_STACK_SLOTS 4096u            /* a power of two */

void callstack_init(struct callstack *s, struct view *view, const struct stack_filters *flt,
                    const struct func_table *ft, const struct trace_file *t,
                    const struct trace_thread *th, int *warned_depth)
{
    memset(s, 0, sizeof *s);
    s->cap = 64;
    s->f = xmalloc(s->cap * sizeof *s->f);
    s->on_stack = xcalloc(ON_STACK_SLOTS, sizeof *s->on_stack);
    s->flt = flt;
    s->ft = ft;
    s->view = view;
    s->t = t;
    s->th = th;
    s->warned_depth = warned_depth;
}

void callstack_free(struct callstack *s)
{
    free(s->args);
    free(s->f);
    free(s->on_stack);
    memset(s, 0, sizeof *s);
}

static void pop(struct callstack *s, uint64_t end_ns)
{
    struct frame *f = &s->f[s->n - 1];
    uint64_t own = s->own_ns - f->own_at_push;      /* the tracer's, inside the frame */
    s->pop_end_ns = end_ns;
    end_ns = end_ns - f->start_ns > own ? end_ns - own : f->start_ns;
    if (s->n > 1)
        s->f[s->n - 2].child_ns += end_ns - f->start_ns;
    if (s->view->ops->pop)
        s->view->ops->pop(s->view, s, f, end_ns);
    s->on_stack[f->fid & (ON_STACK_SLOTS - 1)]--;
    if (f->args_n)
        s->n_args = f->args_at;         /* (frames nest: the stack's last words) */
    f->ret = NULL;
    s->n--;
}

/* Whether a new frame of `fid`, starting at `start`, is to be shown,
 * and what it inherits from the frame below. */
static void apply_filters(const struct callstack *s, struct frame *f)
{
    const struct stack_filters *flt = s->flt;
    const struct frame *parent = s->n ? &s->f[s->n - 1] : NULL;
    unsigned flags = flt->by_function ? s->ft->v[f->fid].flags : 0;
    f->excluded = (parent && parent->excluded) || (flags & FUNC_EXCLUDE);
    if (flt->focus) {
        f->in_focus = (parent && parent->in_focus) || (flags & FUNC_FOCUS);
        f->depth = parent && parent->in_focus ? parent->depth + 1 : 0;
    } else {
        f->in_focus = 1;
        f->depth = parent ? parent->depth + 1 : 0;
    }
    f->shown = f->in_focus && !f->excluded && f->depth < flt->max_depth &&
               f->start_ns >= flt->from_ns && f->start_ns <= flt->to_ns;
    f->shown_parent = !parent ? -1 : parent->shown ? (int32_t)(s->n - 1) : parent->shown_parent;
}

/* What a frame pushed is. */
enum frame_kind { FRAME_CALL, FRAME_SYNTHETIC, FRAME_INHERITED, FRAME_INHERITED_SYNTHETIC,
                  FRAME_SIGNAL_CALL, FRAME_HANDLER_CALL, FRAME_ENTRY_CALL, FRAME_JUMP_CALL };

static void push(struct callstack *s, uint32_t fid, uint64_t t, const struct trace_event *call,
                 enum frame_kind kind)
{
    uint32_t max = s->t->header.flags & LITIFUT_TRACE_RETURNS ? CALLSTACK_MAX_DEPTH_RETURNS
                                                               : CALLSTACK_MAX_DEPTH;
    if (s->n == max) {
        if (!*s->warned_depth) {
            *s->warned_depth = 1;
            warning("%s: thread %u: the call stack is deeper than %u frames (a long "
                    "recursion?); the top frame taken as returned at each deeper call",
                    s->t->path, (unsigned)s->th->tid, (unsigned)max);
        }
        pop(s, t);
    }
    if (s->n == s->cap) {
        s->cap *= 2;
        s->f = xrealloc(s->f, s->cap * sizeof *s->f);
    }
    struct frame *f = &s->f[s->n];
    f->fid = fid;
    f->node = 0;
    f->start_ns = t;
    f->child_ns = 0;
    f->own_at_push = s->own_ns;
    f->synthetic = kind == FRAME_SYNTHETIC || kind == FRAME_INHERITED_SYNTHETIC;
    f->inherited = kind == FRAME_INHERITED || kind == FRAME_INHERITED_SYNTHETIC;
    f->printed = 0;
    f->jump = kind == FRAME_JUMP_CALL;
    f->no_return = 0;
    f->signal = kind == FRAME_SIGNAL_CALL ? FRAME_SIGNAL : kind == FRAME_HANDLER_CALL ? FRAME_HANDLER
              : kind == FRAME_ENTRY_CALL ? FRAME_ENTRY : 0;
    f->last_site = 0;
    f->args_n = f->ret_n = 0;
    f->ret = NULL;
    if (call) {
        f->call = *call;
        f->seq = s->calls - 1;
        f->call.args = NULL;
        if (call->args_n && (kind == FRAME_CALL || kind == FRAME_JUMP_CALL)) {
            if (s->n_args + call->args_n > s->cap_args) {
                s->cap_args = 2 * (s->n_args + call->args_n) + 64;
                s->args = xrealloc(s->args, s->cap_args * sizeof *s->args);
            }
            memcpy(s->args + s->n_args, call->args, call->args_n * sizeof *s->args);
            f->args_at = s->n_args;
            f->args_n = call->args_n;
            s->n_args += call->args_n;
        }
    }
    apply_filters(s, f);
    s->on_stack[fid & (ON_STACK_SLOTS - 1)]++;
    s->n++;
    if (s->view->ops->push)
        s->view->ops->push(s->view, s, f);
}

static uint64_t now(struct callstack *s, uint64_t t)
{
    if (t > s->last_ns)
        s->last_ns = t;
    return s->last_ns;
}

/* Frames looked at, from the top, for where a function was entered;
 * and tail calls followed (a function jumped to may jump on). */
#define ENTRY_SCAN 1024u
#define JUMP_HOPS 3u

/* Function `fid`, not among the frames above `lowest` (0: the whole
 * stack), makes a call: it was entered without a traced call, from the
 * running code of the topmost of them that can have entered it (see the
 * top).  Returns how many frames stay below it (`lowest` at least). */
static uint32_t entered_from(const struct callstack *s, uint32_t fid, uint32_t lowest)
{
    const struct func_table *ft = s->ft;
    uint32_t fallback = 0;
    if (s->n > ENTRY_SCAN && s->n - ENTRY_SCAN > lowest)
        lowest = s->n - ENTRY_SCAN;
    int entry = ft->v[fid].entry;
    for (uint32_t k = s->n; k > lowest; k--) {
        uint32_t g = s->f[k - 1].fid;
        switch (ft->v[g].code) {
        case CODE_TRACED:               /* a tail call, or a call the link left untraced */
            if (ft->v[g].untraced_calls || func_jumps_to(ft, g, fid, JUMP_HOPS))
                return k;
            break;
        case CODE_LIBC_CALLBACK:        /* a callback */
            return k;
        case CODE_OTHER:                /* code that may call back, unless fid is main,
                                           a constructor, a destructor */
            if (!entry)
                return k;
            break;
        default:                        /* the C library's, not calling back: returned */
            break;
        }
        if (!fallback && ft->v[g].code != CODE_LIBC)
            fallback = k;
    }
    if (entry)
        return lowest;                  /* every frame returned: the next entry runs */
    return fallback ? fallback : s->n;
}

/* 1 + the innermost frame of a traced call with a return of its own
 * (not synthetic, not a tail jump's); 0: none. */
static uint32_t innermost_traced(const struct callstack *s)
{
    uint32_t k = s->n;
    while (k > 0 && (s->f[k - 1].synthetic || s->f[k - 1].jump))
        k--;
    return k;
}

/* With recorded returns: the caller's frame on top, the synthetic
 * frames above it ended, or a synthetic one pushed for it if it was
 * entered without a traced call; no traced frame ends (see the top). */
static void caller_on_top(struct callstack *s, uint32_t caller, uint64_t t)
{
    uint32_t k = innermost_traced(s), j;
    for (j = s->n; j > k && s->f[j - 1].fid != caller; j--)
        ;
    if (j > 0 && s->f[j - 1].fid == caller) {
        while (s->n > j)
            pop(s, t);
        return;
    }
    for (j = entered_from(s, caller, k); s->n > j;)
        pop(s, t);
    push(s, caller, t, NULL, FRAME_SYNTHETIC);
}

/* Frames of the caller looked at, and frames passed, for the one that
 * makes a call (a recursion's). */
#define RECURSION_SCAN 16u
#define RECURSION_PASS 256u

/* The frame of `caller` that makes call `e` (1 + its index; 0: none):
 * the topmost, unless a frame of it below has made its last call from
 * a site before e's (in address order: it goes on) and those above
 * have not (see the top).  Below the topmost, only if the count per
 * hash says more frames of it may be there, and within bounds. */
static uint32_t caller_frame(const struct callstack *s, uint32_t caller,
                             const struct trace_event *e)
{
    uint32_t k, slot = caller & (ON_STACK_SLOTS - 1);
    if (!s->on_stack[slot])
        return 0;
    for (k = s->n; k > 0 && s->f[k - 1].fid != caller; k--)
        ;
    if (k == 0 || s->on_stack[slot] == 1)
        return k;
    uint32_t top = k, seen = 0;
    for (; k > 0 && seen < RECURSION_SCAN && top - k < RECURSION_PASS; k--) {
        const struct frame *f = &s->f[k - 1];
        if (f->fid != caller)
            continue;
        if (f->last_site && f->last_object == e->object && f->last_site - 1 < e->site)
            return k;
        seen++;
    }
    return top;
}

/* An emulator's trace (litifut-emu) has every call and return: a call
 * is made by the innermost traced call's code, or by a function it
 * jumped to (a tail call, the dynamic linker's resolver): one of the
 * synthetic frames above it, or a new one; no frame below is popped (a
 * stripped library's symbols may name its code wrongly).  A call from
 * code no symbol names is the top frame's. */
static void emulated_caller(struct callstack *s, uint32_t caller, uint64_t t)
{
    uint32_t k = s->n;
    while (k > 1 && (s->f[k - 1].synthetic || s->f[k - 1].jump) && s->f[k - 1].fid != caller)
        k--;
    if (s->f[k - 1].fid == caller || !s->ft->v[caller].symbol) {
        if (s->f[k - 1].fid == caller)
            while (s->n > k)
                pop(s, t);
    } else {
        push(s, caller, t, NULL, FRAME_SYNTHETIC);
    }
}

void callstack_call(struct callstack *s, uint32_t caller, uint32_t callee,
                    const struct trace_event *e)
{
    uint64_t t = now(s, e->time_ns);
    s->calls++;
    if (trace_is_emulated(s->t) && s->n) {
        emulated_caller(s, caller, t);
        s->f[s->n - 1].last_object = e->object;
        s->f[s->n - 1].last_site = e->site + 1;
        push(s, callee, t, e, FRAME_CALL);
        return;
    }
    int exact = (s->t->header.flags & LITIFUT_TRACE_RETURNS) && !s->returns_missing;
    s->returns_missing = 0;
    uint32_t k;
    if (exact) {
        caller_on_top(s, caller, t);
    } else if ((k = caller_frame(s, caller, e)) > 0) {  /* 1 + the caller's frame */
        while (s->n > k)
            pop(s, t);
    } else {                            /* entered without a traced call */
        for (k = entered_from(s, caller, 0); s->n > k;)
            pop(s, t);
        push(s, caller, t, NULL, FRAME_SYNTHETIC);
    }
    s->f[s->n - 1].last_object = e->object;
    s->f[s->n - 1].last_site = e->site + 1;
    push(s, callee, t, e, FRAME_CALL);
}

/* A tail jump is a call from its caller, as callstack_call places it,
 * whose frame is no traced call's for a RETURN: it ends with the frame
 * below it, as a synthetic frame does (the jumper's return is the
 * callee's), and calls from the callee nest in it. */
void callstack_jump(struct callstack *s, uint32_t caller, uint32_t callee,
                    const struct trace_event *e)
{
    uint64_t t = now(s, e->time_ns);
    s->calls++;
    int exact = (s->t->header.flags & LITIFUT_TRACE_RETURNS) && !s->returns_missing;
    s->returns_missing = 0;
    uint32_t k;
    if (trace_is_emulated(s->t) && s->n) {
        emulated_caller(s, caller, t);
    } else if (exact) {
        caller_on_top(s, caller, t);
    } else if ((k = caller_frame(s, caller, e)) > 0) {
        while (s->n > k)
            pop(s, t);
    } else {
        for (k = entered_from(s, caller, 0); s->n > k;)
            pop(s, t);
        push(s, caller, t, NULL, FRAME_SYNTHETIC);
    }
    s->f[s->n - 1].last_object = e->object;
    s->f[s->n - 1].last_site = e->site + 1;
    push(s, callee, t, e, FRAME_JUMP_CALL);
}

void callstack_return(struct callstack *s, uint64_t time_ns)
{
    callstack_return_value(s, time_ns, NULL, 0);
}

void callstack_return_value(struct callstack *s, uint64_t time_ns, const uint32_t *ret,
                            uint32_t ret_n)
{
    uint64_t t = now(s, time_ns);
    uint32_t k = innermost_traced(s);
    if (k == 0)
        return;                         /* a return from before the trace: nothing open */
    if (ret) {
        s->f[k - 1].ret = ret;          /* (the call the RETURN closes) */
        s->f[k - 1].ret_n = ret_n;
    }
    if (s->f[k - 1].signal == FRAME_HANDLER && k >= 2 && s->f[k - 2].signal == FRAME_SIGNAL)
        k--;                            /* a handler left by siglongjmp: its signal ends */
    while (s->n >= k)
        pop(s, t);
}

void callstack_signal(struct callstack *s, uint32_t sig, uint32_t handler,
                      const struct trace_event *e)
{
    uint64_t t = now(s, e->time_ns);
    push(s, sig, t, e, FRAME_SIGNAL_CALL);
    push(s, handler, t, e, FRAME_HANDLER_CALL);
}

/* The innermost frame of `kind` (struct frame.signal) ends, and every
 * frame above it. */
static void end_through(struct callstack *s, uint64_t time_ns, uint8_t kind)
{
    uint64_t t = now(s, time_ns);
    uint32_t k = s->n;
    while (k > 0 && s->f[k - 1].signal != kind)
        k--;
    while (k > 0 && s->n >= k)          /* (none open: one from before the trace) */
        pop(s, t);
}

void callstack_signal_end(struct callstack *s, uint64_t time_ns)
{
    end_through(s, time_ns, FRAME_SIGNAL);
}

void callstack_entry(struct callstack *s, uint32_t fid, const struct trace_event *e)
{
    uint64_t t = now(s, e->time_ns);
    /* without return records the frames above the C library function
     * that called it back may have returned: found as a call's caller
     * entered without a traced call is (with them, the top is it) */
    if (!(s->t->header.flags & LITIFUT_TRACE_RETURNS))
        for (uint32_t k = entered_from(s, fid, 0); s->n > k;)
            pop(s, t);
    else if (e->site == LITIFUT_ENTRY_START || e->site == LITIFUT_ENTRY_INIT ||
             e->site == LITIFUT_ENTRY_FINI)
        /* main, a constructor, a destructor: the C library's start, the
         * dynamic linker or exit calls them from its own code, where no
         * frame of the trace's runs but the traced calls still open: a
         * synthetic or a jump's frame above them has returned unseen
         * (musl's atexit handler, entered untraced, that jumped on) */
        while (s->n > innermost_traced(s))
            pop(s, t);
    push(s, fid, t, e, FRAME_ENTRY_CALL);
}

void callstack_entry_end(struct callstack *s, uint64_t time_ns)
{
    end_through(s, time_ns, FRAME_ENTRY);
}

void callstack_inherit(struct callstack *s, const uint32_t *fids, const uint8_t *synthetic,
                       size_t n, uint64_t ns, int fork)
{
    uint64_t t = now(s, ns);
    s->returns_missing = fork && n;
    for (size_t i = 0; i < n; i++)
        push(s, fids[i], t, NULL, synthetic[i] ? FRAME_INHERITED_SYNTHETIC : FRAME_INHERITED);
}

void callstack_cross_states(struct callstack *s, const struct trace_file *t, size_t *next,
                            uint64_t ns)
{
    while (*next < t->n_states && t->states[*next].ns <= ns) {
        const struct trace_state *st = &t->states[(*next)++];
        /* (with recorded returns, the frames open at an off still end
         * at their RETURNs, which the tracer writes while off too) */
        if (!st->on && (!(t->header.flags & LITIFUT_TRACE_RETURNS) || st->why == TRACE_STATE_STOPPED))
            callstack_end(s, st->ns);
    }
}

void callstack_end(struct callstack *s, uint64_t end_ns)
{
    uint64_t t = now(s, end_ns);
    int returns = (s->t->header.flags & LITIFUT_TRACE_RETURNS) != 0;
    while (s->n) {
        s->f[s->n - 1].no_return = returns && !s->f[s->n - 1].synthetic;
        pop(s, t);
    }
}
