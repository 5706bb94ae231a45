/*
 * LITIFUT_EXCLUDE_CALLEE at run time: the calls of the named functions
 * go back to being plain calls.  The object's file carries the call-site
 * table (`.litifut_callsites`, include/litifut/db-format.h: each site
 * with a named callee, the word its redirect replaced); this puts those
 * words back into the loaded code, once, when the copy registers (its
 * first call or its constructor), so that the calls cost nothing more
 * from then on and are never recorded.  The table is taken only if it
 * is the loaded DB's (its checksum) and every word it names lies in an
 * executable segment of the object; each code segment is made writable
 * for the moment, as the sleds are (arch/<arch>/sleds.c).
 *
 * A helper: it calls nothing of the layers (tracer.h); copy.c records
 * what it did.  The caller holds the lock.
 */
#include <elf.h>
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"
#include "litifut/db-format.h"

/* fnmatch(3) without flags: `*`, `?`, `[...]` (`!` or `^` negates,
 * ranges), `\` quotes the next character. */
int glob_match(const char *p, const char *s)
{
    const char *star = 0, *resume = 0;
    while (*s) {
        if (*p == '*') {
            star = ++p;
            resume = s;
            continue;
        }
        int ok = 0;
        const char *next = p + 1;
        if (*p == '?') {
            ok = 1;
        } else if (*p == '[') {
            const char *q = p + 1;
            int neg = *q == '!' || *q == '^';
            q += neg;
            int in = 0, first = 1;
            while (*q && (first || *q != ']')) {
                char lo = *q == '\\' && q[1] ? *++q : *q;
                char hi = lo;
                if (q[1] == '-' && q[2] && q[2] != ']') {
                    q += 2;
                    hi = *q == '\\' && q[1] ? *++q : *q;
                }
                in |= (unsigned char)*s >= (unsigned char)lo && (unsigned char)*s <= (unsigned char)hi;
                q++;
                first = 0;
            }
            if (*q == ']') {
                ok = in != neg;
                next = q + 1;
            } else {
                ok = *s == '[';             /* no closing bracket: a plain '[' */
            }
        } else if (*p == '\\' && p[1]) {
            ok = p[1] == *s;
            next = p + 2;
        } else {
            ok = *p && *p == *s;
        }
        if (ok) {
            p = next;
            s++;
        } else if (star) {
            p = star;
            s = ++resume;
        } else {
            return 0;
        }
    }
    while (*p == '*')
        p++;
    return !*p;
}

/* The rules, one after the other: `rules` split at commas, spaces and
 * (an @FILE's) line ends; a line of @FILE is one rule, '#' a comment. */
struct rule_list {
    const char *v[SKIP_MAX_RULES];
    uint32_t sites[SKIP_MAX_RULES];
    uint32_t n;
};

static void add_rules(struct rule_list *l, char *s, int lines)
{
    while (*s && l->n < SKIP_MAX_RULES) {
        while (*s == ',' || *s == '\n' || *s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (!*s)
            break;
        char *start = s;
        while (*s && *s != '\n' && (lines || (*s != ',' && *s != ' ')))
            s++;
        char *end = s;
        if (*s)
            *s++ = 0;
        while (end > start && (end[-1] == ' ' || end[-1] == '\r' || end[-1] == '\t'))
            *--end = 0;
        if (*start == '#' || end == start)
            continue;
        l->v[l->n++] = start;
    }
}

/* The segment flags (PF_*) of the executable PT_LOAD holding [a, a+4)
 * (link-time), with its range; 0 if none. */
static uint32_t code_segment(const ELF(Phdr) *ph, unsigned n, uintptr_t a,
                             uintptr_t *start, uintptr_t *end)
{
    for (unsigned i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) && a >= ph[i].p_vaddr &&
            a - ph[i].p_vaddr < ph[i].p_filesz && ph[i].p_filesz - (a - ph[i].p_vaddr) >= 4) {
            *start = ph[i].p_vaddr;
            *end = ph[i].p_vaddr + ph[i].p_memsz;
            return ph[i].p_flags;
        }
    return 0;
}

