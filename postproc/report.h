/* The post-processor's outputs: call log, TSV, per-callee summary. */
#ifndef LITIFUT_POSTPROC_REPORT_H
#define LITIFUT_POSTPROC_REPORT_H

#include <stdio.h>
#include "program.h"

enum report_format { REPORT_LOG, REPORT_TSV, REPORT_SUMMARY, REPORT_INFO };

struct report {
    enum report_format format;
    FILE *out;
    struct summary_entry *entries;  /* REPORT_SUMMARY: calls per callee */
    size_t n_entries, cap;
    size_t *buckets;                /* hash of entries, by callee name */
    size_t n_buckets;
    unsigned long long total;
};

void report_begin(struct report *r);
void report_trace(struct report *r, const struct trace_file *t, const struct program *p,
                  struct address_space *as);
void report_end(struct report *r);

#endif
