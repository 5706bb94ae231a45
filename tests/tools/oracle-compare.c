/*
 * oracle-compare: checks a traced run against the QEMU call oracle.
 *
 *   oracle-compare SITES.tsv BIAS ORACLE.txt TRACE.tsv [SITES.tsv BIAS]...
 *                  [--moved FROM SIZE TO]...
 *
 * SITES.tsv   the rewritten sites of one instrumented object
 *             (OBJECT.litifut/sites.tsv), link-time addresses
 * BIAS        runtime - link-time address of that object (hex)
 * ORACLE.txt  calltrace.so output for the unrewritten objects:
 *             "<vcpu> <site> <target>" per executed call
 * TRACE.tsv   litifut-postproc --format=tsv of the traced run
 *
 * A process may hold several instrumented objects (the executable,
 * shared libraries): each one's SITES.tsv and BIAS, the first before
 * ORACLE.txt, the others after TRACE.tsv.  The rewritten sites are the
 * union of every object's sites at their runtime addresses (link-time
 * + bias).
 *
 * --moved FROM SIZE TO: an object the oracle's run had at [FROM,
 * FROM+SIZE) and the traced run at TO (hex; one loaded with dlopen after
 * the tracer had mapped its own files lands elsewhere): the oracle's
 * sites and targets in that range are moved by TO - FROM before
 * comparing.
 *
 * The oracle's calls at rewritten sites, per vcpu, must equal the
 * traced calls, per thread, in order: same sites, same targets.  Each
 * oracle vcpu must be the concatenation of some traced threads (qemu
 * gives a new thread the index of one that has exited), in order.
 * Every object must have at least one call (a wrong bias would
 * otherwise leave its sites out unnoticed).  On success one line:
 * the number of calls and threads, and with several objects the calls
 * at each one's sites.
 *
 * If an object's directory also holds untraced.tsv (the calls the
 * rewriter could not redirect), the line also says how many of the
 * oracle's calls were at those sites: the share of executed calls in
 * the instrumented code that the trace holds.
 *
 * --pairs, --counts (before SITES.tsv): TRACE.tsv is a dedup or count
 * trace's pairs (litifut-postproc --format=tsv: pid calls first_ns
 * site_rt target_rt ...): its (site, target) pairs must be exactly the
 * distinct pairs of the oracle's calls at rewritten sites, and with
 * --counts each pair's calls the oracle's number of them.  A site
 * where a QEMU artefact (below) hides the target is compared as a
 * site: some pair (dedup), or its calls added up (count).
 *
 * --ring, --ring-any (before SITES.tsv): TRACE.tsv is a flight
 * recorder's (LITIFUT_MODE=ring), which holds the last calls of each
 * thread: each traced thread's calls must be a stretch of one oracle
 * vcpu's calls, in order, and with --ring every oracle vcpu's calls must
 * end with a traced thread's (the oracle's run ran to the same end as
 * the traced one).  --ring-any (a run killed at a random moment, whose
 * oracle ran on to its end) asks only for the stretches.
 *
 * --tree (before SITES.tsv): ORACLE.txt has returns too (calltrace.so
 * returns=on: "<vcpu> r <retaddr>", one line per call it closes,
 * innermost first) and TRACE.tsv the calls TSV's parent column: the
 * call tree the views draw must be the oracle's, restricted to the
 * rewritten sites (a call elsewhere left out, its callees moved up to
 * its nearest kept caller): besides the sites and targets, each call's
 * depth in that tree (the number of kept calls open around it in the
 * oracle's run; its chain of parents in the trace) must be the same.
 * Depths are compared from each thread's first call (a vcpu reused by
 * a later thread still holds the earlier one's calls that never
 * returned).
 *
 * --exact (before SITES.tsv): ORACLE.txt is another reader's calls
 * (litifut-emu's, as oracle lines) that the artefacts below must not
 * touch: every target must be the traced one.
 *
 * Two QEMU artefacts are allowed for, both where the oracle takes the
 * wrong block for the call's target:
 *  - a call into the ARM kernel user helpers (0xffff0f60..0xffff0fff)
 *    runs no guest code there, so the oracle sees it "reach" its own
 *    return address;
 *  - a MIPS call whose delay slot starts a new page: QEMU ends the block
 *    at the branch and runs the delay slot as a block of its own, which
 *    the oracle takes for the target.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct call { uint64_t site, target; uint32_t depth; };
/* --tree: a vcpu's open calls (every call the oracle logged) and how
 * many of them are kept; a thread's depth per seq */
