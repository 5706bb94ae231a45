/*
 * LITIFUT_ARGS: what selected calls are given and what they give back.
 *
 *   LITIFUT_ARGS='open;strcmp@arg1/s,arg2/s,retval;my_*@arg2,retval/x16'
 *
 * Rules one after the other (';', spaces, line ends); each a glob of
 * callee names (as LITIFUT_EXCLUDE_CALLEE's: the call-site table's),
 * then '@' and what to record: argN (the Nth integer argument register,
 * 1 to ARCH_INT_ARGS), retval, each as an integer, or /s (a pointer and
 * the string there, 64 bytes or /sLEN) or /xLEN (a pointer and LEN bytes
 * there), LEN up to LITIFUT_ARGS_COPY_MAX; fpargN (the Nth
 * floating-point argument register, 1 to ARCH_FP_ARGS: a double, or a
 * float with /f32, 1 to ARCH_FP_FLOATS) and retval/f (a double; /f32 a float) where the ABI
 * passes them in floating-point registers (armhf, AArch64).  A rule without '@' takes
 * include/litifut/protos.h's items for a function it knows, else every
 * integer argument register and the return value.
 *
 * No cost for the calls not selected: when the copy registers, each
 * selected site's DB word is changed (the DB's pages writable for the
 * moment) to send it, once its hot path has recorded it as before, to
 * this copy's args entry (arch/<arch>/: a sled entry's frame and the
 * "4k" ARGS_K4) instead of its callee: the slow path then comes here
 * (args_call), which writes the ARGS record after the call's, and goes
 * on to the callee.  A MIPS call through a register ($t9 from the GOT)
 * gets its word's slow-path bit instead, and litifut_slow hands it here.
 * The return value: the call's return is hooked with the C trampoline
 * (stub.S), whose litifut_return (returns.c) writes the RETURN and then
 * the ARGS record, in one chunk, for the calls marked here (per thread,
 * by their stack pointer).  Needs exact returns for return values.
 *
 * Pointers are read only where /proc/self/maps says memory is readable
 * (a cache of its ranges, read again when a pointer is in none), so that
 * a bad pointer never faults the program: it is recorded as unreadable.
 * A range unmapped by another thread between the look and the copy is
 * the one way left to fault (as with uftrace's).
 *
 * Only in LITIFUT_MODE full and ring (the other modes record no calls).
 */
#include <elf.h>
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"
#include "litifut/db-format.h"
#include "litifut/protos.h"
#include "litifut/trace-format.h"

#define ARGS_MAX_RULES   32
#define ARGS_STRING_LEN  64             /* /s without a length */

struct args_item {
    uint8_t kind;                       /* LITIFUT_VALUE_INT, _STRING, _MEMORY, _FLOAT */
    uint8_t pos;                        /* 0: the return value; N: argument N (_FLOAT: FP argument N) */
    uint16_t len;                       /* a copy's bytes, at most (_FLOAT: 4 or 8) */
};
struct args_spec {
    uint32_t n;
    struct args_item v[LITIFUT_ARGS_MAX_VALUES];
    uint32_t args_words, ret_words;     /* the record's words, at most, of each (2: none) */
    uint32_t fp;                        /* has floating-point values */
};
struct args_rule {
    const char *glob;
    int has_items;
    struct args_spec spec;
};
struct args_site {
    uintptr_t ra;                       /* the call's return address (run time) */
    uintptr_t target;                   /* its callee; 0: through a register */
    uint32_t index;                     /* its DB index */
    const struct args_spec *spec;
};
/* The calls of a thread whose return value is to be recorded, by the
 * stack pointer of their call, outermost first. */
struct args_marks {
    uint32_t n;
    struct {
        uintptr_t sp;
        const struct args_spec *spec;
    } v[(4096 - 8) / (2 * sizeof(uintptr_t))];
};

/* This copy's rules and sites (one copy per object: the statics are
 * this object's) */
