/*
 * --coverage: the functions of each instrumented object (the program,
 * its instrumented libraries) that a traced call reached, and the ones
 * none did, in the spirit of gcov's function coverage and LwProf.
 * Every mode's traces count: a full trace's calls, a count trace's
 * pairs with their calls, a dedup trace's pairs (called or not).
 *
 *   text  per object: called, functions, share, path; then per object
 *         the functions never called, by address
 *   TSV   object function calls: one row per function of every object
 *         (calls 0: never called; a dedup trace counts 1 per pair)
 *
 * A function is a symbol of the object's code (aliases once, PLT
 * entries not), less the code that is not the program's own: the
 * tracer and the C runtime's start files, which the rewriter left
 * alone (section .litifut_other_code, src/db.c).  The tracer sees
 * calls, not entries: a function reached only from code that is not
 * instrumented (main from a shared C library, a callback from one) or
 * only by a jump counts as never called.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/util/grow.h"
#include "postproc/views/report.h"
#include "postproc/view.h"
#include "lib/elfimage.h"
#include "lib/error.h"

struct cov_function {
    char *name;                 /* demangled */
    uint64_t addr;              /* link-time */
    uint64_t calls;
};

struct cov_object {
    char *path;
    struct cov_function *fn;    /* by address */
    size_t n_fn;
};

struct coverage {
    struct view v;
    int tsv;
    struct strmap called_keys;  /* "path\naddr" of a function reached */
    uint64_t *called;           /* by key number: its calls */
    size_t cap_called;
    struct strmap object_keys;  /* object paths: index into objects */
    struct cov_object *objects;
    size_t n_objects, cap_objects;
};

static void add_calls(struct coverage *c, uint32_t fid, uint64_t n)
{
    const struct func *f = &c->v.ft->v[fid];
    if (f->addr == FUNC_NO_ADDR || strcmp(f->obj, "?") == 0)
        return;                 /* (not in a known file: no object's function) */
    int added;
    size_t k = strmap_intern(&c->called_keys, xasprintf("%s\n%08" PRIx64, f->obj, f->addr),
                             &added);
    if (added) {
        c->called = grow_for_one(c->called, k, &c->cap_called, sizeof *c->called);
        c->called[k] = 0;
    }
    c->called[k] += n;
}

static void coverage_push(struct view *v, struct callstack *s, struct frame *f)
{
    (void)s;
    if (frame_counts_as_call(f))
        add_calls((struct coverage *)v, f->fid, 1);
}

static void coverage_pair(struct view *v, const struct trace_event *call, uint32_t calls)
{
    add_calls((struct coverage *)v, trace_funcs_callee(v->trace->tf, call), calls ? calls : 1);
}

static int in_ranges(const struct excluded_range *r, size_t n, uint64_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (addr >= r[i].start && addr < r[i].end)
            return 1;
    return 0;
}

/* The functions of an object, once (the first trace that has it). */
static void add_object(struct coverage *c, struct object *o)
{
    int added;
    size_t k = strmap_intern(&c->object_keys, xstrdup(o->path), &added);
    if (!added)
        return;
    c->objects = grow_for_one(c->objects, c->n_objects, &c->cap_objects, sizeof *c->objects);
    struct cov_object *co = &c->objects[c->n_objects++];
    (void)k;
    *co = (struct cov_object){ xstrdup(o->path), NULL, 0 };
    struct excluded_range *other;
    size_t n_other = other_code_ranges(&o->img, &other);
    size_t cap = 0;
    for (size_t i = 0; i < o->n_syms; i++) {
        const struct func_symbol *s = &o->syms[i];
        if (s->import || strstr(s->name, "@plt") || in_ranges(other, n_other, s->addr) ||
            (co->n_fn && co->fn[co->n_fn - 1].addr == s->addr))
            continue;           /* (sorted by address, the name that wins first) */
        co->fn = grow_for_one(co->fn, co->n_fn, &cap, sizeof *co->fn);
        co->fn[co->n_fn++] = (struct cov_function){ func_demangle(s->name), s->addr, 0 };
    }
    free(other);
}

static void coverage_trace_end(struct view *v)
{
    struct coverage *c = (struct coverage *)v;
    const struct program_set *ps = v->trace->ps;
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i].ok)
            add_object(c, ps->v[i].obj);
}

static void print_coverage(struct coverage *c)
{
    FILE *out = c->v.out;
    for (size_t i = 0; i < c->n_objects; i++) {     /* the calls, now that all are known */
        struct cov_object *co = &c->objects[i];
        for (size_t k = 0; k < co->n_fn; k++) {
            int added;
            size_t key = strmap_intern(&c->called_keys,
                                       xasprintf("%s\n%08" PRIx64, co->path, co->fn[k].addr), &added);
            if (added) {
                c->called = grow_for_one(c->called, key, &c->cap_called, sizeof *c->called);
                c->called[key] = 0;
            }
            co->fn[k].calls = c->called[key];
        }
    }
    if (c->tsv) {
        fputs("object\tfunction\tcalls\n", out);
        for (size_t i = 0; i < c->n_objects; i++)
            for (size_t k = 0; k < c->objects[i].n_fn; k++) {
                put_clean(out, c->objects[i].path);
                fputc('\t', out);
                put_clean(out, c->objects[i].fn[k].name);
                fprintf(out, "\t%" PRIu64 "\n", c->objects[i].fn[k].calls);
            }
        return;
    }
    fprintf(out, "# functions a traced call reached, per instrumented object\n");
    fprintf(out, "%8s %9s %7s  %s\n", "called", "functions", "share", "object");
    for (size_t i = 0; i < c->n_objects; i++) {
        const struct cov_object *co = &c->objects[i];
        size_t called = 0;
        for (size_t k = 0; k < co->n_fn; k++)
            called += co->fn[k].calls != 0;
        fprintf(out, "%8zu %9zu %6.1f%%  ", called, co->n_fn,
                co->n_fn ? 100.0 * (double)called / (double)co->n_fn : 0.0);
        put_clean(out, co->path);
        fputc('\n', out);
    }
    for (size_t i = 0; i < c->n_objects; i++) {
        const struct cov_object *co = &c->objects[i];
        size_t never = 0;
        for (size_t k = 0; k < co->n_fn; k++)
            never += co->fn[k].calls == 0;
        if (!never)
            continue;
        fprintf(out, "\n# never called in ");
        put_clean(out, co->path);
        fprintf(out, " (%zu):\n", never);
        for (size_t k = 0; k < co->n_fn; k++)
            if (!co->fn[k].calls) {
                fputs("  ", out);
                put_clean(out, co->fn[k].name);
                fputc('\n', out);
            }
    }
}

static void coverage_end(struct view *v)
{
    struct coverage *c = (struct coverage *)v;
    print_coverage(c);
    for (size_t i = 0; i < c->n_objects; i++) {
        for (size_t k = 0; k < c->objects[i].n_fn; k++)
            free(c->objects[i].fn[k].name);
        free(c->objects[i].fn);
        free(c->objects[i].path);
    }
    free(c->objects);
    free(c->called);
    strmap_free(&c->called_keys);
    strmap_free(&c->object_keys);
    free(c);
}

struct view *coverage_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    static const struct view_ops ops = {
        .push = coverage_push, .pair = coverage_pair, .trace_end = coverage_trace_end,
        .end = coverage_end,
    };
    struct coverage *c = xcalloc(1, sizeof *c);
    view_init(&c->v, &ops, out, ft);
    c->tsv = o->tsv;
    return &c->v;
}