struct open_call { uint64_t site; int kept; };
struct seq {
    unsigned long id;
    struct call *v;
    size_t n, cap;
    int matched;
    struct open_call *open;
    size_t n_open, cap_open;
    uint32_t kept_open;
    uint32_t *depth_of;             /* (the trace's: by seq) */
    size_t cap_depth;
};
struct seqs { struct seq *v; size_t n; };

/* a rewritten site at its runtime address, and the object it is in; a
 * tail jump's site (its kind's name ends in "jump": the oracle logs no
 * call there) is one of the jump sites, whose rows the trace's calls
 * leave out (their calls moved up to the jumper's, as the oracle sees
 * a jumped-to function's calls) */
struct site { uint64_t rt; size_t object; };
struct object { const char *name; size_t n_sites, n_calls; };
struct move { uint64_t from, size, to; };

static struct site *sites;
static size_t n_sites, sites_cap;
static uint64_t *jumps;
static size_t n_jumps, jumps_cap;
static struct object *objects;
static size_t n_objects;
static uint64_t *untraced;      /* runtime addresses of untraced calls */
static size_t n_untraced, untraced_cap, untraced_calls;
static int have_untraced;
static struct move *moves;
static size_t n_moves;

static int cmp_site(const void *a, const void *b)
{
    uint64_t x = ((const struct site *)a)->rt, y = ((const struct site *)b)->rt;
    return x < y ? -1 : x > y;
}

static const struct site *find_site(uint64_t rt)
{
    struct site key = { rt, 0 };
    return bsearch(&key, sites, n_sites, sizeof *sites, cmp_site);
}

/* An oracle address as the traced run had it. */
static uint64_t moved(uint64_t a)
{
    for (size_t i = 0; i < n_moves; i++)
        if (a - moves[i].from < moves[i].size)
            return a - moves[i].from + moves[i].to;
    return a;
}

static uint64_t hex_arg(const char *s, const char *what)
{
    char *end;
    if (strncmp(s, "0x", 2) == 0 || strncmp(s, "0X", 2) == 0)
        s += 2;
    unsigned long long v = strtoull(s, &end, 16);
    if (!*s || *end) {
        fprintf(stderr, "oracle-compare: %s: not a hex number: %s\n", what, s);
        exit(2);
    }
    return (uint64_t)v;
}

static int tree_mode;           /* --tree: depths compared too */

static struct seq *seq_for(struct seqs *s, unsigned long id)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].id == id)
            return &s->v[i];
    s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
    memset(&s->v[s->n], 0, sizeof s->v[s->n]);
    s->v[s->n].id = id;
    return &s->v[s->n++];
}

static void push(struct seq *q, uint64_t site, uint64_t target, uint32_t depth)
{
    if (q->n == q->cap) {
        q->cap = q->cap * 2 + 1024;
        q->v = realloc(q->v, q->cap * sizeof *q->v);
    }
    q->v[q->n++] = (struct call){ site, target, depth };
}

static FILE *open_or_die(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "oracle-compare: cannot open %s\n", path);
        exit(2);
    }
    return f;
}

static int exact_targets;       /* --exact: no QEMU artefact allowed for */

static int same_call(const struct call *traced, const struct call *oracle)
{
    if (traced->site != oracle->site)
        return 0;
    if (traced->target == oracle->target)
        return 1;
    if (exact_targets)
        return 0;
    if (traced->target >= 0xffff0f60u && oracle->target == traced->site + 4)
        return 1;
    return oracle->target == traced->site + 4 && (oracle->target & 0xfff) == 0;
}

/* --tree: call i of thread t at the depth of o's call at + i, both
 * counted from the thread's first call */
static int same_depth(const struct seq *t, const struct seq *o, size_t at, size_t i)
{
    return !tree_mode ||
           (int64_t)o->v[at + i].depth - o->v[at].depth == (int64_t)t->v[i].depth - t->v[0].depth;
}

