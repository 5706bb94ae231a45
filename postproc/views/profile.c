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
 *                [retvals]
 *                (caller "(root)", caller_obj empty: a thread's first frame)
 * With LITIFUT_ARGS' return values, each edge's distinct values, most
 * frequent first, with their calls ("-1 (3); 0 (1)"; the first
 * EDGE_VALUES, then "others (N)"): after a --graph line, in the
 * retvals column of its TSV.
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
#include "postproc/util/grow.h"
#include "postproc/views/histogram.h"
#include "postproc/views/report.h"
#include "postproc/util/strmap.h"
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

#define EDGE_VALUES 8
struct edge {
    uint32_t caller, callee;    /* caller FUNC_NONE: the root */
    uint64_t calls, total, self;
    uint8_t estimated;          /* (as fstat's) */
    struct edge_values *values; /* the return values LITIFUT_ARGS recorded (NULL: none) */
};
struct edge_value {
    char *text;
    uint64_t calls;
};
struct edge_values {
    uint32_t n;
    struct edge_value v[EDGE_VALUES];
    uint64_t others;            /* calls with a value not among v's */
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
    struct args_buf args;       /* a return value as text */
    uint64_t run_ns;            /* every thread's time */
    uint64_t shown_ns;          /* ... of it in the frames the filters show (the outermost
                                   shown frames' time) */
    int filtered;               /* a frame filter (--function, --exclude, --depth,
                                   --time-range) was given */
    uint64_t n_threads, n_traces;
    struct estimates est;       /* what the traces read estimate */
    int keep;                   /* --diff's base: its end prints nothing */
    int json;                   /* the HTML report's: its end writes JSON (html.c) */
    struct profile *base;       /* --diff: the profile this one is compared with */
    const char *base_name;
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
    p->edges[p->n_edges] = (struct edge){ caller, callee, 0, 0, 0, 0, NULL };
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

/* The frame's return value (LITIFUT_ARGS) counted on its edge. */
static void add_value(struct profile *p, struct edge *e, const struct frame *f)
{
    const char *text = args_buf_text(&p->args, &p->v.trace->t->header, f->ret, f->ret_n, NULL, 0);
    struct edge_values *ev = e->values;
    if (!ev)
        ev = e->values = xcalloc(1, sizeof *ev);
    for (uint32_t i = 0; i < ev->n; i++)
        if (!strcmp(ev->v[i].text, text)) {
            ev->v[i].calls++;
            return;
        }
    if (ev->n == EDGE_VALUES) {
        ev->others++;
        return;
    }
    ev->v[ev->n].text = xstrdup(text);
    ev->v[ev->n++].calls = 1;
}

static int by_value_calls(const void *a, const void *b)
{
    const struct edge_value *x = a, *y = b;
    return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : strcmp(x->text, y->text);
}

/* "-1 (3); 0 (1)": an edge's return values, most frequent first (to free). */
static char *values_text(struct edge_values *ev)
{
    qsort(ev->v, ev->n, sizeof ev->v[0], by_value_calls);
    size_t len = 32;
    for (uint32_t i = 0; i < ev->n; i++)
        len += strlen(ev->v[i].text) + 32;
    char *t = xmalloc(len);
    size_t k = 0;
    for (uint32_t i = 0; i < ev->n; i++)
        k += (size_t)snprintf(t + k, len - k, "%s%s (%" PRIu64 ")", i ? "; " : "", ev->v[i].text,
                              ev->v[i].calls);
    if (ev->others)
        snprintf(t + k, len - k, "; others (%" PRIu64 ")", ev->others);
    return t;
}

static void put_values(FILE *out, struct edge_values *ev)
{
    char *t = values_text(ev);
    fputs(t, out);
    free(t);
}

static void profile_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    struct profile *p = (struct profile *)v;
    uint64_t dur = end_ns - f->start_ns;
    if (f == s->f)
        p->run_ns += dur;               /* the thread's root: its time */
    if (!f->shown)
        return;
    if (f->shown_parent < 0)
        p->shown_ns += dur;
    const struct stack_filters *flt = s->flt;
    p->filtered |= flt && (flt->by_function || flt->max_depth != UINT32_MAX || flt->from_ns ||
                           flt->to_ns != UINT64_MAX);
    uint64_t self = dur - f->child_ns;
    struct fstat *st = stat_of(p, f->fid);
    uint8_t est = v->trace->estimates != 0;
    st->self += self;
    st->estimated |= est;
    if (frame_counts_as_call(f)) {
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
    if (p->graph || p->json) {
        uint32_t caller = f->shown_parent >= 0 ? s->f[f->shown_parent].fid : FUNC_NONE;
        struct edge *e = edge_of(p, caller, f->fid);
        e->calls += frame_counts_as_call(f);
        e->total += outermost ? dur : 0;
        e->self += self;
        e->estimated |= est;
        if (f->ret)
            add_value(p, e, f);
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
    estimates_add_own(&p->est, v->trace->t->own_ns, v->trace->t->n_own);
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
    fputs(" of thread time", p->v.out);
    if (p->filtered) {          /* the calls and the self% are the filtered view's */
        fputs(", ", p->v.out);
        print_duration(p->v.out, p->shown_ns, 0, p->est.any != 0);
        fprintf(p->v.out, " (%.2f%%) of it in the frames the filters show",
                percent(p->shown_ns, p->run_ns));
    }
    fputc('\n', p->v.out);
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
        fputs("(root)", out);
    else
        fprintf(out, "%s [%" PRIu32 "]", p->v.ft->v[other].name, index[other]);
    if (e->values) {                    /* LITIFUT_ARGS: what the callee returned along it */
        fputs("  returned ", out);
        put_values(out, e->values);
    }
    fputc('\n', out);
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
    int values = 0;
    for (size_t i = 0; i < p->n_edges && !values; i++)
        values = p->edges[i].values != NULL;
    fprintf(out, "caller\tcaller_obj\tcallee\tcallee_obj\tcalls\ttotal_ns\tself_ns%s%s\n",
            p->est.any ? "\testimate" : "", values ? "\tretvals" : "");
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
        if (values) {
            fputc('\t', out);
            if (e->values)
                put_values(out, e->values);
        }
        fputc('\n', out);
    }
    free(v);
}

static void profile_free(struct profile *p)
{
    for (size_t i = 0; i < p->n_fs; i++)
        histogram_free(p->fs[i].durations);
    free(p->fs);
    for (size_t i = 0; i < p->n_edges; i++) {
        struct edge_values *ev = p->edges[i].values;
        for (uint32_t k = 0; ev && k < ev->n; k++)
            free(ev->v[k].text);
        free(ev);
    }
    free(p->edges);
    args_buf_free(&p->args);
    u64map_free(&p->edge_index);
    estimates_free(&p->est);
    free(p);
}

static void print_diff(struct profile *p);
static void print_json(struct profile *p);
struct diff_row;
static struct diff_row *diff_rows(struct profile *p, size_t *n);

static void profile_end(struct view *v)
{
    struct profile *p = (struct profile *)v;
    if (p->keep) {
        profile_free(p);                /* (--diff's base: its diff printed it) */
        return;
    }
    if (p->json) {
        print_json(p);
        if (p->base)
            profile_free(p->base);
        profile_free(p);
        return;
    }
    if (p->base) {
        print_diff(p);
        profile_free(p->base);
        profile_free(p);
        return;
    }
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
    profile_free(p);
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

/* --- --profile --diff=OTHER: each function's change from OTHER's run ---
 *
 * Functions are matched by their name as the views show it ("name" in
 * the main program, "name (libfoo.so.1)" elsewhere; a function without
 * a symbol, "0x<address>", matches only the same address), so two
 * builds of one program compare; functions of one name add up.  Rows
 * are sorted by the size of the change of the --sort key (self by
 * default), the largest first.
 */
struct diff_row {
    const struct func *f;               /* its name, bare name and object: the first seen's */
    uint64_t calls[2], total[2], self[2];      /* [0] OTHER's (base), [1] this run's */
    int estimated[2];                   /* each side's figures are estimates */
};

static int diff_key;                    /* enum profile_sort, for diff_cmp */

static uint64_t diff_abs(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static int diff_cmp(const void *x, const void *y)
{
    const struct diff_row *a = x, *b = y;
    uint64_t ka, kb;
    switch (diff_key) {
    case SORT_TOTAL: ka = diff_abs(a->total[1], a->total[0]), kb = diff_abs(b->total[1], b->total[0]); break;
    case SORT_CALLS: ka = diff_abs(a->calls[1], a->calls[0]), kb = diff_abs(b->calls[1], b->calls[0]); break;
    default: ka = diff_abs(a->self[1], a->self[0]), kb = diff_abs(b->self[1], b->self[0]); break;
    }
    if (ka != kb)
        return ka > kb ? -1 : 1;
    return strcmp(a->f->name, b->f->name);
}

/* The rows of both profiles, matched by name: *n of them (malloc'd). */
static struct diff_row *diff_rows(struct profile *p, size_t *n)
{
    struct profile *side[2] = { p->base, p };
    struct strmap index = { 0 };        /* names, numbered as the rows */
    struct diff_row *rows = NULL;
    size_t cap = 0;
    *n = 0;
    for (int k = 0; k < 2; k++) {
        const struct profile *q = side[k];
        for (size_t i = 0; i < q->v.ft->n && i < q->n_fs; i++) {
            const struct fstat *st = &q->fs[i];
            if (!st->calls && !st->total && !st->self)
                continue;
            const char *name = q->v.ft->v[i].name;
            int added;
            size_t r = strmap_intern(&index, xstrdup(name), &added);
            if (added) {
                rows = grow_for_one(rows, *n, &cap, sizeof *rows);
                memset(&rows[r], 0, sizeof rows[r]);
                rows[r].f = &q->v.ft->v[i];
                (*n)++;
            }
            rows[r].calls[k] += st->calls;
            rows[r].total[k] += st->total;
            rows[r].self[k] += st->self;
            rows[r].estimated[k] |= st->estimated;
        }
    }
    strmap_free(&index);
    diff_key = p->sort;
    if (*n)
        qsort(rows, *n, sizeof *rows, diff_cmp);
    return rows;
}

/* new - old as a signed number of ns. */
static int64_t change(uint64_t old, uint64_t now)
{
    return now >= old ? (int64_t)(now - old) : -(int64_t)(old - now);
}

static void print_change(FILE *out, uint64_t old, uint64_t now, int est)
{
    int64_t d = change(old, now);
    char buf[40];
    FILE *m = fmemopen(buf, sizeof buf, "w");
    if (!m)
        return;
    fputc(d < 0 ? '-' : '+', m);
    print_duration(m, d < 0 ? (uint64_t)-d : (uint64_t)d, 0, est);
    fclose(m);
    fprintf(out, " %*s", TIME_W + 1, buf);
}

/* The change as a share of the old value ("new" where there was none). */
static void print_share(FILE *out, uint64_t old, uint64_t now, int width, int tsv)
{
    if (!old) {
        fprintf(out, tsv ? "" : " %*s", width, now ? "new" : "");
        return;
    }
    double pct = 100.0 * (double)change(old, now) / (double)old;
    if (tsv)
        fprintf(out, "%.2f", pct);
    else
        fprintf(out, " %+*.1f%%", width - 1, pct);
}

static void print_diff(struct profile *p)
{
    FILE *out = p->v.out;
    size_t n;
    struct diff_row *rows = diff_rows(p, &n);
    int est = p->est.any || p->base->est.any;
    if (p->tsv) {
        fprintf(out, "calls_base\tcalls\ttotal_base_ns\ttotal_ns\ttotal_change_ns\t"
                     "self_base_ns\tself_ns\tself_change_ns\tself_change_pct\tfunction\tobject%s\n",
                est ? "\testimate" : "");
        for (size_t i = 0; i < n; i++) {
            const struct diff_row *r = &rows[i];
            fprintf(out, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t%"
                         PRIu64 "\t%" PRIu64 "\t%" PRId64 "\t", r->calls[0], r->calls[1],
                    r->total[0], r->total[1], change(r->total[0], r->total[1]), r->self[0],
                    r->self[1], change(r->self[0], r->self[1]));
            print_share(out, r->self[0], r->self[1], 0, 1);
            fprintf(out, "\t%s\t", r->f->bare);
            put_clean(out, r->f->obj);
            if (est)
                fprintf(out, "\t%d", r->estimated[0] || r->estimated[1]);
            fputc('\n', out);
        }
    } else {
        fprintf(out, "# profile diff: this run against %s (base), by the change of %s\n",
                p->base_name, p->sort == SORT_TOTAL ? "total time"
                              : p->sort == SORT_CALLS ? "calls" : "self time");
        fputs("# base: ", out);
        print_duration(out, p->base->run_ns, 0, p->base->est.any != 0);
        fprintf(out, " of thread time, %" PRIu64 " calls; this run: ", all_calls(p->base));
        print_duration(out, p->run_ns, 0, p->est.any != 0);
        fprintf(out, ", %" PRIu64 " calls\n", all_calls(p));
        estimates_print(out, &p->base->est);
        estimates_print(out, &p->est);
        fprintf(out, "#%*s %*s %*s %8s %*s %*s %*s %10s %10s  %s\n", TIME_W, "self base",
                TIME_W, "self", TIME_W + 1, "change", "change", TIME_W, "total base", TIME_W,
                "total", TIME_W + 1, "change", "calls base", "calls", "function");
        for (size_t i = 0; i < n; i++) {
            const struct diff_row *r = &rows[i];
            fputc(' ', out);
            int either = r->estimated[0] || r->estimated[1];
            print_duration(out, r->self[0], TIME_W, r->estimated[0]);
            fputc(' ', out);
            print_duration(out, r->self[1], TIME_W, r->estimated[1]);
            print_change(out, r->self[0], r->self[1], either);
            print_share(out, r->self[0], r->self[1], 8, 0);
            fputc(' ', out);
            print_duration(out, r->total[0], TIME_W, r->estimated[0]);
            fputc(' ', out);
            print_duration(out, r->total[1], TIME_W, r->estimated[1]);
            print_change(out, r->total[0], r->total[1], either);
            fprintf(out, " %10" PRIu64 " %10" PRIu64 "  %s\n", r->calls[0], r->calls[1], r->f->name);
        }
    }
    free(rows);
}

struct view *profile_base_view(struct func_table *ft, const struct view_options *o)
{
    struct profile *p = (struct profile *)new_profile(NULL, ft, o, 0);
    p->keep = 1;
    return &p->v;
}

struct view *profile_diff_view(FILE *out, struct func_table *ft, const struct view_options *o,
                               struct view *base, const char *base_name)
{
    struct view *v = new_profile(out, ft, o, 0);
    profile_set_base(v, base, base_name);
    return v;
}

/* --- the HTML report's data (html.c): JSON ---
 *
 *   {"run_ns":N,"threads":N,"calls":N,"cut":N,
 *    "functions":[[name,object,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,
 *                  p50_ns,p90_ns,p99_ns,estimated],...],
 *    "edges":[[caller,callee,calls,total_ns,self_ns],...]}
 * and with LITIFUT_ARGS' return values "edge_values":{"EDGE":"-1 (3); 0 (1)",...}
 * (EDGE: an index into edges)
 * and with --diff=OTHER "base", "base_run_ns" and
 *    "diff":[[name,calls,total_ns,self_ns (OTHER's),calls,total_ns,self_ns
 *             (this run's),estimated (OTHER's),estimated (this run's)],...]
 *
 * functions by self time, at most HTML_FUNCTIONS of them (cut: how many
 * more there were); edges between the functions kept (caller -1: a
 * thread's first frame), indexes into functions, at most HTML_EDGES
 * (those with the most total time).  Strings are safe in
 * an HTML <script> (html_json_string).
 */
#define HTML_FUNCTIONS 5000
#define HTML_EDGES 20000

static int edge_total_cmp(const void *a, const void *b)
{
    const struct edge *x = *(const struct edge *const *)a, *y = *(const struct edge *const *)b;
    return (x->total < y->total) - (x->total > y->total);
}

static void print_json(struct profile *p)
{
    FILE *out = p->v.out;
    size_t n;
    enum profile_sort sort = p->sort;
    p->sort = SORT_SELF;
    uint32_t *ids = sorted_functions(p, &n);
    p->sort = sort;
    size_t kept = n < HTML_FUNCTIONS ? n : HTML_FUNCTIONS;
    uint32_t *index = xmalloc((p->v.ft->n + 1) * sizeof *index);    /* fid -> row + 1 */
    memset(index, 0, (p->v.ft->n + 1) * sizeof *index);
    fprintf(out, "{\"run_ns\":%" PRIu64 ",\"threads\":%" PRIu64 ",\"calls\":%" PRIu64
                 ",\"cut\":%zu,\"functions\":[", p->run_ns, p->n_threads, all_calls(p), n - kept);
    for (size_t i = 0; i < kept; i++) {
        const struct fstat *st = &p->fs[ids[i]];
        const struct func *f = &p->v.ft->v[ids[i]];
        index[ids[i]] = (uint32_t)i + 1;
        fputs(i ? ",\n[" : "\n[", out);
        html_json_string(out, f->name);
        fputc(',', out);
        html_json_string(out, f->obj);
        fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, st->calls, st->total, st->self);
        if (st->calls) {
            fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, st->sum / st->calls, st->min,
                    st->max);
            for (size_t k = 0; k < N_PERCENTILES; k++)
                fprintf(out, ",%" PRIu64, histogram_percentile(st->durations, percentiles[k]));
        } else {
            fputs(",null,null,null,null,null,null", out);
        }
        fprintf(out, ",%d]", st->estimated);
    }
    fputs("],\n\"edges\":[", out);
    /* the edges between kept functions, the HTML_EDGES with the most total time */
    size_t n_kept = 0;
    const struct edge **kept_edges = xmalloc((p->n_edges + 1) * sizeof *kept_edges);
    for (size_t i = 0; i < p->n_edges; i++) {
        const struct edge *e = &p->edges[i];
        if ((e->caller == FUNC_NONE || (e->caller < p->v.ft->n && index[e->caller])) &&
            e->callee < p->v.ft->n && index[e->callee])
            kept_edges[n_kept++] = e;
    }
    if (n_kept > HTML_EDGES) {
        qsort(kept_edges, n_kept, sizeof *kept_edges, edge_total_cmp);
        n_kept = HTML_EDGES;
    }
    int any = 0, values = 0;
    for (size_t i = 0; i < n_kept; i++) {
        const struct edge *e = kept_edges[i];
        values |= e->values != NULL;
        fprintf(out, "%s[%ld,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "]", any++ ? "," : "",
                e->caller == FUNC_NONE ? -1L : (long)index[e->caller] - 1, index[e->callee] - 1,
                e->calls, e->total, e->self);
    }
    fputs("]", out);
    if (values) {                       /* LITIFUT_ARGS: the edges' return values, by edge */
        fputs(",\n\"edge_values\":{", out);
        any = 0;
        for (size_t i = 0; i < n_kept; i++) {
            if (!kept_edges[i]->values)
                continue;
            char *text = values_text(kept_edges[i]->values);
            fprintf(out, "%s\"%zu\":", any++ ? "," : "", i);
            html_json_string(out, text);
            free(text);
        }
        fputs("}", out);
    }
    if (p->base) {                      /* --diff=OTHER: [name, calls, total, self] base then here */
        size_t nd;
        struct diff_row *rows = diff_rows(p, &nd);
        fputs(",\n\"base\":", out);
        html_json_string(out, p->base_name);
        fprintf(out, ",\"base_run_ns\":%" PRIu64 ",\"diff\":[", p->base->run_ns);
        for (size_t i = 0; i < nd && i < HTML_FUNCTIONS; i++) {
            const struct diff_row *r = &rows[i];
            fputs(i ? ",\n[" : "\n[", out);
            html_json_string(out, r->f->name);
            fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                         ",%d,%d]", r->calls[0], r->total[0], r->self[0], r->calls[1], r->total[1],
                    r->self[1], r->estimated[0], r->estimated[1]);
        }
        fputs("]", out);
        free(rows);
    }
    fputs("}", out);
    free(kept_edges);
    free(index);
    free(ids);
}

struct view *profile_json_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    struct profile *p = (struct profile *)new_profile(out, ft, o, 0);
    p->json = 1;
    return &p->v;
}

void profile_set_base(struct view *v, struct view *base, const char *base_name)
{
    struct profile *p = (struct profile *)v;
    p->base = (struct profile *)base;
    p->base_name = base_name;
}
