/*
 * --processes: the run's processes as one picture (a boot chart in
 * text): each process with its start and end on one clock (the
 * target's CLOCK_MONOTONIC, from the first process's start), its calls
 * and threads, how it came to be, and the functions it spent its time
 * in; indented under the process it came from, in order of start.
 *
 *   how   fork   a traced fork child (its header names the parent)
 *         exec   the same pid ran a traced program before (the latest
 *                such trace that started before this one)
 *         spawn  its parent (getppid at its start) is a traced process,
 *                which forked it and it exec'd before any traced call
 *                (vfork, posix_spawn, system)
 *         -      its parent is not among the traces
 *
 *   text  a header (processes, programs, calls, the span), then a line
 *         per process
 *   TSV   pid ppid how parent_pid start_ns end_ns duration_ns calls
 *         threads program trace top (function:self_ns, comma-separated)
 *   JSON  the HTML report's boot chart (html.c): an array, in the text's
 *         order, of [pid, parent row (-1: none), how, start_ns, end_ns,
 *         calls, program, top, depth]
 *
 * The counts are of the frames the filters show (--function, --tid,
 * --time-range ...); start and end are the trace's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/util/grow.h"
#include "postproc/views/report.h"
#include "postproc/view.h"
#include "lib/error.h"

#define TOP_FUNCTIONS 3

struct proc {
    uint32_t pid, ppid, fork_parent;    /* fork_parent: 0 if not a traced fork child */
    int execed;
    uint64_t start_ns, end_ns;          /* CLOCK_MONOTONIC */
    uint64_t calls, self_ns;
    uint32_t threads;
    char *exe, *path;
    uint32_t top[TOP_FUNCTIONS];        /* function ids, most self time first */
    uint64_t top_ns[TOP_FUNCTIONS];
    size_t n_top;
    size_t parent;                      /* index, SIZE_MAX: none here */
    const char *how;
    uint32_t depth;
    int placed;
    size_t row;                         /* its row, once placed */
};

enum procs_format { PROCS_TEXT, PROCS_TSV, PROCS_JSON };
struct processes {
    struct view v;
    enum procs_format format;
    size_t printed;                     /* rows so far (JSON: the parents' row numbers) */
    struct proc *p;
    size_t n, cap;
    uint64_t *self;                     /* the current trace's self time per function id */
    uint32_t *touched;                  /* ... the ids with some */
    size_t n_self, n_touched, cap_touched;
};

static void procs_trace_begin(struct view *v)
{
    struct processes *ps = (struct processes *)v;
    const struct trace_file *t = v->trace->t;
    ps->p = grow_for_one(ps->p, ps->n, &ps->cap, sizeof *ps->p);
    struct proc *p = &ps->p[ps->n++];
    memset(p, 0, sizeof *p);
    p->pid = t->header.pid;
    p->ppid = t->header.ppid;
    const struct fork_origin *o = v->trace->fork;
    p->fork_parent = o ? o->parent_pid : 0;
    p->execed = o && o->execed;
    p->start_ns = t->header.start_ns;
    p->exe = xstrdup(t->header.exe);
    p->path = xstrdup(t->path);
}

static void procs_thread_begin(struct view *v, struct callstack *s)
{
    (void)s;
    struct processes *ps = (struct processes *)v;
    ps->p[ps->n - 1].threads++;
}

static void procs_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    (void)s;
    struct processes *ps = (struct processes *)v;
    if (!f->shown || f->synthetic)
        return;
    struct proc *p = &ps->p[ps->n - 1];
    if (frame_is_call(f))
        p->calls++;
    uint64_t total = end_ns > f->start_ns ? end_ns - f->start_ns : 0;
    uint64_t self = total > f->child_ns ? total - f->child_ns : 0;
    p->self_ns += self;
    if (f->fid >= ps->n_self) {
        size_t n = ps->n_self ? ps->n_self : 1024;
        while (n <= f->fid)
            n *= 2;
        ps->self = xrealloc(ps->self, n * sizeof *ps->self);
        memset(ps->self + ps->n_self, 0, (n - ps->n_self) * sizeof *ps->self);
        ps->n_self = n;
    }
    if (!ps->self[f->fid]) {
        ps->touched = grow_for_one(ps->touched, ps->n_touched, &ps->cap_touched,
                                   sizeof *ps->touched);
        ps->touched[ps->n_touched++] = f->fid;
    }
    ps->self[f->fid] += self + 1;       /* (+1: never 0 once touched) */
}