static int prot_of(uint32_t flags)
{
    return (flags & PF_R ? PROT_READ : 0) | (flags & PF_W ? PROT_WRITE : 0) |
           (flags & PF_X ? PROT_EXEC : 0);
}

/* The original word back at run-time address a (Thumb: two halfwords). */
static void put_word(uintptr_t a, uint32_t insn)
{
    if (a & 3) {
        volatile uint16_t *h = (volatile uint16_t *)a;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        h[0] = (uint16_t)(insn >> 16), h[1] = (uint16_t)insn;
#else
        h[0] = (uint16_t)insn, h[1] = (uint16_t)(insn >> 16);
#endif
    } else {
        *(volatile uint32_t *)a = insn;
    }
}

static uint32_t get_word(uintptr_t a)
{
    const volatile uint16_t *h = (const volatile uint16_t *)a;
    if (!(a & 3))
        return *(const volatile uint32_t *)a;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t)h[0] << 16 | h[1];
#else
    return h[0] | (uint32_t)h[1] << 16;
#endif
}

/* The rules' counts as text: "rule count" lines. */
static void describe(struct skip_result *r, const struct rule_list *l)
{
    char *p = r->text, *end = r->text + sizeof r->text;
    for (uint32_t i = 0; i < l->n && p < end - 16; i++) {
        p = str_put(p, end, l->v[i]);
        p = str_put(p, end, " ");
        p = str_put_uint(p, end, l->sites[i]);
        p = str_put(p, end, "\n");
    }
}

/* Which of `l` names callee c (its three names), or -1. */
static int rule_naming(const struct rule_list *l, const char *names, uint32_t names_size,
                       const struct litifut_callsite_callee *c)
{
    const uint32_t off[3] = { c->name, c->full, c->bare };
    for (int k = 0; k < 3; k++)
        if (off[k] >= names_size)
            return -1;
    for (uint32_t i = 0; i < l->n; i++)
        for (int k = 0; k < 3; k++)
            if (glob_match(l->v[i], names + off[k]))
                return (int)i;
    return -1;
}

/* The call-site table of the object file at f (n bytes, mapped), checked
 * field by field against the file and the loaded DB: LITIFUT_SKIP_DONE
 * and *v filled, or why not (LITIFUT_SKIP_NO_TABLE, _OTHER_DB). */
uint32_t callsites_find(const unsigned char *f, unsigned long n, struct callsites_view *v)
{
    const ELF(Ehdr) *eh = (const ELF(Ehdr) *)f;
    if (n < sizeof *eh || eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
        eh->e_shentsize != sizeof(ELF(Shdr)) || eh->e_shoff > n ||
        eh->e_shnum > (n - eh->e_shoff) / sizeof(ELF(Shdr)) || eh->e_shstrndx >= eh->e_shnum ||
        eh->e_phentsize != sizeof(ELF(Phdr)) || eh->e_phoff > n ||
        eh->e_phnum > (n - eh->e_phoff) / sizeof(ELF(Phdr)))
        return LITIFUT_SKIP_NO_TABLE;
    const ELF(Shdr) *sh = (const ELF(Shdr) *)(f + eh->e_shoff);
    const ELF(Shdr) *strs = &sh[eh->e_shstrndx];
    if (strs->sh_offset > n || strs->sh_size > n - strs->sh_offset || !strs->sh_size ||
        f[strs->sh_offset + strs->sh_size - 1])
        return LITIFUT_SKIP_NO_TABLE;
    const ELF(Shdr) *tab = 0;
    for (unsigned i = 0; i < eh->e_shnum && !tab; i++)
        if (sh[i].sh_name < strs->sh_size &&
            str_eq((const char *)f + strs->sh_offset + sh[i].sh_name, LITIFUT_CALLSITES_SECTION) &&
            sh[i].sh_type == SHT_PROGBITS && sh[i].sh_offset <= n &&
            sh[i].sh_size <= n - sh[i].sh_offset && !(sh[i].sh_offset & 3))
            tab = &sh[i];
    const struct litifut_callsites_header *h =
        tab ? (const struct litifut_callsites_header *)(f + tab->sh_offset) : 0;
    if (!h || tab->sh_size < sizeof *h || h->magic != LITIFUT_CALLSITES_MAGIC ||
        h->version != LITIFUT_CALLSITES_VERSION)
        return LITIFUT_SKIP_NO_TABLE;
    const struct litifut_db_header *db = db_header();
    uint64_t need = sizeof *h + (uint64_t)h->n_callees * sizeof(struct litifut_callsite_callee) +
                    (uint64_t)h->n_sites * sizeof(struct litifut_callsite) + h->names_size;
    if (h->db_checksum != db->checksum)
        return LITIFUT_SKIP_OTHER_DB;
    if (need > tab->sh_size)
        return LITIFUT_SKIP_NO_TABLE;
    v->h = h;
    v->callee = (const void *)(h + 1);
    v->site = (const void *)(v->callee + h->n_callees);
    v->names = (const char *)(v->site + h->n_sites);
    if (h->names_size && v->names[h->names_size - 1])
        return LITIFUT_SKIP_NO_TABLE;
    for (uint32_t c = 0; c < h->n_callees; c++)
        if (v->callee[c].first > h->n_sites || v->callee[c].count > h->n_sites - v->callee[c].first ||
            v->callee[c].name >= h->names_size || v->callee[c].full >= h->names_size ||
            v->callee[c].bare >= h->names_size)
            return LITIFUT_SKIP_NO_TABLE;
    for (uint32_t i = 0; i < h->n_sites; i++)
        if (v->site[i].index >= db->n_sites)
            return LITIFUT_SKIP_NO_TABLE;
    v->ph = (const ELF(Phdr) *)(f + eh->e_phoff);
    v->phnum = eh->e_phnum;
    return LITIFUT_SKIP_DONE;
}

