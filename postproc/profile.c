/*
 * --profile (a flat profile, like gprof's) and --graph (caller ->
 * callee edges, like gprof's call graph), from the frames the call
 * stacks push and pop (callstack.c).  Every trace and thread adds up.
 *
 * Per function:
 *   calls   its traced calls (a synthetic or inherited frame, callstack.c, is none)
 *   total   inclusive time: its frames' start to end; a frame with a
 *           frame of the same function below it (recursion) is in that
 *           one's time already and is not added again
 *   self    its frames' time minus their children's
 *   avg, min, max   of each call's inclusive time (recursive calls too)
 *   p50, p90, p99   of the same durations: nearest rank, from a
 *           log-linear histogram within 1% (histogram.h), allocated at
 *           the function's first call
 *   self%   self / the threads' time (each thread's from its first
 *           traced call to its end: the sum of every function's self)
 * Per edge (the function of the nearest shown frame below -> the
 * function): calls, total (of the callee's frames not inside another
 * frame of the callee: so a function's callers' totals add up to its
 * own) and self (the callee's own time in those calls).
 *
 * Text: durations with units, the percentiles after max (the name stays
 * last: it has spaces); TSV: ns.
 *   profile TSV  calls total_ns self_ns avg_ns min_ns max_ns self_pct function object
 *                [srcline] [estimate] p50_ns p90_ns p99_ns  (avg, min, max and the
 *                percentiles empty for a function without calls; the percentiles
 *                last, so the columns of before keep their places)
 *   graph TSV    caller caller_obj callee callee_obj calls total_ns self_ns [estimate]
 *                (caller "(root)", caller_obj empty: a thread's first frame)
 * function, caller, callee: the name without the object (demangled);
 * *object, *_obj: the file as the target named it ("?" if unknown).
 *
 * Estimates (estimates.h): where a trace read has no per-call clock or
 * no return records, the text says so under its title (per process
 * where the traces differ) and puts '~' before each duration of a row
 * (function or edge) that frames of such a trace went into, and before
 * the thread time; the TSV gets a column, estimate (1: the row's times
 * include estimates, 0: measured), only then, so that measured traces
 * give the columns they always did.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/grow.h"
#include "postproc/histogram.h"
#include "postproc/report.h"
#include "postproc/view.h"
#include "lib/error.h"

struct fstat {
    uint64_t calls, total, self;
    uint64_t sum;               /* every call's inclusive time: avg */
    uint64_t min, max;
    struct histogram *durations;        /* every call's inclusive time (NULL: no call) */
    uint32_t active;            /* its shown frames on the stack now */
    uint8_t estimated;          /* frames of a trace with estimates went into it */
};

struct edge {
    uint32_t caller, callee;    /* caller FUNC_NONE: the root */
    uint64_t calls, total, self;
    uint8_t estimated;          /* (as fstat's) */
};

struct profile {
    struct view v;
    int tsv, srcline, graph;
    enum profile_sort sort;
    const char *graph_func;
    struct fstat *fs;           /* by function id */
    size_t n_fs;
    struct edge *edges;
    size_t n_edges, cap_edges;
    struct u64map edge_index;   /* (caller, callee) -> index in edges */
    uint64_t run_ns;            /* every thread's time */
    uint64_t n_threads, n_traces;
    struct estimates est;       /* what the traces read estimate */
};

static void grow_stats(struct profile *p, uint32_t fid)
{
    size_t n = p->n_fs ? p->n_fs : 1024;
    while (n <= fid)
        n *= 2;
    p->fs = xrealloc(p->fs, n * sizeof *p->fs);
    memset(p->fs + p->n_fs, 0, (n - p->n_fs) * sizeof *p->fs);
    for (size_t i = p->n_fs; i < n; i++)
        p->fs[i].min = UINT64_MAX;
    p->n_fs = n;
}

