/* The post-processor's views (calls, summary, info), each as text or
 * TSV; the columns and the naming are described in report.c. */
#ifndef LITIFUT_POSTPROC_REPORT_H
#define LITIFUT_POSTPROC_REPORT_H

#include <stdio.h>
#include "postproc/program.h"

enum report_view { VIEW_CALLS, VIEW_SUMMARY, VIEW_INFO };

struct report {
    enum report_view view;
    int tsv;                        /* tab-separated values, else text for people */
    FILE *out;
    struct summary_entry *entries;  /* VIEW_SUMMARY: calls per callee */
    size_t n_entries, cap;
    size_t *buckets;                /* hash of entries, by callee */
    size_t n_buckets;
    unsigned long long total;
};

void report_begin(struct report *r);
/* `t`'s records must have been read (trace_read_records) with the
 * objects of `ps` loaded. */
void report_trace(struct report *r, const struct trace_file *t, const struct program_set *ps,
                  struct address_space *as);
void report_end(struct report *r);

#endif
