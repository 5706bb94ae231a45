/*
 * oracle-compare: checks a traced run against the QEMU call oracle.
 *
 *   oracle-compare SITES.tsv BIAS ORACLE.txt TRACE.tsv
 *
 * SITES.tsv   the rewritten sites (OUTPUT.litifut/sites.tsv), link-time
 * BIAS        runtime - link-time address of the program (hex)
 * ORACLE.txt  calltrace.so output for the unrewritten program:
 *             "<vcpu> <site> <target>" per executed call
 * TRACE.tsv   litifut-postproc --format=tsv of the traced run
 *
 * The oracle's calls at rewritten sites, per vcpu, must equal the
 * traced calls, per thread, in order: same sites, same targets.  Each
 * oracle vcpu must be the concatenation of some traced threads (qemu
 * gives a new thread the index of one that has exited), in order.
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

struct call { uint32_t site, target; };
struct seq { unsigned long id; struct call *v; size_t n, cap; int matched; };
struct seqs { struct seq *v; size_t n; };

static uint32_t *sites;
static size_t n_sites;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int is_site(uint32_t rt)
{
    return bsearch(&rt, sites, n_sites, sizeof *sites, cmp_u32) != NULL;
}

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

static void push(struct seq *q, uint32_t site, uint32_t target)
{
    if (q->n == q->cap) {
        q->cap = q->cap * 2 + 1024;
        q->v = realloc(q->v, q->cap * sizeof *q->v);
    }
    q->v[q->n++] = (struct call){ site, target };
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

static int same_call(const struct call *traced, const struct call *oracle)
{
    if (traced->site != oracle->site)
        return 0;
    if (traced->target == oracle->target)
        return 1;
    if (traced->target >= 0xffff0f60u && oracle->target == traced->site + 4)
        return 1;
    return oracle->target == traced->site + 4 && (oracle->target & 0xfff) == 0;
}

/* 1 if thread t's calls equal o's from position `at` on. */
static int matches_at(const struct seq *t, const struct seq *o, size_t at)
{
    if (o->n - at < t->n)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        if (!same_call(&t->v[i], &o->v[at + i]))
            return 0;
    return 1;
}

/* How many calls of t agree with o from `at`: for the report. */
static size_t agreement(const struct seq *t, const struct seq *o, size_t at)
{
    size_t i = 0;
    while (i < t->n && at + i < o->n && same_call(&t->v[i], &o->v[at + i]))
        i++;
    return i;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: oracle-compare SITES.tsv BIAS ORACLE.txt TRACE.tsv\n");
        return 2;
    }
    uint32_t bias = (uint32_t)strtoul(argv[2], NULL, 16);
    char line[4096];
    FILE *f = open_or_die(argv[1]);
    fgets(line, sizeof line, f);                    /* header */
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (n_sites == cap)
            sites = realloc(sites, (cap = cap * 2 + 1024) * sizeof *sites);
        sites[n_sites++] = (uint32_t)strtoul(line, NULL, 16) + bias;
    }
    fclose(f);
    qsort(sites, n_sites, sizeof *sites, cmp_u32);

    struct seqs oracle = { 0 }, traced = { 0 };
    f = open_or_die(argv[3]);
    while (fgets(line, sizeof line, f)) {
        unsigned long vcpu;
        uint32_t site, target;
        if (sscanf(line, "%lu %" SCNx32 " %" SCNx32, &vcpu, &site, &target) == 3 && is_site(site))
            push(seq_for(&oracle, vcpu), site, target);
    }
    fclose(f);
    f = open_or_die(argv[4]);
    fgets(line, sizeof line, f);                    /* header */
    while (fgets(line, sizeof line, f)) {
        unsigned long pid, tid, seq;
        uint32_t site, target;
        if (sscanf(line, "%lu\t%lu\t%lu\t%" SCNx32 "\t%" SCNx32, &pid, &tid, &seq, &site,
                   &target) == 5)
            push(seq_for(&traced, tid), site, target);
    }
    fclose(f);

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
                fprintf(stderr, "oracle-compare: oracle vcpu %lu, call %zu (site %08" PRIx32
                                " target %08" PRIx32 "): no traced thread continues it",
                        o->id, at, o->v[at].site, o->v[at].target);
                if (best_i < traced.n && traced.n) {
                    const struct seq *t = &traced.v[best_i];
                    fprintf(stderr, "; thread %lu agrees for %zu calls", t->id, best);
                    if (best < t->n)
                        fprintf(stderr, ", then traced site %08" PRIx32 " target %08" PRIx32,
                                t->v[best].site, t->v[best].target);
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
                            "(first: site %08" PRIx32 " target %08" PRIx32 ")\n",
                    traced.v[i].id, traced.v[i].n, traced.v[i].v[0].site, traced.v[i].v[0].target);
            bad = 1;
        }
    if (!bad)
        printf("oracle-compare: %zu calls in %zu threads equal the oracle's\n", total, traced.n);
    return bad;
}