/* 1 if thread t's calls equal o's from position `at` on. */
static int matches_at(const struct seq *t, const struct seq *o, size_t at)
{
    if (o->n - at < t->n)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        if (!same_call(&t->v[i], &o->v[at + i]) || !same_depth(t, o, at, i))
            return 0;
    return 1;
}

/* How many calls of t agree with o from `at`: for the report. */
static size_t agreement(const struct seq *t, const struct seq *o, size_t at)
{
    size_t i = 0;
    while (i < t->n && at + i < o->n && same_call(&t->v[i], &o->v[at + i]) &&
           same_depth(t, o, at, i))
        i++;
    return i;
}

/* The name an object is reported by: OBJECT of OBJECT.litifut/sites.tsv. */
static const char *object_name(const char *sites_path)
{
    const char *suffix = ".litifut/sites.tsv";
    size_t n = strlen(sites_path), k = strlen(suffix);
    if (n <= k || strcmp(sites_path + n - k, suffix) != 0)
        return sites_path;
    size_t start = n - k;
    while (start > 0 && sites_path[start - 1] != '/')
        start--;
    char *name = malloc(n - k - start + 1);
    memcpy(name, sites_path + start, n - k - start);
    name[n - k - start] = 0;
    return name;
}

static char line[4096];

static void read_sites(const char *path, uint64_t bias)
{
    FILE *f = open_or_die(path);
    objects = realloc(objects, (n_objects + 1) * sizeof *objects);
    objects[n_objects] = (struct object){ object_name(path), 0, 0 };
    if (!fgets(line, sizeof line, f) || strncmp(line, "site\t", 5) != 0) {
        fprintf(stderr, "oracle-compare: %s: not a sites.tsv (no header)\n", path);
        exit(2);
    }
    while (fgets(line, sizeof line, f)) {
        char kind[64] = "";
        sscanf(line, "%*s %63s", kind);
        size_t k = strlen(kind);
        if (k >= 4 && strcmp(kind + k - 4, "jump") == 0) {
            if (n_jumps == jumps_cap)
                jumps = realloc(jumps, (jumps_cap = jumps_cap * 2 + 256) * sizeof *jumps);
            jumps[n_jumps++] = (uint64_t)strtoull(line, NULL, 16) + bias;
            continue;
        }
        if (n_sites == sites_cap)
            sites = realloc(sites, (sites_cap = sites_cap * 2 + 1024) * sizeof *sites);
        sites[n_sites++] = (struct site){ (uint64_t)strtoull(line, NULL, 16) + bias, n_objects };
        objects[n_objects].n_sites++;
    }
    fclose(f);
    n_objects++;
    /* untraced.tsv beside it, if the rewriter wrote one */
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    char *u = malloc((size_t)dir_len + sizeof "untraced.tsv");
    sprintf(u, "%.*suntraced.tsv", dir_len, path);
    f = fopen(u, "r");
    free(u);
    if (!f)
        return;
    have_untraced = 1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0x", 2) != 0)
            continue;
        if (n_untraced == untraced_cap)
            untraced = realloc(untraced, (untraced_cap = untraced_cap * 2 + 256) * sizeof *untraced);
        untraced[n_untraced++] = (uint64_t)strtoull(line, NULL, 16) + bias;
    }
    fclose(f);
}

