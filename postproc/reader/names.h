/*
 * Functions as every view counts and names them (the time views: log,
 * profile, graph, chrome, folded; and the summary, the calls TSV's
 * callee_sym), and what the inferred call stack needs to know of them.  A function is the symbol that holds an
 * address, in the file that holds it; a call through a PLT entry is a
 * call of the function the entry imports, in the object that defines
 * it.  One table serves every trace of a run, so that processes running
 * the same files add up.  Per trace, each call site's caller (and a
 * direct call's callee) is looked up once, before the records are read:
 * the per-record work is then two array reads.
 */
#ifndef LITIFUT_POSTPROC_NAMES_H
#define LITIFUT_POSTPROC_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include "postproc/reader/program.h"
#include "postproc/util/strmap.h"
#include "postproc/util/u64map.h"

#define FUNC_NONE UINT32_MAX
#define FUNC_NO_ADDR UINT64_MAX     /* struct func.addr of a function known by name only */

/* What the filters (--function, --exclude) say of a function. */
enum { FUNC_FOCUS = 1, FUNC_EXCLUDE = 2 };

/* What runs when a function is called, as the inferred call stack
 * (callstack.c) needs to know: whether a function that is not on the
 * stack can have been entered from it without a traced call. */
enum func_code {
    CODE_TRACED,            /* code of an instrumented object: its calls are traced */
    CODE_LIBC,              /* the C library's (libc.so.6, ld.so, libm, ...), not
                               one that calls the program back */
    CODE_LIBC_CALLBACK,     /* the C library's, one that may call the program back
                               (qsort, bsearch, pthread_once, exit, ...) */
    CODE_OTHER,             /* any other code (a library without instrumentation, an
                               address no file holds): it may call back */
};

struct func_proto;

struct func {
    char *name;             /* for people: demangled, "name (file)" outside the main
                               program, "0x<address>" without a symbol; no control characters */
    uint32_t name_len;      /* strlen(name) */
    char *bare;             /* the same without " (file)" */
    char *symbol;           /* as the file has it (mangled); NULL without a symbol */
    char *obj;              /* the file as the target named it, "?" if unknown */
    uint64_t addr;          /* link-time in obj; runtime if obj is "?"; FUNC_NO_ADDR: by
                               name only */
    unsigned flags;         /* FUNC_FOCUS, FUNC_EXCLUDE */
    char *srcline;          /* --srcline: "file:line" of its entry, NULL if unknown */
    struct func_proto *proto;   /* --auto-args: its prototype from DWARF, NULL if none */
    uint8_t code;           /* enum func_code */
    uint8_t untraced_calls; /* it has call sites the link left untraced (CODE_TRACED) */
    uint8_t entry;          /* called from outside any traced call: main, a constructor
                               or destructor (.init_array, .fini_array, ...: jumps.c) */
    uint32_t *jumps;        /* the functions it can jump to (tail calls: jumps.c) */
    uint32_t n_jumps, cap_jumps;
};

struct func_table {
    struct func *v;         /* by id */
    size_t n, cap;
    struct strmap keys;     /* "obj\naddr" (or "obj\n*\nsymbol"): ids */
    struct strmap scanned;  /* the instrumented objects whose jumps are in (by path) */
    struct u64map jump_pairs;   /* (from, to) of every jump in v[].jumps */
    /* set by the caller before use */
    const char *const *focus;       /* --function names */
    size_t n_focus;
    const char *const *exclude;     /* --exclude names */
    size_t n_exclude;
    int srcline;                    /* look up file:line (libdw) */
    int protos;                     /* look up prototypes (libdw: --auto-args) */
};

void func_table_free(struct func_table *ft);
/* A C++ name demangled (libiberty), anything else as it is; malloc'd. */
char *func_demangle(const char *symbol);
/* Whether `name` names f (as the filters and --graph=FUNC match):
 * its name, its bare name, its symbol, or its demangled name without
 * the parameters ("ns::f" for "ns::f(int)"). */
int func_matches(const struct func *f, const char *name);

