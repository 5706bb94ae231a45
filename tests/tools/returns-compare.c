/*
 * returns-compare: checks the calls and returns of a traced run against
 * the QEMU call oracle run with returns=on.
 *
 *   returns-compare [--unordered] [--inferred] [--binary-dir D]
 *                   [--moved FROM SIZE TO]... TRACE ORACLE.txt
 *
 * TRACE       a litifut trace of the run (with its .maps beside it)
 * ORACLE.txt  calltrace.so output (returns=on) for the unrewritten
 *             objects: "<vcpu> <site> <target>" per call and
 *             "<vcpu> r <retaddr>" per return
 *
 * Both become, per thread, a sequence of events at rewritten sites:
 * C(site) for a call, R(site) for the return of a call made at site.
 * The trace's returns close its thread's innermost open call (exact
 * return mode); an oracle "r X" line closes its innermost open call
 * whose return address X is the site + 4 (ARM), + 2 or 4 (Thumb) or + 8
 * (MIPS).  Calls at sites that are not rewritten, and their returns,
 * are left out of the oracle's sequence.  Each oracle vcpu must be the
 * concatenation of some traced threads, in order (qemu gives a new
 * thread the index of one that has exited; a return there that closes a
 * call of the earlier thread is left out).  --moved FROM SIZE TO: an
 * object the oracle's run had at [FROM, FROM+SIZE) and the traced run at
 * TO (hex): the oracle's addresses there are moved by TO - FROM.
 *
 * The sequences must be equal.  --unordered: the oracle closes frames
 * that a C++ exception unwound late (when the catching function
 * returns), so where the sequences differ, the calls must still be
 * equal and the returns equal as a set; the line says how many were
 * in another order.
 *
 * --inferred: the trace has no returns; they are inferred from the
 * calls by the post-processor's own call stack (postproc/callstack.c:
 * a traced call's frame ends where that stack pops it) and the line
 * reports how many of the oracle's returns come at another place in
 * the sequence and by how many events, instead of failing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/reader/callstack.h"
#include "postproc/reader/program.h"
#include "postproc/view.h"
#include "lib/error.h"

struct event { uint32_t site; char kind; };     /* 'C' or 'R' */
#define SIGNAL_MARK UINT32_MAX                  /* (no call site's address) */
struct seq {
    unsigned long id;
    struct event *v;
    size_t n, cap;
    uint32_t *open;                             /* sites of the open calls */
    size_t n_open, cap_open;
};

static void push_event(struct seq *q, char kind, uint32_t site)
{
    if (q->n == q->cap) {
        q->cap = q->cap * 2 + 256;
        q->v = xrealloc(q->v, q->cap * sizeof *q->v);
    }
    q->v[q->n].kind = kind;
    q->v[q->n++].site = site;
}

static void push_open(struct seq *q, uint32_t site)
{
    if (q->n_open == q->cap_open) {
        q->cap_open = q->cap_open * 2 + 64;
        q->open = xrealloc(q->open, q->cap_open * sizeof *q->open);
    }
    q->open[q->n_open++] = site;
}

/* the rewritten sites, runtime addresses, sorted */
static uint32_t *sites;
static size_t n_sites;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int rewritten(uint32_t rt)
{
    return bsearch(&rt, sites, n_sites, sizeof *sites, cmp_u32) != NULL;
}

static struct seq *seq_for(struct seq **v, size_t *n, unsigned long id)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].id == id)
            return &(*v)[i];
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    memset(&(*v)[*n], 0, sizeof **v);
    (*v)[*n].id = id;
    return &(*v)[(*n)++];
}

struct move { uint32_t from, size, to; };
static struct move *moves;
static size_t n_moves;

static uint32_t moved(uint32_t a)
{
    for (size_t i = 0; i < n_moves; i++)
        if (a - moves[i].from < moves[i].size)
            return a - moves[i].from + moves[i].to;
    return a;
}