static inline struct fstat *stat_of(struct profile *p, uint32_t fid)
{
    if (fid >= p->n_fs)
        grow_stats(p, fid);
    return &p->fs[fid];
}

/* --- edges --- */

static struct edge *edge_of(struct profile *p, uint32_t caller, uint32_t callee)
{
    uint64_t key = u64map_pair(caller, callee);
    uint32_t i = u64map_get(&p->edge_index, key);
    if (i != U64MAP_NONE)
        return &p->edges[i];
    p->edges = grow_for_one(p->edges, p->n_edges, &p->cap_edges, sizeof *p->edges);
    p->edges[p->n_edges] = (struct edge){ caller, callee, 0, 0, 0, 0 };
    u64map_put(&p->edge_index, key, (uint32_t)p->n_edges);
    return &p->edges[p->n_edges++];
}

/* --- the frames --- */

static void profile_push(struct view *v, struct callstack *s, struct frame *f)
{
    (void)s;
    if (f->shown)
        stat_of((struct profile *)v, f->fid)->active++;
}

static void profile_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    struct profile *p = (struct profile *)v;
    uint64_t dur = end_ns - f->start_ns;
    if (f == s->f)
        p->run_ns += dur;               /* the thread's root: its time */
    if (!f->shown)
        return;
    uint64_t self = dur - f->child_ns;
    struct fstat *st = stat_of(p, f->fid);
    uint8_t est = v->trace->estimates != 0;
    st->self += self;
    st->estimated |= est;
    if (frame_is_call(f)) {
        st->calls++;
        st->sum += dur;
        if (dur < st->min)
            st->min = dur;
        if (dur > st->max)
            st->max = dur;
        if (!st->durations)
            st->durations = histogram_new();
        histogram_add(st->durations, dur);
    }
    int outermost = --st->active == 0;
    if (outermost)
        st->total += dur;
    if (p->graph) {
        uint32_t caller = f->shown_parent >= 0 ? s->f[f->shown_parent].fid : FUNC_NONE;
        struct edge *e = edge_of(p, caller, f->fid);
        e->calls += frame_is_call(f);
        e->total += outermost ? dur : 0;
        e->self += self;
        e->estimated |= est;
    }
}

static void profile_thread_begin(struct view *v, struct callstack *s)
{
    (void)s;
    ((struct profile *)v)->n_threads++;
}

static void profile_trace_begin(struct view *v)
{
    struct profile *p = (struct profile *)v;
    p->n_traces++;
    estimates_add(&p->est, &v->trace->t->header);
}

/* --- output --- */

/* For qsort: the functions in the order --sort asks for. */
static struct profile *sorting;

static int fid_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct fstat *fx = &sorting->fs[x], *fy = &sorting->fs[y];
    uint64_t kx, ky;
    switch (sorting->sort) {
    case SORT_TOTAL: kx = fx->total, ky = fy->total; break;
    case SORT_CALLS: kx = fx->calls, ky = fy->calls; break;
    default: kx = fx->self, ky = fy->self; break;
    }
    if (kx != ky)
        return kx > ky ? -1 : 1;
    if (fx->total != fy->total)
        return fx->total > fy->total ? -1 : 1;
    return strcmp(sorting->v.ft->v[x].name, sorting->v.ft->v[y].name);
}

/* The functions seen, sorted. */
static uint32_t *sorted_functions(struct profile *p, size_t *n)
{
    uint32_t *ids = xmalloc((p->v.ft->n + 1) * sizeof *ids);
    *n = 0;
    for (size_t i = 0; i < p->v.ft->n && i < p->n_fs; i++)
        if (p->fs[i].calls || p->fs[i].total || p->fs[i].self)
            ids[(*n)++] = (uint32_t)i;
    sorting = p;
    if (*n)
        qsort(ids, *n, sizeof *ids, fid_cmp);
    return ids;
}

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static uint64_t all_calls(const struct profile *p)
{
    uint64_t n = 0;
    for (size_t i = 0; i < p->n_fs; i++)
        n += p->fs[i].calls;
    return n;
}