static int cmp_u32(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int is_jump_site(uint64_t rt)
{
    return n_jumps && bsearch(&rt, jumps, n_jumps, sizeof *jumps, cmp_u32);
}

/* --tree: a call the oracle logged, kept (at a rewritten site) or not */
static void oracle_call(struct seq *q, uint64_t site, int kept)
{
    if (q->n_open == q->cap_open) {
        q->cap_open = q->cap_open * 2 + 256;
        q->open = realloc(q->open, q->cap_open * sizeof *q->open);
    }
    q->open[q->n_open++] = (struct open_call){ site, kept };
    q->kept_open += kept;
}

/* --tree: an "r" line: the innermost open call returning to `ra`
 * (site + 4 ARM and AArch64, + 2 or 4 Thumb, + 8 MIPS) is closed */
static void oracle_return(struct seq *q, uint64_t ra)
{
    for (size_t i = q->n_open; i-- > 0;) {
        uint64_t d = ra - q->open[i].site;
        if (d == 2 || d == 4 || d == 8) {
            q->kept_open -= q->open[i].kept;
            memmove(q->open + i, q->open + i + 1, (q->n_open - i - 1) * sizeof *q->open);
            q->n_open--;
            return;
        }
    }
}

/* --tree: the depth of call `seq` of a thread from its row's last field
 * (parent: a seq, or "-" for none); a tail jump's row (`jump`) is no
 * level of its own: its calls are its parent's children */
static uint32_t traced_depth(struct seq *q, unsigned long seq, const char *row, int jump)
{
    const char *last = strrchr(row, '\t');
    uint32_t depth = 0;
    if (last && last[1] != '-') {
        unsigned long parent = strtoul(last + 1, NULL, 10);
        if (parent >= seq || parent >= q->cap_depth) {
            fprintf(stderr, "oracle-compare: thread %lu call %lu: parent %lu is no earlier call\n",
                    q->id, seq, parent);
            exit(1);
        }
        depth = q->depth_of[parent] + 1;
    }
    if (seq >= q->cap_depth) {
        size_t cap = q->cap_depth;
        q->cap_depth = seq * 2 + 1024;
        q->depth_of = realloc(q->depth_of, q->cap_depth * sizeof *q->depth_of);
        memset(q->depth_of + cap, 0, (q->cap_depth - cap) * sizeof *q->depth_of);
    }
    q->depth_of[seq] = depth - (uint32_t)jump;     /* (a root jump's: -1, so its callees 0) */
    return depth;
}

static void usage(void)
{
    fprintf(stderr, "usage: oracle-compare [--pairs|--counts|--ring|--ring-any|--tree|--exact] SITES.tsv BIAS ORACLE.txt TRACE.tsv [SITES.tsv BIAS]... "
                    "[--moved FROM SIZE TO]...\n");
    exit(2);
}

struct pair { uint64_t site, target; unsigned long long calls; };

static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return x->target < y->target ? -1 : x->target > y->target;
}

/* Sorted, equal pairs merged (calls added). */
static size_t merge_pairs(struct pair *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_pair);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k && !cmp_pair(&v[k - 1], &v[i]))
            v[k - 1].calls += v[i].calls;
        else
            v[k++] = v[i];
    return k;
}

/* The calls of site `site` in v[n] (sorted), added up; *first its first index. */
static unsigned long long site_calls(const struct pair *v, size_t n, uint64_t site, size_t *pairs)
{
    unsigned long long c = 0;
    *pairs = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].site == site) {
            c += v[i].calls;
            ++*pairs;
        }
    return c;
}

static int compare_pairs(struct seqs *oracle, const char *trace_tsv, int counts)
{
    struct pair *o = NULL, *t = NULL;
    size_t no = 0, nt = 0, cap = 0;
    uint64_t *fuzzy = NULL;             /* sites whose oracle target is an artefact */
    size_t n_fuzzy = 0;
    for (size_t j = 0; j < oracle->n; j++)
        for (size_t i = 0; i < oracle->v[j].n; i++) {
            struct call c = oracle->v[j].v[i];
            if (c.target == c.site + 4) {
                fuzzy = realloc(fuzzy, (n_fuzzy + 1) * sizeof *fuzzy);
                fuzzy[n_fuzzy++] = c.site;
            }
            if (no == cap) {
                cap = cap * 2 + 1024;
                o = realloc(o, cap * sizeof *o);
            }
            o[no++] = (struct pair){ c.site, c.target, 1 };
        }
    no = merge_pairs(o, no);
    FILE *f = open_or_die(trace_tsv);
    fgets(line, sizeof line, f);                    /* header */
    cap = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long pid;
        char calls[32];
        unsigned long long ns;
        uint64_t site, target;
        if (sscanf(line, "%lu\t%31[^\t]\t%llu\t%" SCNx64 "\t%" SCNx64, &pid, calls, &ns, &site,
                   &target) != 5 || is_jump_site(site))
            continue;
        if (nt == cap) {
            cap = cap * 2 + 1024;
            t = realloc(t, cap * sizeof *t);
        }
        t[nt++] = (struct pair){ site, target, strtoull(calls, NULL, 10) };
    }
    fclose(f);
    size_t nt_all = nt;
    nt = merge_pairs(t, nt);
    if (nt != nt_all) {
        fprintf(stderr, "oracle-compare: the trace has %zu pairs twice\n", nt_all - nt);
        return 1;
    }
    if (n_fuzzy)
        qsort(fuzzy, n_fuzzy, sizeof *fuzzy, cmp_u32);
