/*
 * Reading a trace into a view.  Per event: the caller's and the
 * callee's function (array reads, names.h), then the call stack
 * (callstack.c), which tells the view of the frames it pushes and pops.
 * Memory: one chunk per open cursor, the call stacks and the views'
 * tables, whatever the trace's length.
 *
 * Threads one after another (every view but the log): one cursor and
 * one stack at a time.  Interleaved by time (the log): a cursor and a
 * stack per thread, and a heap that picks the thread whose next event
 * is earliest (ties: in thread order).
 *
 * A thread's frames still open at its end end at its last time: its
 * last event, or its last time mark if later (the program's exit is
 * one).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/drive.h"
#include "lib/error.h"

/* Events between two looks at the clock, for the progress line. */
#define PROGRESS_EVENTS 65536u

static double seconds_since(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* At most four times a second, from a quarter second on:
 * "litifut-postproc: litifut.12.trace: 42%". */
static void progress(struct drive *d, uint64_t events)
{
    d->done += events;
    if (!d->progress)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (seconds_since(&d->last_shown, &now) < 0.25)
        return;
    unsigned pct = d->total ? (unsigned)(d->done * 100 / d->total) : 0;
    fprintf(stderr, "\r%s: %s: %u%%", program_name(), d->trace_name, pct > 100 ? 100 : pct);
    d->last_shown = now;
    d->shown = 1;
}

void drive_done(struct drive *d)
{
    if (d->shown)
        fputs("\r\033[K", stderr);      /* the line erased */
    d->shown = 0;
}

static int thread_wanted(struct drive *d, uint32_t tid)
{
    if (!d->n_tids)
        return 1;
    for (size_t i = 0; i < d->n_tids; i++)
        if (d->tids[i] == tid) {
            d->tid_seen[i] = 1;
            return 1;
        }
    return 0;
}

/* One event into its thread's stack. */
static inline void feed(struct trace_funcs *tf, struct callstack *s, const struct trace_event *e)
{
    if (e->kind == TRACE_CALL)
        callstack_call(s, trace_funcs_caller(tf, e), trace_funcs_callee(tf, e), e);
    else
        callstack_return(s, e->time_ns);
}

/* The thread's last time: its last event's, or its last time mark's. */
static uint64_t thread_end_ns(const struct trace_cursor *c, const struct callstack *s)
{
    uint64_t mark = trace_cursor_mark_ns(c);
    return mark > s->last_ns ? mark : s->last_ns;
}

static void thread_start(struct drive *d, struct trace_cursor *c, struct callstack *s,
                         struct trace_file *t, size_t i, int *warned_depth)
{
    trace_cursor_open(c, t, i);
    callstack_init(s, d->view, &d->flt, d->ft, t, &t->threads[i], warned_depth);
    if (d->view->ops->thread_begin)
        d->view->ops->thread_begin(d->view, s);
}

static void thread_finish(struct drive *d, struct trace_cursor *c, struct callstack *s)
{
    callstack_end(s, thread_end_ns(c, s));
    if (d->view->ops->thread_end)
        d->view->ops->thread_end(d->view, s);
    callstack_free(s);
    trace_cursor_close(c);
}

static void one_by_one(struct drive *d, struct trace_funcs *tf, struct trace_file *t)
{
    int warned_depth = 0;
    for (size_t i = 0; i < t->n_threads; i++) {
        if (!thread_wanted(d, t->threads[i].tid))
            continue;
        struct trace_cursor c;
        struct callstack s;
        thread_start(d, &c, &s, t, i, &warned_depth);
        const struct trace_event *e;
        unsigned n = 0;
        while ((e = trace_cursor_next(&c))) {
            feed(tf, &s, e);
            if (++n == PROGRESS_EVENTS) {
                progress(d, n);
                n = 0;
            }
        }
        progress(d, n);
        thread_finish(d, &c, &s);
    }
}

/* --- interleaved by time --- */

struct lane {
    struct trace_cursor c;
    struct callstack s;
    const struct trace_event *e;    /* its next event */
    size_t order;                   /* its thread's place in the trace */
};

static int before(const struct lane *a, const struct lane *b)
{
    return a->e->time_ns != b->e->time_ns ? a->e->time_ns < b->e->time_ns : a->order < b->order;
}

static void sift_down(struct lane **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (l + 1 < n && before(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        struct lane *x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

static void interleaved(struct drive *d, struct trace_funcs *tf, struct trace_file *t)
{
    int warned_depth = 0;
    struct lane *lanes = xcalloc(t->n_threads + 1, sizeof *lanes);
    struct lane **heap = xcalloc(t->n_threads + 1, sizeof *heap);
    size_t n = 0;
    for (size_t i = 0; i < t->n_threads; i++) {
        if (!thread_wanted(d, t->threads[i].tid))
            continue;
        struct lane *l = &lanes[i];
        l->order = i;
        thread_start(d, &l->c, &l->s, t, i, &warned_depth);
        if ((l->e = trace_cursor_next(&l->c)))
            heap[n++] = l;
        else
            thread_finish(d, &l->c, &l->s);
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(heap, n, i);
    unsigned count = 0;
    while (n) {
        struct lane *l = heap[0];
        feed(tf, &l->s, l->e);
        if (!(l->e = trace_cursor_next(&l->c))) {
            thread_finish(d, &l->c, &l->s);
            heap[0] = heap[--n];
        }
        sift_down(heap, n, 0);
        if (++count == PROGRESS_EVENTS) {
            progress(d, count);
            count = 0;
        }
    }
    progress(d, count);
    free(heap);
    free(lanes);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void drive_trace(struct drive *d, struct trace_file *t, const struct program_set *ps,
                 struct address_space *as)
{
    struct trace_funcs tf;
    trace_funcs_init(&tf, d->ft, as, ps, t);
    struct view_trace vt = { t, ps, as, &tf };
    struct view *v = d->view;
    v->trace = &vt;
    d->trace_name = base_name(t->path);
    d->done = 0;
    d->total = t->n_calls;
    if (d->progress)
        clock_gettime(CLOCK_MONOTONIC, &d->last_shown);
    if (v->ops->trace_begin)
        v->ops->trace_begin(v);
    if (v->ops->merged)
        interleaved(d, &tf, t);
    else
        one_by_one(d, &tf, t);
    if (v->ops->trace_end)
        v->ops->trace_end(v);
    v->trace = NULL;
    trace_funcs_free(&tf);
}