static void print_title(struct profile *p, const char *what)
{
    uint64_t calls = all_calls(p);
    fprintf(p->v.out, "# %s: %" PRIu64 " process%s, %" PRIu64 " thread%s, %" PRIu64 " call%s; ",
            what, p->n_traces, p->n_traces == 1 ? "" : "es", p->n_threads,
            p->n_threads == 1 ? "" : "s", calls, calls == 1 ? "" : "s");
    print_duration(p->v.out, p->run_ns, 0, p->est.any != 0);
    fputs(" of thread time\n", p->v.out);
    estimates_print(p->v.out, &p->est);
}

#define TIME_W 12

/* The percentiles shown, in parts per 10000 (histogram_percentile). */
static const unsigned percentiles[] = { 5000, 9000, 9900 };
#define N_PERCENTILES (sizeof percentiles / sizeof *percentiles)

static void print_profile_text(struct profile *p, const uint32_t *ids, size_t n)
{
    FILE *out = p->v.out;
    print_title(p, "profile");
    fputs("# avg, min, max, p50, p90, p99: of each call's inclusive time (recursive calls too);\n"
          "# p50/p90/p99 by nearest rank, " HISTOGRAM_BOUND_TEXT "\n", out);
    fprintf(out, "#%6s %*s %*s %10s %*s %*s %*s %*s %*s %*s  %s\n", "self%", TIME_W, "self",
            TIME_W, "total", "calls", TIME_W, "avg", TIME_W, "min", TIME_W, "max", TIME_W, "p50",
            TIME_W, "p90", TIME_W, "p99", "function");
    for (size_t i = 0; i < n; i++) {
        const struct fstat *st = &p->fs[ids[i]];
        const struct func *f = &p->v.ft->v[ids[i]];
        int est = st->estimated;
        fprintf(out, "%7.2f ", percent(st->self, p->run_ns));
        print_duration(out, st->self, TIME_W, est);
        fputc(' ', out);
        print_duration(out, st->total, TIME_W, est);
        fprintf(out, " %10" PRIu64 " ", st->calls);
        if (st->calls) {
            print_duration(out, st->sum / st->calls, TIME_W, est);
            fputc(' ', out);
            print_duration(out, st->min, TIME_W, est);
            fputc(' ', out);
            print_duration(out, st->max, TIME_W, est);
            for (size_t k = 0; k < N_PERCENTILES; k++) {
                fputc(' ', out);
                print_duration(out, histogram_percentile(st->durations, percentiles[k]), TIME_W,
                               est);
            }
        } else {
            for (size_t k = 0; k < 3 + N_PERCENTILES; k++)
                fprintf(out, "%s%*s", k ? " " : "", TIME_W, "-");
        }
        fprintf(out, "  %s", f->name);
        if (p->srcline && f->srcline)
            fprintf(out, " [%s]", f->srcline);
        fputc('\n', out);
    }
}

