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
 * is earliest (ties: in thread order); several traces (processes) go
 * into one heap, each trace's times moved by its start after the
 * first trace's (CLOCK_MONOTONIC: one clock for every process).
 *
 * A thread's frames still open at its end end at its last time: its
 * last event, or its last time mark if later (the program's exit is
 * one).  A fork child's thread that forked starts with the frames its
 * parent had then (view_trace.fork, forks.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/drive.h"
#include "postproc/views/report.h"
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
    for (size_t i = 0; i < d->n_said; i++)
        free(d->said[i]);
    free(d->said);
    d->said = NULL;
    d->n_said = 0;
    if (d->shown)
        fputs("\r\033[K", stderr);      /* the line erased */
    d->shown = 0;
}

int id_wanted(const uint32_t *ids, size_t n, unsigned char *seen, uint32_t id)
{
    if (!n)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id) {
            seen[i] = 1;
            return 1;
        }
    return 0;
}

static int thread_wanted(struct drive *d, uint32_t tid)
{
    return id_wanted(d->tids, d->n_tids, d->tid_seen, tid);
}


/* The thread's last time: its last event's, or its last time mark's. */
static uint64_t thread_end_ns(const struct trace_cursor *c, const struct callstack *s)
{
    uint64_t mark = trace_cursor_mark_ns(c);
    return mark > s->last_ns ? mark : s->last_ns;
}

/* A ring's thread whose history was overwritten starts inside the
 * calls its CHUNK record lists: the function holding each return
 * address, the outermost as a caller (synthetic), each next one the
 * callee of the call before, and the innermost call's callee the
 * function the thread's first call is made from ("(unknown)" if it
 * starts with a return). */
static void ring_frames(const struct view_trace *vt, struct callstack *s,
                        const struct trace_thread *th)
{
    size_t n = th->n_open_ra;
    uint32_t *fids = xcalloc(n + 1, sizeof *fids);
    uint8_t *synthetic = xcalloc(n + 1, 1);
    for (size_t k = 0; k < n; k++)
        fids[k] = th->open_ra[k] ? trace_funcs_at_runtime(vt->tf, th->open_ra[k])
                                 : trace_funcs_unknown(vt->tf);
    synthetic[0] = 1;
    uint32_t object, site;
    fids[n] = trace_site_of(vt->t, th->first_site, &object, &site)
                  ? vt->tf->caller[object][site] : trace_funcs_unknown(vt->tf);
    callstack_inherit(s, fids, synthetic, n + 1, th->start_ns, 0);
    free(fids);
    free(synthetic);
}

static void thread_start(struct drive *d, const struct view_trace *vt, struct trace_cursor *c,
                         struct callstack *s, size_t i, int *warned_depth)
{
    struct trace_file *t = (struct trace_file *)vt->t;
    trace_cursor_open(c, t, i);
    callstack_init(s, d->view, &d->flt, d->ft, t, &t->threads[i], warned_depth);
    if (d->view->ops->thread_begin)
        d->view->ops->thread_begin(d->view, s);
    const struct fork_origin *o = vt->fork;
    if (o && o->known && t->threads[i].tid == t->header.pid)   /* (the thread that forked) */
        callstack_inherit(s, o->fids, o->synthetic, o->n, 0, 1);
    else if (t->threads[i].n_open_ra)
        ring_frames(vt, s, &t->threads[i]);
}

static void thread_finish(struct drive *d, struct trace_cursor *c, struct callstack *s,
                          const struct trace_file *t, size_t *next_state)
{
    callstack_cross_states(s, t, next_state, thread_end_ns(c, s));   /* (off before the end) */
    callstack_end(s, thread_end_ns(c, s));
    if (d->view->ops->thread_end)
        d->view->ops->thread_end(d->view, s);
    callstack_free(s);
    trace_cursor_close(c);
}

static void one_by_one(struct drive *d, const struct view_trace *vt)
{
    struct trace_file *t = (struct trace_file *)vt->t;
    struct trace_funcs *tf = vt->tf;
    int warned_depth = 0;
    for (size_t i = 0; i < t->n_threads; i++) {
        if (!thread_wanted(d, t->threads[i].tid))
            continue;
        struct trace_cursor c;
        struct callstack s;
        thread_start(d, vt, &c, &s, i, &warned_depth);
        const struct trace_event *e;
        unsigned n = 0;
        size_t next_state = 0;
        while ((e = trace_cursor_next(&c))) {
            if (t->n_states)
                callstack_cross_states(&s, t, &next_state, e->time_ns);
            callstack_feed(&s, tf, e);
            if (++n == PROGRESS_EVENTS) {
                progress(d, n);
                n = 0;
            }
        }
        progress(d, n);
        thread_finish(d, &c, &s, t, &next_state);
    }
}

/* A dedup or count trace: its pairs, by time, as calls (through a
 * register as far as the views can tell: call_target reads the DB). */
