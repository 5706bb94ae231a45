/*
 * The calling-context tree the folded stacks and the flame graph are
 * drawn from (folded.c builds it as frames are pushed; flamesvg.c
 * draws it): one node per distinct call path, its self time.
 */
#ifndef LITIFUT_POSTPROC_CCT_H
#define LITIFUT_POSTPROC_CCT_H

#include <stdint.h>
#include <stdio.h>

struct cct_node {
    uint32_t parent;            /* 0: a thread's first frame (node 0 is the root) */
    uint32_t fid;               /* CCT_DEEPER: the frames past the depth cap */
    uint32_t depth;             /* frames on its path (the root: 0) */
    uint64_t self_ns;
};

#define CCT_DEEPER UINT32_MAX
#define CCT_STRING(x) #x
#define CCT_DEEPER_NAME(cap) "[deeper than " CCT_STRING(cap) " frames]"

struct func_table;
struct estimates;
/* --format=svg: the flame graph of nodes[0..n) (node 0 the root, every
 * parent before its children) as one self-contained SVG document; with
 * in_html, an <svg id="flamegraph"> element for an HTML page, whose
 * script calls fgInit() once it is loaded. */
void flame_svg_write(FILE *out, const struct cct_node *nodes, uint32_t n,
                     const struct func_table *ft, const struct estimates *est, int in_html);

#endif
