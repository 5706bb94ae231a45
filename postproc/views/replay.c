/*
 * The log (--format=log, the default view as text): every call with its
 * start time, duration and nesting depth, like `uftrace replay`.  The
 * threads are interleaved by time (view.merged): a trace's, and those of
 * several traces (processes) in one log, times from the first one's
 * start.
 *
 *   # prog, pid 1234: 1 thread, 36 calls; times ...; returns ...
 *   # ~ marks estimates: returns inferred (...): durations and ...
 *   #     time (s)    duration      tid  caller -> callee
 *       0.000120                   1234  (untraced) -> main {
 *       0.000130   ~12.000 us      1234    main -> init
 *       0.000142                   1234    main -> work {
 *       0.000150   ~40.010 ms      1234      work -> spin
 *       0.040160   ~40.018 ms      1234    } ...
 *
 * The second line and the '~' before every duration: the trace has no
 * per-call clock or no return records (estimates.h), so its durations
 * are estimates; a trace with both has neither.
 *
 * Indentation stops at VIEW_DEPTH_CAP (view.h): a deeper line says its
 * depth, "[depth 300] f -> g".
 *
 * A traced call that had not returned when its thread's records end
 * (exit, exec, a kill; a --follow window's end) says "(still open at the
 * end)" after its name: its duration runs to the trace's end.
 *
 * A call that has traced calls of its own opens a block ("{"); its
 * duration is on the line that closes it ("}" and the function's name
 * as a C comment, at its end time).  A
 * call without any is one line with its duration: so a call's line is
 * printed once the next event of its thread says which it is, and the
 * memory is the call stack, whatever the trace's length.  "(untraced)"
 * is a frame pushed for a function entered without a traced call
 * (callstack.c); "(jump) f -> g" a tail jump's callee, g entered by a
 * jump from f (its block ends with f's).  --srcline adds " @ file:line"
 * of the call site.
 *
 * A fork child's head says where it forked and the frames its thread
 * that forked inherited (forks.h), which were opened in the parent:
 *   # forked from process 1234 at 0.000420 s of its trace; inherited
 *     stack: main > run > spawn > fork                  (one line)
 * they get no opening line, and each its closing one when it ends in
 * the child (the fork's own frame at the child's first call).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/views/report.h"
#include "postproc/view.h"
#include "postproc/views/outbuf.h"
#include "postproc/views/args.h"
#include "lib/arch.h"
#include "lib/error.h"

struct replay {
    struct view v;
    int srcline;
    int auto_args;
    struct args_buf args;       /* a frame's LITIFUT_ARGS values as text (views/args.h) */
    struct outbuf ob;           /* a line being built (outbuf.h) */
};

