/* The per-call and per-trace views (calls as TSV, summary, info) and
 * the output helpers every view shares; the columns and the naming are
 * described in report.c. */
#ifndef LITIFUT_POSTPROC_REPORT_H
#define LITIFUT_POSTPROC_REPORT_H

#include <stdio.h>
#include "postproc/reader/program.h"
#include "postproc/util/strmap.h"
#include "postproc/view.h"
#include "postproc/views/args.h"
#include "postproc/views/outbuf.h"

struct report {
    struct view v;                  /* first: a struct view * is a struct report * */
    int tsv;                        /* tab-separated values, else text for people */
    int srcline;                    /* --srcline: TSV's site_line, callee_line */
    int summary;                    /* --summary: calls per callee (else a row per call) */
    int calls_header, pairs_header; /* the TSV header lines printed */
    int values;                     /* the calls TSV has args (LITIFUT_ARGS) */
    int auto_args;                  /* --auto-args */
    struct args_buf args;           /* a row's values as text */
    struct summary_entry *entries;  /* --summary: calls per callee */
    size_t n_entries, cap;
    uint32_t *entry_of;             /* by function id: its entry (UINT32_MAX: none yet) */
    size_t n_entry_of;
    unsigned long long total;
    struct outbuf ob;               /* a row being built (outbuf.h) */
    struct outbuf *scratch;         /* a site's text being built */
    /* The calls TSV's fields after seq, per object and site, as text,
     * for this trace: a direct call's (all of them: its target is the
     * site's), a call through a register's site_* fields only. */
    struct site_texts {
        struct site_text { char *text; uint32_t len, whole; } *v;
        uint32_t n;
    } *site_text;
    size_t n_site_text;
};

struct view *calls_tsv_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *summary_view(FILE *out, struct func_table *ft, const struct view_options *o);

/* The time (ns) of the trace's run during which recording was on. */
uint64_t recorded_ns(const struct trace_file *t);

/* --info: the TSV header line, and one trace (its objects loaded). */
void print_info_header(FILE *out);
/* The site rules an object was linked with ("LITIFUT_EXCLUDE=a ..."),
 * from its .litifut_rules section; NULL if none (allocated). */
char *site_rules_of(const struct elf_image *img);
void print_info(FILE *out, int tsv, const struct trace_file *t, const struct program_set *ps);

#endif
