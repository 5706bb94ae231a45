/*
 * The call-site table (`.litifut_callsites`, include/litifut/db-format.h):
 * each rewritten site with a named callee, grouped by callee, with the
 * word its redirect replaced, so that the tracer can put the original
 * call back at run time (LITIFUT_EXCLUDE_CALLEE, stub/skip.c).  Callees
 * are named as src/rules.c names them at link time: the function a
 * fixed target lies in, by each of its names (every function symbol
 * starting where it starts: a static C library's open is also
 * __libc_open64, so a site is under each), the PLT entry or veneer it
 * is (before '@'), or a MIPS GOT call's symbol.  The tracer's readers
 * take a site once however many of its names a rule matches.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "src/callsites.h"
#include "lib/arch-read.h"
#include "lib/error.h"
#include "litifut/db-format.h"

struct named_site {
    const char *name;
    uint32_t index;
};

static int by_name_then_index(const void *a, const void *b)
{
    const struct named_site *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

static int plt_by_addr(const void *a, const void *b)
{
    const struct plt_entry *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The named PLT entry (or veneer) holding addr, or NULL. */
static const struct plt_entry *plt_at(const struct plt_entry *e, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (addr < e[mid].addr)
            hi = mid;
        else if (addr - e[mid].addr >= e[mid].size)
            lo = mid + 1;
        else
            return e[mid].name ? &e[mid] : NULL;
    }
    return NULL;
}

/* Where the call at s goes, if the link fixed it (0: not known). */
static uint64_t fixed_target(const struct arch_ops *arch, const struct call_site *s)
{
    uint64_t t = 0;
    if (s->target)
        return s->target;
    return arch_read_ops(arch)->call_target(s, &t) ? t : 0;
}

struct names {
    char *v;
    size_t n, cap;
};

static uint32_t add_name(struct names *b, const char *s, size_t len)
{
    if (b->n + len + 1 > b->cap) {
        b->cap = 2 * (b->n + len + 1) + 4096;
        b->v = xrealloc(b->v, b->cap);
    }
    uint32_t at = (uint32_t)b->n;
    memcpy(b->v + b->n, s, len);
    b->v[b->n + len] = 0;
    b->n += len + 1;
    return at;
}

