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
 * (callstack.c) can match them.  The tracer's __wrap_NAME (ld --wrap)
 * stands for NAME, found as __real_NAME is linked.  An address no
 * symbol holds is a function of its own, named 0x<address> (or, in a
 * stripped file, its function's start from the unwind tables:
 * symbols.c).  Names:
 * the symbol that names the address by symbols.c's one rule (so every
 * view, the summary and the calls TSV's callee_sym included, names a
 * function alike).
 *
 * For the inferred call stack, each function also says what runs when
 * it is called (enum func_code: traced code, the C library's, calling
 * back or not, other code), and, per instrumented object file (once
 * per table), which functions each one can jump to (jumps.c) and which
 * have calls the link left untraced.
 */
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "litifut/db-format.h"
#include "postproc/util/grow.h"
#include "postproc/reader/jumps.h"
#include "postproc/reader/names.h"
#include "postproc/reader/protos.h"
#include "postproc/reader/srcline.h"
#include "postproc/util/strmap.h"
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

/* A glob (fnmatch(3): *, ?, [...]) matches the name as shown, without
 * its " (file)", the symbol, or a C++ name without its parameters. */
static int glob_matches(const struct func *f, const char *glob)
{
    if (!strpbrk(glob, "*?["))
        return 0;
    if (fnmatch(glob, f->name, 0) == 0 || fnmatch(glob, f->bare, 0) == 0 ||
        (f->symbol && fnmatch(glob, f->symbol, 0) == 0))
        return 1;
    const char *paren = strchr(f->bare, '(');
    if (!paren || paren == f->bare)
        return 0;
    char *head = strndup(f->bare, (size_t)(paren - f->bare));
    int m = head && fnmatch(glob, head, 0) == 0;
    free(head);
    return m;
}

