/*
 * Fork children's inherited stacks (forks.h).
 *
 * A child's header names the parent's thread that forked and how far
 * that thread's records had got: its chunk and the words written in it
 * (trace.h).  The parent's stack at the fork is the stack its call
 * stack (callstack.c, the same rules as every view) has after those
 * records, and after the parent's own inherited frames if it is a fork
 * child too.  That thread is read once, whatever number of children
 * forked from it: their points in order, each one's stack copied as
 * the reading passes it.
 *
 * Everything is checked, the headers coming from a device: a parent is
 * a trace of the parent's pid that started before the child (a pid
 * cycle cannot arise: a parent starts first, and a trace is never its
 * own parent); a fork point must be one of that thread's chunks, with
 * the words within it.  A point that is not is "unknown" to the views,
 * with the reason, never an error: the child's frames are then those
 * of a trace without a parent (callstack.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "postproc/reader/callstack.h"
#include "postproc/drive.h"
#include "postproc/forks.h"
#include "postproc/util/grow.h"
#include "postproc/view.h"
#include "lib/error.h"

static const char *dir_end(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s : path;        /* (the slash: "dir" and "dir/" compare alike) */
}

static int same_dir(const char *a, const char *b)
{
    size_t la = (size_t)(dir_end(a) - a), lb = (size_t)(dir_end(b) - b);
    return la == lb && strncmp(a, b, la) == 0;
}

static size_t add_trace(struct forks *f, char *path, int wanted)
{
    f->v = grow_for_one(f->v, f->n, &f->cap, sizeof *f->v);
    struct fork_trace *ft = &f->v[f->n];
    memset(ft, 0, sizeof *ft);
    ft->path = path;
    ft->parent = SIZE_MAX;
    ft->wanted = wanted;
    struct trace_peek pk;
    if (trace_peek(path, &pk) == 0) {
        ft->pid = pk.pid;
        ft->start_ns = pk.start_ns;
        ft->fork = pk.fork;
    }
    return f->n++;
}

/* Whether trace j can be the parent of trace i. */
static int can_be_parent(const struct forks *f, size_t j, size_t i)
{
    const struct fork_trace *p = &f->v[j], *c = &f->v[i];
    return j != i && p->pid && p->pid == c->fork.parent_pid && p->start_ns <= c->start_ns;
}

/* Trace i's parent: a given trace of its parent's pid that started
 * before it, one in its directory first, the latest to start if there
 * are several; else litifut.<pid>.trace (or .trace.gz) in its directory. */
static size_t find_parent(struct forks *f, size_t i, size_t n_given)
{
    size_t best = SIZE_MAX;
    for (size_t j = 0; j < f->n; j++) {
        if (!can_be_parent(f, j, i))
            continue;
        int here = same_dir(f->v[j].path, f->v[i].path);
        if (best == SIZE_MAX || here > same_dir(f->v[best].path, f->v[i].path) ||
            (here == same_dir(f->v[best].path, f->v[i].path) &&
             f->v[j].start_ns > f->v[best].start_ns))
            best = j;
    }
    if (best != SIZE_MAX || f->n > 4 * n_given + 64)
        return best;            /* (and a bound on traces found this way) */
    const char *path = f->v[i].path;
    char *cand = xasprintf("%.*slitifut.%" PRIu32 ".trace",
                           (int)(dir_end(path) - path + (*dir_end(path) == '/')), path,
                           f->v[i].fork.parent_pid);
    for (size_t j = 0; j < f->n; j++)
        if (strcmp(f->v[j].path, cand) == 0) {
            free(cand);
            return SIZE_MAX;    /* given, and not the parent */
        }
    struct stat st;
    if (stat(cand, &st) != 0) {         /* gzip'ed (gz.c)? */
        char *gz = xasprintf("%s.gz", cand);
        if (stat(gz, &st) == 0) {
            free(cand);
            cand = gz;
        } else {
            free(gz);
        }
    }
    for (size_t j = 0; j < f->n; j++)
        if (strcmp(f->v[j].path, cand) == 0) {
            free(cand);
            return SIZE_MAX;    /* given, and not the parent */
        }
    size_t j = add_trace(f, cand, 0);
    return can_be_parent(f, j, i) ? j : SIZE_MAX;
}

static void set_unknown(struct fork_origin *o, char *why)
{
    free(o->unknown);
    o->unknown = why;
    o->known = 0;
}