/* Puts back every site of the table at f (n bytes: the object's file,
 * mapped) whose callee a rule names; a problem into r->problem. */
static void skip_in_file(const unsigned char *f, unsigned long n, struct rule_list *l,
                         struct skip_result *r, uint8_t **skipped)
{
    struct callsites_view v;
    r->status = callsites_find(f, n, &v);
    if (r->status)
        return;
    const struct litifut_callsites_header *h = v.h;
    const struct litifut_db_header *db = db_header();
    const struct litifut_callsite_callee *callee = v.callee;
    const struct litifut_callsite *site = v.site;
    const char *names = v.names;
    const ELF(Phdr) *ph = v.ph;
    uintptr_t bias = object_load_bias();

    /* which sites (once each: a site is under each of its callee's
     * names), and whether all their words are in code */
    uint32_t bytes = (db->n_sites + 7) / 8;
    uint8_t *bits = map_aside((bytes + 4095ul) & ~4095ul, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sys_mmap_failed(bits))
        bits = 0;                       /* (then a site under two names counts twice) */
    uintptr_t seg_start = 0, seg_end = 0, lo = UINTPTR_MAX, hi = 0;
    uint32_t seg_flags = 0, total = 0;
    for (uint32_t c = 0; c < h->n_callees; c++) {
        int rule = rule_naming(l, names, h->names_size, &callee[c]);
        if (rule < 0)
            continue;
        for (uint32_t i = callee[c].first; i < callee[c].first + callee[c].count; i++) {
            uintptr_t s0, s1;
            uint32_t fl = code_segment(ph, v.phnum, site[i].patch, &s0, &s1);
            if (!fl || (site[i].patch & 1) || (seg_flags && s0 != seg_start)) {
                for (uint32_t k = 0; k < l->n; k++)
                    l->sites[k] = 0;
                if (bits)
                    sys_munmap(bits, (bytes + 4095ul) & ~4095ul);
                r->status = fl && seg_flags && s0 != seg_start ? LITIFUT_SKIP_SEGMENTS
                                                               : LITIFUT_SKIP_NO_TABLE;
                return;
            }
            seg_flags = fl, seg_start = s0, seg_end = s1;
            if (site[i].patch + bias < lo)
                lo = site[i].patch + bias;
            if (site[i].patch + bias + 4 > hi)
                hi = site[i].patch + bias + 4;
            uint32_t x = site[i].index;
            if (bits && (bits[x / 8] >> (x % 8) & 1))
                continue;               /* (taken under another of its names) */
            if (bits)
                bits[x / 8] |= (uint8_t)(1u << (x % 8));
            l->sites[rule]++;
            total++;
        }
    }
    if (!total) {
        if (bits)
            sys_munmap(bits, (bytes + 4095ul) & ~4095ul);
        return;
    }
    /* the code segment writable for the moment (a thread running
     * through it meanwhile runs the old call or the new: both are
     * right) */
    uint32_t page = auxv_value(6 /* AT_PAGESZ */);
    if (!page || (page & (page - 1)))
        page = 4096;
    uintptr_t m0 = (seg_start + bias) & ~(uintptr_t)(page - 1);
    uintptr_t m1 = (seg_end + bias + page - 1) & ~(uintptr_t)(page - 1);
    if (arch_syscall6(__NR_mprotect, (long)m0, (long)(m1 - m0),
                      PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0)) {
        for (uint32_t i = 0; i < l->n; i++)
            l->sites[i] = 0;
        if (bits)
            sys_munmap(bits, (bytes + 4095ul) & ~4095ul);
        r->status = LITIFUT_SKIP_NOT_WRITABLE;
        return;
    }
    for (uint32_t c = 0; c < h->n_callees; c++) {
        if (rule_naming(l, names, h->names_size, &callee[c]) < 0)
            continue;
        for (uint32_t i = callee[c].first; i < callee[c].first + callee[c].count; i++) {
            uintptr_t a = site[i].patch + bias;
            if (get_word(a) != site[i].insn)
                put_word(a, site[i].insn);
        }
    }
    arch_flush_icache(lo, hi);
    arch_syscall6(__NR_mprotect, (long)m0, (long)(m1 - m0), prot_of(seg_flags), 0, 0, 0);
    r->sites = total;
    *skipped = bits;
}

