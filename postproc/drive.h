/* Reading a trace's threads into a view: each thread's events through
 * its call stack (callstack.c), threads one after another or, for a
 * view that asks (the log), interleaved by time. */
#ifndef LITIFUT_POSTPROC_DRIVE_H
#define LITIFUT_POSTPROC_DRIVE_H

#include <stdint.h>
#include <time.h>
#include "postproc/view.h"

struct drive {
    struct view *view;
    struct func_table *ft;
    struct stack_filters flt;
    const uint32_t *tids;       /* --tid: only these threads (n_tids 0: all) */
    size_t n_tids;
    unsigned char *tid_seen;    /* per --tid: some trace has it */
    int progress;               /* say how far on stderr (a terminal) */
    /* progress */
    const char *trace_name;
    uint64_t done, total;
    struct timespec last_shown;
    int shown;                  /* a progress line is on stderr */
    char **said;                /* objects whose excluded callees were said */
    size_t n_said;
};

/* Every thread of `t` (whose objects are loaded) the --tid filter
 * lets through, into d->view; a fork child's thread that forked
 * starts with the frames `fork` knows (forks.h). */
void drive_trace(struct drive *d, struct trace_file *t, const struct program_set *ps,
                 struct address_space *as, const struct fork_origin *fork);
/* Several traces (processes) at once, for a view that interleaves
 * (view_ops.merged): every thread of all of them in one time order,
 * each trace's times put after the first trace's start. */
struct drive_input {
    struct trace_file *t;
    const struct program_set *ps;
    struct address_space *as;
    const struct fork_origin *fork;     /* a fork child's: its inherited stack (or NULL) */
};
void drive_traces(struct drive *d, const struct drive_input *in, size_t n);
/* --tid, --pid: 1 if `id` is one of ids[n] (then seen[] says so), or n is 0. */
int id_wanted(const uint32_t *ids, size_t n, unsigned char *seen, uint32_t id);
/* Clears the progress line, if any. */
void drive_done(struct drive *d);

#endif