static void read_oracle(const char *path, struct seq **v, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    char line[256];
    unsigned long vcpu;
    char a[32], b[32];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lu %31s %31s", &vcpu, a, b) != 3)
            continue;
        struct seq *q = seq_for(v, n, vcpu);
        if (strcmp(a, "r") != 0) {
            uint32_t site = moved((uint32_t)strtoul(a, NULL, 16));
            push_open(q, site);
            if (rewritten(site))
                push_event(q, 'C', site);
            continue;
        }
        uint32_t ra = moved((uint32_t)strtoul(b, NULL, 16));
        for (size_t i = q->n_open; i-- > 0;) {
            uint32_t d = ra - q->open[i];
            if (d == 2 || d == 4 || d == 8) {
                if (rewritten(q->open[i]))
                    push_event(q, 'R', q->open[i]);
                memmove(q->open + i, q->open + i + 1, (q->n_open - i - 1) * sizeof *q->open);
                q->n_open--;
                break;
            }
        }
    }
    fclose(f);
}

/* Inferred returns: a view of the post-processor's call stack that
 * writes each traced call's frame as C(site) when pushed, R(site) when
 * popped. */
struct infer_view {
    struct view v;
    struct seq *q;
    const struct program_set *ps;
};

static uint32_t frame_site(const struct infer_view *iv, const struct frame *f)
{
    const struct program *p = &iv->ps->v[f->call.object];
    return (uint32_t)(p->site_addr[f->call.site] + p->bias);   /* (32-bit targets) */
}

/* (a tail jump's frame is no call the oracle sees) */
static void infer_push(struct view *v, struct callstack *s, struct frame *f)
{
    (void)s;
    if (frame_has_site(f) && !f->jump)
        push_event(((struct infer_view *)v)->q, 'C', frame_site((struct infer_view *)v, f));
}

static void infer_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    (void)s;
    (void)end_ns;
    if (frame_has_site(f) && !f->jump)
        push_event(((struct infer_view *)v)->q, 'R', frame_site((struct infer_view *)v, f));
}

/* The trace's events of thread i; with `inferred`, the returns its call
 * stack infers (tf: the trace's functions). */
static void read_trace(struct trace_file *t, size_t i, const struct program_set *ps,
                       struct trace_funcs *tf, int inferred, struct seq *q)
{
    struct trace_cursor c;
    const struct trace_event *e;
    static const struct view_ops ops = { .push = infer_push, .pop = infer_pop };
    struct infer_view iv = { .q = q, .ps = ps };
    struct stack_filters flt = { 0, 0, UINT32_MAX, 0, UINT64_MAX };
    struct callstack s;
    int warned = 0;
    view_init(&iv.v, &ops, NULL, tf->ft);
    if (inferred)
        callstack_init(&s, &iv.v, &flt, tf->ft, t, &t->threads[i], &warned);
    trace_cursor_open(&c, t, i);
    while ((e = trace_cursor_next(&c))) {
        if (inferred) {
            if (e->kind != TRACE_RETURN)
                callstack_feed(&s, tf, e);
            continue;
        }
        /* a signal's handler, an entry (a thread's start routine), is no
         * call at a rewritten site (the oracle sees none): a mark on the
         * open calls, closed by its END record or by a RETURN */
        if (e->kind == TRACE_SIGNAL || e->kind == TRACE_ENTRY) {
            push_open(q, SIGNAL_MARK);
            continue;
        }
        if (e->kind == TRACE_RETURN || e->kind == TRACE_SIGNAL_END || e->kind == TRACE_ENTRY_END) {
            int end = e->kind != TRACE_RETURN;
            while (q->n_open) {
                uint32_t site = q->open[--q->n_open];
                if (site == SIGNAL_MARK)
                    break;
                push_event(q, 'R', site);
                if (!end)
                    break;
            }
            continue;
        }
        if (trace_funcs_is_jump(tf, e))
            continue;           /* a tail jump: no call the oracle sees, no return of its own */
        const struct program *p = &ps->v[e->object];
        uint32_t site = (uint32_t)(p->site_addr[e->site] + p->bias);
        push_open(q, site);
        push_event(q, 'C', site);
    }
    if (inferred) {
        callstack_end(&s, UINT64_MAX);
        callstack_free(&s);
    }
    trace_cursor_close(&c);
}

