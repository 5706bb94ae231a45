/*
 * The rewriter's two steps, shared by litifut-rewrite and the ld
 * wrapper.  Pass 1 scans a program linked with the placeholder DB and
 * writes the real DB as assembly; pass 2 scans the relinked program,
 * checks that nothing moved and that it links that DB (or one with
 * room for it, if the caller accepts moved code: a third link), and
 * rewrites it.
 */
#ifndef LITIFUT_REWRITER_H
#define LITIFUT_REWRITER_H

#include <stdio.h>
#include "lib/sites.h"
#include "src/rules.h"

struct rewriter_opts {
    const struct exclusions *excluded;  /* left alone (NULL: none) */
    FILE *summary;              /* one summary line here, or NULL */
    const char *sites_tsv;      /* write sites.tsv here, or NULL */
    const char *name;           /* the program's name in the summary (NULL: its path) */
    const char *untraced_tsv;   /* write untraced.tsv here, or NULL */
    struct site_rules *rules;   /* the user's (NULL: none); the file rules resolved */
    int *moved;                 /* rewrite: set to 1, with no message, if the sites are
                                 * not the expected ones (NULL: that is an error) */
    int entries;                /* the constructors and destructors get entry thunks
                                 * (src/entries.h): the C library is a shared one */
    int relink;                 /* for a third link of the same inputs, whose code pass 2
                                 * moved: scan, its thunk area gets room for more
                                 * (src/rewriter.c); rewrite, its sites may be a few
                                 * more or fewer than the linked DB's, within its room */
};

/* Pass 1.  On success *sites holds the sites found. */
int rewriter_scan(const char *binary, const struct rewriter_opts *o,
                  const char *db_c, struct site_list *sites);

/* Pass 2: writes the rewritten program to `out` (all or nothing, with
 * `binary`'s permissions).  `expected`, if not NULL, are pass 1's sites. */
int rewriter_rewrite(const char *binary, const struct rewriter_opts *o,
                     const struct site_list *expected, const char *out);

/* The placeholder DB for pass 1, for `arch`. */
int rewriter_placeholder_db(const struct arch_ops *arch, const char *db_c);

/* Reads a sites.tsv back. */
int read_sites_tsv(const struct arch_ops *arch, const char *path, struct site_list *out);

#endif
