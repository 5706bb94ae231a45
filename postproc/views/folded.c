/*
 * --format=folded (and --format=svg, the same tree drawn: flamesvg.c): folded stacks, the input of flamegraph.pl and of
 * speedscope (and of inferno, and Perfetto's importer):
 *
 *   main;work;spin 40012000
 *
 * one line per call path (from a thread's first frame to the function,
 * frames joined by ';'), weighted by the self time spent there, in ns.
 * Every trace and thread adds up: the weights total the profile's self
 * time.  The paths are a calling-context tree, built as frames are
 * pushed: memory grows with the number of distinct paths, not with the
 * trace.  A ';' in a name (none in C or C++ names) is written as ':'.
 * A path deeper than VIEW_DEPTH_CAP frames (view.h) ends in one frame,
 * "[deeper than 256 frames]", which takes the self time of every frame
 * past the cap: lines stay short, and the weights still total the self
 * time.
 *
 * Estimates (estimates.h): the format has no room for a note (every
 * line must be "stack weight": flamegraph.pl counts others as bad
 * input, speedscope rejects them), and stderr is for problems, which
 * an estimate is not.  So, like the progress line, the note goes to
 * stderr only when that is a terminal, after the output:
 *   litifut-postproc: note: folded stacks, pid 1234: returns inferred (...)
 * one line per kind of trace read; else --info's clock= and returns=
 * say it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/views/cct.h"
#include "postproc/views/report.h"
#include "postproc/view.h"
#include "lib/error.h"

/* Beyond this many paths, a new path's time goes to its caller's
 * (one warning): a hostile trace cannot exhaust memory. */
#define MAX_NODES (1u << 22)

struct folded {
    struct view v;
    struct cct_node *nodes;
    uint32_t n, cap;
    struct u64map index;        /* (parent, fid) -> node */
    int warned;
    int notes;                  /* stderr is a terminal: say what the weights estimate */
    enum { FOLDED_LINES, FOLDED_SVG, FOLDED_SVG_IN_HTML } draw;     /* (flamesvg.c) */
    struct estimates est;
};

/* The node for `fid` called in the context `parent`. */
static uint32_t child(struct folded *fo, uint32_t parent, uint32_t fid)
{
    if (fo->nodes[parent].fid == CCT_DEEPER)
        return parent;                  /* past the cap: one node for all */
    if (fo->nodes[parent].depth >= VIEW_DEPTH_CAP)
        fid = CCT_DEEPER;
    uint64_t key = u64map_pair(parent, fid);
    uint32_t i = u64map_get(&fo->index, key);
    if (i != U64MAP_NONE)
        return i;
    if (fo->n == MAX_NODES) {
        if (!fo->warned++)
            warning("more than %u distinct call paths: the time of the others is counted in "
                    "their callers' paths", MAX_NODES);
        return parent;
    }
    if (fo->n == fo->cap) {
        fo->cap *= 2;
        fo->nodes = xrealloc(fo->nodes, fo->cap * sizeof *fo->nodes);
    }
    fo->nodes[fo->n] = (struct cct_node){ parent, fid, fo->nodes[parent].depth + 1, 0 };
    u64map_put(&fo->index, key, fo->n);
    return fo->n++;
}

static void folded_trace_begin(struct view *v)
{
    estimates_add(&((struct folded *)v)->est, &v->trace->t->header);
    estimates_add_own(&((struct folded *)v)->est, v->trace->t->own_ns, v->trace->t->n_own);
}

static void folded_push(struct view *v, struct callstack *s, struct frame *f)
{
    if (!f->shown)
        return;
    uint32_t parent = f->shown_parent >= 0 ? s->f[f->shown_parent].node : 0;
    f->node = child((struct folded *)v, parent, f->fid);
}

static void folded_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    (void)s;
    if (f->shown)
        ((struct folded *)v)->nodes[f->node].self_ns += end_ns - f->start_ns - f->child_ns;
}

static void put_frame(FILE *out, const char *name)
{
    for (; *name; name++)
        fputc(*name == ';' ? ':' : *name, out);
}

static void folded_end(struct view *v)
{
    struct folded *fo = (struct folded *)v;
    if (fo->draw != FOLDED_LINES) {
        flame_svg_write(v->out, fo->nodes, fo->n, v->ft, &fo->est, fo->draw == FOLDED_SVG_IN_HTML);
        goto done;
    }
    uint32_t *path = NULL;
    size_t cap = 0;
    for (uint32_t i = 1; i < fo->n; i++) {
        if (!fo->nodes[i].self_ns)
            continue;
        size_t depth = 0;
        for (uint32_t k = i; k; k = fo->nodes[k].parent) {
            if (depth == cap) {
                cap = cap * 2 + 64;
                path = xrealloc(path, cap * sizeof *path);
            }
            path[depth++] = fo->nodes[k].fid;
        }
        while (depth--) {
            put_frame(v->out, path[depth] == CCT_DEEPER ? CCT_DEEPER_NAME(VIEW_DEPTH_CAP)
                                                        : v->ft->v[path[depth]].name);
            fputc(depth ? ';' : ' ', v->out);
        }
        fprintf(v->out, "%" PRIu64 "\n", fo->nodes[i].self_ns);
    }
    free(path);
    fflush(v->out);                     /* (the note after the output, on a terminal) */
    for (size_t i = 0; fo->notes && fo->est.any && i < fo->est.n; i++) {
        char *line = estimates_line(&fo->est, i);
        fprintf(stderr, "%s: note: folded stacks, %s\n", program_name(), line);
        free(line);
    }
    char *own = fo->notes ? own_time_text(fo->est.own_ns, fo->est.n_own) : NULL;
    if (own)
        fprintf(stderr, "%s: note: folded stacks, %s\n", program_name(), own);
    free(own);
done:
    estimates_free(&fo->est);
    free(fo->nodes);
    u64map_free(&fo->index);
    free(fo);
}

static struct view *new_folded(FILE *out, struct func_table *ft, const struct view_options *o,
                               int draw)
{
    static const struct view_ops ops = { .trace_begin = folded_trace_begin,
                                         .push = folded_push, .pop = folded_pop,
                                         .end = folded_end };
    struct folded *fo = xcalloc(1, sizeof *fo);
    view_init(&fo->v, &ops, out, ft);
    fo->notes = o->notes;
    fo->draw = draw;
    fo->cap = 1024;
    fo->nodes = xcalloc(fo->cap, sizeof *fo->nodes);
    fo->n = 1;                          /* node 0: the root */
    u64map_init(&fo->index);
    return &fo->v;
}

struct view *folded_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    return new_folded(out, ft, o, FOLDED_LINES);
}

struct view *flame_svg_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    return new_folded(out, ft, o, FOLDED_SVG);
}

struct view *flame_html_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    return new_folded(out, ft, o, FOLDED_SVG_IN_HTML);
}