static void procs_trace_end(struct view *v)
{
    struct processes *ps = (struct processes *)v;
    struct proc *p = &ps->p[ps->n - 1];
    p->end_ns = p->start_ns + v->trace->t->end_ns;
    for (size_t i = 0; i < ps->n_touched; i++) {
        uint32_t fid = ps->touched[i];
        uint64_t ns = ps->self[fid] - 1;
        ps->self[fid] = 0;
        size_t k = p->n_top;
        while (k > 0 && p->top_ns[k - 1] < ns)
            k--;
        if (k >= TOP_FUNCTIONS)
            continue;
        size_t last = p->n_top < TOP_FUNCTIONS ? p->n_top : TOP_FUNCTIONS - 1;
        memmove(p->top + k + 1, p->top + k, (last - k) * sizeof *p->top);
        memmove(p->top_ns + k + 1, p->top_ns + k, (last - k) * sizeof *p->top_ns);
        p->top[k] = fid;
        p->top_ns[k] = ns;
        if (p->n_top < TOP_FUNCTIONS)
            p->n_top++;
    }
    ps->n_touched = 0;
}

/* The latest process of `pid` that started before p (or at its start,
 * not p itself): SIZE_MAX if none. */
static size_t latest_of(const struct processes *ps, uint32_t pid, size_t self)
{
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < ps->n; j++)
        if (j != self && ps->p[j].pid == pid && ps->p[j].start_ns <= ps->p[self].start_ns &&
            (best == SIZE_MAX || ps->p[j].start_ns > ps->p[best].start_ns))
            best = j;
    return best;
}

static void find_parents(struct processes *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        struct proc *p = &ps->p[i];
        p->parent = SIZE_MAX;
        p->how = "-";
        if (p->execed && (p->parent = latest_of(ps, p->pid, i)) != SIZE_MAX)
            p->how = "exec";
        else if (p->fork_parent && (p->parent = latest_of(ps, p->fork_parent, i)) != SIZE_MAX)
            p->how = "fork";
        else if (p->ppid && (p->parent = latest_of(ps, p->ppid, i)) != SIZE_MAX)
            p->how = "spawn";
    }
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static uint64_t first_start(const struct processes *ps)
{
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < ps->n; i++)
        if (ps->p[i].start_ns < t0)
            t0 = ps->p[i].start_ns;
    return t0;
}

static void print_line(struct processes *ps, const struct proc *p, uint64_t t0)
{
    FILE *out = ps->v.out;
    const struct proc *parent = p->parent == SIZE_MAX ? NULL : &ps->p[p->parent];
    if (ps->format == PROCS_JSON) {
        fprintf(out, "%s[%" PRIu32 ",%ld,\"%s\",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
                ps->printed ? ",\n" : "", p->pid, parent && parent->placed ? (long)parent->row : -1L,
                p->how, p->start_ns - t0, p->end_ns - t0, p->calls);
        html_json_string(out, base_name(p->exe));
        fputc(',', out);
        char *top = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&top, &len);
        for (size_t k = 0; m && k < p->n_top; k++)
            fprintf(m, "%s%s %.0f%%", k ? ", " : "", ps->v.ft->v[p->top[k]].name,
                    p->self_ns ? 100.0 * (double)p->top_ns[k] / (double)p->self_ns : 0.0);
        if (m)
            fclose(m);
        html_json_string(out, top ? top : "");
        free(top);
        fprintf(out, ",%" PRIu32 "]", p->depth);
        return;
    }
    if (ps->format == PROCS_TSV) {
        fprintf(out, "%" PRIu32 "\t%" PRIu32 "\t%s\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
                "\t%" PRIu64 "\t%" PRIu32 "\t", p->pid, p->ppid, p->how,
                parent ? parent->pid : 0, p->start_ns - t0, p->end_ns - t0,
                p->end_ns - p->start_ns, p->calls, p->threads);
        put_clean(out, p->exe);
        fputc('\t', out);
        put_clean(out, p->path);
        fputc('\t', out);
        for (size_t k = 0; k < p->n_top; k++) {
            fputs(k ? "," : "", out);
            put_clean(out, ps->v.ft->v[p->top[k]].name);
            fprintf(out, ":%" PRIu64, p->top_ns[k]);
        }
        fputc('\n', out);
        return;
    }
    fprintf(out, "%11.6f %11.6f %11.6f %10" PRIu64 " %7" PRIu32 " %7" PRIu32 " %7" PRIu32 " %-5s ",
            (double)(p->start_ns - t0) / 1e9, (double)(p->end_ns - t0) / 1e9,
            (double)(p->end_ns - p->start_ns) / 1e9, p->calls, p->threads, p->pid,
            parent ? parent->pid : p->ppid, p->how);
    for (uint32_t d = 0; d < p->depth && d < 32; d++)
        fputs("  ", out);
    put_clean(out, base_name(p->exe));
    for (size_t k = 0; k < p->n_top; k++) {
        fputs(k ? ", " : "   ", out);
        put_clean(out, ps->v.ft->v[p->top[k]].name);
        fprintf(out, " %.0f%%", p->self_ns ? 100.0 * (double)p->top_ns[k] / (double)p->self_ns
                                           : 0.0);
    }
    fputc('\n', out);
}