static void print_profile_tsv(struct profile *p, const uint32_t *ids, size_t n)
{
    FILE *out = p->v.out;
    fprintf(out, "calls\ttotal_ns\tself_ns\tavg_ns\tmin_ns\tmax_ns\tself_pct\tfunction\t"
                 "object%s%s\tp50_ns\tp90_ns\tp99_ns\n", p->srcline ? "\tsrcline" : "",
            p->est.any ? "\testimate" : "");
    for (size_t i = 0; i < n; i++) {
        const struct fstat *st = &p->fs[ids[i]];
        const struct func *f = &p->v.ft->v[ids[i]];
        fprintf(out, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t", st->calls, st->total, st->self);
        if (st->calls)
            fprintf(out, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t", st->sum / st->calls, st->min,
                    st->max);
        else
            fputs("\t\t\t", out);
        fprintf(out, "%.2f\t%s\t", percent(st->self, p->run_ns), f->bare);
        put_clean(out, f->obj);
        if (p->srcline)
            fprintf(out, "\t%s", f->srcline ? f->srcline : "");
        if (p->est.any)
            fprintf(out, "\t%d", st->estimated);
        for (size_t k = 0; k < N_PERCENTILES; k++)
            if (st->calls)
                fprintf(out, "\t%" PRIu64, histogram_percentile(st->durations, percentiles[k]));
            else
                fputc('\t', out);
        fputc('\n', out);
    }
}

/* --- the call graph --- */

/* Edge indices sorted by one end, then by total time, most first. */
static int by_callee;

static int edge_cmp(const void *a, const void *b)
{
    const struct edge *x = &sorting->edges[*(const uint32_t *)a];
    const struct edge *y = &sorting->edges[*(const uint32_t *)b];
    uint32_t kx = by_callee ? x->callee : x->caller, ky = by_callee ? y->callee : y->caller;
    if (kx != ky)
        return kx < ky ? -1 : 1;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->calls > y->calls ? -1 : x->calls < y->calls;
}

static uint32_t *sorted_edges(struct profile *p, int callee_first)
{
    uint32_t *v = xmalloc((p->n_edges + 1) * sizeof *v);
    for (size_t i = 0; i < p->n_edges; i++)
        v[i] = (uint32_t)i;
    sorting = p;
    by_callee = callee_first;
    if (p->n_edges)
        qsort(v, p->n_edges, sizeof *v, edge_cmp);
    return v;
}

/* The first of the sorted edges whose end (callee or caller) is fid. */
static size_t first_edge(const struct profile *p, const uint32_t *v, int callee_end, uint32_t fid)
{
    size_t lo = 0, hi = p->n_edges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct edge *e = &p->edges[v[mid]];
        if ((callee_end ? e->callee : e->caller) < fid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int wanted(const struct profile *p, uint32_t fid)
{
    return !p->graph_func ||
           (fid != FUNC_NONE && func_matches(&p->v.ft->v[fid], p->graph_func));
}

static void graph_line(struct profile *p, const struct edge *e, uint32_t other,
                       uint64_t of_calls, const uint32_t *index)
{
    FILE *out = p->v.out;
    char calls[48];
    fprintf(out, "%14s ", "");
    print_duration(out, e->total, TIME_W, e->estimated);
    fputc(' ', out);
    print_duration(out, e->self, TIME_W, e->estimated);
    snprintf(calls, sizeof calls, "%" PRIu64 "/%" PRIu64, e->calls, of_calls);
    fprintf(out, " %15s      ", calls);
    if (other == FUNC_NONE)
        fputs("(root)\n", out);
    else
        fprintf(out, "%s [%" PRIu32 "]\n", p->v.ft->v[other].name, index[other]);
}

static void print_graph_text(struct profile *p, const uint32_t *ids, size_t n)
{
    FILE *out = p->v.out;
    uint32_t *index = xcalloc(p->v.ft->n + 1, sizeof *index);
    for (size_t i = 0; i < n; i++)
        index[ids[i]] = (uint32_t)i + 1;
    uint32_t *in = sorted_edges(p, 1), *outv = sorted_edges(p, 0);
    print_title(p, "call graph");
    fputs("# per function: its callers, then itself [index], then its callees; total: inclusive\n"
          "# time (a recursion counted once), self: its own; calls: along the edge / all the\n"
          "# function's (the callee's on a callee line)\n", out);
    fprintf(out, "%-7s %6s %*s %*s %15s  %s\n", "index", "total%", TIME_W, "total", TIME_W,
            "self", "calls", "function");
    for (size_t i = 0; i < n; i++) {
        uint32_t fid = ids[i];
        if (!wanted(p, fid))
            continue;
        const struct fstat *st = &p->fs[fid];
        fputs("---------------------------------------------------------------------------\n",
              out);
        for (size_t k = first_edge(p, in, 1, fid);
             k < p->n_edges && p->edges[in[k]].callee == fid; k++)
            graph_line(p, &p->edges[in[k]], p->edges[in[k]].caller, st->calls, index);
        char idx[24];
        snprintf(idx, sizeof idx, "[%" PRIu32 "]", index[fid]);
        fprintf(out, "%-7s %5.1f%% ", idx, percent(st->total, p->run_ns));
        print_duration(out, st->total, TIME_W, st->estimated);
        fputc(' ', out);
        print_duration(out, st->self, TIME_W, st->estimated);
        fprintf(out, " %15" PRIu64 "  %s [%" PRIu32 "]", st->calls, p->v.ft->v[fid].name,
                index[fid]);
        if (p->srcline && p->v.ft->v[fid].srcline)
            fprintf(out, " %s", p->v.ft->v[fid].srcline);
        fputc('\n', out);
        for (size_t k = first_edge(p, outv, 0, fid);
             k < p->n_edges && p->edges[outv[k]].caller == fid; k++) {
            const struct edge *e = &p->edges[outv[k]];
            graph_line(p, e, e->callee, p->fs[e->callee].calls, index);
        }
    }
    free(in);
    free(outv);
    free(index);
}

static void print_graph_tsv(struct profile *p)
{
    FILE *out = p->v.out;
    uint32_t *v = sorted_edges(p, 0);
    fprintf(out, "caller\tcaller_obj\tcallee\tcallee_obj\tcalls\ttotal_ns\tself_ns%s\n",
            p->est.any ? "\testimate" : "");
    for (size_t i = 0; i < p->n_edges; i++) {
        const struct edge *e = &p->edges[v[i]];
        if (!wanted(p, e->caller) && !wanted(p, e->callee))
            continue;
        const struct func *callee = &p->v.ft->v[e->callee];
        if (e->caller == FUNC_NONE) {
            fputs("(root)\t", out);
        } else {
            fprintf(out, "%s\t", p->v.ft->v[e->caller].bare);
            put_clean(out, p->v.ft->v[e->caller].obj);
        }
        fprintf(out, "\t%s\t", callee->bare);
        put_clean(out, callee->obj);
        fprintf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, e->calls, e->total, e->self);
        if (p->est.any)
            fprintf(out, "\t%d", e->estimated);
        fputc('\n', out);
    }
    free(v);
}

static void profile_end(struct view *v)
{
    struct profile *p = (struct profile *)v;
    size_t n;
    uint32_t *ids = sorted_functions(p, &n);
    if (p->graph && p->tsv)
        print_graph_tsv(p);
    else if (p->graph)
        print_graph_text(p, ids, n);
    else if (p->tsv)
        print_profile_tsv(p, ids, n);
    else
        print_profile_text(p, ids, n);
    free(ids);
    for (size_t i = 0; i < p->n_fs; i++)
        histogram_free(p->fs[i].durations);
    free(p->fs);
    free(p->edges);
    u64map_free(&p->edge_index);
    estimates_free(&p->est);
    free(p);
}

static struct view *new_profile(FILE *out, struct func_table *ft, const struct view_options *o,
                                int graph)
{
    static const struct view_ops ops = {
        .trace_begin = profile_trace_begin, .thread_begin = profile_thread_begin,
        .push = profile_push, .pop = profile_pop, .end = profile_end,
    };
    struct profile *p = xcalloc(1, sizeof *p);
    view_init(&p->v, &ops, out, ft);
    u64map_init(&p->edge_index);
    p->tsv = o->tsv;
    p->srcline = o->srcline;
    p->sort = o->sort;
    p->graph = graph;
    p->graph_func = o->graph_func;
    return &p->v;
}

struct view *profile_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    return new_profile(out, ft, o, 0);
}

struct view *graph_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    return new_profile(out, ft, o, 1);
}