#define DURATION_WIDTH 11

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static void print_time(FILE *out, uint64_t ns)
{
    if (durations_are_instructions())
        fprintf(out, "%14" PRIu64, ns);
    else
        fprintf(out, "%4" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
}

/* A fork child: where it came from, and the frames its thread that
 * forked starts with (forks.h), or that they are not known. */
static void print_fork(struct view *v)
{
    const struct fork_origin *o = v->trace->fork;
    FILE *out = v->out;
    if (!o || !o->parent_pid)
        return;
    fprintf(out, "# forked from process %" PRIu32, o->parent_pid);
    if (!o->known) {
        fputs("; the stack at the fork is unknown (", out);
        put_clean(out, o->unknown ? o->unknown : "?");
        fputs(")\n", out);
        return;
    }
    if (durations_are_instructions())
        fprintf(out, " at %" PRIu64 " in of its trace; inherited stack:", o->after_ns);
    else
        fprintf(out, " at %" PRIu64 ".%09" PRIu64 " s of its trace; inherited stack:",
                o->after_ns / 1000000000, o->after_ns % 1000000000);
    for (size_t i = 0; i < o->n; i++)
        fprintf(out, "%s%s", i ? " > " : " ", v->ft->v[o->fids[i]].name);
    fputs(o->n ? "\n" : " none\n", out);
}

static void print_head(struct view *v)
{
    ob_flush(&((struct replay *)v)->ob);        /* (the lines so far, before the FILE's) */
    const struct trace_file *t = v->trace->t;
    const struct litifut_trace_header *h = &t->header;
    FILE *out = v->out;
    fputs("# ", out);
    put_clean(out, h->exe);
    if (h->mode != LITIFUT_MODE_FULL) {     /* dedup, count: pairs */
        int count = h->mode == LITIFUT_MODE_COUNT;
        fprintf(out, ", pid %" PRIu32 ": LITIFUT_MODE=%s: %zu (caller, callee) pair%s",
                h->pid, count ? "count" : "dedup", t->n_pairs, plural(t->n_pairs));
        if (count)
            fprintf(out, ", %" PRIu64 " call%s", t->n_calls, plural(t->n_calls));
        fputs("; each at the time of its first call\n", out);
        if (v->trace->offset_ns) {
            fputs("# starts at ", out);
            print_time(out, v->trace->offset_ns);
            fputs(" s, after the first trace\n", out);
        }
        if (count)
            fprintf(out, "#%13s %12s  %s\n", "first (s)", "calls", "caller -> callee");
        else
            fprintf(out, "#%13s  %s\n", "first (s)", "caller -> callee");
        return;
    }
    fprintf(out, ", pid %" PRIu32 ": %zu thread%s, %" PRIu64 " call%s; ", h->pid, t->n_threads,
            plural(t->n_threads), t->n_calls, plural(t->n_calls));
    if (h->clock == LITIFUT_CLOCK_MARKS)
        fprintf(out, "times are interpolated between marks every %" PRIu32 " records",
                h->time_every);
    else if (h->clock == LITIFUT_CLOCK_MONOTONIC)
        fputs("times are per call (CLOCK_MONOTONIC)", out);
    else if (h->clock == LITIFUT_CLOCK_INSNS)
        fputs("times are the thread's guest instructions (in), per call, from the emulator", out);
    else if (arch_by_counter_clock(h->clock))
        fprintf(out, "times are per call (%s)", arch_by_counter_clock(h->clock)->counter_clock_name);
    else
        fprintf(out, "times are per call (clock %u)", h->clock);
    if (h->flags & LITIFUT_TRACE_RETURNS)
        fputs("; returns recorded\n", out);
    else
        fputs("; a call ends when its caller makes its next call\n", out);
    estimates_note(out, v->trace->estimates, h->time_every);
    own_time_note(out, t->own_ns, t->n_own);
    size_t shown = 0;                           /* LITIFUT_SIGNAL, LITIFUT_RECORD, ... */
    for (size_t i = 0; i < t->n_states; i++) {
        const struct trace_state *st = &t->states[i];
        if (st->why == LITIFUT_STATE_AT_END || st->why == TRACE_STATE_STOPPED)
            continue;                           /* (no change: the count below; said below) */
        fprintf(out, "%s %s at ", shown++ ? "," : "# recording", st->on ? "on" : "off");
        print_time(out, st->ns + v->trace->offset_ns);
        fputs(st->why == LITIFUT_STATE_BY_SIGNAL     ? " (signal)"
              : st->why == LITIFUT_STATE_BY_FUNCTION ? " (function)"
              : st->why == LITIFUT_STATE_BY_CONTROL  ? " (control file)"
              : st->why == LITIFUT_STATE_BY_BUDGET   ? " (budget)"
              : st->why == TRACE_STATE_STOPPED       ? " (stopped for good)" : " (start)", out);
        if (st->why == LITIFUT_STATE_BY_BUDGET && st->on && st->has_count && i &&
            t->states[i - 1].has_count)     /* a pause's end: what it missed */
            fprintf(out, " [%" PRIu32 " not recorded]",
                    st->unrecorded - t->states[i - 1].unrecorded);
    }
    if (shown)
        fputc('\n', out);
    char *stopped = trace_stop_text(t);
    if (stopped)
        fprintf(out, "# %s\n", stopped);
    free(stopped);
    char *history = trace_history_text(t), *snapshot = trace_snapshot_text(t);
    if (history)
        fprintf(out, "# %s\n", history);
    if (snapshot)
        fprintf(out, "# the ring's records end: %s\n", snapshot);
    free(history);
    free(snapshot);
    if (t->n_states && t->states[t->n_states - 1].has_count)
        fprintf(out, "# %" PRIu32 " calls not recorded while recording was off\n",
                t->states[t->n_states - 1].unrecorded);
    if (v->trace->offset_ns) {
        fputs("# starts at ", out);
        print_time(out, v->trace->offset_ns);
        fputs(" s, after the first trace\n", out);
    }
    print_fork(v);
    fprintf(out, "#%13s %*s %8s  %s\n", durations_are_instructions() ? "time (in)" : "time (s)",
            DURATION_WIDTH, "duration", "tid", "caller -> callee");
}

/* The start of a line: time (after the first trace's start, in a
 * merged log), duration if known, thread, indentation (up to
 * VIEW_DEPTH_CAP levels; deeper lines say their depth). */
static void line_start(struct replay *r, const struct callstack *s, uint64_t time_ns,
                       const uint64_t *duration, uint32_t depth)
{
    struct outbuf *ob = &r->ob;
    uint64_t t = time_ns + r->v.trace->offset_ns;
    if (durations_are_instructions()) {
        ob_dec(ob, t, 14, 0);
    } else {
        ob_dec(ob, t / 1000000000, 4, 0);
        ob_char(ob, '.');
        ob_dec(ob, t % 1000000000, 9, 1);
    }
    ob_char(ob, ' ');
    if (duration) {
        char d[64];
        size_t n = format_duration(d, sizeof d, *duration, DURATION_WIDTH,
                                   r->v.trace->estimates != 0);
        ob_mem(ob, d, n);
    } else {
        ob_spaces(ob, DURATION_WIDTH);
    }
    ob_char(ob, ' ');
    ob_dec(ob, s->th->tid, 8, 0);
    ob_spaces(ob, 2 + 2 * (depth <= VIEW_DEPTH_CAP ? depth : VIEW_DEPTH_CAP));
    if (depth > VIEW_DEPTH_CAP) {
        ob_str(ob, "[depth ");
        ob_u64(ob, depth);
        ob_str(ob, "] ");
    }
}

/* LITIFUT_ARGS' values (n words) of a call of fn as text, valid until the next. */
static const char *values(struct replay *r, const uint32_t *w, uint32_t n, const struct func *fn)
{
    return args_buf_text(&r->args, &r->v.trace->t->header, w, n, fn, r->auto_args);
}

/* " = 3": a frame's return value, if LITIFUT_ARGS recorded it. */
static void print_return_value(struct replay *r, const struct frame *f)
{
    if (!f->ret)
        return;
    ob_str(&r->ob, " = ");
    ob_str(&r->ob, values(r, f->ret, f->ret_n, &r->v.ft->v[f->fid]));
}

/* "caller -> callee", or "(untraced) -> callee" for a synthetic frame,
 * "(thread) -> callee" for a thread's start routine at its root,
 * "(callback) -> callee" for a C library's callback with no frame below
 * (an exit handler run after main returned) and "(jump) caller ->
 * callee" for a tail jump's callee. */
static void print_call(struct replay *r, const struct callstack *s, const struct frame *f)
{
    struct outbuf *ob = &r->ob;
    const struct func_table *ft = r->v.ft;
    const struct frame *below = f > s->f ? f - 1 : NULL;
    if (f->signal == FRAME_SIGNAL) {    /* "<signal SIGALRM>" ... "</signal>" */
        ob_mem(ob, ft->v[f->fid].name, ft->v[f->fid].name_len);
        return;
    }
    if (f->signal == FRAME_ENTRY && !below) {  /* a thread's start routine, a callback, main */
        static const char *const names[] = LITIFUT_ENTRY_NAMES;
        ob_char(ob, '(');
        ob_str(ob, f->call.site < LITIFUT_ENTRY_KINDS ? names[f->call.site] : "entry");
        ob_char(ob, ')');
    }
    else if (f->synthetic || !below)    /* (an emulator sees every call: a jump entered it) */
        ob_str(ob, trace_is_emulated(r->v.trace->t) ? "(jump)" : "(untraced)");
    else {
        if (f->jump)
            ob_str(ob, "(jump) ");
        ob_mem(ob, ft->v[below->fid].name, ft->v[below->fid].name_len);
    }
    ob_mem(ob, " -> ", 4);
    uint32_t n;
    const uint32_t *args = frame_args(s, f, &n);
    const struct func *fn = &ft->v[f->fid];
    if (args) {                         /* LITIFUT_ARGS: open("/etc/config", 0) (libc.so.6) */
        size_t bare = strlen(fn->bare);
        ob_mem(ob, fn->name, bare);
        ob_char(ob, '(');
        ob_str(ob, values(r, args, n, fn));
        ob_char(ob, ')');
        ob_mem(ob, fn->name + bare, fn->name_len - bare);
    } else {
        ob_mem(ob, fn->name, fn->name_len);
    }
    if (r->srcline && frame_has_site(f)) {
        const struct program *p = &r->v.trace->ps->v[f->call.object];
        const char *line = trace_funcs_srcline(r->v.trace->tf, p->obj, p->site_addr[f->call.site]);
        if (line) {
            ob_str(ob, " @ ");
            ob_str(ob, line);
        }
    }
}

/* A shown frame with a shown frame above it: its block opens (a fork
 * child's inherited frame's never does: the parent printed its call;
 * a ring's thread's frames open before its records start are said). */
static void replay_push(struct view *v, struct callstack *s, struct frame *f)
{
    struct replay *r = (struct replay *)v;
    if (!f->shown || f->shown_parent < 0)
        return;
    struct frame *parent = &s->f[f->shown_parent];
    int ring = parent->inherited && s->th->n_open_ra;
    if (parent->printed || (parent->inherited && !ring)) {
        parent->printed = 1;
        return;
    }
    line_start(r, s, parent->start_ns, NULL, parent->depth);
    print_call(r, s, parent);
    ob_str(&r->ob, ring ? " { /* open when the ring's records start */\n"
                   : parent->signal == FRAME_SIGNAL ? "\n" : " {\n");
    ob_line_done(&r->ob);
    parent->printed = 1;
}

static void replay_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    struct replay *r = (struct replay *)v;
    if (!f->shown)
        return;
    uint64_t duration = end_ns - f->start_ns;
    if (f->printed || f->inherited) {   /* (an inherited frame: its end in this process) */
        /* (when it ended: the duration leaves the tracer's own time
         * out, the time column does not, so the lines stay in order) */
        line_start(r, s, s->pop_end_ns > end_ns ? s->pop_end_ns : end_ns, &duration, f->depth);
        if (f->signal == FRAME_SIGNAL && f->printed) {
            ob_str(&r->ob, "</signal>");
        } else {
            ob_mem(&r->ob, "} /* ", 5);
            ob_mem(&r->ob, v->ft->v[f->fid].name, v->ft->v[f->fid].name_len);
            ob_mem(&r->ob, " */", 3);
            print_return_value(r, f);
        }
    } else {
        line_start(r, s, f->start_ns, &duration, f->depth);
        print_call(r, s, f);
        print_return_value(r, f);
    }
    if (f->no_return)                   /* (exit, exec: the duration is as far as the trace goes) */
        ob_str(&r->ob, " (still open at the end)");
    ob_char(&r->ob, '\n');
    ob_line_done(&r->ob);
}

