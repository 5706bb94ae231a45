/*
 * The post-processor's views.  Each has a text form for people and a
 * TSV form for tools: a header line, then rows of tab-separated fields.
 *
 * calls (the default)
 *   text  "# program, pid: threads, calls", then one line per call:
 *         time (s), tid, caller -> callee
 *   TSV   pid tid seq site_rt target_rt site_obj site_addr site_sym
 *         target_obj target_addr target_sym callee_sym
 *         One row per call, per thread in recording order; seq counts
 *         from 0 per thread.  *_rt are runtime addresses; *_addr
 *         link-time addresses in *_obj, the file as the target named
 *         it ("?" if unknown); *_sym "function+0xoffset" ("?" if none).
 *         This is exactly where each call went: a call through a PLT
 *         goes to "name@plt+0x0" in the program.  callee_sym is the
 *         function that was called, as the log names it (below) but
 *         without the object: the PLT hop resolved ("memcpy+0x0").
 * summary (--summary)
 *   text  "calls  callee", most called first, then the total
 *   TSV   calls callee callee_obj
 *         One row per callee, most called first, no total row.  callee
 *         is the function's name as below without the object, or
 *         0x<address> if it has none (link-time in callee_obj; runtime
 *         if callee_obj is "?"); callee_obj is the file as the target
 *         named it, "?" if unknown.
 * info (--info)
 *   text  key=value lines per trace (keys: info_keys below)
 *   TSV   the same keys as columns, one row per trace
 *
 * Callees in the log and the summary: a function of the program is
 * "name", one of another object "name (file name)".  A PLT entry is
 * named as the function it stands for, in the library that defines it:
 * on ARM a call into a library goes through the program's PLT, on MIPS
 * (once bound) straight into the library, and both read
 * "memcpy (libc.so.6)" and are counted as one callee.  "name@plt"
 * remains only where no mapped library defines the name (no maps file,
 * the library not found, a static program's IFUNC slots).  An address
 * without a symbol is "0x<address>".
 *
 * Strings from the target's files (paths, symbol names) are printed
 * with control characters as '?': a crafted name can neither break a
 * TSV row nor send escape sequences to a terminal.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/report.h"
#include "lib/error.h"

struct summary_entry {
    char *name;                 /* function name, or 0x<address> */
    char *obj;                  /* file as the target named it, or "?" */
    int in_program;
    unsigned long long calls;
};

/* Where an address is. */
struct place {
    struct object *o;           /* NULL if no known file holds it */
    const char *obj;            /* o's path, or "?" */
    uint32_t addr;              /* link-time in o; runtime if o is NULL */
    struct func_symbol *sym;
    uint32_t off;
};

/* A place as the log and the summary name it (see the top). */
struct callee {
    const char *name;           /* NULL: no symbol, use addr */
    uint32_t off, addr;
    struct object *o;
    const char *obj;
};

static int is_control(char c)
{
    return (unsigned char)c < 0x20 || c == 0x7f;
}

static void put_clean(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(is_control(*s) ? '?' : *s, out);
}

static void clean(char *s)
{
    for (; *s; s++)
        if (is_control(*s))
            *s = '?';
}

static void place_in(struct object *o, uint32_t link, struct place *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->o = o;
    pl->obj = o->path;
    pl->addr = link;
    pl->sym = object_symbol(o, link, &pl->off);
}

static void place_of(struct address_space *as, const struct program *p, uint32_t rt,
                     struct place *pl)
{
    struct object *o;
    uint32_t link;
    if (resolve_address(as, rt, &o, &link) == 0) {
        place_in(o, link, pl);
    } else if (!as->n_maps && elf_bytes_at(&p->obj->img, rt - p->bias, 4)) {
        place_in(p->obj, rt - p->bias, pl);     /* no maps: the executable still is known */
    } else {
        memset(pl, 0, sizeof *pl);
        pl->obj = "?";
        pl->addr = rt;
    }
}

static void callee_at(const struct place *pl, struct callee *c)
{
    *c = (struct callee){ pl->sym ? pl->sym->name : NULL, pl->off, pl->addr, pl->o, pl->obj };
}