static int same_events(const struct seq *a, const struct seq *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].kind != b->v[i].kind || a->v[i].site != b->v[i].site)
            return 0;
    return 1;
}

static int cmp_event(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    return x->kind != y->kind ? x->kind - y->kind : cmp_u32(&x->site, &y->site);
}

/* The oracle's `o` and the trace's `t`: calls equal in order, and every
 * return of the oracle's in the trace's (the trace may close frames an
 * exception left that the oracle never closes: the catching function
 * did not return).  Returns how many returns differ in place or
 * presence, or -1. */
static long unordered_equal(const struct seq *o, const struct seq *t)
{
    size_t i = 0, j = 0, no = 0, nt = 0;
    for (;;) {                          /* the calls, in order */
        while (i < o->n && o->v[i].kind != 'C')
            i++;
        while (j < t->n && t->v[j].kind != 'C')
            j++;
        if (i == o->n || j == t->n)
            break;
        if (o->v[i++].site != t->v[j++].site)
            return -1;
    }
    if (i != o->n || j != t->n)
        return -1;
    struct event *x = xcalloc(o->n + 1, sizeof *x), *y = xcalloc(t->n + 1, sizeof *y);
    for (size_t k = 0; k < o->n; k++)
        if (o->v[k].kind == 'R')
            x[no++] = o->v[k];
    for (size_t k = 0; k < t->n; k++)
        if (t->v[k].kind == 'R')
            y[nt++] = t->v[k];
    qsort(x, no, sizeof *x, cmp_event);
    qsort(y, nt, sizeof *y, cmp_event);
    long moved = (long)(nt - no);
    size_t a = 0, b = 0;
    for (; a < no && b < nt; b++)       /* x within y, both sorted */
        if (x[a].site == y[b].site)
            a++;
    if (a < no)
        moved = -1;
    for (size_t k = 0; moved >= 0 && k < o->n && k < t->n; k++)
        moved += o->v[k].kind != t->v[k].kind || o->v[k].site != t->v[k].site;
    free(x);
    free(y);
    return moved;
}

/* Inferred returns: how many of the oracle's returns stand elsewhere,
 * counted in calls: each return's place is the number of calls made
 * before it (inferred returns can only come at a call), and the largest
 * difference. */
static void inferred_report(const struct seq *o, const struct seq *t, size_t *off, size_t *worst,
                            size_t *returns)
{
    size_t n_calls = 0;
    for (size_t i = 0; i < o->n; i++)
        n_calls += o->v[i].kind == 'C';
    size_t *ro = xcalloc(n_calls + 1, sizeof *ro), *rt = xcalloc(n_calls + 1, sizeof *rt);
    for (int which = 0; which < 2; which++) {
        const struct seq *q = which ? t : o;
        size_t *r = which ? rt : ro;
        size_t *stack = xcalloc(q->n + 1, sizeof *stack), sp = 0, call = 0;
        for (size_t i = 0; i < q->n; i++) {
            if (q->v[i].kind == 'C')
                stack[sp++] = call++;
            else if (sp)
                r[stack[--sp]] = call + 1;  /* (0: never returned) */
        }
        free(stack);
    }
    *off = *worst = *returns = 0;
    for (size_t c = 0; c < n_calls; c++) {
        if (!ro[c])
            continue;                       /* the oracle saw no return */
        (*returns)++;
        size_t d = !rt[c] ? n_calls : ro[c] > rt[c] ? ro[c] - rt[c] : rt[c] - ro[c];
        if (d) {
            (*off)++;
            if (d > *worst)
                *worst = d;
        }
    }
    free(ro);
    free(rt);
}

/* Where the part of vcpu `o` from `at` that holds n_calls calls ends:
 * after its n_calls-th call and the returns that follow it. */
static size_t segment_end(const struct seq *o, size_t at, size_t n_calls)
{
    size_t e = at, c = 0;
    while (e < o->n && (o->v[e].kind != 'C' || c < n_calls)) {
        c += o->v[e].kind == 'C';
        e++;
    }
    return e;
}