static char text[SKIP_RULES_MAX];
static struct args_rule rules[ARGS_MAX_RULES];
static uint32_t n_rules;
static struct args_spec default_spec;
static struct args_spec proto_spec[LITIFUT_N_PROTOS];
static uint8_t proto_parsed[LITIFUT_N_PROTOS];

/* --- the rules --- */

static const char *parse_uint(const char *s, uint32_t *v)
{
    if (*s < '0' || *s > '9')
        return 0;
    uint32_t n = 0;
    while (*s >= '0' && *s <= '9' && n < 100000)
        n = 10 * n + (uint32_t)(*s++ - '0');
    *v = n;
    return s;
}

static void spec_sizes(struct args_spec *sp)
{
    sp->args_words = sp->ret_words = 2;     /* (the control word, which and how many) */
    sp->fp = 0;
    for (uint32_t i = 0; i < sp->n; i++) {
        uint32_t w = 1 + WORD_WORDS + (sp->v[i].kind == LITIFUT_VALUE_INT ? 0 : (sp->v[i].len + 3u) / 4);
        sp->fp |= sp->v[i].kind == LITIFUT_VALUE_FLOAT;
        if (sp->v[i].pos)
            sp->args_words += w;
        else
            sp->ret_words += w;
    }
}

/* Does [s, end) begin with the word w?  Then past it, else 0. */
static const char *word_at(const char *s, const char *end, const char *w)
{
    for (; *w; w++, s++)
        if (s >= end || *s != *w)
            return 0;
    return s;
}

/* Items "arg1/s,retval" (up to `end`) into sp; 0 if they do not read. */
static int parse_items(const char *s, const char *end, struct args_spec *sp)
{
    sp->n = 0;
    while (s < end) {
        struct args_item it = { LITIFUT_VALUE_INT, 0, 0 };
        uint32_t v;
        const char *w, *after;
        if ((w = word_at(s, end, "retval"))) {
            s = w;
        } else if ((w = word_at(s, end, "arg")) && (after = parse_uint(w, &v)) && v >= 1 &&
                   v <= ARCH_INT_ARGS) {
            it.pos = (uint8_t)v;
            s = after;
        } else if ((w = word_at(s, end, "fparg")) && (after = parse_uint(w, &v)) && v >= 1 &&
                   v <= ARCH_FP_FLOATS) {           /* (a double's: checked below) */
            it.kind = LITIFUT_VALUE_FLOAT;
            it.pos = (uint8_t)v;
            it.len = 8;
            s = after;
        } else {
            return 0;
        }
        if (s < end && *s == '/') {
            if ((w = word_at(s, end, "/f")) && ARCH_FP_ARGS &&
                (it.kind == LITIFUT_VALUE_FLOAT || it.pos == 0)) {
                it.kind = LITIFUT_VALUE_FLOAT;
                it.len = 8;
                s = w;
                if (word_at(s, end, "32"))
                    it.len = 4, s += 2;
                else if (word_at(s, end, "64"))
                    s += 2;
            } else if (it.kind == LITIFUT_VALUE_FLOAT) {
                return 0;
            } else if (s + 1 < end && s[1] == 's') {
                it.kind = LITIFUT_VALUE_STRING;
                it.len = ARGS_STRING_LEN;
                s += 2;
                if (s < end && *s >= '0' && *s <= '9') {
                    if (!(s = parse_uint(s, &v)) || !v || v > LITIFUT_ARGS_COPY_MAX)
                        return 0;
                    it.len = (uint16_t)v;
                }
            } else if (s + 1 < end && s[1] == 'x') {
                it.kind = LITIFUT_VALUE_MEMORY;
                if (!(s = parse_uint(s + 2, &v)) || !v || v > LITIFUT_ARGS_COPY_MAX)
                    return 0;
                it.len = (uint16_t)v;
            } else {
                return 0;
            }
        }
        if (s < end && *s != ',')
            return 0;
        if (it.kind == LITIFUT_VALUE_FLOAT && it.len == 8 && it.pos > ARCH_FP_ARGS)
            return 0;
        if (s < end)
            s++;
        if (sp->n == LITIFUT_ARGS_MAX_VALUES)
            return 0;
        sp->v[sp->n++] = it;
    }
    spec_sizes(sp);
    return sp->n > 0 && sp->args_words <= ARGS_RECORD_MAX && sp->ret_words <= ARGS_RECORD_MAX;
}