static void pairs(struct drive *d, struct trace_file *t, const struct program_set *ps)
{
    struct view *v = d->view;
    for (size_t i = 0; i < t->n_pairs; i++) {
        const struct trace_pair *p = &t->pairs[i];
        if (!t->objects[p->object].usable || p->site >= ps->v[p->object].db.header.n_sites)
            continue;                   /* (said when its object was loaded) */
        struct trace_event e = { .kind = TRACE_CALL, .has_target = 1, .object = p->object,
                                 .site = p->site, .target = p->target, .time_ns = p->ns };
        if (trace_funcs_is_jump(d->view->trace->tf, &e) && !trace_funcs_jump_lands(d->view->trace->tf, &e))
            continue;                   /* a jump inside its function: no call */
        v->ops->pair(v, &e, p->count);
    }
    progress(d, t->n_pairs);
}

/* --- interleaved by time --- */

struct lane {
    struct trace_cursor c;
    struct callstack s;
    const struct trace_event *e;    /* its next event */
    const struct view_trace *vt;    /* its trace */
    size_t order;                   /* its thread's place among all */
    size_t next_state;              /* its trace's next recording change */
};

static int before(const struct lane *a, const struct lane *b)
{
    uint64_t ta = a->e->time_ns + a->vt->offset_ns, tb = b->e->time_ns + b->vt->offset_ns;
    return ta != tb ? ta < tb : a->order < b->order;
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

/* The threads of the n traces vt[], in one time order. */
static void interleaved(struct drive *d, const struct view_trace *vt, size_t n_traces)
{
    int warned_depth = 0;
    size_t n_lanes = 0;
    for (size_t k = 0; k < n_traces; k++)
        n_lanes += vt[k].t->n_threads;
    struct lane *lanes = xcalloc(n_lanes + 1, sizeof *lanes);
    struct lane **heap = xcalloc(n_lanes + 1, sizeof *heap);
    size_t n = 0, order = 0;
    for (size_t k = 0; k < n_traces; k++) {
        struct trace_file *t = (struct trace_file *)vt[k].t;
        d->view->trace = &vt[k];
        for (size_t i = 0; i < t->n_threads; i++, order++) {
            if (!thread_wanted(d, t->threads[i].tid))
                continue;
            struct lane *l = &lanes[order];
            l->order = order;
            l->vt = &vt[k];
            thread_start(d, &vt[k], &l->c, &l->s, i, &warned_depth);
            if ((l->e = trace_cursor_next(&l->c)))
                heap[n++] = l;
            else
                thread_finish(d, &l->c, &l->s, t, &l->next_state);
        }
    }
    for (size_t i = n / 2; i-- > 0;)
        sift_down(heap, n, i);
    unsigned count = 0;
    while (n) {
        struct lane *l = heap[0];
        d->view->trace = l->vt;
        if (l->vt->t->n_states)
            callstack_cross_states(&l->s, l->vt->t, &l->next_state, l->e->time_ns);
        callstack_feed(&l->s, l->vt->tf, l->e);
        if (!(l->e = trace_cursor_next(&l->c))) {
            thread_finish(d, &l->c, &l->s, l->vt->t, &l->next_state);
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

/* Every view says which objects were linked with callees left out
 * (LITIFUT_EXCLUDE_CALLEE): their calls are not in the trace.  Once per
 * object file of the run. */
static void say_callees_excluded(struct drive *d, const struct program_set *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        if (!ps->v[i].ok)
            continue;
        char *rules = site_rules_of(&ps->v[i].obj->img);
        const char *callee = rules ? strstr(rules, "LITIFUT_EXCLUDE_CALLEE=") : NULL;
        const char *path = ps->v[i].obj->img.path;
        size_t k = 0;
        while (callee && k < d->n_said && strcmp(d->said[k], path) != 0)
            k++;
        if (callee && k == d->n_said) {
            d->said = xrealloc(d->said, (d->n_said + 1) * sizeof *d->said);
            d->said[d->n_said++] = xstrdup(path);
            warning("%s: linked with %.*s: calls of these functions are not traced", path,
                    (int)strcspn(callee, " "), callee);
        }
        free(rules);
    }
}

/* The rules of a SKIPPED record's text ("rule count" lines), comma-separated. */
static char *skip_rules(const char *text)
{
    char *out = xcalloc(strlen(text) + 1, 1), *o = out;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n'), *end = nl ? nl : l + strlen(l);
        const char *sp = end;
        while (sp > l && sp[-1] != ' ')
            sp--;
        if (sp > l + 1) {
            if (o > out)
                *o++ = ',';
            memcpy(o, l, (size_t)(sp - 1 - l));
            o += sp - 1 - l;
        }
        l = nl ? nl + 1 : end;
    }
    *o = 0;
    return out;
}

static int said_before(struct drive *d, const char *key)
{
    for (size_t k = 0; k < d->n_said; k++)
        if (strcmp(d->said[k], key) == 0)
            return 1;
    d->said = xrealloc(d->said, (d->n_said + 1) * sizeof *d->said);
    d->said[d->n_said++] = xstrdup(key);
    return 0;
}

/* LITIFUT_EXCLUDE_CALLEE at run time: every view says which calls the
 * trace lacks (once per rule set), and each object that did not apply it. */
static void say_callees_skipped(struct drive *d, const struct trace_file *t)
{
    uint64_t sites = 0;
    size_t objects = 0, first = t->n_skips;
    for (size_t i = 0; i < t->n_skips; i++)
        if (t->skips[i].status == LITIFUT_SKIP_DONE) {
            sites += t->skips[i].sites;
            objects += t->skips[i].sites != 0;
            if (first == t->n_skips)
                first = i;
        }
    for (size_t i = 0; i < t->n_skips; i++) {
        const struct trace_skip *k = &t->skips[i];
        char *rules = skip_rules(k->text);
        const char *path = "(an object)";
        for (size_t j = 0; j < t->n_objects; j++)
            if (t->objects[j].base == k->base && t->objects[j].path[0])
                path = t->objects[j].path;
        char *key = xasprintf("skip %s %s %s", rules, k->status ? path : "", k->status ? "" : "done");
        if (!said_before(d, key)) {
            if (k->status)
                warning("%s: LITIFUT_EXCLUDE_CALLEE=%s was not applied in %s: %s; its calls of "
                        "these functions are traced", t->path, rules, path,
                        trace_skip_why(k->status));
            else if (i == first)
                warning("%s: LITIFUT_EXCLUDE_CALLEE=%s at run time: calls of these functions are "
                        "not traced (%" PRIu64 " call sites put back in %zu object%s)",
                        t->path, rules, sites, objects, objects == 1 ? "" : "s");
        }
        free(key);
        free(rules);
    }
}

/* Every view says when a trace stopped before its process did. */
static void say_stopped(const struct trace_file *t)
{
    char *text = t->stop_why == LITIFUT_STOP_SNAPSHOT ? NULL : trace_stop_text(t);
    if (text)
        warning("%s: %s", t->path, text);
    free(text);
    text = trace_history_text(t);
    if (text)
        warning("%s: %s", t->path, text);
    free(text);
}

static void drive_begin(struct drive *d, const char *name, uint64_t total)
{
    d->trace_name = name;
    d->done = 0;
    d->total = total;
    if (d->progress)
        clock_gettime(CLOCK_MONOTONIC, &d->last_shown);
}

void drive_trace(struct drive *d, struct trace_file *t, const struct program_set *ps,
                 struct address_space *as, const struct fork_origin *fork)
{
    struct trace_funcs tf;
    trace_funcs_init(&tf, d->ft, as, ps, t);
    struct view_trace vt = { t, ps, as, &tf, 0, fork, trace_estimates(&t->header) };
    struct view *v = d->view;
    v->trace = &vt;
    drive_begin(d, base_name(t->path), t->n_calls);
    say_stopped(t);
    say_callees_excluded(d, ps);
    say_callees_skipped(d, t);
    if (v->ops->trace_begin)
        v->ops->trace_begin(v);
    if (t->header.mode != LITIFUT_MODE_FULL)
        pairs(d, t, ps);
    else if (v->ops->merged)
        interleaved(d, &vt, 1);
    else
        one_by_one(d, &vt);
    v->trace = &vt;
    if (v->ops->trace_end)
        v->ops->trace_end(v);
    v->trace = NULL;
    trace_funcs_free(&tf);
}

void drive_traces(struct drive *d, const struct drive_input *in, size_t n)
{
    struct trace_funcs *tf = xcalloc(n + 1, sizeof *tf);
    struct view_trace *vt = xcalloc(n + 1, sizeof *vt);
    struct view *v = d->view;
    uint64_t first = UINT64_MAX, total = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].t->header.start_ns < first)
            first = in[i].t->header.start_ns;
        total += in[i].t->n_calls;
    }
    for (size_t i = 0; i < n; i++) {
        say_stopped(in[i].t);
        say_callees_excluded(d, in[i].ps);
        say_callees_skipped(d, in[i].t);
        trace_funcs_init(&tf[i], d->ft, in[i].as, in[i].ps, in[i].t);
        vt[i] = (struct view_trace){ in[i].t, in[i].ps, in[i].as, &tf[i],
                                     in[i].t->header.start_ns - first, in[i].fork,
                                     trace_estimates(&in[i].t->header) };
    }
    char name[64];
    snprintf(name, sizeof name, "%zu traces", n);
    drive_begin(d, name, total);
    for (size_t i = 0; i < n && v->ops->trace_begin; i++) {
        v->trace = &vt[i];
        v->ops->trace_begin(v);
    }
    for (size_t i = 0; i < n; i++)
        if (in[i].t->header.mode != LITIFUT_MODE_FULL) {
            v->trace = &vt[i];
            pairs(d, in[i].t, in[i].ps);    /* (no threads: not in the interleaving) */
        }
    interleaved(d, vt, n);
    for (size_t i = 0; i < n && v->ops->trace_end; i++) {
        v->trace = &vt[i];
        v->ops->trace_end(v);
    }
    v->trace = NULL;
    for (size_t i = 0; i < n; i++)
        trace_funcs_free(&tf[i]);
    free(tf);
    free(vt);
}