/* Events [at, end) of vcpu `o`, as one thread's: without the returns of
 * calls made before `at` (an earlier thread on this vcpu: the oracle's
 * stack outlives it, and a later thread returning at the same address
 * closes its calls).  Returns a copy (freed with the process). */
static struct seq own_part(const struct seq *o, size_t at, size_t end)
{
    struct seq q = { .v = xcalloc(end - at + 1, sizeof *q.v) };
    uint32_t *open = xcalloc(end - at + 1, sizeof *open);
    size_t n_open = 0;
    for (size_t e = at; e < end; e++) {
        if (o->v[e].kind == 'C') {
            open[n_open++] = o->v[e].site;
        } else {
            size_t i = n_open;
            while (i > 0 && open[i - 1] != o->v[e].site)
                i--;
            if (!i)
                continue;               /* a call of an earlier thread */
            memmove(open + i - 1, open + i, (n_open - i) * sizeof *open);
            n_open--;
        }
        q.v[q.n++] = o->v[e];
    }
    free(open);
    return q;
}

/* The same calls, in order (inferred returns differ anyway). */
static int calls_equal(const struct seq *a, const struct seq *b)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < a->n && a->v[i].kind != 'C')
            i++;
        while (j < b->n && b->v[j].kind != 'C')
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (a->v[i++].site != b->v[j++].site)
            return 0;
    }
}