/* Trace i and the parents it needs, parents first, onto the order. */
static void visit(struct forks *f, size_t i, size_t n_given)
{
    if (f->v[i].visit)
        return;
    f->v[i].visit = 1;
    struct fork_trace *t = &f->v[i];
    t->origin.parent_pid = t->fork.parent_pid;
    t->origin.parent_tid = t->fork.parent_tid;
    if (t->fork.parent_pid) {
        size_t p = find_parent(f, i, n_given);
        t = &f->v[i];           /* (find_parent may move the array) */
        if (p == SIZE_MAX) {
            set_unknown(&t->origin, xasprintf("no trace of process %" PRIu32 " here",
                                              t->fork.parent_pid));
        } else {
            t->parent = p;
            set_unknown(&t->origin, xasprintf("process %" PRIu32 "'s trace %s could not be read",
                                              t->fork.parent_pid, f->v[p].path));
            f->v[p].needed = 1;
            visit(f, p, n_given);
        }
    }
    f->order = xrealloc(f->order, (f->n_order + 1) * sizeof *f->order);
    f->order[f->n_order++] = i;
}

void forks_plan(struct forks *f, char *const *paths, size_t n, const uint32_t *pids,
                size_t n_pids, unsigned char *pid_seen)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < n; i++) {
        size_t k = add_trace(f, xstrdup(paths[i]), 1);
        /* (a trace whose header cannot be read is read all the same: trace_open says why) */
        f->v[k].wanted = !f->v[k].pid || id_wanted(pids, n_pids, pid_seen, f->v[k].pid);
    }
    /* an exec: the same pid has a trace that started before (a pid
     * reused by an unrelated process looks alike: the views say "exec";
     * --processes takes the latest such one as the parent) */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n && !f->v[i].origin.execed; j++)
            f->v[i].origin.execed = j != i && f->v[i].pid && f->v[j].pid == f->v[i].pid &&
                                    f->v[j].start_ns < f->v[i].start_ns;
    for (size_t i = 0; i < n; i++)
        if (f->v[i].wanted)
            visit(f, i, n);
}

/* --- replaying a parent's thread --- */

/* A child of the trace being replayed, waiting for its stack. */
struct request {
    size_t child;
    uint32_t chunk, words;
};

static int by_point(const void *a, const void *b)
{
    const struct request *x = a, *y = b;
    if (x->chunk != y->chunk)
        return x->chunk < y->chunk ? -1 : 1;
    return x->words < y->words ? -1 : x->words > y->words;
}

/* Origin o is known: n frames, each fids[i] (synthetic[i]). */
static void set_known(struct fork_origin *o, const uint32_t *fids, const uint8_t *synthetic,
                      size_t n)
{
    free(o->fids);
    free(o->synthetic);
    o->fids = xcalloc(n + 1, sizeof *o->fids);
    o->synthetic = xcalloc(n + 1, 1);
    if (n) {
        memcpy(o->fids, fids, n * sizeof *fids);
        memcpy(o->synthetic, synthetic, n);
    }
    o->n = n;
    set_unknown(o, NULL);
    o->known = 1;
}

/* The stack of the callstack at the child's fork point, once recording
 * changes until then (a stack recording went off under is empty). */
static void snapshot(struct forks *f, const struct request *r, struct callstack *s,
                     const struct trace_file *t, size_t *next_state)
{
    struct fork_origin *o = &f->v[r->child].origin;
    if (t->n_states)
        callstack_cross_states(s, t, next_state, o->after_ns);
    uint32_t *fids = xcalloc(s->n + 1, sizeof *fids);
    uint8_t *synthetic = xcalloc(s->n + 1, 1);
    for (size_t i = 0; i < s->n; i++) {
        fids[i] = s->f[i].fid;
        synthetic[i] = s->f[i].synthetic;
    }
    set_known(o, fids, synthetic, s->n);
    free(fids);
    free(synthetic);
}

static const struct view_ops no_ops;

/* Thread `th` of the parent (trace p), up to each of its n requests. */
static void replay_thread(struct forks *f, size_t p, struct trace_file *t, size_t th,
                          struct trace_funcs *tf, struct func_table *ft, struct request *req,
                          size_t n)
{
    struct view none;
    view_init(&none, &no_ops, NULL, ft);
    struct stack_filters flt = { 0, 0, UINT32_MAX, 0, UINT64_MAX };
    int warned = 0;
    struct trace_cursor c;
    struct callstack s;
    trace_cursor_open(&c, t, th);
    trace_cursor_track(&c);
    callstack_init(&s, &none, &flt, ft, t, &t->threads[th], &warned);
    const struct fork_origin *own = &f->v[p].origin;
    if (own->known && t->threads[th].tid == t->header.pid)
        callstack_inherit(&s, own->fids, own->synthetic, own->n, 0, 1);
    qsort(req, n, sizeof *req, by_point);
    size_t k = 0, next_state = 0;
    const struct trace_event *e;
    while (k < n && (e = trace_cursor_next(&c))) {
        uint32_t chunk, end;
        trace_cursor_position(&c, &chunk, &end);
        while (k < n && (chunk > req[k].chunk || (chunk == req[k].chunk && end > req[k].words)))
            snapshot(f, &req[k++], &s, t, &next_state);
        if (k == n)
            break;
        if (t->n_states)
            callstack_cross_states(&s, t, &next_state, e->time_ns);
        callstack_feed(&s, tf, e);
    }
    while (k < n)               /* (points after the thread's last record) */
        snapshot(f, &req[k++], &s, t, &next_state);
    callstack_free(&s);
    trace_cursor_close(&c);
}

