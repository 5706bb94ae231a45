/*
 * Rebuilding a thread's call stack from its records.
 *
 * Returns inferred (the default trace, which records calls only).  A
 * call record says: function F (the one holding the call site) called
 * G at time T.  So F was running at T, and every frame above F's had
 * returned by then:
 *   - the frames above the topmost frame of F end at T (their end is
 *     when F is seen running again, not when they returned: the time
 *     from a callee's return to the caller's next traced call counts
 *     as the callee's);
 *   - if F is not on the stack, F was entered without a traced call:
 *     called from untraced code (a callback from qsort, a signal
 *     handler, the thread's start routine, main from the C library),
 *     or tail-called (a jump, not a call).  A *synthetic* frame for F
 *     is pushed on top, starting at T: its time counts as F's, but it
 *     is not counted as a call of F;
 *   - G's frame is pushed, starting at T.
 * longjmp, C++ exceptions and thread cancellation need nothing more:
 * the frames they skipped end at the next call from below them.
 * Recursion cannot be told apart from a return followed by a call from
 * the same function (f calls f, f returns, f calls f again): the
 * topmost frame of F is taken as the caller, so a recursion's frames
 * end together, at the next call from below it.  A stack deeper than
 * CALLSTACK_MAX_DEPTH (a long recursion read that way) ends its top
 * frame before each push: memory stays bounded; one warning per trace.
 *
 * Returns recorded (a trace with return records): a return ends the
 * innermost frame of a traced call, and the synthetic frames above it
 * (the untraced code they stand for has returned too).  Calls still
 * follow the rule above, which is then only needed after a longjmp or
 * an exception.
 *
 * At the thread's end, every open frame ends at the thread's last time.
 * Times never go back within a thread: an earlier time (a damaged
 * trace) counts as the latest so far.
 *
 * Finding F's topmost frame: `on_stack` counts the frames per hash of
 * their function, so a function not on the stack is known at once; if
 * it may be there, the stack is searched from the top.  Every frame
 * passed on the way is popped, so the search costs one step per frame
 * popped, plus one.
 */
#include <stdlib.h>
#include <string.h>
#include "postproc/callstack.h"
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
    free(s->f);
    free(s->on_stack);
    memset(s, 0, sizeof *s);
}

static void pop(struct callstack *s, uint64_t end_ns)
{
    struct frame *f = &s->f[s->n - 1];
    if (s->n > 1)
        s->f[s->n - 2].child_ns += end_ns - f->start_ns;
    if (s->view->ops->pop)
        s->view->ops->pop(s->view, s, f, end_ns);
    s->on_stack[f->fid & (ON_STACK_SLOTS - 1)]--;
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

static void push(struct callstack *s, uint32_t fid, uint64_t t, const struct trace_event *call)
{
    if (s->n == CALLSTACK_MAX_DEPTH) {
        if (!*s->warned_depth) {
            *s->warned_depth = 1;
            warning("%s: thread %u: the call stack inferred is deeper than %u frames (a long "
                    "recursion?); the top frame taken as returned at each deeper call",
                    s->t->path, (unsigned)s->th->tid, CALLSTACK_MAX_DEPTH);
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
    f->synthetic = !call;
    f->printed = 0;
    if (call) {
        f->call = *call;
        f->seq = s->calls - 1;
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

void callstack_call(struct callstack *s, uint32_t caller, uint32_t callee,
                    const struct trace_event *e)
{
    uint64_t t = now(s, e->time_ns);
    s->calls++;
    uint32_t k = 0;                     /* 1 + the topmost frame of caller; 0: none */
    if (s->on_stack[caller & (ON_STACK_SLOTS - 1)])
        for (k = s->n; k > 0 && s->f[k - 1].fid != caller; k--)
            ;
    if (k > 0) {
        while (s->n > k)
            pop(s, t);
    } else {
        push(s, caller, t, NULL);       /* entered without a traced call */
    }
    push(s, callee, t, e);
}

void callstack_return(struct callstack *s, uint64_t time_ns)
{
    uint64_t t = now(s, time_ns);
    uint32_t k = s->n;                  /* the innermost frame of a traced call */
    while (k > 0 && s->f[k - 1].synthetic)
        k--;
    if (k == 0)
        return;                         /* a return from before the trace: nothing open */
    while (s->n >= k)
        pop(s, t);
}

void callstack_end(struct callstack *s, uint64_t end_ns)
{
    uint64_t t = now(s, end_ns);
    while (s->n)
        pop(s, t);
}