static int by_start(const void *a, const void *b, void *arg)
{
    const struct processes *ps = arg;
    const struct proc *x = &ps->p[*(const size_t *)a], *y = &ps->p[*(const size_t *)b];
    return x->start_ns != y->start_ns ? (x->start_ns < y->start_ns ? -1 : 1)
                                      : (x->pid > y->pid) - (x->pid < y->pid);
}

/* Process i, then its children (by start), depth first. */
static void print_tree(struct processes *ps, const size_t *order, size_t i, uint32_t depth,
                       uint64_t t0)
{
    struct proc *p = &ps->p[i];
    if (p->placed)
        return;
    p->placed = 1;
    p->depth = depth;
    p->row = ps->printed;
    print_line(ps, p, t0);
    ps->printed++;
    for (size_t k = 0; k < ps->n; k++)
        if (ps->p[order[k]].parent == i)
            print_tree(ps, order, order[k], depth + 1, t0);
}

static void procs_end(struct view *v)
{
    struct processes *ps = (struct processes *)v;
    FILE *out = v->out;
    find_parents(ps);
    size_t *order = xcalloc(ps->n + 1, sizeof *order);
    for (size_t i = 0; i < ps->n; i++)
        order[i] = i;
    qsort_r(order, ps->n, sizeof *order, by_start, ps);
    uint64_t t0 = first_start(ps), t1 = 0, calls = 0;
    size_t programs = 0;
    for (size_t i = 0; i < ps->n; i++) {
        if (ps->p[i].end_ns > t1)
            t1 = ps->p[i].end_ns;
        calls += ps->p[i].calls;
        size_t j = 0;
        while (j < i && strcmp(ps->p[j].exe, ps->p[i].exe) != 0)
            j++;
        programs += j == i;
    }
    if (ps->format == PROCS_JSON) {
        fputc('[', out);
    } else if (ps->format == PROCS_TSV) {
        fputs("pid\tppid\thow\tparent_pid\tstart_ns\tend_ns\tduration_ns\tcalls\tthreads\tprogram"
              "\ttrace\ttop\n", out);
    } else {
        fprintf(out, "# processes: %zu process%s of %zu program%s, %" PRIu64 " calls; %.6f s "
                "from the first start to the last end\n", ps->n, ps->n == 1 ? "" : "es",
                programs, programs == 1 ? "" : "s", calls,
                ps->n ? (double)(t1 - t0) / 1e9 : 0.0);
        fputs("# start, end: s after the first process's start (CLOCK_MONOTONIC); how: fork "
              "(a traced fork child), exec (after the\n# same pid's traced program), spawn "
              "(its parent is traced), - (its parent is not); top: self time's share\n", out);
        fprintf(out, "# %9s %11s %11s %10s %7s %7s %7s %-5s %s\n", "start", "end", "duration",
                "calls", "threads", "pid", "parent", "how", "program   top functions");
    }
    for (size_t k = 0; k < ps->n; k++) {        /* roots (and cycles' members) in start order */
        size_t i = order[k];
        size_t up = ps->p[i].parent, steps = 0;
        while (up != SIZE_MAX && up != i && steps++ < ps->n)
            up = ps->p[up].parent;
        if (ps->p[i].parent == SIZE_MAX || up == i)
            print_tree(ps, order, i, 0, t0);
    }
    for (size_t k = 0; k < ps->n; k++)          /* (none is left: a bound, not a case) */
        print_tree(ps, order, order[k], 0, t0);
    if (ps->format == PROCS_JSON)
        fputc(']', out);
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->p[i].exe);
        free(ps->p[i].path);
    }
    free(order);
    free(ps->p);
    free(ps->self);
    free(ps->touched);
    free(ps);
}

static const struct view_ops procs_ops = {
    .trace_begin = procs_trace_begin,
    .thread_begin = procs_thread_begin,
    .pop = procs_pop,
    .trace_end = procs_trace_end,
    .end = procs_end,
};

struct view *processes_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    struct processes *ps = xcalloc(1, sizeof *ps);
    view_init(&ps->v, &procs_ops, out, ft);
    ps->format = o->tsv ? PROCS_TSV : PROCS_TEXT;
    return &ps->v;
}

struct view *processes_json_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    struct view *v = processes_view(out, ft, o);
    ((struct processes *)v)->format = PROCS_JSON;
    return v;
}
