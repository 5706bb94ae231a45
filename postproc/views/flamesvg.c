/*
 * --format=svg: the flame graph of the folded stacks (folded.c's
 * calling-context tree), as flamegraph.pl would draw it from
 * --format=folded, in one self-contained SVG file (no network, no
 * external script or font): each call path a box whose width is its
 * inclusive time (self time plus its callees'), callers below callees,
 * a path's callees side by side in name order, "all" (every thread's
 * time) at the bottom.  In a browser: hovering shows a box's function,
 * time and share; a click zooms into it (its callees fill the width,
 * its callers stay below); "Search" highlights the functions a regular
 * expression matches and says their share of the time; "Icicle" turns
 * it upside down (the first frames at the top, a call tree's order).
 *
 * Size is bounded by the picture, not the trace: a path narrower than
 * MIN_WIDTH pixels is left out with what it calls (it could not be
 * seen), and of the rest the MAX_BOXES widest are drawn, so a report
 * of a 100 M-call trace stays small.  Where the
 * traces have estimates (estimates.h), the subtitle says so.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/views/cct.h"
#include "postproc/views/estimates.h"
#include "postproc/reader/names.h"
#include "postproc/views/report.h"
#include "postproc/view.h"
#include "lib/error.h"

#define WIDTH      1200         /* pixels */
#define PAD        10
#define FRAME_H    16
#define TOP        56           /* title, subtitle, buttons */
#define BOTTOM     34           /* the details line */
#define MIN_WIDTH  0.1          /* pixels */
#define NUMBER(x)  CCT_STRING(x)        /* a macro's value as a string */
#define MAX_BOXES  30000        /* (the narrowest beyond them left out too) */

