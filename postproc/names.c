/*
 * Function identity and names for the time views (names.h).
 *
 * Identity: (file, start address of the symbol holding the address).
 * Two static functions of the same name in one file stay apart; the
 * same library in two processes (two traces) is one set of functions.
 * A PLT entry stands for the function it imports, in the object the
 * dynamic linker would bind it to (symbols.c: plt_import_object), found
 * there by name: so a call into an instrumented library through the
 * program's PLT (ARM) and the library's own calls from inside that
 * function are the same function, and the inferred call stack
 * (callstack.c) can match them.  An address no symbol holds is a
 * function of its own, named 0x<address>.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "postproc/grow.h"
#include "postproc/names.h"
#include "postproc/srcline.h"
#include "postproc/strmap.h"
#include "lib/error.h"

/* --- the table --- */

static void clean(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The name without the parameters a demangled C++ name ends with. */
static int matches_without_params(const char *full, const char *name)
{
    size_t n = strlen(name);
    return strncmp(full, name, n) == 0 && full[n] == '(';
}

int func_matches(const struct func *f, const char *name)
{
    return strcmp(f->name, name) == 0 || strcmp(f->bare, name) == 0 ||
           (f->symbol && strcmp(f->symbol, name) == 0) || matches_without_params(f->bare, name);
}

static unsigned filter_flags(const struct func_table *ft, const struct func *f)
{
    unsigned flags = 0;
    for (size_t i = 0; i < ft->n_focus; i++)
        if (func_matches(f, ft->focus[i]))
            flags |= FUNC_FOCUS;
    for (size_t i = 0; i < ft->n_exclude; i++)
        if (func_matches(f, ft->exclude[i]))
            flags |= FUNC_EXCLUDE;
    return flags;
}

char *func_demangle(const char *symbol)
{
    char *d = strncmp(symbol, "_Z", 2) == 0 ? cplus_demangle(symbol, DMGL_PARAMS | DMGL_ANSI)
                                             : NULL;
    if (!d)
        return xstrdup(symbol);
    char *copy = xstrdup(d);            /* ours to free with free() as every other name */
    free(d);
    return copy;
}

/*
 * The function (o, addr), symbol `symbol` (NULL: none); created on
 * first sight.  o is NULL for an address no file holds (addr is then
 * the runtime address); addr is FUNC_NONE for a function known by name
 * only.  Functions of the trace's main program are named without
 * their file.
 */
static uint32_t func_intern(struct trace_funcs *tf, struct object *o, uint32_t addr,
                            const char *symbol)
{
    struct func_table *ft = tf->ft;
    const char *obj = o ? o->path : "?";
    int added;
    size_t id = strmap_intern(&ft->keys, addr != FUNC_NONE
                                             ? xasprintf("%s\n%08" PRIx32, obj, addr)
                                             : xasprintf("%s\n*\n%s", obj, symbol), &added);
    if (!added)
        return (uint32_t)id;
    ft->v = grow_for_one(ft->v, ft->n, &ft->cap, sizeof *ft->v);
    struct func *f = &ft->v[ft->n++];
    memset(f, 0, sizeof *f);
    f->obj = xstrdup(obj);
    f->addr = addr;
    f->symbol = symbol ? xstrdup(symbol) : NULL;
    f->bare = symbol ? func_demangle(symbol) : xasprintf("0x%08" PRIx32, addr);
    clean(f->bare);
    if (o && o != tf->as->main)
        f->name = xasprintf("%s (%s)", f->bare, base_name(obj));
    else
        f->name = xstrdup(f->bare);
    clean(f->name);
    f->flags = filter_flags(ft, f);
    if (ft->srcline && o && addr != FUNC_NONE) {
        const char *line = srclines_lookup(tf->lines, o, addr);
        f->srcline = line ? xstrdup(line) : NULL;
    }
    return (uint32_t)id;
}

void func_table_free(struct func_table *ft)
{
    for (size_t i = 0; i < ft->n; i++) {
        free(ft->v[i].name);
        free(ft->v[i].bare);
        free(ft->v[i].symbol);
        free(ft->v[i].obj);
        free(ft->v[i].srcline);
    }
    free(ft->v);
    strmap_free(&ft->keys);
    ft->v = NULL;
    ft->n = ft->cap = 0;
}

/* --- addresses to functions --- */

/* The function symbol named `name` in `o` (not a PLT entry), or NULL. */
static const struct func_symbol *symbol_named(struct object *o, const char *name)
{
    const struct func_symbol *best = NULL;
    for (size_t i = 0; i < o->n_syms; i++)
        if (!o->syms[i].import && strcmp(o->syms[i].name, name) == 0 &&
            (!best || o->syms[i].rank < best->rank))
            best = &o->syms[i];
    return best;
}

/* The function a PLT entry stands for: by name in the object that
 * defines it (where the symbol's address names it as every other
 * address there is named), else the entry itself ("name@plt"). */
static uint32_t import_func(struct trace_funcs *tf, struct object *o, struct func_symbol *plt)
{
    uint64_t key = (uint64_t)(uintptr_t)plt;
    uint32_t fid = u64map_get(&tf->imports, key);
    if (fid != FUNC_NONE)
        return fid;
    struct object *lib = plt_import_object(tf->as, plt);
    const struct func_symbol *def = lib ? symbol_named(lib, plt->import) : NULL;
    uint32_t off;
    if (def && (def = object_symbol(lib, def->addr, &off)))
        fid = func_intern(tf, lib, def->addr, def->name);
    else if (lib)
        fid = func_intern(tf, lib, FUNC_NONE, plt->import);
    else
        fid = func_intern(tf, o, plt->addr, plt->name);
    u64map_put(&tf->imports, key, fid);
    return fid;
}

/* The function at link-time address `link` of `o`, as a callee. */
static uint32_t callee_in(struct trace_funcs *tf, struct object *o, uint32_t link)
{
    uint32_t off;
    struct func_symbol *s = object_symbol(o, link, &off);
    if (!s)
        return func_intern(tf, o, link, NULL);
    if (s->import)
        return import_func(tf, o, s);
    return func_intern(tf, o, s->addr, s->name);
}

uint32_t trace_funcs_at_runtime(struct trace_funcs *tf, uint32_t rt)
{
    uint32_t fid = u64map_get(&tf->targets, rt);
    if (fid != FUNC_NONE)
        return fid;
    struct object *o;
    uint32_t link;
    if (resolve_address(tf->as, rt, &o, &link) == 0)
        fid = callee_in(tf, o, link);
    else
        fid = func_intern(tf, NULL, rt, NULL);
    u64map_put(&tf->targets, rt, fid);
    return fid;
}

/* The function holding a call site; without a symbol, the site's
 * address stands for it. */
static uint32_t caller_in(struct trace_funcs *tf, struct object *o, uint32_t site)
{
    uint32_t off;
    struct func_symbol *s = object_symbol(o, site, &off);
    return s ? func_intern(tf, o, s->addr, s->name) : func_intern(tf, o, site, NULL);
}

void trace_funcs_init(struct trace_funcs *tf, struct func_table *ft, struct address_space *as,
                      const struct program_set *ps, const struct trace_file *t)
{
    memset(tf, 0, sizeof *tf);
    tf->ft = ft;
    tf->as = as;
    tf->ps = ps;
    u64map_init(&tf->targets);
    u64map_init(&tf->imports);
    tf->lines = srclines_new();
    tf->caller = xcalloc(t->n_objects + 1, sizeof *tf->caller);
    tf->callee = xcalloc(t->n_objects + 1, sizeof *tf->callee);
    for (size_t i = 0; i < t->n_objects && i < ps->n; i++) {
        const struct program *p = &ps->v[i];
        if (!p->ok)
            continue;                   /* the reader skips its calls */
        uint32_t n = p->db.header.n_sites;
        tf->caller[i] = xmalloc((n + 1) * sizeof **tf->caller);
        tf->callee[i] = xmalloc((n + 1) * sizeof **tf->callee);
        for (uint32_t s = 0; s < n; s++) {
            uint32_t target;
            tf->caller[i][s] = caller_in(tf, p->obj, p->site_addr[s]);
            tf->callee[i][s] = db_site_target(&p->db, s, &target)
                                   ? callee_in(tf, p->obj, target & ~1u)    /* ~1: Thumb */
                                   : FUNC_NONE;
        }
    }
}

void trace_funcs_free(struct trace_funcs *tf)
{
    for (size_t i = 0; tf->caller && i < tf->ps->n; i++) {
        free(tf->caller[i]);
        free(tf->callee[i]);
    }
    free(tf->caller);
    free(tf->callee);
    u64map_free(&tf->targets);
    u64map_free(&tf->imports);
    srclines_free(tf->lines);
    memset(tf, 0, sizeof *tf);
}

const char *trace_funcs_srcline(struct trace_funcs *tf, struct object *o, uint32_t addr)
{
    return srclines_lookup(tf->lines, o, addr);
}