/* The thread of `t` with id `tid`, or SIZE_MAX. */
static size_t thread_of(const struct trace_file *t, uint32_t tid)
{
    for (size_t i = 0; i < t->n_threads; i++)
        if (t->threads[i].tid == tid)
            return i;
    return SIZE_MAX;
}

/* Whether the chunk of index `chunk` is one of th's (its chunks are in
 * the file's order, which is their indices'). */
static int has_chunk(const struct trace_file *t, const struct trace_thread *th, uint32_t chunk)
{
    size_t lo = 0, hi = th->n_chunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t index = t->chunks[th->chunks[mid]].index;
        if (index == chunk)
            return 1;
        if (index < chunk)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Child i's point in the parent's trace t: its thread (SIZE_MAX: none
 * to replay, the origin settled here). */
static size_t point_thread(struct forks *f, size_t i, size_t p, const struct trace_file *t)
{
    struct fork_trace *c = &f->v[i];
    const struct trace_fork *k = &c->fork;
    c->origin.after_ns = c->start_ns - f->v[p].start_ns;
    if (!k->point_ok) {
        set_unknown(&c->origin, xstrdup("its header's fork point cannot be right"));
        return SIZE_MAX;
    }
    if (t->header.mode != LITIFUT_MODE_FULL) {
        set_unknown(&c->origin, xasprintf("process %" PRIu32 "'s trace has no calls in order "
                                          "(LITIFUT_MODE)", k->parent_pid));
        return SIZE_MAX;
    }
    if (!k->parent_tid) {
        /* the thread that forked had recorded nothing: what it had is its
         * process's inherited stack if it was the thread that has it */
        const struct fork_origin *own = &f->v[p].origin;
        if (own->known && thread_of(t, t->header.pid) == SIZE_MAX)
            set_known(&c->origin, own->fids, own->synthetic, own->n);
        else
            set_known(&c->origin, NULL, NULL, 0);
        return SIZE_MAX;
    }
    size_t th = thread_of(t, k->parent_tid);
    if (th == SIZE_MAX || !has_chunk(t, &t->threads[th], k->chunk) ||
        k->words > t->header.chunk_size / 4) {
        set_unknown(&c->origin, xasprintf("process %" PRIu32 "'s trace has no records of thread %"
                                          PRIu32 " at its fork point (chunk %" PRIu32 ")",
                                          k->parent_pid, k->parent_tid, k->chunk));
        return SIZE_MAX;
    }
    return th;
}

void forks_replay(struct forks *f, size_t p, struct trace_file *t, const struct program_set *ps,
                  struct address_space *as, struct func_table *ft)
{
    struct request *req = NULL;
    size_t n = 0;
    size_t *threads = NULL;             /* per request: its thread */
    for (size_t i = 0; i < f->n; i++) {
        if (f->v[i].parent != p || !(f->v[i].wanted || f->v[i].needed))
            continue;
        size_t th = point_thread(f, i, p, t);
        if (th == SIZE_MAX)
            continue;
        req = xrealloc(req, (n + 1) * sizeof *req);
        threads = xrealloc(threads, (n + 1) * sizeof *threads);
        req[n] = (struct request){ i, f->v[i].fork.chunk, f->v[i].fork.words };
        threads[n++] = th;
    }
    if (!n)
        return;
    struct trace_funcs tf;
    trace_funcs_init(&tf, ft, as, ps, t);
    struct request *mine = xcalloc(n, sizeof *mine);
    for (size_t th = 0; th < t->n_threads; th++) {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (threads[k] == th)
                mine[m++] = req[k];
        if (m)
            replay_thread(f, p, t, th, &tf, ft, mine, m);
    }
    free(mine);
    trace_funcs_free(&tf);
    free(threads);
    free(req);
}

void forks_free(struct forks *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->v[i].path);
        free(f->v[i].origin.fids);
        free(f->v[i].origin.synthetic);
        free(f->v[i].origin.unknown);
    }
    free(f->v);
    free(f->order);
    memset(f, 0, sizeof *f);
}
