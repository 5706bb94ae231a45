/*
 * A thread's call stack, rebuilt from its call records (and its return
 * records, where the trace has them), handed to a view as frames
 * pushed and popped.  The rules are at the top of callstack.c.
 */
#ifndef LITIFUT_POSTPROC_CALLSTACK_H
#define LITIFUT_POSTPROC_CALLSTACK_H

#include <stdint.h>
#include "postproc/reader/names.h"
#include "postproc/reader/trace.h"

/* Deepest stack kept: a deeper frame pops the top first (see
 * callstack.c).  A trace with return records holds the real stack: as
 * deep as the tracer's shadow stack can grow before its hooks stop
 * (4 M frames, 80 bytes each here: memory only a recursion that deep
 * asks for); inferred returns may pile up frames that returned long
 * ago: 64 K. */
#define CALLSTACK_MAX_DEPTH 65536u
#define CALLSTACK_MAX_DEPTH_RETURNS (1u << 22)

struct frame {
    uint32_t fid;               /* the function (names.h) */
    uint32_t node;              /* the view's (folded: calling context) */
    uint64_t start_ns;
    uint64_t child_ns;          /* its children's time, each child's start to end */
    uint64_t own_at_push;       /* the stack's own_ns when it began */
    int32_t shown_parent;       /* the nearest shown frame below, or -1 */
    uint32_t depth;             /* from the thread's root, or from the --function frame */
    uint8_t synthetic;          /* stands for a caller not on the stack: not a call */
    uint8_t inherited;          /* live when the process forked (its parent's frame): not
                                   a call; a RETURN closes it unless it is synthetic */
    uint8_t shown;              /* passes the filters: the views show it */
    uint8_t in_focus;           /* it or a frame below is a --function function */
    uint8_t excluded;           /* it or a frame below is an --exclude function */
    uint8_t printed;            /* the log's: its call line is out */
    uint8_t signal;             /* FRAME_SIGNAL: a signal's delivery ("<signal SIGALRM>"),
                                   FRAME_HANDLER: its handler, entered by the delivery;
                                   FRAME_ENTRY: a function entered by no traced call (an
                                   ENTRY record: a thread's start routine, a callback of
                                   the C library's) */
    uint8_t jump;               /* a tail jump's callee: a call of its function, from
                                   the jump's site, that ends with the frame below it
                                   (the jumper's, whose return is the callee's) */
    uint8_t no_return;          /* a traced call (returns recorded) that had not returned when
                                   its thread's records end (exit, exec, a kill): it ends
                                   there, its duration a lower bound */
    uint64_t seq;               /* a call's number in its thread, from 0 */
    uint32_t last_object;       /* the call site of the last call this frame made */
    uint32_t last_site;         /* (DB index + 1; 0: it has made none) */
    struct trace_event call;    /* the call (not for a synthetic frame); its args are
                                   the frame's (frame_args), not call.args */
    uint32_t args_at, args_n;   /* LITIFUT_ARGS: its arguments, in the stack's words */
    const uint32_t *ret;        /* ... its return value, during the view's pop (NULL: none) */
    uint32_t ret_n;
};

/* The filters that act on frames (--tid acts on whole threads). */
struct stack_filters {
    int focus;                  /* --function given: show frames inside one of them */
    int by_function;            /* --function or --exclude given */
    uint32_t max_depth;         /* --depth: show frames with depth below this */
    uint64_t from_ns, to_ns;    /* --time-range: show frames starting in [from, to] */
};

struct view;
struct callstack {
    struct frame *f;            /* f[0] is the root */
    uint32_t n, cap;
    uint32_t *on_stack;         /* frames per hash of their function: 0 = not there */
    const struct stack_filters *flt;
    const struct func_table *ft;
    struct view *view;
    /* the thread */
    const struct trace_file *t;
    const struct trace_thread *th;
    uint64_t calls;             /* call events so far */
    uint64_t last_ns;           /* the latest time so far (times never go back here) */
    uint64_t own_ns;            /* the tracer's own time so far (trace_event.own_ns): a
                                   frame ends that much earlier than its end event for
                                   what of it fell inside the frame, so that no view
                                   counts it in a function's time */
    uint64_t pop_end_ns;        /* in a view's pop: the time of the frame's end event (the
                                   end_ns it gets is that minus the tracer's own time
                                   inside the frame), for a view that shows when it ended */
    int *warned_depth;          /* shared by a trace's threads: said once */
    int returns_missing;        /* a fork child's thread before its first call: the returns
                                   of its inherited frames until then are not recorded */
    uint32_t *args;             /* LITIFUT_ARGS: the open frames' arguments (frame_args) */
    uint32_t n_args, cap_args;
};

/* A frame's recorded arguments (struct trace_event.args' format), *n
 * words; NULL if none. */
static inline const uint32_t *frame_args(const struct callstack *s, const struct frame *f,
                                         uint32_t *n)
{
    *n = f->args_n;
    return f->args_n ? s->args + f->args_at : NULL;
}

enum { FRAME_SIGNAL = 1, FRAME_HANDLER = 2, FRAME_ENTRY = 3 };

