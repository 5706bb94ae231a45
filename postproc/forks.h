/*
 * Fork children: the call stack a child's forking thread starts with,
 * which is its parent's thread's stack at the fork (the child's header
 * says where: trace.h, struct trace_fork).  The run's traces are
 * planned from their headers first (which one is whose parent; an
 * order that reads every parent before its children), so that each
 * trace is read once and each parent's thread replayed once for all
 * of its children.
 */
#ifndef LITIFUT_POSTPROC_FORKS_H
#define LITIFUT_POSTPROC_FORKS_H

#include <stddef.h>
#include <stdint.h>
#include "postproc/reader/names.h"
#include "postproc/reader/trace.h"

/* Where a trace's process came from, as its views show it. */
struct fork_origin {
    uint32_t parent_pid;        /* 0: not a fork child (or its header cannot say) */
    uint32_t parent_tid;        /* the parent's thread that forked (0: none recorded) */
    int known;                  /* fids[] are the frames live at the fork */
    char *unknown;              /* else why not, for people ("no trace of pid 12 here") */
    uint64_t after_ns;          /* the fork, after the parent's trace started */
    int execed;                 /* the process ran another traced program before (the
                                   same pid's latest trace that started before this one:
                                   an exec) */
    uint32_t *fids;             /* the forking thread's frames, root first */
    uint8_t *synthetic;         /* per frame: it was synthetic (callstack.h) */
    size_t n;
};

/* One trace of the run. */
struct fork_trace {
    char *path;
    uint32_t pid;               /* 0: its header could not be read (trace_open will say) */
    uint64_t start_ns;
    struct trace_fork fork;
    size_t parent;              /* its parent's index, SIZE_MAX if there is none here */
    int wanted;                 /* to be shown (given, and --pid lets it through) */
    int needed;                 /* to be read as the parent of one that is */
    int visit;                  /* (ordering) */
    struct fork_origin origin;
};

struct forks {
    struct fork_trace *v;
    size_t n, cap;
    size_t *order;              /* the traces to read (wanted or needed), parents first */
    size_t n_order;
};

/* Plans the traces `paths` (the given ones, in order); a trace is
 * wanted if --pid (pids[n_pids]) lets it through (pid_seen[] marks the
 * pids found).  A wanted fork child's parent is the given trace of its
 * parent's pid that started before it (one in the child's directory
 * first), else litifut.<pid>.trace beside the child; its parents are
 * needed in turn (their own stacks at their start). */
void forks_plan(struct forks *f, char *const *paths, size_t n, const uint32_t *pids,
                size_t n_pids, unsigned char *pid_seen);
/* Trace i of the plan has been read (its objects loaded): if it is a
 * parent, the stacks its children inherit, from its threads. */
void forks_replay(struct forks *f, size_t i, struct trace_file *t, const struct program_set *ps,
                  struct address_space *as, struct func_table *ft);
void forks_free(struct forks *f);

#endif
