/*
 * Which figures of a trace are measured and which are estimates, from
 * its header: a per-call clock measures every call's time, clock marks
 * interpolate it; return records measure a call's end, without them
 * the call stack infers it (callstack.c).  The views say so in their
 * header, per process where traces differ, and mark each estimated
 * duration ("~12.345 ms").  A trace with both measured prints as it
 * always did.
 */
#ifndef LITIFUT_POSTPROC_ESTIMATES_H
#define LITIFUT_POSTPROC_ESTIMATES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "litifut/trace-format.h"

#define ESTIMATE_TIMES   1u     /* clock marks: times interpolated between time marks */
#define ESTIMATE_RETURNS 2u     /* no return records: a call's end inferred */

/* ESTIMATE_* bits of a trace; 0: its times and durations are measured
 * (also a dedup or count trace: no durations, first calls measured). */
unsigned trace_estimates(const struct litifut_trace_header *h);

/* What `kind` means for the figures, one sentence without '#' (NULL
 * for 0); `every`: the marks' spacing in record words. */
char *estimates_text(unsigned kind, uint32_t every);

/* The traces a view added up, grouped by what is estimated in them
 * (a few groups at most: the kinds, and the marks' spacing). */
#define ESTIMATES_PIDS 8        /* pids named per group, then "and N more" */
struct estimate_group {
    unsigned kind;
    uint32_t every;             /* (0 unless kind has ESTIMATE_TIMES) */
    uint32_t pids[ESTIMATES_PIDS];
    size_t n;                   /* traces in the group */
};
struct estimates {
    struct estimate_group *g;
    size_t n;
    unsigned any;               /* every kind seen, or-ed: 0 if all measured */
    uint64_t own_ns, n_own;     /* the tracer's own time (OWN_TIME records), added up */
};
void estimates_add(struct estimates *e, const struct litifut_trace_header *h);
/* A trace's OWN_TIME records, added up (trace_file own_ns, n_own). */
void estimates_add_own(struct estimates *e, uint64_t own_ns, uint64_t n_own);
/* What the views say of the tracer's own time, one sentence without
 * '#' ("the tracer's own time, 1.234 ms in 12 new trace chunks ...");
 * NULL if there was none. */
char *own_time_text(uint64_t own_ns, uint64_t n_own);
/* "# <own_time_text>" as a header line; nothing if there was none. */
void own_time_note(FILE *out, uint64_t own_ns, uint64_t n_own);
/* Group i as one line: "pid 12, 34: <its text>" (measured: "times and
 * returns measured per call"). */
char *estimates_line(const struct estimates *e, size_t i);
/* The text views' header: nothing if every trace is measured; one
 * "# ~ marks estimates: ..." line (estimates_note) if the traces are
 * alike; else "# ~ marks estimates; per process:" and a "#   pid ..."
 * line per group.  Then "# <own_time_text>" if the tracer had any. */
void estimates_print(FILE *out, const struct estimates *e);
void estimates_note(FILE *out, unsigned kind, uint32_t every);     /* (nothing for 0) */
void estimates_free(struct estimates *e);

/* Durations for people: "12.345 ms" (ns, us, ms, s), with a '~'
 * before the number if it is an estimate, right-aligned in `width`
 * (0: as short as it gets).  Returns its length. */
size_t format_duration(char *buf, size_t size, uint64_t ns, int width, int estimate);
/* litifut-emu's clock (LITIFUT_CLOCK_INSNS): the "ns" the views add up
 * are guest instructions; durations print as exact counts, unit "in"
 * ("12345 in"), and the log's times as counts. */
void durations_set_instructions(int on);
int durations_are_instructions(void);
void print_duration(FILE *out, uint64_t ns, int width, int estimate);

#endif