/* A PLT entry is named as the function it stands for, where that is. */
static void name_callee(struct address_space *as, const struct place *pl, struct callee *c)
{
    callee_at(pl, c);
    struct object *lib = pl->o ? plt_import_object(as, pl->o, pl->sym) : NULL;
    if (lib) {
        c->name = pl->sym->import;
        c->o = lib;
        c->obj = lib->path;
    }
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The callee's function, or address, without its object. */
static void callee_function(char *buf, size_t size, const struct callee *c)
{
    if (!c->name)
        snprintf(buf, size, "0x%08" PRIx32, c->addr);
    else if (c->off)
        snprintf(buf, size, "%s+0x%" PRIx32, c->name, c->off);
    else
        snprintf(buf, size, "%s", c->name);
}

/* "name", "name+0x1c"; in another object than the program, " (lib)". */
static void describe(char *buf, size_t size, const struct callee *c, const struct program *p)
{
    callee_function(buf, size, c);
    size_t n = strlen(buf);
    if (c->o && c->o != p->obj && n < size)
        snprintf(buf + n, size - n, " (%s)", base_name(c->obj));
    clean(buf);
}

/* --- summary --- */

static size_t hash(const char *s, size_t h)
{
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static size_t entry_hash(const char *name, const char *obj)
{
    return hash(obj, hash(name, 5381) * 33 + '\t');
}

static void rehash(struct report *r)
{
    r->n_buckets = r->n_buckets ? r->n_buckets * 2 : 1024;
    free(r->buckets);
    r->buckets = xmalloc(r->n_buckets * sizeof *r->buckets);
    for (size_t i = 0; i < r->n_buckets; i++)
        r->buckets[i] = SIZE_MAX;
    for (size_t i = 0; i < r->n_entries; i++) {
        size_t b = entry_hash(r->entries[i].name, r->entries[i].obj) & (r->n_buckets - 1);
        while (r->buckets[b] != SIZE_MAX)
            b = (b + 1) & (r->n_buckets - 1);
        r->buckets[b] = i;
    }
}

static void count_callee(struct report *r, const char *name, const char *obj, int in_program)
{
    if (r->n_entries * 2 >= r->n_buckets)
        rehash(r);
    size_t b = entry_hash(name, obj) & (r->n_buckets - 1);
    while (r->buckets[b] != SIZE_MAX) {
        struct summary_entry *e = &r->entries[r->buckets[b]];
        if (strcmp(e->name, name) == 0 && strcmp(e->obj, obj) == 0) {
            e->calls++;
            return;
        }
        b = (b + 1) & (r->n_buckets - 1);
    }
    if (r->n_entries == r->cap) {
        r->cap = r->cap * 2 + 256;
        r->entries = xrealloc(r->entries, r->cap * sizeof *r->entries);
    }
    r->entries[r->n_entries] = (struct summary_entry){ xstrdup(name), xstrdup(obj), in_program, 1 };
    r->buckets[b] = r->n_entries++;
}

static void summarize_call(struct report *r, const struct callee *to, const struct program *p)
{
    char name[512];
    struct callee c = *to;
    if (c.name)
        c.off = 0;                      /* per function, not per entry point */
    callee_function(name, sizeof name, &c);
    count_callee(r, name, c.obj, c.o == p->obj);
    r->total++;
}

static int by_calls(const void *a, const void *b)
{
    const struct summary_entry *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->obj, y->obj);
}

static void print_callee_counts(const struct report *r)
{
    if (!r->tsv)
        fprintf(r->out, "%12s  %s\n", "calls", "callee");
    for (size_t i = 0; i < r->n_entries; i++) {
        const struct summary_entry *e = &r->entries[i];
        if (r->tsv) {
            fprintf(r->out, "%llu\t", e->calls);
            put_clean(r->out, e->name);
            fputc('\t', r->out);
            put_clean(r->out, e->obj);
        } else {
            fprintf(r->out, "%12llu  ", e->calls);
            put_clean(r->out, e->name);
            if (!e->in_program && strcmp(e->obj, "?") != 0) {
                fputs(" (", r->out);
                put_clean(r->out, base_name(e->obj));
                fputc(')', r->out);
            }
        }
        fputc('\n', r->out);
    }
    if (!r->tsv)
        fprintf(r->out, "%12llu  total\n", r->total);
}

/* --- info --- */

static const char *const info_keys[] = {
    "trace", "exe", "pid", "arch", "endian", "load_bias", "chunk_size", "time_every", "sites",
    "threads", "calls", "record_bytes", "db_bytes", "bridge", "build_id",
};
#define N_INFO (sizeof info_keys / sizeof info_keys[0])

static void info_values(const struct trace_file *t, const struct program *p, char *v[N_INFO])
{
    const struct litifut_trace_header *h = &t->header;
    char id[2 * sizeof h->build_id + 1] = "";
    for (unsigned i = 0; i < h->build_id_size && i < sizeof h->build_id; i++)
        snprintf(id + 2 * i, 3, "%02x", h->build_id[i]);
    size_t k = 0;
    v[k++] = xstrdup(t->path);
    v[k++] = xstrdup(h->exe);
    v[k++] = xasprintf("%" PRIu32, h->pid);
    v[k++] = xstrdup(p->arch->name);
    v[k++] = xstrdup(h->endian == LITIFUT_BIG_ENDIAN ? "big" : "little");
    v[k++] = xasprintf("0x%08" PRIx32, h->load_bias);
    v[k++] = xasprintf("%" PRIu32, h->chunk_size);
    v[k++] = xasprintf("%" PRIu32, h->time_every);
    v[k++] = xasprintf("%" PRIu32, p->db.header.n_sites);
    v[k++] = xasprintf("%zu", t->n_threads);
    v[k++] = xasprintf("%zu", t->n_calls);
    v[k++] = xasprintf("%" PRIu64, t->record_bytes);
    v[k++] = xasprintf("%" PRIu32, db_size_bytes(&p->db));
    v[k++] = xasprintf("0x%08" PRIx32, p->db.header.bridge);
    v[k++] = xstrdup(id);
}

static void print_info(const struct report *r, const struct trace_file *t,
                       const struct program *p)
{
    char *v[N_INFO];
    info_values(t, p, v);
    for (size_t k = 0; k < N_INFO; k++) {
        if (r->tsv) {
            fputs(k ? "\t" : "", r->out);
        } else {
            fprintf(r->out, "%s=", info_keys[k]);
        }
        put_clean(r->out, v[k]);
        fputs(r->tsv && k + 1 < N_INFO ? "" : "\n", r->out);
        free(v[k]);
    }
}

/* --- calls --- */

static void print_sym(FILE *out, const struct place *pl)
{
    if (pl->sym) {
        put_clean(out, pl->sym->name);
        fprintf(out, "+0x%" PRIx32, pl->off);
    } else {
        fputc('?', out);
    }
}

static void print_tsv_row(FILE *out, const struct trace_file *t, const struct trace_thread *th,
                          size_t seq, const struct program *p, const struct place *from,
                          const struct place *to, uint32_t target_rt,
                          const struct callee *callee)
{
    fprintf(out, "%" PRIu32 "\t%" PRIu32 "\t%zu\t0x%08" PRIx32 "\t0x%08" PRIx32 "\t",
            t->header.pid, th->tid, seq, from->addr + p->bias, target_rt);
    put_clean(out, from->obj);
    fprintf(out, "\t0x%08" PRIx32 "\t", from->addr);
    print_sym(out, from);
    fputc('\t', out);
    put_clean(out, to->obj);
    fputc('\t', out);
    if (to->o)
        fprintf(out, "0x%08" PRIx32, to->addr);
    else
        fputc('?', out);
    fputc('\t', out);
    print_sym(out, to);
    fputc('\t', out);
    if (callee->name) {
        put_clean(out, callee->name);
        fprintf(out, "+0x%" PRIx32, callee->off);
    } else {
        fputc('?', out);
    }
    fputc('\n', out);
}

static void print_log_head(FILE *out, const struct trace_file *t)
{
    const struct litifut_trace_header *h = &t->header;
    fputs("# ", out);
    put_clean(out, h->exe);
    fprintf(out, ", pid %" PRIu32 ": %zu thread%s, %zu calls; times are interpolated between "
                 "marks every %" PRIu32 " records\n#   time (s)     tid  caller -> callee\n",
            h->pid, t->n_threads, t->n_threads == 1 ? "" : "s", t->n_calls, h->time_every);
}

void report_begin(struct report *r)
{
    if (!r->tsv)
        return;
    switch (r->view) {
    case VIEW_CALLS:
        fprintf(r->out, "pid\ttid\tseq\tsite_rt\ttarget_rt\tsite_obj\tsite_addr\tsite_sym\t"
                        "target_obj\ttarget_addr\ttarget_sym\tcallee_sym\n");
        break;
    case VIEW_SUMMARY:
        fprintf(r->out, "calls\tcallee\tcallee_obj\n");
        break;
    case VIEW_INFO:
        for (size_t k = 0; k < N_INFO; k++)
            fprintf(r->out, "%s%s", info_keys[k], k + 1 < N_INFO ? "\t" : "\n");
        break;
    }
}

void report_trace(struct report *r, const struct trace_file *t, const struct program *p,
                  struct address_space *as)
{
    if (r->view == VIEW_INFO) {
        print_info(r, t, p);
        return;
    }
    if (r->view == VIEW_CALLS && !r->tsv)
        print_log_head(r->out, t);
    for (size_t ti = 0; ti < t->n_threads; ti++) {
        const struct trace_thread *th = &t->threads[ti];
        for (size_t i = 0; i < th->n_calls; i++) {
            const struct trace_call *c = &th->calls[i];
            uint32_t tlink;
            int direct;
            uint32_t trt = call_target(p, c, &direct, &tlink);
            struct place from, to;
            struct callee caller, callee;
            place_in(p->obj, p->site_addr[c->site], &from);
            if (direct)
                place_in(p->obj, tlink, &to);
            else
                place_of(as, p, trt, &to);
            name_callee(as, &to, &callee);
            if (r->view == VIEW_CALLS && r->tsv) {
                print_tsv_row(r->out, t, th, i, p, &from, &to, trt, &callee);
                continue;
            }
            if (r->view == VIEW_SUMMARY) {
                summarize_call(r, &callee, p);
            } else {
                char from_s[512], to_s[512];
                callee_at(&from, &caller);
                describe(from_s, sizeof from_s, &caller, p);
                describe(to_s, sizeof to_s, &callee, p);
                fprintf(r->out, "%12.6f %7" PRIu32 "  %s -> %s\n", c->time_ns / 1e9, th->tid,
                        from_s, to_s);
            }
        }
    }
}

void report_end(struct report *r)
{
    if (r->view == VIEW_SUMMARY) {
        if (r->n_entries)
            qsort(r->entries, r->n_entries, sizeof *r->entries, by_calls);
        print_callee_counts(r);
    }
    for (size_t i = 0; i < r->n_entries; i++) {
        free(r->entries[i].name);
        free(r->entries[i].obj);
    }
    free(r->entries);
    free(r->buckets);
}
