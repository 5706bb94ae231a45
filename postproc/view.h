/*
 * The time views (log, profile, graph, chrome, folded; also the calls
 * TSV and the summary, which use the filters): each is told of every
 * trace and thread, and of every frame its thread's call stack pushes
 * and pops (callstack.c), hidden ones too (frame->shown says which to
 * show; their time still counts in their parents' self time).
 */
#ifndef LITIFUT_POSTPROC_VIEW_H
#define LITIFUT_POSTPROC_VIEW_H

#include <stdio.h>
#include "postproc/reader/callstack.h"
#include "postproc/views/estimates.h"
#include "postproc/forks.h"
#include "postproc/reader/names.h"

/* One trace, as the views see it. */
struct view_trace {
    const struct trace_file *t;
    const struct program_set *ps;
    struct address_space *as;
    struct trace_funcs *tf;
    uint64_t offset_ns;         /* a combined log: its start after the first trace's (else 0) */
    const struct fork_origin *fork;     /* where its process came from (NULL: not known) */
    unsigned estimates;         /* ESTIMATE_* bits: what its durations estimate (estimates.h) */
};

struct view;
/* What a view does; any callback may be NULL. */
struct view_ops {
    int merged;                             /* threads interleaved by time (log): a trace's,
                                               and several traces' together */
    void (*trace_begin)(struct view *v);
    void (*thread_begin)(struct view *v, struct callstack *s);
    void (*push)(struct view *v, struct callstack *s, struct frame *f);
    void (*pop)(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns);
    void (*thread_end)(struct view *v, struct callstack *s);
    void (*trace_end)(struct view *v);
    /* a pair of a dedup or count trace (LITIFUT_MODE), in place of
     * threads and frames: `call` its call (time: its first), `calls`
     * its count (0: dedup, not counted); NULL: the view cannot show
     * such a trace */
    void (*pair)(struct view *v, const struct trace_event *call, uint32_t calls);
    void (*end)(struct view *v);            /* the output's end; frees the view */
};

/* The part every view's struct starts with. */
struct view {
    const struct view_ops *ops;
    FILE *out;
    struct func_table *ft;
    const struct view_trace *trace;         /* the trace being read */
};

static inline void view_init(struct view *v, const struct view_ops *ops, FILE *out,
                             struct func_table *ft)
{
    v->ops = ops;
    v->out = out;
    v->ft = ft;
    v->trace = NULL;
}

/* The options the views share. */
enum profile_sort { SORT_SELF, SORT_TOTAL, SORT_CALLS };
struct view_options {
    int tsv;                    /* --format=tsv */
    int srcline;                /* --srcline */
    int auto_args;              /* --auto-args: LITIFUT_ARGS' values named */
    enum profile_sort sort;     /* --profile --sort= */
    const char *graph_func;     /* --graph=FUNC, or NULL for every function */
    int notes;                  /* stderr is a terminal: notes the output has no room for */
};

/* The text and folded views show frames up to this depth: the log
 * indents no further and names a deeper line's depth ("[depth N]"),
 * folded stacks end in one frame "[deeper than 256 frames]" that takes
 * the self time of every frame past it.  (A recursion 100000 calls deep
 * would otherwise make lines of 200 KB, and folded output quadratic in
 * the depth.) */
#define VIEW_DEPTH_CAP 256

/* Each makes its view (freed by its end). */
struct view *replay_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *chrome_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *folded_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *flame_svg_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *flame_html_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *profile_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *graph_view(FILE *out, struct func_table *ft, const struct view_options *o);
/* --profile --diff=OTHER: OTHER's profile, read first (its end only
 * frees it), then the profile whose end prints each function's change
 * from `base`'s (named base_name) and frees both; ft and base's table
 * must live until then. */
/* The HTML report's profile (html.c): its end writes the functions and
 * edges as JSON. */
struct view *profile_json_view(FILE *out, struct func_table *ft, const struct view_options *o);
struct view *html_view(FILE *out, struct func_table *ft, const struct view_options *o);
/* --format=html --diff=OTHER: the report also compares each function
 * with `base` (profile_base_view's), which its end frees. */
void html_set_base(struct view *html, struct view *base, const char *base_name);
void profile_set_base(struct view *profile, struct view *base, const char *base_name);
struct view *profile_base_view(struct func_table *ft, const struct view_options *o);
struct view *profile_diff_view(FILE *out, struct func_table *ft, const struct view_options *o,
                               struct view *base, const char *base_name);
struct view *coverage_view(FILE *out, struct func_table *ft, const struct view_options *o);
/* --processes: the processes' tree and timeline (processes.c). */
struct view *processes_view(FILE *out, struct func_table *ft, const struct view_options *o);
/* ... as JSON, for the HTML report's boot chart */
struct view *processes_json_view(FILE *out, struct func_table *ft, const struct view_options *o);

/* A string from the target's files, control characters as '?'. */
void put_clean(FILE *out, const char *s);
/* The same as HTML or XML text, at most n bytes of it: '&', '<', '>',
 * '"', '\'' escaped, newlines kept, other control and non-ASCII bytes
 * as '?' (always well-formed UTF-8). */
void put_markup(FILE *out, const char *s, size_t n);
/* A JSON string that is also safe inside an HTML <script> element:
 * '"', '\\', '<', '>', '&' escaped, control and non-ASCII bytes as '?'. */
void html_json_string(FILE *out, const char *s);

#endif