/* A pair of a dedup or count trace: one line. */
static void replay_pair(struct view *v, const struct trace_event *call, uint32_t calls)
{
    struct replay *r = (struct replay *)v;
    ob_flush(&r->ob);
    struct trace_funcs *tf = v->trace->tf;
    FILE *out = v->out;
    print_time(out, call->time_ns + v->trace->offset_ns);
    if (v->trace->t->header.mode == LITIFUT_MODE_COUNT)
        fprintf(out, " %12" PRIu32, calls);
    fprintf(out, "  %s -> %s", v->ft->v[trace_funcs_caller(tf, call)].name,
            v->ft->v[trace_funcs_callee(tf, call)].name);
    if (r->srcline) {
        const struct program *p = &v->trace->ps->v[call->object];
        const char *line = trace_funcs_srcline(tf, p->obj, p->site_addr[call->site]);
        if (line)
            fprintf(out, " @ %s", line);
    }
    fputc('\n', out);
}

static void replay_end(struct view *v)
{
    ob_flush(&((struct replay *)v)->ob);
    args_buf_free(&((struct replay *)v)->args);
    free(v);
}

struct view *replay_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    static const struct view_ops ops = {
        .merged = 1, .trace_begin = print_head, .push = replay_push, .pop = replay_pop,
        .pair = replay_pair, .end = replay_end,
    };
    struct replay *r = xcalloc(1, sizeof *r);
    view_init(&r->v, &ops, out, ft);
    r->ob.out = out;
    r->srcline = o->srcline;
    r->auto_args = o->auto_args;
    return &r->v;
}