static int wider_first(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

static const char *node_name(const struct cct_node *nodes, uint32_t i, const struct func_table *ft)
{
    if (i == 0)
        return "all";
    return nodes[i].fid == CCT_DEEPER ? CCT_DEEPER_NAME(VIEW_DEPTH_CAP) : ft->v[nodes[i].fid].name;
}

/* The label a box of width w has room for (as the script's labels()):
 * the name, cut with "..", or nothing. */
static void put_label(FILE *out, const char *name, double w)
{
    double fit = (w - 6) / 7;
    size_t len = strlen(name);
    if (fit < 3)
        return;
    if ((double)len <= fit) {
        put_markup(out, name, SIZE_MAX);
        return;
    }
    put_markup(out, name, (size_t)fit - 2);
    fputs("..", out);
}

/* A warm colour from the name (the same name, the same colour). */
static void put_colour(FILE *out, const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    unsigned r = 205 + (h & 0xff) * 50 / 255, g = ((h >> 8) & 0xff) * 190 / 255,
             b = ((h >> 16) & 0xff) * 55 / 255;
    fprintf(out, "rgb(%u,%u,%u)", r, g, b);
}

static void put_time(FILE *out, uint64_t ns)
{
    if (durations_are_instructions())   /* (litifut-emu's clock: guest instructions) */
        fprintf(out, "%" PRIu64 " in", ns);
    else if (ns >= 1000000000u)
        fprintf(out, "%.3f s", (double)ns / 1e9);
    else if (ns >= 1000000u)
        fprintf(out, "%.3f ms", (double)ns / 1e6);
    else if (ns >= 1000u)
        fprintf(out, "%.3f us", (double)ns / 1e3);
    else
        fprintf(out, "%" PRIu64 " ns", ns);
}

static const struct func_table *sort_ft;
static const struct cct_node *sort_nodes;

static int by_name(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(node_name(sort_nodes, x, sort_ft), node_name(sort_nodes, y, sort_ft));
    return c ? c : (x > y) - (x < y);
}

/* The script: written for this file (zoom, search, details). */
static const char script[] =
    "var fgW = " NUMBER(WIDTH) ", fgPAD = " NUMBER(PAD) ", fgFrames = [], fgDetails, fgMatched, fgUnzoom,\n"
    "    fgYmin = 1e9, fgYmax = -1e9, fgFlipped = false;\n"
    "function fgInit() {\n"
    "  fgDetails = document.getElementById('fg-details');\n"
    "  fgMatched = document.getElementById('fg-matched');\n"
    "  fgUnzoom = document.getElementById('fg-unzoom');\n"
    "  var gs = document.getElementsByClassName('fg-f');\n"
    "  for (var i = 0; i < gs.length; i++) {\n"
    "    var g = gs[i], r = g.getElementsByTagName('rect')[0];\n"
    "    var f = { g: g, r: r, t: g.getElementsByTagName('text')[0],\n"
    "              name: g.getAttribute('data-name'), info: g.getElementsByTagName('title')[0].textContent,\n"
    "              x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y'),\n"
    "              fill: r.getAttribute('fill') };\n"
    "    f.x0 = f.x; f.w0 = f.w;\n"
    "    fgFrames.push(f);\n"
    "    fgYmin = Math.min(fgYmin, f.y); fgYmax = Math.max(fgYmax, f.y);\n"
    "    g.onclick = (function (f) { return function () { fgZoom(f); }; })(f);\n"
    "    g.onmouseover = (function (f) { return function () { fgDetails.textContent = f.info; }; })(f);\n"
    "    g.onmouseout = function () { fgDetails.textContent = ' '; };\n"
    "  }\n"
    "  fgLabels();\n"
    "}\n"
    "function fgLabels() {\n"
    "  for (var i = 0; i < fgFrames.length; i++) {\n"
    "    var f = fgFrames[i], fit = Math.floor((f.w - 6) / 7);\n"
    "    f.t.setAttribute('x', f.x + 3);\n"
    "    f.t.textContent = fit < 3 ? '' : f.name.length <= fit ? f.name : f.name.slice(0, fit - 2) + '..';\n"
    "  }\n"
    "}\n"
    "function fgPlace(f, x, w, shown, dim) {\n"
    "  f.x = x; f.w = w;\n"
    "  f.r.setAttribute('x', x); f.r.setAttribute('width', w);\n"
    "  f.g.style.display = shown ? '' : 'none';\n"
    "  f.g.style.opacity = dim ? 0.5 : 1;\n"
    "}\n"
    "function fgZoom(z) {\n"
    "  var zx = z.x0, zw = z.w0, eps = 1e-6, scale = (fgW - 2 * fgPAD) / zw;\n"
    "  for (var i = 0; i < fgFrames.length; i++) {\n"
    "    var f = fgFrames[i];\n"
    "    if (f.y > z.y && f.x0 <= zx + eps && f.x0 + f.w0 >= zx + zw - eps)\n"
    "      fgPlace(f, fgPAD, fgW - 2 * fgPAD, true, true);\n"
    "    else if (f.y <= z.y && f.x0 >= zx - eps && f.x0 + f.w0 <= zx + zw + eps)\n"
    "      fgPlace(f, fgPAD + (f.x0 - zx) * scale, f.w0 * scale, true, false);\n"
    "    else\n"
    "      fgPlace(f, f.x0, f.w0, false, false);\n"
    "  }\n"
    "  fgUnzoom.style.display = '';\n"
    "  fgLabels();\n"
    "}\n"
    "function fgReset() {\n"
    "  for (var i = 0; i < fgFrames.length; i++)\n"
    "    fgPlace(fgFrames[i], fgFrames[i].x0, fgFrames[i].w0, true, false);\n"
    "  fgUnzoom.style.display = 'none';\n"
    "  fgLabels();\n"
    "}\n"
    "function fgFlip() {   // the icicle: the first frames at the top\n"
    "  fgFlipped = !fgFlipped;\n"
    "  for (var i = 0; i < fgFrames.length; i++) {\n"
    "    var f = fgFrames[i], y = fgFlipped ? fgYmin + fgYmax - f.y : f.y;\n"
    "    f.r.setAttribute('y', y); f.t.setAttribute('y', y + 11);\n"
    "  }\n"
    "  document.getElementById('fg-flip').textContent = fgFlipped ? 'Flame' : 'Icicle';\n"
    "}\n"
    "function fgSearch() {\n"
    "  var term = prompt('Functions to highlight (a regular expression):', '');\n"
    "  if (term !== null) fgHighlight(term);\n"
    "}\n"
    "function fgHighlight(term) {\n"
    "  var re, spans = [], total = fgW - 2 * fgPAD;\n"
    "  try { re = new RegExp(term); } catch (e) { fgMatched.textContent = 'not a regular expression'; return; }\n"
    "  for (var i = 0; i < fgFrames.length; i++) {\n"
    "    var f = fgFrames[i], hit = term !== '' && re.test(f.name);\n"
    "    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "    if (hit) spans.push([f.x0, f.x0 + f.w0]);\n"
    "  }\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var covered = 0, end = -1;\n"
    "  for (var j = 0; j < spans.length; j++) {\n"
    "    var s = Math.max(spans[j][0], end);\n"
    "    if (spans[j][1] > s) covered += spans[j][1] - s;\n"
    "    end = Math.max(end, spans[j][1]);\n"
    "  }\n"
    "  fgMatched.textContent = term === '' ? ' ' : 'matched: ' + (100 * covered / total).toFixed(1) + '%';\n"
    "}\n";

void flame_svg_write(FILE *out, const struct cct_node *nodes, uint32_t n,
                     const struct func_table *ft, const struct estimates *est, int in_html)
{
    if (n == 0)
        n = 1;
    uint64_t *incl = xcalloc(n, sizeof *incl);
    uint32_t *count = xcalloc((size_t)n + 1, sizeof *count), *first = xcalloc((size_t)n + 1, sizeof *first);
    for (uint32_t i = 1; i < n; i++)
        incl[i] = nodes[i].self_ns;
    for (uint32_t i = n; i-- > 1;)      /* (a parent comes before its children) */
        incl[nodes[i].parent] += incl[i];
    incl[0] += nodes[0].self_ns;
    /* children grouped by parent, each group in name order */
    for (uint32_t i = 1; i < n; i++)
        count[nodes[i].parent]++;
    for (uint32_t i = 0, at = 0; i < n; i++) {
        first[i] = at;
        at += count[i];
        count[i] = 0;
    }
    uint32_t *kids = xcalloc(n, sizeof *kids);
    for (uint32_t i = 1; i < n; i++) {
        uint32_t p = nodes[i].parent;
        kids[first[p] + count[p]++] = i;
    }
    sort_ft = ft;
    sort_nodes = nodes;
    for (uint32_t i = 0; i < n; i++)
        if (count[i] > 1)
            qsort(kids + first[i], count[i], sizeof *kids, by_name);
    /* x of every node, in ns from the left; the depth drawn */
    uint64_t *x = xcalloc(n, sizeof *x);
    double scale = incl[0] ? (double)(WIDTH - 2 * PAD) / (double)incl[0] : 0;
    uint32_t max_depth = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at = x[i];
        for (uint32_t k = 0; k < count[i]; k++) {
            uint32_t c = kids[first[i] + k];
            x[c] = at;
            at += incl[c];
            if ((double)incl[c] * scale >= MIN_WIDTH && nodes[c].depth > max_depth)
                max_depth = nodes[c].depth;
        }
    }
    /* at most MAX_BOXES boxes: the narrowest go first if there are more */
    double min_width = MIN_WIDTH;
    size_t n_wide = 0;
    double *widths = xmalloc((size_t)n * sizeof *widths);
    for (uint32_t i = 0; i < n; i++)
        if ((double)incl[i] * scale >= MIN_WIDTH)
            widths[n_wide++] = (double)incl[i] * scale;
    if (n_wide > MAX_BOXES) {
        qsort(widths, n_wide, sizeof *widths, wider_first);
        min_width = widths[MAX_BOXES - 1];
        max_depth = 0;
        for (uint32_t i = 1; i < n; i++)
            if ((double)incl[i] * scale >= min_width && nodes[i].depth > max_depth)
                max_depth = nodes[i].depth;
    }
    free(widths);
    unsigned height = TOP + (max_depth + 1) * FRAME_H + BOTTOM;
    fprintf(out, "%s<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
                 "%sxmlns=\"http://www.w3.org/2000/svg\">\n",
            in_html ? "" : "<?xml version=\"1.0\" standalone=\"no\"?>\n", WIDTH, height, WIDTH,
            height, in_html ? "id=\"flamegraph\" " : "onload=\"fgInit()\" ");
    fputs("<style>\n"
          "#flamegraph text, svg text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
          ".fg-f:hover { stroke: black; stroke-width: 0.5; cursor: pointer; }\n"
          "#fg-title { font-size: 17px; text-anchor: middle; }\n"
          ".fg-button { cursor: pointer; fill: rgb(40,40,160); }\n"
          "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n", out);
    fputs(script, out);
    fputs("]]></script>\n", out);
    fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%u\" fill=\"rgb(250,250,238)\"/>\n",
            WIDTH, height);
    fprintf(out, "<text id=\"fg-title\" x=\"%d\" y=\"22\">Flame graph: ", WIDTH / 2);
    put_time(out, incl[0]);
    fputs(" of thread time</text>\n", out);
    /* the subtitle: what the times estimate, if anything */
    fprintf(out, "<text id=\"fg-subtitle\" x=\"%d\" y=\"40\">", PAD);
    if (est && est->any) {
        for (size_t i = 0; i < est->n; i++) {
            char *line = estimates_line(est, i);
            fputs(i ? "; " : "estimates: ", out);
            put_markup(out, line, SIZE_MAX);
            free(line);
        }
    } else {
        fputs("times measured (a clock per call, returns recorded)", out);
    }
    fputs("</text>\n", out);
    fprintf(out, "<text id=\"fg-unzoom\" class=\"fg-button\" x=\"%d\" y=\"22\" onclick=\"fgReset()\" "
                 "style=\"display:none\">Reset zoom</text>\n", PAD);
    fprintf(out, "<text id=\"fg-search\" class=\"fg-button\" x=\"%d\" y=\"22\" onclick=\"fgSearch()\">"
                 "Search</text>\n", WIDTH - PAD - 60);
    fprintf(out, "<text id=\"fg-flip\" class=\"fg-button\" x=\"%d\" y=\"22\" onclick=\"fgFlip()\">"
                 "Icicle</text>\n", WIDTH - PAD - 130);
    fprintf(out, "<text id=\"fg-matched\" x=\"%d\" y=\"40\"> </text>\n", WIDTH - PAD - 140);
    fprintf(out, "<text id=\"fg-details\" x=\"%d\" y=\"%u\"> </text>\n", PAD, height - 12);
    for (uint32_t i = 0; i < n; i++) {
        double w = (double)incl[i] * scale;
        if (w < min_width || (i && nodes[i].depth > max_depth))
            continue;                   /* (what it calls is narrower still) */
        const char *name = node_name(nodes, i, ft);
        unsigned depth = i ? nodes[i].depth : 0;
        double y = TOP + (double)(max_depth - depth) * FRAME_H;
        fputs("<g class=\"fg-f\" data-name=\"", out);
        put_markup(out, name, SIZE_MAX);
        fputs("\"><title>", out);
        put_markup(out, name, SIZE_MAX);
        fputs(" (", out);
        put_time(out, incl[i]);
        fprintf(out, ", %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" "
                     "fill=\"", incl[0] ? 100.0 * (double)incl[i] / (double)incl[0] : 0.0,
                PAD + (double)x[i] * scale, y, w, FRAME_H - 1);
        put_colour(out, name);
        fprintf(out, "\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
                PAD + (double)x[i] * scale + 3, y + FRAME_H - 5);
        put_label(out, name, w);
        fputs("</text></g>\n", out);
    }
    fputs("</svg>\n", out);
    free(incl);
    free(count);
    free(first);
    free(kids);
    free(x);
}