int main(int argc, char **argv)
{
    int unordered = 0, inferred = 0;
    struct path_options paths = { 0 };
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--unordered") == 0)
            unordered = 1;
        else if (strcmp(argv[i], "--inferred") == 0)
            inferred = 1;
        else if (strcmp(argv[i], "--binary-dir") == 0 && i + 1 < argc)
            paths.binary_dir = argv[++i];
        else if (strcmp(argv[i], "--moved") == 0 && i + 3 < argc) {
            moves = xrealloc(moves, (n_moves + 1) * sizeof *moves);
            moves[n_moves].from = (uint32_t)strtoul(argv[i + 1], NULL, 16);
            moves[n_moves].size = (uint32_t)strtoul(argv[i + 2], NULL, 16);
            moves[n_moves++].to = (uint32_t)strtoul(argv[i + 3], NULL, 16);
            i += 3;
        }
        else
            break;
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: returns-compare [--unordered] [--inferred] [--binary-dir D] "
                        "TRACE ORACLE.txt\n");
        return 2;
    }
    struct trace_file t;
    struct address_space as;
    struct program_set ps;
    if (trace_open(argv[i], &t) != 0)
        return 2;
    if (inferred)               /* the call stack's rules for a trace without returns */
        t.header.flags &= ~(uint32_t)LITIFUT_TRACE_RETURNS;
    address_space_init(&as, &paths, t.header.word_size);
    address_space_load_maps(&as, t.maps_path);
    if (programs_load(&ps, &as, &t) != 0)
        return 2;
    for (size_t k = 0; k < ps.n; k++) {
        const struct program *p = &ps.v[k];
        if (!p->ok)
            continue;
        sites = xrealloc(sites, (n_sites + p->db.header.n_sites + 1) * sizeof *sites);
        for (size_t s = 0; s < p->db.header.n_sites; s++)
            sites[n_sites++] = (uint32_t)(p->site_addr[s] + p->bias);
    }
    qsort(sites, n_sites, sizeof *sites, cmp_u32);

    struct seq *o = NULL, *tr = xcalloc(t.n_threads + 1, sizeof *tr);
    size_t n_o = 0;
    read_oracle(argv[i + 1], &o, &n_o);
    struct func_table ft;
    struct trace_funcs tf;
    memset(&ft, 0, sizeof ft);
    trace_funcs_init(&tf, &ft, &as, &ps, &t);
    for (size_t k = 0; k < t.n_threads; k++)
        read_trace(&t, k, &ps, &tf, inferred, &tr[k]);
    trace_funcs_free(&tf);
    func_table_free(&ft);
    size_t n_t = 0, calls = 0, returns = 0, moved_returns = 0, off = 0, worst = 0,
           all_returns = 0;
    for (size_t k = 0; k < t.n_threads; k++)
        if (tr[k].n)
            tr[n_t++] = tr[k];
    size_t n_ov = 0;
    for (size_t k = 0; k < n_o; k++)
        if (o[k].n)
            o[n_ov++] = o[k];
    /* each traced thread is the next part of some vcpu: in the order of
     * their first records, but two threads that start together may have
     * taken their vcpus the other way round: one that fits nowhere yet
     * is tried again after the others */
    size_t *pos = xcalloc(n_ov + 1, sizeof *pos);
    size_t *left = xcalloc(n_t + 1, sizeof *left), n_left = n_t;
    for (size_t k = 0; k < n_t; k++)
        left[k] = k;
    while (n_left) {
        int progress = 0;
        for (size_t li = 0; li < n_left;) {
            size_t k = left[li];
            size_t th_calls = 0;
            for (size_t e = 0; e < tr[k].n; e++)
                th_calls += tr[k].v[e].kind == 'C';
            size_t v, end = 0;
            long m = -1;
            for (v = 0; v < n_ov && m < 0; v++) {
                end = segment_end(&o[v], pos[v], th_calls);
                struct seq seg = own_part(&o[v], pos[v], end);
                if (!seg.n)
                    continue;
                if (inferred)
                    m = calls_equal(&seg, &tr[k]) ? 0 : -1;
                else if (same_events(&seg, &tr[k]))
                    m = 0;
                else if (unordered)
                    m = unordered_equal(&seg, &tr[k]);
            }
            if (m < 0) {
                li++;
                continue;
            }
            v--;
            struct seq seg = own_part(&o[v], pos[v], end);
            for (size_t e = 0; e < seg.n; e++) {
                calls += seg.v[e].kind == 'C';
                returns += seg.v[e].kind == 'R';
            }
            if (inferred) {
                size_t f, w, r;
                inferred_report(&seg, &tr[k], &f, &w, &r);
                off += f;
                all_returns += r;
                if (w > worst)
                    worst = w;
            }
            moved_returns += (size_t)m;
            pos[v] = end;
            memmove(left + li, left + li + 1, (n_left - li - 1) * sizeof *left);
            n_left--;
            progress = 1;
        }
        if (!progress) {
            /* say where the vcpu of the same rank differs */
            size_t k = left[0], w = k < n_ov ? k : 0, e = 0, at = pos[w];
            while (at + e < o[w].n && e < tr[k].n && o[w].v[at + e].kind == tr[k].v[e].kind &&
                   o[w].v[at + e].site == tr[k].v[e].site)
                e++;
            printf("returns-compare: traced thread %zu (%zu events) is no vcpu's next part; vcpu %zu "
                   "differs at its event %zu: oracle %c %08" PRIx32 ", trace %c %08" PRIx32 "\n",
                   k, tr[k].n, w, at + e, at + e < o[w].n ? o[w].v[at + e].kind : '-',
                   at + e < o[w].n ? o[w].v[at + e].site : 0, e < tr[k].n ? tr[k].v[e].kind : '-',
                   e < tr[k].n ? tr[k].v[e].site : 0);
            return 1;
        }
    }
    for (size_t v = 0; v < n_ov; v++)
        if (pos[v] != o[v].n) {
            printf("returns-compare: oracle vcpu %zu has %zu events that no traced thread has\n",
                   v, o[v].n - pos[v]);
            return 1;
        }
    if (inferred)
        printf("returns-compare: %zu calls, %zu returns, %zu inferred at another place "
               "(at most %zu calls away)\n", calls, all_returns, off, worst);
    else
        printf("returns-compare: %zu calls and %zu returns equal the oracle's in %zu "
               "thread%s%s\n", calls, returns, n_t, n_t == 1 ? "" : "s",
               moved_returns ? " (some returns in another order: frames left by exceptions)" : "");
    return 0;
}
