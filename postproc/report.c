#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"
#include "error.h"

struct summary_entry {
    char *callee;
    unsigned long long calls;
};

/* Where an address is, for printing. */
struct place {
    const char *obj;            /* path as mapped, or "?" */
    uint32_t addr;              /* link-time */
    int known;
    const struct func_symbol *sym;
    uint32_t off;
};

static const char *exe_path(const struct program *p)
{
    return p->obj->path;
}

static void place_in_exe(const struct program *p, uint32_t link, struct place *pl)
{
    pl->obj = exe_path(p);
    pl->addr = link;
    pl->known = 1;
    pl->sym = object_symbol(p->obj, link, &pl->off);
}

static void place_of(struct address_space *as, const struct program *p, uint32_t rt,
                     struct place *pl)
{
    struct object *o;
    uint32_t link;
    memset(pl, 0, sizeof *pl);
    if (resolve_address(as, rt, &o, &link) == 0) {
        pl->obj = o->path;
        pl->addr = link;
        pl->known = 1;
        pl->sym = object_symbol(o, link, &pl->off);
    } else if (!as->n_maps && elf_bytes_at(&p->obj->img, rt - p->bias, 4)) {
        place_in_exe(p, rt - p->bias, pl);      /* no maps: the executable still is known */
    } else {
        pl->obj = "?";
    }
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "name", "name+0x1c"; for another object than the program, " (lib)". */
static void describe(char *buf, size_t size, const struct place *pl, const struct program *p)
{
    int n;
    if (!pl->sym)
        n = snprintf(buf, size, "0x%08" PRIx32, pl->addr);
    else if (pl->off)
        n = snprintf(buf, size, "%s+0x%" PRIx32, pl->sym->name, pl->off);
    else
        n = snprintf(buf, size, "%s", pl->sym->name);
    if (pl->known && strcmp(pl->obj, exe_path(p)) != 0 && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, " (%s)", base_name(pl->obj));
}

static size_t hash(const char *s)
{
    size_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static void count_callee(struct report *r, const char *callee)
{
    if (r->n_entries * 2 >= r->n_buckets) {          /* grow and rehash */
        r->n_buckets = r->n_buckets ? r->n_buckets * 2 : 1024;
        free(r->buckets);
        r->buckets = xmalloc(r->n_buckets * sizeof *r->buckets);
        for (size_t i = 0; i < r->n_buckets; i++)
            r->buckets[i] = SIZE_MAX;
        for (size_t i = 0; i < r->n_entries; i++) {
            size_t b = hash(r->entries[i].callee) & (r->n_buckets - 1);
            while (r->buckets[b] != SIZE_MAX)
                b = (b + 1) & (r->n_buckets - 1);
            r->buckets[b] = i;
        }
    }
    size_t b = hash(callee) & (r->n_buckets - 1);
    while (r->buckets[b] != SIZE_MAX) {
        struct summary_entry *e = &r->entries[r->buckets[b]];
        if (strcmp(e->callee, callee) == 0) {
            e->calls++;
            return;
        }
        b = (b + 1) & (r->n_buckets - 1);
    }
    if (r->n_entries == r->cap) {
        r->cap = r->cap * 2 + 256;
        r->entries = xrealloc(r->entries, r->cap * sizeof *r->entries);
    }
    r->entries[r->n_entries] = (struct summary_entry){ xstrdup(callee), 1 };
    r->buckets[b] = r->n_entries++;
}

void report_begin(struct report *r)
{
    if (r->format == REPORT_TSV)
        fprintf(r->out, "pid\ttid\tseq\tsite_rt\ttarget_rt\tsite_obj\tsite_addr\tsite_sym\t"
                        "target_obj\ttarget_addr\ttarget_sym\n");
}

static void print_sym(FILE *out, const struct place *pl)
{
    if (pl->sym)
        fprintf(out, "%s+0x%" PRIx32, pl->sym->name, pl->off);
    else
        fputc('?', out);
}

static void print_info(FILE *out, const struct trace_file *t, const struct program *p)
{
    const struct litifut_trace_header *h = &t->header;
    fprintf(out, "trace=%s\nexe=%s\npid=%" PRIu32 "\narch=%s\nendian=%s\nload_bias=0x%08" PRIx32
                 "\nchunk_size=%" PRIu32 "\ntime_every=%" PRIu32 "\nsites=%" PRIu32
                 "\nthreads=%zu\ncalls=%zu\nrecord_bytes=%" PRIu64 "\ndb_bytes=%" PRIu32
                 "\nbridge=0x%08" PRIx32 "\nbuild_id=",
            t->path, h->exe, h->pid, p->arch->name,
            h->endian == LITIFUT_BIG_ENDIAN ? "big" : "little", h->load_bias, h->chunk_size,
            h->time_every, h->db_sites, t->n_threads, t->n_calls, t->record_bytes,
            db_size_bytes(&p->db), p->db.header.bridge);
    for (unsigned i = 0; i < h->build_id_size && i < sizeof h->build_id; i++)
        fprintf(out, "%02x", h->build_id[i]);
    fputc('\n', out);
}

void report_trace(struct report *r, const struct trace_file *t, const struct program *p,
                  struct address_space *as)
{
    const struct litifut_trace_header *h = &t->header;
    char caller[512], callee[512];
    if (r->format == REPORT_INFO) {
        print_info(r->out, t, p);
        return;
    }
    if (r->format == REPORT_LOG)
        fprintf(r->out, "# %s, pid %" PRIu32 ": %zu thread%s, %zu calls; times are "
                        "interpolated between marks every %" PRIu32 " records\n"
                        "#   time (s)     tid  caller -> callee\n",
                h->exe, h->pid, t->n_threads, t->n_threads == 1 ? "" : "s", t->n_calls,
                h->time_every);
    for (size_t ti = 0; ti < t->n_threads; ti++) {
        const struct trace_thread *th = &t->threads[ti];
        for (size_t i = 0; i < th->n_calls; i++) {
            const struct trace_call *c = &th->calls[i];
            uint32_t site = p->site_addr[c->site], tlink;
            int direct;
            uint32_t trt = call_target(p, c, &direct, &tlink);
            struct place from, to;
            place_in_exe(p, site, &from);
            if (direct)
                place_in_exe(p, tlink, &to);
            else
                place_of(as, p, trt, &to);
            switch (r->format) {
            case REPORT_TSV:
                fprintf(r->out, "%" PRIu32 "\t%" PRIu32 "\t%zu\t0x%08" PRIx32 "\t0x%08" PRIx32
                                "\t%s\t0x%08" PRIx32 "\t",
                        h->pid, th->tid, i, site + p->bias, trt, from.obj, site);
                print_sym(r->out, &from);
                fprintf(r->out, "\t%s\t", to.obj);
                if (to.known)
                    fprintf(r->out, "0x%08" PRIx32, to.addr);
                else
                    fputc('?', r->out);
                fputc('\t', r->out);
                print_sym(r->out, &to);
                fputc('\n', r->out);
                break;
            case REPORT_LOG:
                describe(caller, sizeof caller, &from, p);
                describe(callee, sizeof callee, &to, p);
                fprintf(r->out, "%12.6f %7" PRIu32 "  %s -> %s\n", c->time_ns / 1e9, th->tid,
                        caller, callee);
                break;
            case REPORT_SUMMARY:
                to.off = to.sym ? 0 : to.off;       /* per function, not per entry point */
                describe(callee, sizeof callee, &to, p);
                count_callee(r, callee);
                r->total++;
                break;
            case REPORT_INFO:
                break;
            }
        }
    }
}

static int by_calls(const void *a, const void *b)
{
    const struct summary_entry *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(x->callee, y->callee);
}

void report_end(struct report *r)
{
    if (r->format == REPORT_SUMMARY) {
        if (r->n_entries)
            qsort(r->entries, r->n_entries, sizeof *r->entries, by_calls);
        fprintf(r->out, "%12s  %s\n", "calls", "callee");
        for (size_t i = 0; i < r->n_entries; i++)
            fprintf(r->out, "%12llu  %s\n", r->entries[i].calls, r->entries[i].callee);
        fprintf(r->out, "%12llu  total\n", r->total);
    }
    for (size_t i = 0; i < r->n_entries; i++)
        free(r->entries[i].callee);
    free(r->entries);
    free(r->buckets);
}