static int separator(char c)
{
    return c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* `spec` into the rules (the text copied into `buf`); 0 if it does not read. */
static int parse_rules(const char *spec, char *buf, struct args_rule *r, uint32_t *n)
{
    str_put(buf, buf + SKIP_RULES_MAX, spec);
    *n = 0;
    char *s = buf;
    while (*s) {
        while (separator(*s))
            s++;
        if (!*s)
            break;
        char *start = s, *at = 0;
        while (*s && !separator(*s)) {
            if (*s == '@' && !at)
                at = s;
            s++;
        }
        char *end = s;
        if (*s)
            *s++ = 0;
        if (*n == ARGS_MAX_RULES || at == start)
            return 0;
        struct args_rule *x = &r[(*n)++];
        x->glob = start;
        x->has_items = at != 0;
        if (at) {
            *at = 0;
            if (!parse_items(at + 1, end, &x->spec))
                return 0;
        }
    }
    return *n > 0;
}

const char *args_spec_problem(const char *spec)
{
    static char buf[SKIP_RULES_MAX];    /* (settings are read once, by one thread) */
    static struct args_rule scratch[ARGS_MAX_RULES];
    uint32_t n;
    if (str_len(spec) >= SKIP_RULES_MAX)
        return "at most 1023 bytes";
    return parse_rules(spec, buf, scratch, &n) ? 0 : "rules such as open;strcmp@arg1/s,retval";
}

/* What a rule without items records of callee `name`. */
static const struct args_spec *bare_spec(const char *name)
{
    uint32_t lo = 0, hi = LITIFUT_N_PROTOS;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        const char *a = litifut_protos[mid].name, *b = name;
        while (*a && *a == *b)
            a++, b++;
        int c = (unsigned char)*a - (unsigned char)*b;
        if (!c) {
            if (!proto_parsed[mid]) {
                const char *s = litifut_protos[mid].spec;
                if (!parse_items(s, s + str_len(s), &proto_spec[mid]))
                    break;
                proto_parsed[mid] = 1;
            }
            return &proto_spec[mid];
        }
        if (c > 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (!default_spec.n) {
        for (uint32_t i = 0; i < ARCH_INT_ARGS; i++)
            default_spec.v[default_spec.n++] = (struct args_item){ LITIFUT_VALUE_INT,
                                                                   (uint8_t)(i + 1), 0 };
        default_spec.v[default_spec.n++] = (struct args_item){ LITIFUT_VALUE_INT, 0, 0 };
        spec_sizes(&default_spec);
    }
    return &default_spec;
}

/* The spec of the first rule naming callee c, or NULL. */
static const struct args_spec *spec_for(const struct callsites_view *v,
                                        const struct litifut_callsite_callee *c)
{
    const uint32_t off[3] = { c->name, c->full, c->bare };
    for (uint32_t i = 0; i < n_rules; i++)
        for (int k = 0; k < 3; k++)
            if (glob_match(rules[i].glob, v->names + off[k]))
                return rules[i].has_items ? &rules[i].spec : bare_spec(v->names + c->name);
    return 0;
}

/* --- the sites --- */

static int by_ra(const struct args_site *a, const struct args_site *b)
{
    return a->ra < b->ra ? -1 : a->ra > b->ra;
}

static void sort_sites(struct args_site *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++) {      /* (insertion: a few hundred sites at most,
                                               mostly in order) */
        struct args_site x = v[i];
        uint32_t k = i;
        while (k && by_ra(&v[k - 1], &x) > 0) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = x;
    }
}

/* The PT_LOAD of `ph` holding link-time [a, a + len): its flags, range. */
static uint32_t segment_of(const ELF(Phdr) *ph, unsigned n, uintptr_t a, uintptr_t len,
                           uintptr_t *start, uintptr_t *end)
{
    for (unsigned i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && a >= ph[i].p_vaddr && a - ph[i].p_vaddr <= ph[i].p_memsz &&
            len <= ph[i].p_memsz - (a - ph[i].p_vaddr)) {
            *start = ph[i].p_vaddr;
            *end = ph[i].p_vaddr + ph[i].p_memsz;
            return ph[i].p_flags;
        }
    return 0;
}

extern const char litifut_args_entry[] HIDDEN;
extern const char litifut_thunks[] __attribute__((weak)) HIDDEN;
extern const char litifut_thunks_end[] __attribute__((weak)) HIDDEN;

/* Selects the sites of the table at f (n bytes: the object's file)
 * whose callee a rule names; NULL and *why if it could not. */
static const char *select_sites(const unsigned char *f, unsigned long n)
{
    struct callsites_view v;
    uint32_t st = callsites_find(f, n, &v);
    if (st)
        return st == LITIFUT_SKIP_OTHER_DB ? ": its call-site table is not the loaded DB's"
                                           : ": it has no call-site table (stripped, or linked "
                                             "by an older litifut)";
    const struct litifut_db_header *db = db_header();
    uint32_t *words = (uint32_t *)db_sites();
    uintptr_t bias = object_load_bias(), entry = (uintptr_t)litifut_args_entry;
    uint32_t total = 0;
    for (uint32_t c = 0; c < v.h->n_callees; c++)
        if (spec_for(&v, &v.callee[c]))
            total += v.callee[c].count;
    if (!total)
        return 0;
    unsigned long bytes = ((unsigned long)total * sizeof(struct args_site) + 4095) & ~4095ul;
    struct args_site *sites = map_aside(bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                        -1, 0);
    if (sys_mmap_failed(sites))
        return ": no memory for its selected calls";
    /* the DB writable for the moment (a thread reading a word meanwhile
     * reads the old or the new: both are right) */
    uintptr_t db_link = (uintptr_t)db - bias, seg0, seg1;
    uint32_t db_bytes = 4 * (LITIFUT_DB_HEADER_WORDS + db->n_pages + db->n_sites);
    uint32_t flags = segment_of(v.ph, v.phnum, db_link, db_bytes, &seg0, &seg1);
    uint32_t page = auxv_value(6 /* AT_PAGESZ */);
    if (!page || (page & (page - 1)))
        page = 4096;
    uintptr_t m0 = (uintptr_t)db & ~(uintptr_t)(page - 1);
    uintptr_t m1 = ((uintptr_t)db + db_bytes + page - 1) & ~(uintptr_t)(page - 1);
    int prot = (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
               (flags & PF_X ? PROT_EXEC : 0);
    if (!flags || arch_syscall6(__NR_mprotect, (long)m0, (long)(m1 - m0), prot | PROT_WRITE |
                                PROT_READ, 0, 0, 0)) {
        sys_munmap(sites, bytes);
        return ": its instruction DB could not be made writable";
    }
    uint32_t k = 0;
    for (uint32_t c = 0; c < v.h->n_callees; c++) {
        const struct args_spec *sp = spec_for(&v, &v.callee[c]);
        for (uint32_t i = v.callee[c].first; sp && i < v.callee[c].first + v.callee[c].count; i++) {
            uint32_t index = v.site[i].index, w = words[index];
            const uint8_t *skipped = litifut_copy.skipped;
            if (skipped && (skipped[index / 8] >> (index % 8) & 1))
                continue;                   /* put back to a plain call (skip.c) */
            struct args_site *a = &sites[k];
            a->ra = v.site[i].patch + bias + RA_OFFSET;
            a->index = index;
            a->spec = sp;
            if (w < LITIFUT_DB_INDIRECT) {
#ifdef ARCH_SLOW_REG_BIT
                if ((w & LITIFUT_DB_JUMP_REG) || (w & ARCH_SLOW_REG_BIT))
                    continue;               /* a tail jump (no frame of its own); or taken
                                               already, under another of its callee's names */
                a->target = 0;
                words[index] = w | ARCH_SLOW_REG_BIT;
                k++;
#endif
                continue;
            }
            uintptr_t t = (uintptr_t)&words[index] + (uintptr_t)(intptr_t)(int32_t)w;
            if (t - (uintptr_t)litifut_thunks < (uintptr_t)(litifut_thunks_end - litifut_thunks))
                continue;                   /* a tail jump's thunk */
            if (t == entry)
                continue;                   /* taken already, under another of its callee's names */
            a->target = t;
            k++;
            words[index] = (uint32_t)(entry - (uintptr_t)&words[index]);
        }
    }
    arch_syscall6(__NR_mprotect, (long)m0, (long)(m1 - m0), prot, 0, 0, 0);
    sort_sites(sites, k);
    litifut_copy.args = sites;
    __asm__ volatile("" ::: "memory");
    litifut_copy.n_args = k;
    return 0;
}

void args_start(const char *path, const char *spec)
{
    if (!parse_rules(spec, text, rules, &n_rules))
        return;                             /* (settings.c said so) */
    const char *why = ": cannot read its file";
    /* (in modes dedup and count no call is a record: settings.c refuses them) */
    unsigned long size;
    const unsigned char *f = map_object_file(path, &size);
    if (f) {
        why = select_sites(f, size);
        sys_munmap((void *)f, size);
    }
    if (why)
        say("LITIFUT_ARGS not applied in", path && path[0] ? path : "an object", 0, why);
}

const struct args_site *args_site_at(uintptr_t ra)
{
    const struct args_site *v = litifut_copy.args;
    uint32_t lo = 0, hi = litifut_copy.n_args;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (v[mid].ra == ra)
            return &v[mid];
        if (v[mid].ra < ra)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

uintptr_t args_target(const struct args_site *a, uintptr_t target)
{
    return a->target ? a->target : target;
}

/* --- readable memory: /proc/self/maps' readable ranges --- */

#define MAX_RANGES 1000
struct ranges {
    uint32_t n;
    uintptr_t v[MAX_RANGES][2];
};
static struct ranges *readable_ranges;

static uintptr_t hex(const char **s)
{
    uintptr_t v = 0;
    for (;; (*s)++) {
        char c = **s;
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
        if (d == 16)
            return v;
        v = v << 4 | d;
    }
}

static void read_ranges(struct ranges *r)
{
    unsigned long len;
    char *maps = read_proc_file("/proc/self/maps", &len);
    r->n = 0;
    if (!maps)
        return;
    const char *s = maps, *end = maps + len;
    while (s < end && r->n < MAX_RANGES) {
        uintptr_t a = hex(&s);
        if (*s == '-')
            s++;
        uintptr_t b = hex(&s);
        if (*s == ' ' && s[1] == 'r' && a < b) {
            if (r->n && r->v[r->n - 1][1] == a)
                r->v[r->n - 1][1] = b;      /* (adjacent readable mappings: one range) */
            else
                r->v[r->n][0] = a, r->v[r->n][1] = b, r->n++;
        }
        while (s < end && *s != '\n')
            s++;
        s++;
    }
    free_proc_file(maps);
}

/* How many of the `n` bytes at p are readable (0 to n), from the ranges. */
static uintptr_t readable_in(const struct ranges *r, uintptr_t p, uintptr_t n)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (p >= r->v[i][0] && p < r->v[i][1]) {
            uintptr_t end = r->v[i][1];
            return end - p < n ? end - p : n;
        }
    return 0;
}

/* Readable bytes at p (up to n), the ranges read again once if p is in
 * none.  Under the lock (this copy's threads share the ranges). */
static uintptr_t readable(uintptr_t p, uintptr_t n, int *reread)
{
    if (!readable_ranges) {
        void *m = map_aside((sizeof(struct ranges) + 4095) & ~4095ul, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (sys_mmap_failed(m))
            return 0;
        readable_ranges = m;
        read_ranges(readable_ranges);
        *reread = 1;
    }
    uintptr_t k = readable_in(readable_ranges, p, n);
    if (!k && !*reread) {
        read_ranges(readable_ranges);
        *reread = 1;
        k = readable_in(readable_ranges, p, n);
    }
    return k;
}

/* --- the records --- */

static uint32_t *put_word_value(uint32_t *p, uintptr_t v)
{
    p[0] = (uint32_t)v;
#if TRACER_LP64
    p[1] = (uint32_t)((uint64_t)v >> 32);
#endif
    return p + WORD_WORDS;
}

/* The lock, taken for the first pointer of a record (the ranges are
 * this copy's, its threads share them); the ranges read again at most
 * once per record. */
struct reading {
    int locked;                         /* 1 taken, -1 this thread holds it already */
    int reread;
    uint32_t mask[SIGSET_WORDS];
};

/* One value at p: its word, the register, and the copy it asks for. */
static uint32_t *put_value(uint32_t *p, const struct args_item *it, uintptr_t v,
                           struct reading *rd)
{
    uint32_t *head = p;
    p = put_word_value(p + 1, v);
    uint32_t kind = it->kind, got = 0;
    if (kind != LITIFUT_VALUE_INT) {
        if (!rd->locked)
            rd->locked = lock_unless_mine(rd->mask) ? 1 : -1;
        uintptr_t k = rd->locked > 0 && v ? readable(v, it->len, &rd->reread) : 0;
        if (!k) {
            kind = LITIFUT_VALUE_UNREADABLE;
        } else {
            const volatile unsigned char *src = (const volatile unsigned char *)v;
            unsigned char *dst = (unsigned char *)p;
            int nul = 0;
            while (got < k && !(kind == LITIFUT_VALUE_STRING && (nul = !src[got])))
                dst[got] = src[got], got++;
            if (kind == LITIFUT_VALUE_STRING ? !nul : got < it->len)
                kind |= LITIFUT_VALUE_CUT;  /* (no NUL within the limit, or memory ends) */
            for (uint32_t z = got; z & 3; z++)
                dst[z] = 0;
            p += (got + 3) / 4;
        }
    }
    *head = kind | (uint32_t)it->pos << 8 | got << 16;
    return p;
}

#if ARCH_FP_ARGS
/* A floating-point register's value at p: d[] as litifut_fp_registers read them. */
static uint32_t *put_float(uint32_t *p, const struct args_item *it, const uint64_t *d)
{
    unsigned i = it->pos ? it->pos - 1u : 0;
    *p++ = LITIFUT_VALUE_FLOAT | (uint32_t)it->pos << 8 | (uint32_t)it->len << 16;
    p = put_word_value(p, 0);
    if (it->len == 4) {
        *p++ = arch_fp_float(d, i);
    } else {
        *p++ = (uint32_t)d[i];
        *p++ = (uint32_t)(d[i] >> 32);
    }
    return p;
}
#endif

/* The values of an ARGS record `which` at p (room checked), its two
 * words before them; integer arguments from the frame, the return value
 * `ret`; floating-point ones from the registers as they are (nothing
 * between the call or return and here touches them).  Returns the
 * record's end. */
static uint32_t *put_args(uint32_t *p, uint32_t which, const struct args_spec *sp,
                          const struct arch_frame *frame, uintptr_t ret)
{
    struct reading rd = { 0, 0, { 0 } };
    uint32_t *head = p, n = 0;
#if ARCH_FP_ARGS
    uint64_t d[8];
    if (sp->fp)
        litifut_fp_registers(d);
#endif
    p += 2;
    for (uint32_t i = 0; i < sp->n; i++) {
        const struct args_item *it = &sp->v[i];
        if ((which == LITIFUT_ARGS_RETURN) != (it->pos == 0))
            continue;
#if ARCH_FP_ARGS
        if (it->kind == LITIFUT_VALUE_FLOAT)
            p = put_float(p, it, d);
        else
#endif
            p = put_value(p, it, it->pos ? arch_frame_arg(frame, it->pos - 1u) : ret, &rd);
        n++;
    }
    if (rd.locked > 0)
        unlock(rd.mask);
    head[0] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_ARGS, p - head - 1);
    head[1] = which | n << 8;
    return p;
}

/* The call `a`'s hot path (or the slow path) just recorded, as the
 * thread's last record: is it there? */
static int just_recorded(const struct litifut_thread *t, const struct args_site *a)
{
    if (t->state != THREAD_ON || t->busy || !t->cur || t->cur <= t->chunk)
        return 0;
    const struct litifut_process *proc = litifut_copy.proc;
    if (!proc || proc->recording_off)
        return 0;
    uint32_t w = t->cur[-1];
    return LITIFUT_REC_TAG(w) == LITIFUT_REC_CALL &&
           LITIFUT_REC_SITE(w) == litifut_copy.base + a->index;
}

static struct args_marks *marks_of(struct litifut_thread *t)
{
    if (!t->args_marks) {
        void *m = map_aside(sizeof(struct args_marks), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (!sys_mmap_failed(m))
            t->args_marks = m;
    }
    return t->args_marks;
}

void args_after_call(struct litifut_thread *t, struct arch_frame *frame, const struct args_site *a,
                     uintptr_t sp_call)
{
    const struct args_spec *sp = a->spec;
    t->busy = (uintptr_t)frame;
    __asm__ volatile("" ::: "memory");
    /* (right after the call's record: the chunk keeps the room, thread.c) */
    if (sp->args_words > 2 && t->cur && (uint32_t)(t->chunk_end - t->cur) >= sp->args_words)
        t->cur = put_args(t->cur, LITIFUT_ARGS_CALL, sp, frame, 0);
    /* its return value: the call's return to the C trampoline, marked */
    uintptr_t *slot = arch_return_address_slot(frame);
    struct args_marks *m = sp->ret_words > 2 && returns_is_trampoline(*slot) ? marks_of(t) : 0;
    if (m) {
        while (m->n && m->v[m->n - 1].sp <= sp_call)
            m->n--;                         /* (calls left by a jump) */
        if (m->n < sizeof m->v / sizeof m->v[0]) {
            m->v[m->n].sp = sp_call;
            m->v[m->n].spec = sp;
            m->n++;
            *slot = (uintptr_t)litifut_return_trampoline;
        }
    }
    __asm__ volatile("" ::: "memory");
    t->busy = 0;
}

uintptr_t args_call(struct arch_frame *frame)
{
    uintptr_t sp_call = (uintptr_t)(frame + 1);
    uintptr_t lr = arch_return_address(frame);
    uintptr_t ra = returns_is_trampoline(lr) ? returns_real_address(sp_call) : lr;
    const struct args_site *a = args_site_at(ARCH_CODE_ADDRESS(ra));
    if (!a || !a->target)
        die_at("LITIFUT_ARGS: no selected call returns to ", ra, "");
    struct litifut_thread *t = thread_self();
    if (just_recorded(t, a))
        args_after_call(t, frame, a, sp_call);
    return a->target;
}

uint32_t *args_on_return(struct litifut_thread *t, uint32_t *p, uintptr_t sp_call, uintptr_t sp_ret)
{
    struct args_marks *m = t->args_marks;
    while (m && m->n && m->v[m->n - 1].sp < sp_call)
        m->n--;                             /* (calls left by a jump) */
    if (!m || !m->n || m->v[m->n - 1].sp != sp_call)
        return returns_put(t, p);
    const struct args_spec *sp = m->v[--m->n].spec;
    /* the RETURN and the ARGS after it in one chunk */
    if (!(p = thread_room(t, sp->ret_words + 2 + TIME_MARK_WORDS + CALL_MAX_WORDS)))
        return t->state == THREAD_ON ? returns_put(t, t->cur) : 0;   /* (no room: no value) */
    uint32_t delta;
    if (!(p = event_time(t, p, &delta)))
        return 0;
    *p++ = LITIFUT_REC_RETURN_WORD | delta << LITIFUT_REC_DELTA_SHIFT;
    uint32_t *end = put_args(p, LITIFUT_ARGS_RETURN, sp, 0, arch_returned_value(sp_ret));
    t->cur = end;
    if (t->lim <= end)
        end = control_refill(t);
    return end;
}