/* Whether the frame is a traced call of this thread (not a synthetic
 * or an inherited frame): the views count these as calls (a signal's
 * delivery and its handler's entry too). */
static inline int frame_is_call(const struct frame *f)
{
    return !f->synthetic && !f->inherited;
}

/* Whether the frame counts as a call of its function: a traced call,
 * or a signal handler's entry (not the delivery's own frame, which is
 * no function's: "<signal SIGALRM>"). */
static inline int frame_counts_as_call(const struct frame *f)
{
    return frame_is_call(f) && f->signal != FRAME_SIGNAL;
}

/* Whether the frame is a call record's, with a call site (f->call's
 * object and site): not a signal's frames. */
static inline int frame_has_site(const struct frame *f)
{
    return frame_is_call(f) && !f->signal;
}

void callstack_init(struct callstack *s, struct view *view, const struct stack_filters *flt,
                    const struct func_table *ft, const struct trace_file *t,
                    const struct trace_thread *th, int *warned_depth);
void callstack_free(struct callstack *s);

/* A traced call from a site in function `caller` to `callee`. */
void callstack_call(struct callstack *s, uint32_t caller, uint32_t callee,
                    const struct trace_event *e);
/* A traced tail jump from a site in `caller` to `callee`: a frame for
 * the callee above the caller's, ended with it (no return of its own). */
void callstack_jump(struct callstack *s, uint32_t caller, uint32_t callee,
                    const struct trace_event *e);
/* A return record: the innermost open call returned (a signal
 * handler's frame: with its signal's, the handler left by siglongjmp). */
void callstack_return(struct callstack *s, uint64_t time_ns);
/* ... with its return value (an ARGS record's words, NULL: none). */
void callstack_return_value(struct callstack *s, uint64_t time_ns, const uint32_t *ret,
                            uint32_t ret_n);
/* A SIGNAL record: a frame for the signal (function `sig`, a name
 * only) and one for its handler above it, both starting then. */
void callstack_signal(struct callstack *s, uint32_t sig, uint32_t handler,
                      const struct trace_event *e);
/* A SIGNAL_END record: the innermost signal's frame ends, and every
 * frame above it. */
void callstack_signal_end(struct callstack *s, uint64_t time_ns);
/* An ENTRY record: a frame for function `fid`, a call with no site. */
void callstack_entry(struct callstack *s, uint32_t fid, const struct trace_event *e);
/* An ENTRY_END record: the innermost entry's frame ends, and every
 * frame above it. */
void callstack_entry_end(struct callstack *s, uint64_t time_ns);
/* One event of the thread (the caller and callee looked up). */
static inline void callstack_feed(struct callstack *s, struct trace_funcs *tf,
                                  const struct trace_event *e)
{
    s->own_ns += e->own_ns;             /* (before the event: the callee's start is after) */
    if (e->kind == TRACE_CALL && trace_funcs_is_jump(tf, e)) {
        if (trace_funcs_jump_lands(tf, e))  /* (else a jump inside its function) */
            callstack_jump(s, trace_funcs_caller(tf, e), trace_funcs_callee(tf, e), e);
    }
    else if (e->kind == TRACE_CALL)
        callstack_call(s, trace_funcs_caller(tf, e), trace_funcs_callee(tf, e), e);
    else if (e->kind == TRACE_RETURN)
        callstack_return_value(s, e->time_ns, e->args, e->args_n);
    else if (e->kind == TRACE_SIGNAL)
        callstack_signal(s, trace_funcs_signal(tf, s->t, e->site),
                         trace_funcs_at_runtime(tf, e->target), e);
    else if (e->kind == TRACE_SIGNAL_END)
        callstack_signal_end(s, e->time_ns);
    else if (e->kind == TRACE_ENTRY)
        callstack_entry(s, trace_funcs_at_runtime(tf, e->target), e);
    else
        callstack_entry_end(s, e->time_ns);
}
/* Recording went off (LITIFUT_SIGNAL, LITIFUT_STOP_AT, ...) before an
 * event at `ns`: without return records the frames open then end then
 * (what ran meanwhile is unknown; calls after it come from "(untraced)"
 * callers); with them only a stop for good ends them (their RETURNs
 * come while off too).  *next: the thread's next state change in
 * t->states. */
void callstack_cross_states(struct callstack *s, const struct trace_file *t, size_t *next,
                            uint64_t ns);
/* Frames open before the thread's records start (root first), at `ns`
 * (not calls; synthetic[i]: a caller, not a traced call): a fork
 * child's thread that forked has the parent's frames at the fork
 * (`fork`: the returns before its first call are not in its trace), a
 * ring's thread whose history was overwritten the calls its tracer
 * had open then. */
void callstack_inherit(struct callstack *s, const uint32_t *fids, const uint8_t *synthetic,
                       size_t n, uint64_t ns, int fork);
/* The thread's end: every open frame ends at `end_ns` (or the latest
 * time seen, if later). */
void callstack_end(struct callstack *s, uint64_t end_ns);

#endif