/* One trace's lookups. */
struct srclines;
struct trace_funcs {
    struct func_table *ft;
    struct address_space *as;
    const struct program_set *ps;
    uint32_t **caller;          /* [object][site]: the function holding the call */
    uint32_t **callee;          /* [object][site]: a direct call's callee, else FUNC_NONE */
    struct u64map targets;      /* runtime target -> function (calls through registers) */
    struct u64map imports;      /* PLT entry (its symbol) -> function it imports */
    struct u64map starts;       /* runtime address -> 1 + whether a function starts there */
    struct srclines *lines;     /* --srcline */
};

/* The function `name` as object `o`'s calls of it reach: o's PLT entry
 * for it, o's own definition, or where the dynamic linker finds it. */
uint32_t trace_funcs_by_name(struct trace_funcs *tf, struct object *o, const char *name);
/* The function at link-time address `link` of `o`, as a callee (a PLT
 * entry: the function it imports; the tracer's __wrap_NAME: NAME). */
uint32_t trace_funcs_callee_at(struct trace_funcs *tf, struct object *o, uint64_t link);
/* The function holding link-time address `addr` of `o` (the address
 * itself if no symbol holds it). */
uint32_t trace_funcs_holding(struct trace_funcs *tf, struct object *o, uint64_t addr);
/* Whether function `from` can reach `to` by jumps (tail calls), at
 * most `hops` of them. */
int func_jumps_to(const struct func_table *ft, uint32_t from, uint32_t to, unsigned hops);
/* Records that `from` can jump to `to`. */
void func_add_jump(struct func_table *ft, uint32_t from, uint32_t to);

/* Looks up every usable object's call sites (ps->v[i].ok), and once
 * per object file (per table) its functions' jumps and untraced calls. */
void trace_funcs_init(struct trace_funcs *tf, struct func_table *ft, struct address_space *as,
                      const struct program_set *ps, const struct trace_file *t);
void trace_funcs_free(struct trace_funcs *tf);

/* The function a runtime address is in (a PLT entry: the function it
 * imports); looked up once per address. */
uint32_t trace_funcs_at_runtime(struct trace_funcs *tf, uint64_t rt);

/* A function known by no address: "(unknown)" (a ring's frame whose
 * function its record does not say). */
uint32_t trace_funcs_unknown(struct trace_funcs *tf);
/* A signal's delivery as a function of its own: "<signal SIGALRM>"
 * ("<signal 34>" for a real-time one, "<signal ?>" if not known). */
struct trace_file;
uint32_t trace_funcs_signal(struct trace_funcs *tf, const struct trace_file *t, uint32_t signo);

/* The callee of call event `e` (a TRACE_CALL of a usable object). */
static inline uint32_t trace_funcs_callee(struct trace_funcs *tf, const struct trace_event *e)
{
    uint32_t f = e->has_target ? FUNC_NONE : tf->callee[e->object][e->site];
    if (f != FUNC_NONE)
        return f;
    int direct;
    uint64_t link;
    return trace_funcs_at_runtime(tf, call_target(&tf->ps->v[e->object], e, &direct, &link));
}

static inline uint32_t trace_funcs_caller(const struct trace_funcs *tf, const struct trace_event *e)
{
    return tf->caller[e->object][e->site];
}

/* Whether call event `e` (a TRACE_CALL of a usable object) is a tail
 * jump's: it has no return of its own (callstack.c). */
static inline int trace_funcs_is_jump(const struct trace_funcs *tf, const struct trace_event *e)
{
    const struct program *p = &tf->ps->v[e->object];
    return p->jump && e->site < p->db.header.n_sites && p->jump[e->site];
}

/* Whether tail jump event `e` (trace_funcs_is_jump) enters a function:
 * a jump through a register is recorded wherever it went, and it is a
 * call only where it lands at a function's first instruction (or a PLT
 * entry), not its own function's (a computed jump inside a function is
 * none); a direct one's target was found so at link time. */
int trace_funcs_jump_lands(struct trace_funcs *tf, const struct trace_event *e);

/* --srcline: "file:line" of a call site (link-time address `addr` in
 * object `o`), or NULL.  Valid until trace_funcs_free. */
const char *trace_funcs_srcline(struct trace_funcs *tf, struct object *o, uint64_t addr);

#endif