const unsigned char *map_object_file(const char *path, unsigned long *size)
{
    int fd = path && path[0] ? sys_open(path, O_RDONLY | O_CLOEXEC, 0) : -1;
    long n = fd >= 0 ? arch_syscall6(__NR_lseek, fd, 0, 2 /* SEEK_END */, 0, 0, 0) : -1;
    const unsigned char *f = n > 0 ? map_aside((unsigned long)n, PROT_READ, MAP_PRIVATE, fd, 0) : 0;
    if (fd >= 0)
        sys_close(fd);
    if (!f || sys_mmap_failed((void *)f))
        return 0;
    *size = (unsigned long)n;
    return f;
}

void skip_callees(const char *path, const char *rules, struct skip_result *r, uint8_t **skipped)
{
    static char text[SKIP_RULES_MAX];   /* (the caller holds the lock) */
    struct rule_list l;
    l.n = 0;
    for (uint32_t i = 0; i < SKIP_MAX_RULES; i++)
        l.sites[i] = 0;
    r->sites = 0;
    r->status = LITIFUT_SKIP_DONE;
    r->text[0] = 0;
    *skipped = 0;
    str_put(text, text + sizeof text, rules);
    add_rules(&l, text, 0);
    /* @FILE: its lines (read into memory that stays until the end) */
    char *file = 0;
    for (uint32_t i = 0; i < l.n; i++)
        if (l.v[i][0] == '@' && !file) {
            unsigned long len;
            file = read_proc_file(l.v[i] + 1, &len);
            if (!file) {
                r->status = LITIFUT_SKIP_NO_RULES;
                describe(r, &l);
                return;
            }
            for (uint32_t k = i; k + 1 < l.n; k++)  /* (the @FILE rule itself is no rule) */
                l.v[k] = l.v[k + 1];
            l.n--;
            add_rules(&l, file, 1);
            i--;
        }
    unsigned long size;
    const unsigned char *f = map_object_file(path, &size);
    if (!f) {
        r->status = LITIFUT_SKIP_NO_FILE;
    } else {
        skip_in_file(f, size, &l, r, skipped);
        sys_munmap((void *)f, size);
    }
    describe(r, &l);
    if (file)
        free_proc_file(file);
}