int func_matches(const struct func *f, const char *name)
{
    return strcmp(f->name, name) == 0 || strcmp(f->bare, name) == 0 ||
           (f->symbol && strcmp(f->symbol, name) == 0) || matches_without_params(f->bare, name) ||
           glob_matches(f, name);
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

/* The C library's files (glibc's: libc.so.6, the dynamic linker, libm,
 * libpthread, ...; musl's libc.so, which is its dynamic linker
 * ld-musl-<arch>.so.1; uClibc-ng's libc.so.0, libuClibc-<version>.so,
 * ld-uClibc.so.0), by file name. */
static int is_c_library(const char *path)
{
    static const char *const prefixes[] = {
        "libc.so", "libc-", "ld-", "ld.so", "libm.so", "libm-", "libpthread", "libdl.so",
        "libdl-", "librt.so", "librt-", "libresolv", "libutil", "libanl", "libnsl", "libmvec",
        "libuClibc-",
    };
    const char *base = base_name(path);
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(base, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* The C library's functions that may call the program's functions in
 * the calling thread (callbacks, handlers, constructors, main). */
static int calls_back(const char *name)
{
    static const char *const names[] = {
        "qsort", "qsort_r", "bsearch", "lfind", "lsearch", "tsearch", "tfind", "tdelete",
        "twalk", "twalk_r", "tdestroy", "ftw", "ftw64", "nftw", "nftw64", "scandir",
        "scandir64", "scandirat", "scandirat64", "glob", "glob64", "fts_open", "fts_read",
        "fts_children", "fts64_open", "fts64_read", "fts64_children", "pthread_once",
        "call_once", "exit", "quick_exit", "__libc_start_main", "__libc_start_call_main",
        "__cxa_finalize", "pthread_exit", "thrd_exit", "_pthread_cleanup_pop",
        "_pthread_cleanup_pop_restore", "__pthread_unregister_cancel",
        "__pthread_unregister_cancel_restore", "dl_iterate_phdr", "dlopen", "dlmopen",
        "dlclose", "__libc_dlopen_mode", "fork", "raise", "kill", "abort", "pthread_kill",
        "tgkill", "sigqueue", "pthread_sigqueue", "sigsuspend", "pause", "_obstack_begin",
        "_obstack_begin_1", "_obstack_newchunk", "obstack_free", "_obstack_free",
        "argp_parse", "error", "error_at_line", "setcontext", "swapcontext",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

/* What runs when function `symbol` of `o` is called (names.h). */
static enum func_code code_of(const struct object *o, const char *symbol)
{
    size_t n = symbol ? strlen(symbol) : 0;
    if (!o || (n > 4 && strcmp(symbol + n - 4, "@plt") == 0))
        return CODE_OTHER;              /* (an import no known object defines) */
    if (o->program)
        return CODE_TRACED;
    if (is_c_library(o->path))
        return symbol && calls_back(symbol) ? CODE_LIBC_CALLBACK : CODE_LIBC;
    return CODE_OTHER;
}

/*
 * The function (o, addr), symbol `symbol` (NULL: none); created on
 * first sight.  o is NULL for an address no file holds (addr is then
 * the runtime address); addr is FUNC_NO_ADDR for a function known by name
 * only.  Functions of the trace's main program are named without
 * their file.
 */
static uint32_t func_intern(struct trace_funcs *tf, struct object *o, uint64_t addr,
                            const char *symbol)
{
    struct func_table *ft = tf->ft;
    const char *obj = o ? o->path : "?";
    int added;
    int by_name = addr == FUNC_NO_ADDR && symbol;  /* (not a hostile target 2^64 - 1) */
    size_t id = strmap_intern(&ft->keys, !by_name
                                             ? xasprintf("%s\n%08" PRIx64, obj, addr)
                                             : xasprintf("%s\n*\n%s", obj, symbol), &added);
    if (!added)
        return (uint32_t)id;
    ft->v = grow_for_one(ft->v, ft->n, &ft->cap, sizeof *ft->v);
    struct func *f = &ft->v[ft->n++];
    memset(f, 0, sizeof *f);
    f->obj = xstrdup(obj);
    f->addr = addr;
    f->symbol = symbol ? xstrdup(symbol) : NULL;
    f->bare = symbol ? func_demangle(symbol) : xasprintf("0x%08" PRIx64, addr);
    clean(f->bare);
    if (o && o != tf->as->main)
        f->name = xasprintf("%s (%s)", f->bare, base_name(obj));
    else
        f->name = xstrdup(f->bare);
    clean(f->name);
    f->name_len = (uint32_t)strlen(f->name);
    f->flags = filter_flags(ft, f);
    f->code = (uint8_t)code_of(o, symbol);
    if (ft->srcline && o && addr != FUNC_NO_ADDR) {
        const char *line = srclines_lookup(tf->lines, o, addr);
        f->srcline = line ? xstrdup(line) : NULL;
    }
    if (ft->protos && o && addr != FUNC_NO_ADDR)
        f->proto = dwarf_func_proto(tf->lines, o, addr);
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
        func_proto_free(ft->v[i].proto);
        free(ft->v[i].jumps);
    }
    free(ft->v);
    strmap_free(&ft->keys);
    strmap_free(&ft->scanned);
    if (ft->jump_pairs.values)
        u64map_free(&ft->jump_pairs);
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
    uint64_t off;
    if (def && (def = object_symbol(lib, def->addr, &off)))
        fid = func_intern(tf, lib, def->addr, def->name);
    else if (lib)
        fid = func_intern(tf, lib, FUNC_NO_ADDR, plt->import);
    else
        fid = func_intern(tf, o, plt->addr, plt->name);
    u64map_put(&tf->imports, key, fid);
    return fid;
}

/* NAME if `symbol` is the tracer's __wrap_NAME in instrumented object
 * `o`, else NULL: the functions the wrapper wraps (lib/arch.h,
 * arch_common_wrapped, arch_entry_wrapped and the arch's own), whose calls go to the
 * tracer's __wrap_NAME, which goes on to NAME (__real_NAME). */
static const char *wrapped_name(const struct object *o, const char *symbol)
{
    if (!o->program || strncmp(symbol, "__wrap_", 7) != 0)
        return NULL;
    const char *const *lists[] = { arch_common_wrapped, arch_entry_wrapped,
                                   o->program->arch->wrapped };
    for (unsigned l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (const char *const *f = lists[l]; f && *f; f++)
            if (strcmp(symbol + 7, *f) == 0)
                return *f;
    return NULL;
}

uint32_t trace_funcs_by_name(struct trace_funcs *tf, struct object *o, const char *name)
{
    for (size_t i = 0; i < o->n_syms; i++)
        if (o->syms[i].import && strcmp(o->syms[i].import, name) == 0)
            return import_func(tf, o, &o->syms[i]);
    struct object *lib = o;
    const struct func_symbol *def = symbol_named(o, name);
    if (!def && (lib = object_binding(tf->as, name)))
        def = symbol_named(lib, name);
    uint64_t off;
    if (def && (def = object_symbol(lib, def->addr, &off)))
        return func_intern(tf, lib, def->addr, def->name);
    return func_intern(tf, lib ? lib : o, FUNC_NO_ADDR, name);
}

/* The function at link-time address `link` of `o`, as a callee: a PLT
 * entry stands for the function it imports, a linker's veneer for the
 * code it goes to, the tracer's wrapper of a function for that
 * function. */
static uint32_t callee_in(struct trace_funcs *tf, struct object *o, uint64_t link)
{
    uint64_t off;
    struct func_symbol *s = object_symbol(o, link, &off);
    for (unsigned hops = 0; s && s->veneer_to && !off && hops < 4; hops++)
        s = object_symbol(o, link = s->veneer_to, &off);    /* a linker's veneer: its target's */
    if (!s)
        return func_intern(tf, o, link, NULL);
    if (s->import)
        return import_func(tf, o, s);
    const char *name = wrapped_name(o, s->name);
    if (name)
        return trace_funcs_by_name(tf, o, name);   /* (as __real_NAME is linked) */
    return func_intern(tf, o, s->addr, s->name);
}

uint32_t trace_funcs_unknown(struct trace_funcs *tf)
{
    return func_intern(tf, NULL, FUNC_NO_ADDR, "(unknown)");
}

uint32_t trace_funcs_signal(struct trace_funcs *tf, const struct trace_file *t, uint32_t signo)
{
    const struct arch_ops *a = arch_by_trace_arch(t->header.arch);
    const char *name = a && a->signal_names && signo && signo < 32 ? a->signal_names[signo] : NULL;
    char text[32];
    if (name)
        snprintf(text, sizeof text, "<signal SIG%s>", name);
    else if (signo)
        snprintf(text, sizeof text, "<signal %u>", (unsigned)signo);
    else
        snprintf(text, sizeof text, "<signal ?>");
    return func_intern(tf, NULL, FUNC_NO_ADDR, text);
}

uint32_t trace_funcs_at_runtime(struct trace_funcs *tf, uint64_t rt)
{
    uint32_t fid = u64map_get(&tf->targets, rt);
    if (fid != FUNC_NONE)
        return fid;
    struct object *o;
    uint64_t link;
    if (resolve_address(tf->as, rt, &o, &link) == 0)
        fid = callee_in(tf, o, link);
    else
        fid = func_intern(tf, NULL, rt, NULL);
    u64map_put(&tf->targets, rt, fid);
    return fid;
}

/* Whether runtime address rt is the first instruction of a function (a
 * symbol's, a PLT entry's) of a known file: not code no file holds (the
 * kernel's helpers, ARM's kuser page: litifut-emu passes over them too;
 * a JIT's). */
static int function_starts_at(struct trace_funcs *tf, const struct program *p, uint64_t rt)
{
    uint32_t known = u64map_get(&tf->starts, rt);
    if (known != U64MAP_NONE)
        return (int)known - 1;
    struct object *o;
    uint64_t link, off = 1;
    int starts = 0;
    if (resolve_address(tf->as, rt, &o, &link) == 0) {
        struct func_symbol *s = object_symbol(o, arch_code_address(p->arch, link), &off);
        starts = s && off == 0;
    }
    u64map_put(&tf->starts, rt, 1 + (uint32_t)starts);
    return starts;
}

int trace_funcs_jump_lands(struct trace_funcs *tf, const struct trace_event *e)
{
    const struct program *p = &tf->ps->v[e->object];
    if (e->site >= p->db.header.n_sites || p->db.words[e->site] >= LITIFUT_DB_INDIRECT)
        return 1;                       /* a direct jump: to a function's start */
    int direct;
    uint64_t link;
    uint64_t rt = call_target(p, e, &direct, &link);
    uint32_t callee = trace_funcs_callee(tf, e);
    return function_starts_at(tf, p, rt) && callee != trace_funcs_caller(tf, e);
}

uint32_t trace_funcs_callee_at(struct trace_funcs *tf, struct object *o, uint64_t link)
{
    return callee_in(tf, o, link);
}

/* The function holding a call site; without a symbol, the site's
 * address stands for it. */
static uint32_t caller_in(struct trace_funcs *tf, struct object *o, uint64_t site)
{
    uint64_t off;
    struct func_symbol *s = object_symbol(o, site, &off);
    return s ? func_intern(tf, o, s->addr, s->name) : func_intern(tf, o, site, NULL);
}

uint32_t trace_funcs_holding(struct trace_funcs *tf, struct object *o, uint64_t addr)
{
    return caller_in(tf, o, addr);
}

void func_add_jump(struct func_table *ft, uint32_t from, uint32_t to)
{
    if (!ft->jump_pairs.values)
        u64map_init(&ft->jump_pairs);
    uint64_t key = u64map_pair(from, to);
    if (from == to || u64map_get(&ft->jump_pairs, key) != U64MAP_NONE)
        return;
    u64map_put(&ft->jump_pairs, key, 1);
    struct func *f = &ft->v[from];
    if (f->n_jumps == f->cap_jumps) {
        f->cap_jumps = f->cap_jumps * 2 + 4;
        f->jumps = xrealloc(f->jumps, f->cap_jumps * sizeof *f->jumps);
    }
    f->jumps[f->n_jumps++] = to;
}

/* Breadth first, at most JUMPS_SEEN functions looked at. */
#define JUMPS_SEEN 64

int func_jumps_to(const struct func_table *ft, uint32_t from, uint32_t to, unsigned hops)
{
    if (!ft->jump_pairs.values || from >= ft->n)
        return 0;
    uint32_t seen[JUMPS_SEEN];
    size_t n = 0, level_end;
    seen[n++] = from;
    for (size_t i = 0; hops-- > 0 && i < n; i = level_end) {
        level_end = n;
        for (size_t k = i; k < level_end; k++) {
            const struct func *f = &ft->v[seen[k]];
            for (uint32_t j = 0; j < f->n_jumps; j++) {
                uint32_t g = f->jumps[j];
                if (g == to)
                    return 1;
                int known = 0;
                for (size_t m = 0; m < n && !known; m++)
                    known = seen[m] == g;
                if (!known && n < JUMPS_SEEN)
                    seen[n++] = g;
            }
        }
    }
    return 0;
}

/* Once per object file (per table): the jumps of its functions
 * (jumps.c), and which functions have calls the link left untraced. */
static void scan_object(struct trace_funcs *tf, const struct program *p)
{
    int added;
    strmap_intern(&tf->ft->scanned, xstrdup(p->obj->path), &added);
    if (!added)
        return;
    jumps_scan(tf, p);
    for (size_t i = 0; i < p->n_untraced_fn; i++)
        if (p->untraced_fn[i].name) {
            uint32_t fid = caller_in(tf, p->obj, p->untraced_fn[i].addr);  /* (may grow v) */
            tf->ft->v[fid].untraced_calls = 1;
        }
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
    u64map_init(&tf->starts);
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
            if (p->jump_to && p->jump_to[s])        /* a tail jump: not its thunk */
                tf->callee[i][s] = callee_in(tf, p->obj, p->jump_to[s]);
            else
                tf->callee[i][s] = db_site_target(&p->db, s, &target)
                                       ? callee_in(tf, p->obj, arch_code_address(p->arch, target))
                                       : FUNC_NONE;
        }
    }
    /* (an emulator's trace has every call and return: no jumps to infer
     * returns across, no call left untraced) */
    for (size_t i = 0; i < t->n_objects && i < ps->n && !trace_is_emulated(t); i++)
        if (ps->v[i].ok)
            scan_object(tf, &ps->v[i]);
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
    u64map_free(&tf->starts);
    srclines_free(tf->lines);
    memset(tf, 0, sizeof *tf);
}

const char *trace_funcs_srcline(struct trace_funcs *tf, struct object *o, uint64_t addr)
{
    return srclines_lookup(tf->lines, o, addr);
}
