/* Finding the call sites of a linked program: find_call_sites(). */
#ifndef LITIFUT_SITES_H
#define LITIFUT_SITES_H

#include <stddef.h>
#include <stdio.h>
#include "lib/arch.h"
#include "src/linkmap.h"

struct site_list {
    struct call_site *v;
    size_t n;
};

/* Every call instruction in the image's code outside `excluded`, in
 * address order.  Fills `st` with what was scanned and skipped. */
int find_call_sites(const struct arch_ops *arch, const struct elf_image *img,
                    const struct exclusions *excluded, struct site_list *out,
                    struct scan_stats *st);
void site_list_free(struct site_list *l);

/* 0 if both lists hold the same sites; else one error line naming the
 * first difference (`what` says which step found it). */
int compare_site_lists(const struct arch_ops *arch, const struct site_list *a,
                       const struct site_list *b, const char *what);

/* sites.tsv: a header line, then one row per site: address, kind,
 * original instruction word. */
int write_sites_tsv(const struct arch_ops *arch, const struct site_list *l, const char *path);

/* One line: sites by kind, what was skipped, bytes scanned.
 * format_summary() returns it (with its newline, allocated), so that
 * a caller can send the same text to several places, each with one
 * write; print_summary() writes it to `out`. */
char *format_summary(const char *what, const struct arch_ops *arch, const struct site_list *l,
                     const struct scan_stats *st);
void print_summary(FILE *out, const char *what, const struct arch_ops *arch,
                   const struct site_list *l, const struct scan_stats *st);

#endif
