/*
 * The user's link-time site rules: LITIFUT_EXCLUDE (leave these call
 * sites alone), LITIFUT_ONLY (rewrite only these) and
 * LITIFUT_EXCLUDE_CALLEE (leave alone the calls of these functions,
 * as uftrace's -N: a call site whose fixed target is in one of them,
 * or in its PLT entry).  A rule is a
 * glob (fnmatch) that names, by its form:
 *   libfoo.so, libfoo.so.1   a shared library being linked: the whole
 *                            output (EXCLUDE: a plain link);
 *   libfoo.a                 every member of that archive;
 *   libfoo.a(bar.o)          one archive member (what is before the
 *                            parenthesis ends in ".a");
 *   bar.o, dir/bar.o, x.lo   an object file (also with a '/'), or an
 *                            archive member of that name;
 *   anything else            a function: its symbol, or its demangled
 *                            name with or without the parameters.
 * Files match by their name as the link map prints it or by its last
 * component.  A rule's sites are the call instructions inside its
 * address ranges (input sections from the link map, function symbols
 * from the linked program): the calls the named code makes.  A callee
 * rule always names functions (symbols, demangled names, PLT entries
 * by the name they stand for); a call through a register whose
 * callee the link did not fix is kept (its callee is known only when
 * it runs).
 */
#ifndef LITIFUT_RULES_H
#define LITIFUT_RULES_H

#include <stdint.h>
#include <stdio.h>
#include "lib/elfimage.h"
#include "lib/sites.h"
#include "src/linkmap.h"

enum rule_kind { RULE_FUNCTION, RULE_OBJECT, RULE_ARCHIVE, RULE_MEMBER, RULE_LIBRARY };

/* What a rule names, by its form (above). */
enum rule_kind site_rule_kind(const char *pattern);

struct rule_range {
    uint64_t start, end;
    char *section;              /* a file rule's: the output section (else NULL) */
    int code;                   /* in this image's code: an allocated, executable section
                                   of that name holds it (function ranges: always) */
};

struct site_rule {
    char *pattern;
    enum rule_kind kind;
    struct rule_range *ranges;  /* resolved in this link */
    size_t n_ranges;
    int matched;                /* named something in this link */
    uint32_t sites;             /* sites it removed (EXCLUDE) or kept (ONLY) */
};

struct site_rule_list {
    const char *variable;       /* "LITIFUT_EXCLUDE", "LITIFUT_ONLY", "LITIFUT_EXCLUDE_CALLEE" */
    struct site_rule *v;
    size_t n;
};

struct site_rules {
    struct site_rule_list exclude, only, callee;
    int whole_output;           /* an ONLY library rule names the output: keep every site */
    uint32_t sites_before;      /* sites found before the rules (site_rules_apply) */
};

/* Parses the three lists: rules separated by commas or white space;
 * "@FILE" reads more from FILE, one per line (so a rule there may hold
 * spaces and commas: "f(int, char)"; '#' starts a comment).  NULL or ""
 * is an empty list.  -1 and one error line on a problem. */
int site_rules_parse(struct site_rules *r, const char *exclude, const char *only,
                     const char *callee);
void site_rules_free(struct site_rules *r);
int site_rules_empty(const struct site_rules *r);

/* The EXCLUDE library rule naming the output `path` (by its last
 * component), or NULL. */
const struct site_rule *site_rules_excluded_output(const struct site_rules *r, const char *path);

/* Resolves the file rules through the link map (and notes an ONLY
 * library rule naming `output`), then the function rules through the
 * linked image's symbols (again for each image: pass 2's addresses are
 * pass 1's). */
void site_rules_resolve_files(struct site_rules *r, const struct link_map *map,
                              const char *output);
void site_rules_resolve_functions(struct site_rules *r, const struct elf_image *img);

/* Drops the sites the rules remove from `sites` (sorted by address),
 * counting them per rule and out of st->sites_by_kind; `arch` says
 * where a site's call goes, `img`'s dynamic symbols which function of
 * another object a MIPS GOT call reaches (the callee rules). */
void site_rules_apply(struct site_rules *r, const struct arch_ops *arch,
                      const struct elf_image *img, struct site_list *sites, struct scan_stats *st);

/* For the summary line (allocated): "; LITIFUT_ONLY kept 40 (a.o 40) of
 * 90; LITIFUT_EXCLUDE removed 12 (bz_* 12, x.a(y.o) 0);
 * LITIFUT_EXCLUDE_CALLEE removed 3 (memset 3)", or "". */
char *site_rules_describe(const struct site_rules *r);

/* Calls warn(list name, rule) for every rule that named nothing in
 * this link (not library rules: a build links many other outputs). */
void site_rules_unmatched(const struct site_rules *r,
                          void (*warn)(const char *variable, const char *pattern));

/* The rules as one line for the program (the post-processor's --info):
 * "LITIFUT_ONLY=c LITIFUT_EXCLUDE=a,b LITIFUT_EXCLUDE_CALLEE=d", or ""
 * (allocated). */
char *site_rules_text(const struct site_rules *r);

#endif