#define IS_FUZZY(s) (n_fuzzy && bsearch(&(s), fuzzy, n_fuzzy, sizeof *fuzzy, cmp_u32))
    unsigned long long calls = 0;
    size_t fuzzy_sites = 0;
    for (size_t i = 0; i < no; i++) {
        calls += o[i].calls;
        if (IS_FUZZY(o[i].site)) {
            if (i && o[i - 1].site == o[i].site)
                continue;
            size_t pairs;
            unsigned long long oc = site_calls(o, no, o[i].site, &pairs);
            unsigned long long tc = site_calls(t, nt, o[i].site, &pairs);
            if (!pairs || (counts && oc != tc)) {
                fprintf(stderr, "oracle-compare: site %08" PRIx64 ": the oracle has %llu calls, "
                                "the trace %zu pairs with %llu\n", o[i].site, oc, pairs, tc);
                return 1;
            }
            fuzzy_sites++;
            continue;
        }
        struct pair *m = bsearch(&o[i], t, nt, sizeof *t, cmp_pair);
        if (!m || (counts && m->calls != o[i].calls)) {
            fprintf(stderr, "oracle-compare: site %08" PRIx64 " target %08" PRIx64 ": the oracle "
                            "has %llu calls, the trace %s %llu\n", o[i].site, o[i].target,
                    o[i].calls, m ? "counts" : "has no such pair;", m ? m->calls : 0ull);
            return 1;
        }
    }
    for (size_t i = 0; i < nt; i++)
        if (!IS_FUZZY(t[i].site) && !bsearch(&t[i], o, no, sizeof *o, cmp_pair)) {
            fprintf(stderr, "oracle-compare: the trace has site %08" PRIx64 " target %08" PRIx64
                            ", which the oracle never called\n", t[i].site, t[i].target);
            return 1;
        }
    for (size_t i = 0; i < n_objects; i++)
        if (objects[i].n_calls == 0) {
            fprintf(stderr, "oracle-compare: %s: no call at any of its %zu sites (wrong bias?)\n",
                    objects[i].name, objects[i].n_sites);
            return 1;
        }
    printf("oracle-compare: %zu distinct pairs%s equal the oracle's (%llu calls)", no,
           counts ? " and their counts" : "", calls);
    if (fuzzy_sites)
        printf("; %zu sites compared as sites (a QEMU artefact hides the target)", fuzzy_sites);
    printf("\n");
    free(o);
    free(t);
    free(fuzzy);
    return 0;
}

/* --ring, --ring-any: each traced thread a stretch of a vcpu; with
 * `suffix`, each vcpu ending with one. */
static int compare_ring(struct seqs *oracle, struct seqs *traced, int suffix)
{
    size_t total = 0, oracle_total = 0;
    for (size_t j = 0; j < oracle->n; j++)
        oracle_total += oracle->v[j].n;
    for (size_t i = 0; i < traced->n; i++) {
        struct seq *t = &traced->v[i];
        if (!t->n)
            continue;
        size_t best = 0;
        for (size_t j = 0; j < oracle->n && !t->matched; j++)     /* its end first */
            if (oracle->v[j].n >= t->n && matches_at(t, &oracle->v[j], oracle->v[j].n - t->n))
                t->matched = oracle->v[j].matched = 1;
        for (size_t j = 0; j < oracle->n && !t->matched; j++) {
            struct seq *o = &oracle->v[j];
            for (size_t at = 0; at + t->n <= o->n && !t->matched; at++) {
                size_t a = agreement(t, o, at);
                if (a > best)
                    best = a;
                if (a == t->n) {
                    t->matched = 1;
                    if (at + t->n == o->n)
                        o->matched = 1;        /* (its end) */
                }
            }
        }
        if (!t->matched) {
            fprintf(stderr, "oracle-compare: ring: thread %lu's %zu calls are no stretch of any "
                            "oracle vcpu's (at best %zu agree)\n", t->id, t->n, best);
            return 1;
        }
        total += t->n;
    }
    for (size_t j = 0; j < oracle->n && suffix; j++)
        if (oracle->v[j].n && !oracle->v[j].matched) {
            fprintf(stderr, "oracle-compare: ring: oracle vcpu %lu's last calls (%zu in all) "
                            "end no traced thread\n", oracle->v[j].id, oracle->v[j].n);
            return 1;
        }
    printf("oracle-compare: ring: %zu calls in %zu threads equal the oracle's%s (of %zu)\n", total,
           traced->n, suffix ? " last" : "", oracle_total);
    return 0;
}