unsigned char *callsites_build(const struct arch_ops *arch, const struct elf_image *img,
                               const struct site_list *sites, uint32_t db_checksum, size_t *len)
{
    struct plt_entry *plt = NULL;
    size_t n_plt = 0;
    if (arch_read_ops(arch)->plt_entries(img, &plt, &n_plt) != 0)
        plt = NULL, n_plt = 0;
    if (n_plt)
        qsort(plt, n_plt, sizeof *plt, plt_by_addr);
    struct function_index fx;
    function_index_build(img, &fx);

    /* every site's callee name (those of the image's tables, kept until
     * the end; a PLT entry's own, cut at '@' in place) */
    for (size_t i = 0; i < n_plt; i++)
        if (plt[i].name)
            plt[i].name[strcspn(plt[i].name, "@")] = 0;
    size_t cap = sites->n + 16, n = 0;
    struct named_site *ns = xcalloc(cap, sizeof *ns);
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        uint64_t target = fixed_target(arch, s) & ~(uint64_t)1;    /* (ARM: the Thumb bit) */
        const char *name = NULL;
        const struct indexed_function *f = NULL;
        if (target) {
            const struct plt_entry *e = plt_at(plt, n_plt, target);
            f = e ? NULL : function_index_find(&fx, target);
            name = e ? e->name : f ? f->sym->name : NULL;
        } else if (s->callee_sym && s->callee_sym - 1 < img->n_dynsyms) {
            name = img->dynsyms[s->callee_sym - 1].name;
        }
        if (!name || !*name)
            continue;
        /* a function by each of its names: the symbols starting where it does */
        size_t a = f ? (size_t)(f - fx.v) : 0, b = a + 1;
        while (f && a > 0 && fx.v[a - 1].start == f->start)
            a--;
        while (f && b < fx.n && fx.v[b].start == f->start)
            b++;
        for (size_t k = a; k < b; k++) {
            const char *nk = f ? fx.v[k].sym->name : name;
            if (!nk || !*nk)
                continue;
            if (n == cap)
                ns = xrealloc(ns, (cap *= 2) * sizeof *ns);
            ns[n++] = (struct named_site){ nk, (uint32_t)i };
        }
    }
    qsort(ns, n, sizeof *ns, by_name_then_index);
    size_t kept = 0;                    /* (a name twice at one start: local and global) */
    for (size_t i = 0; i < n; i++)
        if (!kept || ns[i].index != ns[kept - 1].index || strcmp(ns[i].name, ns[kept - 1].name))
            ns[kept++] = ns[i];
    n = kept;
    size_t n_callees = 0;
    for (size_t i = 0; i < n; i++)
        n_callees += i == 0 || strcmp(ns[i].name, ns[i - 1].name) != 0;

    size_t head = sizeof(struct litifut_callsites_header) +
                  n_callees * sizeof(struct litifut_callsite_callee);
    size_t table = head + n * sizeof(struct litifut_callsite);
    unsigned char *out = xcalloc(table + 1, 1);
    struct names names = { NULL, 0, 0 };
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(ns[i].name, ns[i - 1].name) != 0) {
            const char *sym = ns[i].name;
            char *full = NULL, *bare = NULL;
            if (strncmp(sym, "_Z", 2) == 0) {
                full = cplus_demangle(sym, DMGL_PARAMS | DMGL_ANSI);
                bare = cplus_demangle(sym, DMGL_ANSI);
            }
            uint32_t w[5];
            w[0] = add_name(&names, sym, strlen(sym));
            w[1] = full ? add_name(&names, full, strlen(full)) : w[0];
            w[2] = bare ? add_name(&names, bare, strlen(bare)) : w[1];
            w[3] = (uint32_t)i;
            w[4] = 0;
            free(full);
            free(bare);
            unsigned char *p = out + sizeof(struct litifut_callsites_header) +
                               c++ * sizeof(struct litifut_callsite_callee);
            for (int k = 0; k < 5; k++)
                elf_put32(img, p + 4 * k, w[k]);
        }
        unsigned char *count = out + sizeof(struct litifut_callsites_header) +
                               (c - 1) * sizeof(struct litifut_callsite_callee) + 16;
        elf_put32(img, count, elf_get32(img, count) + 1);
        const struct call_site *s = &sites->v[ns[i].index];
        unsigned char *p = out + head + i * sizeof(struct litifut_callsite);
        elf_put32(img, p, ns[i].index);
        /* (link-time addresses lie below 4 GB: src/rewriter.c's plan) */
        elf_put32(img, p + 4, (uint32_t)(s->addr + (uint64_t)(int64_t)arch->kinds[s->kind].patch_offset));
        elf_put32(img, p + 8, s->insn);
    }
    uint32_t h[6] = { LITIFUT_CALLSITES_MAGIC, LITIFUT_CALLSITES_VERSION, db_checksum,
                      (uint32_t)n_callees, (uint32_t)n, (uint32_t)names.n };
    for (int k = 0; k < 6; k++)
        elf_put32(img, out + 4 * k, h[k]);
    out = xrealloc(out, table + names.n + 4);
    if (names.n)
        memcpy(out + table, names.v, names.n);
    *len = (table + names.n + 3) & ~(size_t)3;
    memset(out + table + names.n, 0, *len - table - names.n);
    free(names.v);
    free(ns);
    function_index_free(&fx);
    for (size_t i = 0; i < n_plt; i++)
        free(plt[i].name);
    free(plt);
    return out;
}

int callsites_write_image(const struct arch_ops *arch, struct elf_image *img,
                          const struct site_list *sites, uint32_t db_checksum)
{
    const struct elf_section *sec = NULL;
    for (size_t i = 0; i < img->n_sections && !sec; i++)
        if (strcmp(img->sections[i].name, LITIFUT_CALLSITES_SECTION) == 0)
            sec = &img->sections[i];
    size_t len = 0;
    unsigned char *t = callsites_build(arch, img, sites, db_checksum, &len);
    int rc = 0;
    if (!sec || sec->offset > img->size || img->size - sec->offset < sec->size)
        rc = error("%s: %s is not the one written for it", img->path, LITIFUT_CALLSITES_SECTION);
    else if (sec->size < len)
        rc = error("%s: %s has %zu bytes, its final table %zu", img->path,
                   LITIFUT_CALLSITES_SECTION, (size_t)sec->size, len);
    else {
        memcpy(img->data + sec->offset, t, len);
        memset(img->data + sec->offset + len, 0, sec->size - len);     /* (a relink's room) */
    }
    free(t);
    return rc;
}
