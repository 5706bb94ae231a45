/* What the rewriter says about the call sites it found (lib/sites.h):
 * whether two scans found the same, sites.tsv, the summary line. */
#ifndef LITIFUT_SITE_REPORT_H
#define LITIFUT_SITE_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include "lib/sites.h"

/* 0 if both lists hold the same sites; else one error line naming the
 * first difference (`what` says which step found it). */
int compare_site_lists(const struct arch_ops *arch, const struct site_list *a,
                       const struct site_list *b, const char *what);

/* sites.tsv: a header line, then one row per site: address, kind,
 * original instruction word. */
int write_sites_tsv(const struct arch_ops *arch, const struct site_list *l, const char *path);

/* untraced.tsv: a header line, then one row per call the scan could
 * not redirect: address, why; then "# calls<TAB>function" lines, most
 * first. */
int write_untraced_tsv(const struct elf_image *img, const struct scan_stats *st,
                       const char *path);

/* One line: sites by kind, what was skipped, bytes scanned, the calls
 * left untraced (how many, in how many functions, the first few), then
 * `rules` (the user's site rules, src/rules.h: "" if none).
 * format_summary() returns it (with its newline, allocated), so that
 * a caller can send the same text to several places, each with one
 * write; print_summary() writes it to `out`. */
char *format_summary(const char *what, const struct arch_ops *arch, const struct elf_image *img,
                     const struct site_list *l, const struct scan_stats *st,
                     const char *rules);
void print_summary(FILE *out, const char *what, const struct arch_ops *arch,
                   const struct elf_image *img, const struct site_list *l,
                   const struct scan_stats *st, const char *rules);

#endif
