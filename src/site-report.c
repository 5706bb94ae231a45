#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/site-report.h"
#include "lib/error.h"

int compare_site_lists(const struct arch_ops *arch, const struct site_list *a,
                       const struct site_list *b, const char *what)
{
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++) {
        const struct call_site *x = &a->v[i], *y = &b->v[i];
        if (x->addr != y->addr || x->insn != y->insn || x->kind != y->kind ||
            x->insn2 != y->insn2)
            return error("%s: call site %zu moved: %s 0x%08" PRIx64 " (0x%08" PRIx32
                         ") became %s 0x%08" PRIx64 " (0x%08" PRIx32 ")",
                         what, i, arch->kinds[x->kind].name, x->addr, x->insn,
                         arch->kinds[y->kind].name, y->addr, y->insn);
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
    fprintf(f, "site\tkind\tinsn\tinsn2\timport\n");
    for (size_t i = 0; i < l->n; i++)
        /* a 64-bit address gets its 16 digits (the reader: SCNx64) */
        fprintf(f, "0x%08" PRIx64 "\t%s\t0x%08" PRIx32 "\t0x%04" PRIx16 "\t%" PRIu32 "\n",
                l->v[i].addr, arch->kinds[l->v[i].kind].name, l->v[i].insn, l->v[i].insn2,
                l->v[i].callee_sym);
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

int write_untraced_tsv(const struct elf_image *img, const struct scan_stats *st,
                       const char *path)
{
    struct untraced_function *fn;
    size_t n_fn = untraced_by_function(img, st, &fn);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(fn);
        return error("%s: cannot create", path);
    }
    fprintf(f, "site\twhy\n");
    for (size_t i = 0; i < st->n_untraced; i++)
        fprintf(f, "0x%08" PRIx64 "\t%s\n", st->untraced[i].addr, st->untraced[i].why);
    fprintf(f, "# per function: calls\tfunction\n");
    for (size_t i = 0; i < n_fn; i++)
        fprintf(f, "# %" PRIu32 "\t%s\n", fn[i].count, fn[i].name ? fn[i].name : "?");
    free(fn);
    if (fclose(f) != 0)
        return error("%s: write error", path);
    return 0;
}

/* The functions with the most untraced calls, at most this many. */
#define SUMMARY_FUNCTIONS 5

char *format_summary(const char *what, const struct arch_ops *arch, const struct elf_image *img,
                     const struct site_list *l, const struct scan_stats *st,
                     const char *rules)
{
    struct text t = { NULL, 0, 0 };
    add(&t, "%s: %zu call sites (", what, l->n);
    for (unsigned k = 0; k < arch->n_kinds; k++)
        add(&t, "%s%s %" PRIu32, k ? ", " : "", arch->kinds[k].name, st->sites_by_kind[k]);
    add(&t, "); %" PRIu64 " code bytes scanned", st->bytes_scanned);
    for (unsigned i = 0; i < st->n_skipped; i++)
        add(&t, "%s%s: %" PRIu32 " (%" PRIu64 " bytes)", i ? ", " : "; skipped ",
            st->skipped[i].what, st->skipped[i].count, st->skipped[i].bytes);
    if (st->n_untraced) {
        struct untraced_function *fn;
        size_t n_fn = untraced_by_function(img, st, &fn);
        add(&t, "; untraced calls: %zu in %zu function%s (", st->n_untraced, n_fn,
            n_fn == 1 ? "" : "s");
        for (size_t i = 0; i < n_fn && i < SUMMARY_FUNCTIONS; i++)
            add(&t, "%s%s %" PRIu32, i ? ", " : "", fn[i].name ? fn[i].name : "?", fn[i].count);
        add(&t, "%s)", n_fn > SUMMARY_FUNCTIONS ? ", ..." : "");
        free(fn);
    }
    add(&t, "%s\n", rules);
    return t.s;
}

void print_summary(FILE *out, const char *what, const struct arch_ops *arch,
                   const struct elf_image *img, const struct site_list *l,
                   const struct scan_stats *st, const char *rules)
{
    char *line = format_summary(what, arch, img, l, st, rules);
    fputs(line, out);
    free(line);
}