int main(int argc, char **argv)
{
    int pairs_mode = 0;             /* 1: --pairs, 2: --counts */
    int ring_mode = 0;              /* 1: --ring, 2: --ring-any */
    if (argc > 1 && (strcmp(argv[1], "--pairs") == 0 || strcmp(argv[1], "--counts") == 0)) {
        pairs_mode = strcmp(argv[1], "--pairs") == 0 ? 1 : 2;
        argv++;
        argc--;
    } else if (argc > 1 && strcmp(argv[1], "--tree") == 0) {
        tree_mode = 1;
        argv++;
        argc--;
    } else if (argc > 1 && strcmp(argv[1], "--exact") == 0) {
        exact_targets = 1;
        argv++;
        argc--;
    } else if (argc > 1 && (strcmp(argv[1], "--ring") == 0 || strcmp(argv[1], "--ring-any") == 0)) {
        ring_mode = strcmp(argv[1], "--ring") == 0 ? 1 : 2;
        argv++;
        argc--;
    }
    if (argc < 5)
        usage();
    read_sites(argv[1], hex_arg(argv[2], "bias"));
    for (int i = 5; i < argc;) {
        if (strcmp(argv[i], "--moved") == 0) {
            if (i + 4 > argc)
                usage();
            moves = realloc(moves, (n_moves + 1) * sizeof *moves);
            moves[n_moves++] = (struct move){ hex_arg(argv[i + 1], "--moved FROM"),
                                              hex_arg(argv[i + 2], "--moved SIZE"),
                                              hex_arg(argv[i + 3], "--moved TO") };
            i += 4;
        } else {
            if (i + 2 > argc)
                usage();
            read_sites(argv[i], hex_arg(argv[i + 1], "bias"));
            i += 2;
        }
    }
    qsort(sites, n_sites, sizeof *sites, cmp_site);
    if (n_jumps)
        qsort(jumps, n_jumps, sizeof *jumps, cmp_u32);
    if (n_untraced)
        qsort(untraced, n_untraced, sizeof *untraced, cmp_u32);
    for (size_t i = 1; i < n_sites; i++)
        if (sites[i].rt == sites[i - 1].rt) {
            fprintf(stderr, "oracle-compare: %s and %s both have a site at %08" PRIx64
                            " (wrong biases?)\n",
                    objects[sites[i - 1].object].name, objects[sites[i].object].name, sites[i].rt);
            return 2;
        }

    struct seqs oracle = { 0 }, traced = { 0 };
    FILE *f = open_or_die(argv[3]);
    while (fgets(line, sizeof line, f)) {
        unsigned long vcpu;
        uint64_t site, target;
        if (tree_mode && sscanf(line, "%lu r %" SCNx64, &vcpu, &target) == 2) {
            oracle_return(seq_for(&oracle, vcpu), moved(target));
            continue;
        }
        if (sscanf(line, "%lu %" SCNx64 " %" SCNx64, &vcpu, &site, &target) != 3)
            continue;
        site = moved(site);
        const struct site *s = find_site(site);
        if (tree_mode)
            oracle_call(seq_for(&oracle, vcpu), site, s != NULL);
        if (s) {
            struct seq *q = seq_for(&oracle, vcpu);
            push(q, site, moved(target), q->kept_open - 1);
            objects[s->object].n_calls++;
        } else if (n_untraced && bsearch(&site, untraced, n_untraced, sizeof *untraced, cmp_u32)) {
            untraced_calls++;
        }
    }
    fclose(f);
    if (pairs_mode)
        return compare_pairs(&oracle, argv[4], pairs_mode == 2);
    f = open_or_die(argv[4]);
    fgets(line, sizeof line, f);                    /* header */
    while (fgets(line, sizeof line, f)) {
        unsigned long pid, tid, seq;
        uint64_t site, target;
        if (sscanf(line, "%lu\t%lu\t%lu\t%" SCNx64 "\t%" SCNx64, &pid, &tid, &seq, &site,
                   &target) == 5) {
            struct seq *q = seq_for(&traced, tid);
            int jump = is_jump_site(site);
            uint32_t depth = tree_mode ? traced_depth(q, seq, line, jump) : 0;
            if (!jump)
                push(q, site, target, depth);
        }
    }
    fclose(f);
    if (ring_mode)
        return compare_ring(&oracle, &traced, ring_mode == 1);

    /* Cover each vcpu's sequence with traced threads, in order. */
    size_t total = 0;
    int bad = 0;
    for (size_t j = 0; j < oracle.n && !bad; j++) {
        struct seq *o = &oracle.v[j];
        size_t at = 0;
        while (at < o->n) {
            size_t i;
            for (i = 0; i < traced.n; i++)
                if (!traced.v[i].matched && traced.v[i].n && matches_at(&traced.v[i], o, at))
                    break;
            if (i == traced.n) {
                size_t best = 0, best_i = 0;
                for (i = 0; i < traced.n; i++) {
                    size_t a = traced.v[i].matched ? 0 : agreement(&traced.v[i], o, at);
                    if (a >= best) {
                        best = a;
                        best_i = i;
                    }
                }
                fprintf(stderr, "oracle-compare: oracle vcpu %lu, call %zu (site %08" PRIx64
                                " target %08" PRIx64 "): no traced thread continues it",
                        o->id, at, o->v[at].site, o->v[at].target);
                if (best_i < traced.n && traced.n) {
                    const struct seq *t = &traced.v[best_i];
                    fprintf(stderr, "; thread %lu agrees for %zu calls", t->id, best);
                    if (best < t->n)
                        fprintf(stderr, ", then traced site %08" PRIx64 " target %08" PRIx64,
                                t->v[best].site, t->v[best].target);
                    if (tree_mode && best < t->n && at + best < o->n)
                        fprintf(stderr, " at depth %u (seq %zu), the oracle's site %08" PRIx64
                                        " at depth %u",
                                t->v[best].depth - t->v[0].depth, best, o->v[at + best].site,
                                o->v[at + best].depth - o->v[at].depth);
                }
                fprintf(stderr, "\n");
                bad = 1;
                break;
            }
            traced.v[i].matched = 1;
            at += traced.v[i].n;
            total += traced.v[i].n;
        }
    }
    for (size_t i = 0; i < traced.n && !bad; i++)
        if (!traced.v[i].matched && traced.v[i].n) {
            fprintf(stderr, "oracle-compare: thread %lu: %zu traced calls the oracle did not see "
                            "(first: site %08" PRIx64 " target %08" PRIx64 ")\n",
                    traced.v[i].id, traced.v[i].n, traced.v[i].v[0].site, traced.v[i].v[0].target);
            bad = 1;
        }
    for (size_t i = 0; i < n_objects && !bad; i++)
        if (objects[i].n_calls == 0) {
            fprintf(stderr, "oracle-compare: %s: no call at any of its %zu sites (wrong bias?)\n",
                    objects[i].name, objects[i].n_sites);
            bad = 1;
        }
    if (bad)
        return 1;
    printf("oracle-compare: %zu calls in %zu threads equal the oracle's%s", total, traced.n,
           tree_mode ? ", nested as its calls and returns nest them" : "");
    for (size_t i = 0; i < n_objects && n_objects > 1; i++)
        printf("%s%s %zu", i ? ", " : " (", objects[i].name, objects[i].n_calls);
    printf("%s", n_objects > 1 ? ")" : "");
    if (have_untraced)
        printf("; %zu at untraced sites: %.2f%% of executed calls traced", untraced_calls,
               100.0 * (double)total / (double)(total + untraced_calls ? total + untraced_calls : 1));
    printf("\n");
    return 0;
}
