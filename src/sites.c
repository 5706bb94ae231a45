#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/sites.h"
#include "lib/error.h"

/* Cuts the excluded ranges out of `r`, calling `scan` on what is left. */
static int scan_range(const struct arch_ops *arch, const struct elf_image *img, csh cs,
                      struct code_range r, struct site_list *out, size_t *cap,
                      struct scan_stats *st)
{
    const unsigned char *code = elf_bytes_at(img, r.start, r.end - r.start);
    if (!code)
        return error("%s: code at 0x%08" PRIx32 " is not in the file", img->path, r.start);
    size_t size = r.end - r.start;
    uint64_t addr = r.start;
    cs_insn *insn = cs_malloc(cs);
    st->bytes_scanned += size;
    while (size >= 4) {
        const unsigned char *at = code;
        if (!cs_disasm_iter(cs, &code, &size, &addr, insn)) {
            stats_skip(st, "words capstone cannot decode", 4);
            code = at + 4;
            size -= 4;
            addr += 4;
            continue;
        }
        struct call_site site;
        memset(&site, 0, sizeof site);
        int has_next = size >= 4;           /* the delay slot, on MIPS */
        uint32_t next = has_next ? elf_get32(img, at + 4) : 0;
        if (insn->size != 4 || !arch->classify(insn, elf_get32(img, at), next, has_next, &site, st))
            continue;
        site.addr = (uint32_t)insn->address;
        if (out->n == *cap) {
            *cap = *cap * 2 + 1024;
            out->v = xrealloc(out->v, *cap * sizeof *out->v);
        }
        out->v[out->n++] = site;
        st->sites_by_kind[site.kind]++;
    }
    cs_free(insn, 1);
    return 0;
}

/* Scans `r` minus the excluded ranges `ex` (sorted). */
static int scan_unexcluded(const struct arch_ops *arch, const struct elf_image *img, csh cs,
                           struct code_range r, const struct code_range *ex, size_t n_ex,
                           struct site_list *out, size_t *cap, struct scan_stats *st)
{
    uint32_t pos = r.start;
    size_t x = 0;
    while (pos < r.end) {
        while (x < n_ex && ex[x].end <= pos)
            x++;
        uint32_t stop = r.end;
        if (x < n_ex && ex[x].start <= pos) {
            stop = ex[x].end < r.end ? ex[x].end : r.end;
            stats_skip(st, "excluded (crt objects, tracer)", stop - pos);
        } else {
            if (x < n_ex && ex[x].start < r.end)
                stop = ex[x].start;
            if (scan_range(arch, img, cs, (struct code_range){ pos, stop }, out, cap, st) != 0)
                return -1;
        }
        pos = stop;
    }
    return 0;
}

int find_call_sites(const struct arch_ops *arch, const struct elf_image *img,
                    const struct exclusions *excluded, struct site_list *out,
                    struct scan_stats *st)
{
    struct code_range *ranges;
    size_t n_ranges, cap = 0;
    memset(st, 0, sizeof *st);
    out->v = NULL;
    out->n = 0;
    if (arch->code_ranges(img, &ranges, &n_ranges, st) != 0)
        return -1;
    csh cs;
    if (arch->disasm_open(img, &cs) != 0) {
        free(ranges);
        return -1;
    }
    int rc = 0;
    const struct elf_section *sec = NULL;
    struct code_range *ex = NULL;
    size_t n_ex = 0;
    for (size_t i = 0; i < n_ranges && rc == 0; i++) {
        const struct elf_section *s = elf_section_at(img, ranges[i].start);
        if (s != sec) {
            sec = s;
            free(ex);
            exclusions_for_section(excluded, s ? s->name : "", &ex, &n_ex);
        }
        rc = scan_unexcluded(arch, img, cs, ranges[i], ex, n_ex, out, &cap, st);
    }
    free(ex);
    cs_close(&cs);
    free(ranges);
    if (rc != 0)
        site_list_free(out);
    return rc;
}

void site_list_free(struct site_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

int compare_site_lists(const struct arch_ops *arch, const struct site_list *a,
                       const struct site_list *b, const char *what)
{
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++) {
        const struct call_site *x = &a->v[i], *y = &b->v[i];
        if (x->addr != y->addr || x->insn != y->insn || x->kind != y->kind)
            return error("%s: call site %zu moved: %s 0x%08" PRIx32 " (0x%08" PRIx32
                         ") became %s 0x%08" PRIx32 " (0x%08" PRIx32 ")",
                         what, i, arch->kind_names[x->kind], x->addr, x->insn,
                         arch->kind_names[y->kind], y->addr, y->insn);
    }
    if (a->n != b->n)
        return error("%s: %zu call sites became %zu", what, a->n, b->n);
    return 0;
}

int write_sites_tsv(const struct arch_ops *arch, const struct site_list *l, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return error("%s: cannot create", path);
    fprintf(f, "site\tkind\tinsn\n");
    for (size_t i = 0; i < l->n; i++)
        fprintf(f, "0x%08" PRIx32 "\t%s\t0x%08" PRIx32 "\n", l->v[i].addr,
                arch->kind_names[l->v[i].kind], l->v[i].insn);
    if (fclose(f) != 0)
        return error("%s: write error", path);
    return 0;
}

/* A growing string for format_summary(). */
struct text {
    char *s;
    size_t len, cap;
};

static void __attribute__((format(printf, 2, 3))) add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = xrealloc(t->s, t->cap);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

char *format_summary(const char *what, const struct arch_ops *arch, const struct site_list *l,
                     const struct scan_stats *st)
{
    struct text t = { NULL, 0, 0 };
    add(&t, "%s: %zu call sites (", what, l->n);
    for (unsigned k = 0; k < arch->n_kinds; k++)
        add(&t, "%s%s %" PRIu32, k ? ", " : "", arch->kind_names[k], st->sites_by_kind[k]);
    add(&t, "); %" PRIu64 " code bytes scanned", st->bytes_scanned);
    for (unsigned i = 0; i < st->n_skipped; i++)
        add(&t, "%s%s: %" PRIu32 " (%" PRIu64 " bytes)", i ? ", " : "; skipped ",
            st->skipped[i].what, st->skipped[i].count, st->skipped[i].bytes);
    add(&t, "\n");
    return t.s;
}

void print_summary(FILE *out, const char *what, const struct arch_ops *arch,
                   const struct site_list *l, const struct scan_stats *st)
{
    char *line = format_summary(what, arch, l, st);
    fputs(line, out);
    free(line);
}
