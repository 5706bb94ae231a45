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
 *         it ("?" if unknown): site_obj is the instrumented object the
 *         call is in, target_obj whatever file holds the target; *_sym
 *         "function+0xoffset" ("?" if none).  This is exactly where each
 *         call went: a call through a PLT goes to "name@plt+0x0" in the
 *         caller's object.  callee_sym is the function that was called,
 *         as the log names it (below) but without the object: the PLT
 *         hop resolved ("memcpy+0x0").
 * summary (--summary)
 *   text  "calls  callee", most called first, then the total
 *   TSV   calls callee callee_obj
 *         One row per callee, most called first, no total row.  callee
 *         is the function's name as below without the object, or
 *         0x<address> if it has none (link-time in callee_obj; runtime
 *         if callee_obj is "?"); callee_obj is the file as the target
 *         named it, "?" if unknown.
 * info (--info)
 *   text  key=value lines per trace (keys: info_keys below), then one
 *         line per instrumented object, by base:
 *         "object=<base> <sites> 0x<load bias> <path>" (base: its first
 *         site id; sites: its DB's, or its record's if it could not be
 *         loaded).  load_bias, bridge and build_id are the main
 *         program's (ET_EXEC or with PT_INTERP), empty if it is not
 *         instrumented; sites and db_bytes count every object's (DB
 *         bytes: of the objects that could be loaded); objects is how
 *         many there are; untraced counts the call instructions in
 *         the objects' code that were not redirected (a Thumb 16-bit
 *         blx rM, ARM blx lr, ...), the toolchain's start files
 *         included; after the object lines, one "untraced_in=<calls>
 *         <function> <path>"
 *         line per function holding any, most first.
 *   TSV   the same keys as columns, one row per trace (no object lines)
 *
 * Callees in the log and the summary: a function of the main program
 * is "name", one of another object "name (file name)".  A PLT entry
 * (the program's or a library's) is named as the function it stands
 * for, in the object the dynamic linker would bind it to (the program,
 * then the libraries as the maps file lists them): on ARM a call into a
 * library goes through the caller's PLT, on MIPS (once bound) straight
 * into the library, and both read "memcpy (libc.so.6)" and are counted
 * as one callee.  "name@plt" remains only where no known object
 * defines the name (no maps file, the library not found, a static
 * program's IFUNC slots).  An address without a symbol is "0x<address>".
 *
 * Strings from the target's files (paths, symbol names) are printed
 * with control characters as '?': a crafted name can neither break a
 * TSV row nor send escape sequences to a terminal.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/report.h"
#include "lib/arch.h"
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

static void place_of(struct address_space *as, uint32_t rt, struct place *pl)
{
    struct object *o;
    uint32_t link;
    if (resolve_address(as, rt, &o, &link) == 0) {
        place_in(o, link, pl);
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
    struct object *lib = pl->o ? plt_import_object(as, pl->sym) : NULL;
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
static void describe(char *buf, size_t size, const struct callee *c,
                     const struct object *program)
{
    callee_function(buf, size, c);
    size_t n = strlen(buf);
    if (c->o && c->o != program && n < size)
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

static void summarize_call(struct report *r, const struct callee *to,
                           const struct object *program)
{
    char name[512];
    struct callee c = *to;
    if (c.name)
        c.off = 0;                      /* per function, not per entry point */
    callee_function(name, sizeof name, &c);
    count_callee(r, name, c.obj, c.o && c.o == program);
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
    "threads", "calls", "record_bytes", "db_bytes", "bridge", "build_id", "objects",
    "untraced",
};
#define N_INFO (sizeof info_keys / sizeof info_keys[0])

static const char *arch_name(uint32_t trace_arch)
{
    static const int machines[] = { EM_ARM, EM_MIPS };
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++) {
        const struct arch_ops *a = arch_by_machine(machines[i]);
        if (a && a->trace_arch == trace_arch)
            return a->name;
    }
    return "?";
}

/* An object's site count: its DB's if it was loaded, else its record's. */
static uint32_t object_sites(const struct trace_file *t, const struct program_set *ps, size_t i)
{
    return ps->v[i].ok ? ps->v[i].db.header.n_sites : t->objects[i].n_sites;
}

/* The keys that describe the main program: empty if it is not
 * instrumented (or could not be loaded). */
static void main_values(const struct program *m, char **bias, char **bridge, char **build_id)
{
    char id[2 * LITIFUT_BUILD_ID_MAX + 1] = "";
    if (!m) {
        *bias = xstrdup("");
        *bridge = xstrdup("");
        *build_id = xstrdup("");
        return;
    }
    for (uint32_t i = 0; i < m->rec->build_id_size; i++)
        snprintf(id + 2 * i, 3, "%02x", m->rec->build_id[i]);
    *bias = xasprintf("0x%08" PRIx32, m->rec->load_bias);
    *bridge = xasprintf("0x%08" PRIx32, m->db.header.bridge);
    *build_id = xstrdup(id);
}

static void info_values(const struct trace_file *t, const struct program_set *ps,
                        char *v[N_INFO])
{
    const struct litifut_trace_header *h = &t->header;
    uint64_t sites = 0, db_bytes = 0, untraced = 0;
    for (size_t i = 0; i < t->n_objects; i++)
        sites += object_sites(t, ps, i);
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i].ok) {
            db_bytes += db_size_bytes(&ps->v[i].db);
            untraced += ps->v[i].n_untraced;
        }
    char *bias, *bridge, *build_id;
    main_values(ps->main, &bias, &bridge, &build_id);
    size_t k = 0;
    v[k++] = xstrdup(t->path);
    v[k++] = xstrdup(h->exe);
    v[k++] = xasprintf("%" PRIu32, h->pid);
    v[k++] = xstrdup(arch_name(h->arch));
    v[k++] = xstrdup(h->endian == LITIFUT_BIG_ENDIAN ? "big" : "little");
    v[k++] = bias;
    v[k++] = xasprintf("%" PRIu32, h->chunk_size);
    v[k++] = xasprintf("%" PRIu32, h->time_every);
    v[k++] = xasprintf("%" PRIu64, sites);
    v[k++] = xasprintf("%zu", t->n_threads);
    v[k++] = xasprintf("%zu", t->n_calls);
    v[k++] = xasprintf("%" PRIu64, t->record_bytes);
    v[k++] = xasprintf("%" PRIu64, db_bytes);
    v[k++] = bridge;
    v[k++] = build_id;
    v[k++] = xasprintf("%zu", t->n_objects);
    v[k++] = xasprintf("%" PRIu64, untraced);
}

/* Text only: one line per object, by base. */
static void print_objects(const struct report *r, const struct trace_file *t,
                          const struct program_set *ps)
{
    for (size_t i = 0; i < t->n_objects; i++) {
        const struct trace_object *o = &t->objects[i];
        fprintf(r->out, "object=%" PRIu32 " %" PRIu32 " 0x%08" PRIx32 " ", o->base,
                object_sites(t, ps, i), o->load_bias);
        put_clean(r->out, o->path);
        fputc('\n', r->out);
    }
    for (size_t i = 0; i < ps->n; i++) {
        const struct program *p = &ps->v[i];
        for (size_t j = 0; p->ok && j < p->n_untraced_fn; j++) {
            fprintf(r->out, "untraced_in=%" PRIu32 " ", p->untraced_fn[j].count);
            if (p->untraced_fn[j].name)
                put_clean(r->out, p->untraced_fn[j].name);
            else
                fprintf(r->out, "0x%08" PRIx32, p->untraced_fn[j].addr);
            fputc(' ', r->out);
            put_clean(r->out, t->objects[i].path);
            fputc('\n', r->out);
        }
    }
}

static void print_info(const struct report *r, const struct trace_file *t,
                       const struct program_set *ps)
{
    char *v[N_INFO];
    info_values(t, ps, v);
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
    if (!r->tsv)
        print_objects(r, t, ps);
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
                          size_t seq, uint32_t site_rt, const struct place *from,
                          const struct place *to, uint32_t target_rt,
                          const struct callee *callee)
{
    fprintf(out, "%" PRIu32 "\t%" PRIu32 "\t%zu\t0x%08" PRIx32 "\t0x%08" PRIx32 "\t",
            t->header.pid, th->tid, seq, site_rt, target_rt);
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

/* One call, in the view asked for. */
static void report_call(struct report *r, const struct trace_file *t,
                        const struct trace_thread *th, size_t seq,
                        const struct program_set *ps, struct address_space *as)
{
    const struct trace_call *c = &th->calls[seq];
    const struct program *p = &ps->v[c->object];
    uint32_t tlink;
    int direct;
    uint32_t trt = call_target(p, c, &direct, &tlink);
    struct place from, to;
    struct callee caller, callee;
    place_in(p->obj, p->site_addr[c->site], &from);
    if (direct)
        place_in(p->obj, tlink, &to);
    else
        place_of(as, trt, &to);
    name_callee(as, &to, &callee);
    if (r->view == VIEW_CALLS && r->tsv) {
        print_tsv_row(r->out, t, th, seq, from.addr + p->bias, &from, &to, trt, &callee);
    } else if (r->view == VIEW_SUMMARY) {
        summarize_call(r, &callee, as->main);
    } else {
        char from_s[512], to_s[512];
        callee_at(&from, &caller);
        describe(from_s, sizeof from_s, &caller, as->main);
        describe(to_s, sizeof to_s, &callee, as->main);
        fprintf(r->out, "%12.6f %7" PRIu32 "  %s -> %s\n", c->time_ns / 1e9, th->tid,
                from_s, to_s);
    }
}

void report_trace(struct report *r, const struct trace_file *t, const struct program_set *ps,
                  struct address_space *as)
{
    if (r->view == VIEW_INFO) {
        print_info(r, t, ps);
        return;
    }
    if (r->view == VIEW_CALLS && !r->tsv)
        print_log_head(r->out, t);
    for (size_t ti = 0; ti < t->n_threads; ti++)
        for (size_t i = 0; i < t->threads[ti].n_calls; i++)
            report_call(r, t, &t->threads[ti], i, ps, as);
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
