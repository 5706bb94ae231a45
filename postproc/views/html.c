/*
 * --format=html: one self-contained HTML report (no network, no
 * external script or font), for people who would rather look than
 * read, on any machine with a browser:
 *   - the profile table (profile.c's, as JSON): sortable by any column,
 *     a filter box, the percentiles; a click on a row shows that
 *     function's callers and callees (the call graph's edges) and marks
 *     it in the flame graph (report.html#fn=NAME opens with NAME's, the
 *     name as the profile has it or without its " (file)";
 *     report.html#sort=calls sorts by a column, as its first click);
 *   - the flame graph (flamesvg.c's SVG, inline): zoom on click, search,
 *     turned into an icicle (a call tree's order) by a click;
 *   - a timeline per thread: each frame a bar over time (its depth
 *     below the thread's line; a function entered without a traced call
 *     too, as in the other views), labelled with its function where it
 *     is wide enough, a click selects its function in the profile, a
 *     time axis on top; the wheel zooms, dragging pans, a double click
 *     shows everything again.  At most HTML_BARS frames: the ones that
 *     start first, of every thread and process alike; a frame still
 *     open when the next one left out starts (the cut) ends there,
 *     marked, and a note says how many were left out and how to see
 *     them (--time-range, --tid);
 *   - with several processes (a boot, a test suite), their chart
 *     (processes.c's JSON): a bar per process over one time axis,
 *     lines from parent to child at each fork, exec and spawn;
 *   - the coverage (coverage.c's text): the functions of each
 *     instrumented object a traced call reached, and the ones none did;
 *     of a full trace's calls, a count or dedup trace's pairs (such a
 *     trace has no profile, flame graph or timeline: calls not in order);
 *   - every trace's --info;
 *   - with --diff=OTHER, each function's calls, total and self time in
 *     OTHER's run and here, by the change (profile.c's diff rows).
 * Size is bounded whatever the trace: the profile keeps the 5000
 * functions with the most self time, the flame graph what is at least
 * 0.1 pixel wide, the timeline HTML_BARS calls.  One driving loop: the
 * profile and the flame graph are this view's sub-views, told of every
 * trace, thread and frame as it is.  Times that are estimates are
 * marked ~ and said under the title, as in the text views.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/util/grow.h"
#include "postproc/views/report.h"
#include "postproc/view.h"
#include "lib/error.h"

#define HTML_BARS 20000

struct bar {
    uint32_t thread, name, depth;       /* name: index into the timeline's names */
    uint8_t call, clipped;              /* a traced call; still open at the cut */
    uint64_t start_ns, end_ns;
};

struct lane {
    uint32_t pid, tid;
    uint64_t calls;                     /* traced calls shown */
};

struct html {
    struct view v;
    struct view *profile, *flame, *coverage, *procs;
    char *coverage_text;                /* the coverage sub-view's text */
    size_t coverage_len;
    FILE *coverage_out;
    struct estimates est;
    char *info;                         /* every trace's --info text */
    size_t info_len;
    FILE *info_out;
    char *title;                        /* the first trace's program */
    int programs;                       /* ... and the traces are of several programs */
    uint64_t first_start_ns, offset_ns; /* the first trace's start; this trace's after it */
    int any_trace;
    struct lane *lanes;
    size_t n_lanes, cap_lanes;
    uint32_t lane;                      /* the thread being read */
    struct bar *bars;                   /* the frames that start first (see keep_bar) */
    size_t n_bars, cap_bars;
    uint64_t cut_ns;                    /* frames that start at it or later are left out */
    uint64_t bars_seen;                 /* frames shown, kept or not */
    int diff;                           /* --diff=OTHER: the comparison */
    uint64_t pairs;                     /* of dedup and count traces */
    uint32_t *name_of_fid;              /* fid -> name index + 1 */
    size_t n_name_of_fid;
    uint32_t *names;                    /* name index -> fid */
    size_t n_names, cap_names;
};

static void html_trace_begin(struct view *v)
{
    struct html *h = (struct html *)v;
    const struct trace_file *t = v->trace->t;
    h->profile->trace = h->flame->trace = h->coverage->trace = h->procs->trace = v->trace;
    if (!h->any_trace++) {
        h->first_start_ns = t->header.start_ns;
        h->title = xstrdup(t->header.exe);
    } else if (!h->programs && strcmp(h->title, t->header.exe) != 0) {
        h->programs = 1;        /* a boot, a test suite: the title says so (html_end) */
    }
    h->offset_ns = t->header.start_ns > h->first_start_ns ? t->header.start_ns - h->first_start_ns : 0;
    estimates_add(&h->est, &t->header);
    estimates_add_own(&h->est, t->own_ns, t->n_own);
    print_info(h->info_out, 0, t, v->trace->ps);
    fputc('\n', h->info_out);
    h->profile->ops->trace_begin(h->profile);
    h->flame->ops->trace_begin(h->flame);
    h->procs->ops->trace_begin(h->procs);
}

static void html_thread_begin(struct view *v, struct callstack *s)
{
    struct html *h = (struct html *)v;
    if (h->profile->ops->thread_begin)
        h->profile->ops->thread_begin(h->profile, s);
    h->procs->ops->thread_begin(h->procs, s);
    h->lanes = grow_for_one(h->lanes, h->n_lanes, &h->cap_lanes, sizeof *h->lanes);
    h->lanes[h->n_lanes] = (struct lane){ v->trace->t->header.pid, s->th ? s->th->tid : 0, 0 };
    h->lane = (uint32_t)h->n_lanes++;
}

static void html_push(struct view *v, struct callstack *s, struct frame *f)
{
    struct html *h = (struct html *)v;
    h->profile->ops->push(h->profile, s, f);
    h->flame->ops->push(h->flame, s, f);
    h->coverage->ops->push(h->coverage, s, f);
}

/* A dedup or count trace's pair: for the coverage only. */
static void html_pair(struct view *v, const struct trace_event *call, uint32_t calls)
{
    struct html *h = (struct html *)v;
    h->pairs++;
    h->coverage->ops->pair(h->coverage, call, calls);
}

static uint32_t name_index(struct html *h, uint32_t fid)
{
    h->name_of_fid = grow_to_hold(h->name_of_fid, &h->n_name_of_fid, fid, sizeof *h->name_of_fid, 0);
    if (!h->name_of_fid[fid]) {
        h->names = grow_for_one(h->names, h->n_names, &h->cap_names, sizeof *h->names);
        h->names[h->n_names++] = fid;
        h->name_of_fid[fid] = (uint32_t)h->n_names;
    }
    return h->name_of_fid[fid] - 1;
}

static int by_start(const void *a, const void *b)
{
    const struct bar *x = a, *y = b;
    return x->start_ns != y->start_ns ? (x->start_ns < y->start_ns ? -1 : 1)
                                      : (x->thread > y->thread) - (x->thread < y->thread);
}

/* The HTML_BARS bars that start first (threads come one after another:
 * every thread's earliest are kept until there are twice as many, then
 * the later half goes, and the cut moves to the first of them). */
static void trim_bars(struct html *h)
{
    if (!h->n_bars)
        return;                     /* (a count trace has none: no array) */
    qsort(h->bars, h->n_bars, sizeof *h->bars, by_start);
    if (h->n_bars > HTML_BARS) {
        h->cut_ns = h->bars[HTML_BARS].start_ns;
        h->n_bars = HTML_BARS;
        while (h->n_bars && h->bars[h->n_bars - 1].start_ns >= h->cut_ns)
            h->n_bars--;            /* (ties at the cut: all of them go) */
    }
}

static void html_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    struct html *h = (struct html *)v;
    h->profile->ops->pop(h->profile, s, f, end_ns);
    h->flame->ops->pop(h->flame, s, f, end_ns);
    h->procs->ops->pop(h->procs, s, f, end_ns);
    if (!f->shown)
        return;
    h->bars_seen++;
    h->lanes[h->lane].calls += frame_counts_as_call(f);
    uint64_t start = f->start_ns + h->offset_ns;
    if (start >= h->cut_ns)
        return;
    h->bars = grow_for_one(h->bars, h->n_bars, &h->cap_bars, sizeof *h->bars);
    h->bars[h->n_bars++] = (struct bar){ h->lane, name_index(h, f->fid), f->depth,
                                         (uint8_t)frame_is_call(f), 0, start, end_ns + h->offset_ns };
    if (h->n_bars == 2 * HTML_BARS)
        trim_bars(h);
}

static void html_thread_end(struct view *v, struct callstack *s)
{
    struct html *h = (struct html *)v;
    if (h->profile->ops->thread_end)
        h->profile->ops->thread_end(h->profile, s);
}

static void html_trace_end(struct view *v)
{
    struct html *h = (struct html *)v;
    if (h->profile->ops->trace_end)
        h->profile->ops->trace_end(h->profile);
    h->coverage->ops->trace_end(h->coverage);
    h->procs->ops->trace_end(h->procs);
}

/* The page's script: written for this report. */
static const char page_script[] =
    "var P = PROFILE, T = TIMELINE, sortKey = 4, sortDown = true, selected = -1;\n"
    "function fmt(ns, est) {\n"
    "  if (ns === null || ns === undefined) return '-';\n"
    "  if (INSNS) return (est ? '~' : '') + ns + ' in';\n"
    "  var s = ns >= 1e9 ? (ns / 1e9).toFixed(3) + ' s' : ns >= 1e6 ? (ns / 1e6).toFixed(3) + ' ms'\n"
    "        : ns >= 1e3 ? (ns / 1e3).toFixed(3) + ' us' : ns + ' ns';\n"
    "  return (est ? '~' : '') + s;\n"
    "}\n"
    "function cell(tr, text, cls) { var td = document.createElement('td'); td.textContent = text;\n"
    "  if (cls) td.className = cls; tr.appendChild(td); }\n"
    "function drawProfile() {\n"
    "  var body = document.querySelector('#profile tbody'), want = document.getElementById('filter').value.toLowerCase();\n"
    "  var rows = [];\n"
    "  for (var i = 0; i < P.functions.length; i++)\n"
    "    if (!want || P.functions[i][0].toLowerCase().indexOf(want) >= 0) rows.push(i);\n"
    "  rows.sort(function (a, b) {\n"
    "    var x = P.functions[a][sortKey], y = P.functions[b][sortKey];\n"
    "    if (sortKey === 0) return sortDown ? (x < y ? -1 : x > y) : (x > y ? -1 : x < y);\n"
    "    x = x === null ? -1 : x; y = y === null ? -1 : y;\n"
    "    return sortDown ? y - x : x - y;\n"
    "  });\n"
    "  body.textContent = '';\n"
    "  for (var k = 0; k < rows.length; k++) {\n"
    "    var f = P.functions[rows[k]], tr = document.createElement('tr'), e = f[11];\n"
    "    tr.className = 'row' + (rows[k] === selected ? ' sel' : '');\n"
    "    tr.onclick = (function (i) { return function () { select(i); }; })(rows[k]);\n"
    "    cell(tr, P.run_ns ? (100 * f[4] / P.run_ns).toFixed(2) : '0.00', 'n');\n"
    "    cell(tr, fmt(f[4], e), 'n'); cell(tr, fmt(f[3], e), 'n'); cell(tr, f[2], 'n');\n"
    "    for (var j = 5; j <= 10; j++) cell(tr, fmt(f[j], e), 'n');\n"
    "    cell(tr, f[0], 'fn');\n"
    "    body.appendChild(tr);\n"
    "  }\n"
    "  document.getElementById('shown').textContent = rows.length + ' of ' + P.functions.length + ' functions'\n"
    "    + (P.cut ? ' (' + P.cut + ' more with less self time left out)' : '');\n"
    "}\n"
    "// (a first click: numbers largest first, names A to Z)\n"
    "function sortBy(k) { sortDown = k === sortKey ? !sortDown : true; sortKey = k; drawProfile(); }\n"
    "function edgeRows(id, list, other) {\n"
    "  var body = document.querySelector('#' + id + ' tbody');\n"
    "  body.textContent = '';\n"
    "  list.sort(function (a, b) { return b[3] - a[3]; });\n"
    "  for (var i = 0; i < list.length; i++) {\n"
    "    var e = list[i], tr = document.createElement('tr'), o = e[other];\n"
    "    tr.className = 'edge';\n"
    "    cell(tr, e[2], 'n'); cell(tr, fmt(e[3]), 'n'); cell(tr, fmt(e[4]), 'n');\n"
    "    cell(tr, (o < 0 ? '(a thread\\'s first call)' : P.functions[o][0]) +\n"
    "      (e[5] ? '  returned ' + e[5] : ''), 'fn');\n"
    "    if (o >= 0) tr.onclick = (function (o) { return function () { select(o); }; })(o);\n"
    "    body.appendChild(tr);\n"
    "  }\n"
    "}\n"
    "function select(i) {\n"
    "  selected = i;\n"
    "  var callers = [], callees = [];\n"
    "  for (var k = 0; k < P.edges.length; k++) {\n"
    "    var e = P.edges[k].slice(0, 5);\n"
    "    if (P.edge_values && P.edge_values[k]) e.push(P.edge_values[k]);\n"
    "    if (e[1] === i) callers.push(e);\n"
    "    if (e[0] === i) callees.push(e);\n"
    "  }\n"
    "  document.getElementById('cg-name').textContent = P.functions[i][0];\n"
    "  edgeRows('callers', callers, 0);\n"
    "  edgeRows('callees', callees, 1);\n"
    "  document.getElementById('callgraph').style.display = '';\n"
    "  var name = P.functions[i][0].replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&');\n"
    "  if (typeof fgHighlight === 'function') fgHighlight('^' + name + '$');\n"
    "  drawProfile();\n"
    "}\n"
    "var tl = { v0: 0, v1: 1, lanes: [], bars: [], axis: null }, NS = 'http://www.w3.org/2000/svg';\n"
    "var fnIndex = {};\n"
    "for (var fi = 0; fi < P.functions.length; fi++) fnIndex[P.functions[fi][0]] = fi;\n"
    "function svgEl(tag, attrs) { var e = document.createElementNS(NS, tag);\n"
    "  for (var k in attrs) e.setAttribute(k, attrs[k]); return e; }\n"
    "function drawTimeline() {\n"
    "  var svg = document.getElementById('timeline'), L = 110, y = 22;\n"
    "  var t0 = T.span[0], t1 = T.span[1] > T.span[0] ? T.span[1] : T.span[0] + 1;\n"
    "  tl.v0 = t0; tl.v1 = t1; svg.textContent = '';\n"
    "  tl.axis = svgEl('g', { 'class': 'axis' }); svg.appendChild(tl.axis);\n"
    "  var depth = [];\n"
    "  for (var i = 0; i < T.bars.length; i++) depth[T.bars[i][0]] = Math.max(depth[T.bars[i][0]] || 0, T.bars[i][2]);\n"
    "  for (var l = 0; l < T.threads.length; l++) {\n"
    "    var h = ((depth[l] || 0) + 1) * 11 + 6, label = svgEl('text', { x: 2, y: y + 11, 'class': 'lane' });\n"
    "    label.textContent = 'pid ' + T.threads[l][0] + ' tid ' + T.threads[l][1];\n"
    "    svg.appendChild(label);\n"
    "    tl.lanes[l] = y; y += h;\n"
    "  }\n"
    "  svg.setAttribute('height', y + 4);\n"
    "  for (var b = 0; b < T.bars.length; b++) {\n"
    "    var bar = T.bars[b], name = T.names[bar[1]], f = fnIndex[name];\n"
    "    var g = svgEl('g', { 'class': 'bar', 'data-fn': f === undefined ? -1 : f });\n"
    "    var t = svgEl('title', {}), r = svgEl('rect', { y: tl.lanes[bar[0]] + bar[2] * 11, height: 10,\n"
    "      fill: colour(name), 'fill-opacity': bar[5] ? 1 : 0.55 });\n"
    "    var x = svgEl('text', { y: tl.lanes[bar[0]] + bar[2] * 11 + 8, 'class': 'label' });\n"
    "    t.textContent = (bar[5] ? '' : '(entered without a traced call) ') + name + ' ('\n"
    "      + fmt(bar[4] - bar[3], T.estimates) + (bar[6] ? ' at least: still running at the cut' : '')\n"
    "      + ', from ' + fmt(bar[3]) + ')';\n"
    "    g.appendChild(t); g.appendChild(r); g.appendChild(x); svg.appendChild(g);\n"
    "    if (f !== undefined) g.onclick = (function (f) { return function () { select(f);\n"
    "      document.getElementById('profile-sec').scrollIntoView(); }; })(f);\n"
    "    tl.bars.push([r, bar, x, name]);\n"
    "  }\n"
    "  placeBars();\n"
    "}\n"
    "function placeAxis() {\n"
    "  var W = 1180 - 110, span = tl.v1 - tl.v0, step = Math.pow(10, Math.floor(Math.log10(span / 6)));\n"
    "  if (span / step > 12) step *= 5; else if (span / step > 6) step *= 2;\n"
    "  tl.axis.textContent = '';\n"
    "  for (var at = Math.ceil(tl.v0 / step) * step; at <= tl.v1; at += step) {\n"
    "    var px = 110 + (at - tl.v0) * W / span;\n"
    "    tl.axis.appendChild(svgEl('line', { x1: px, x2: px, y1: 14, y2: 18, stroke: '#888', 'class': 'tick' }));\n"
    "    var label = svgEl('text', { x: px + 2, y: 11, 'class': 'ticklabel' });\n"
    "    label.textContent = fmt(Math.round(at)); tl.axis.appendChild(label);\n"
    "  }\n"
    "}\n"
    "function placeBars() {\n"
    "  var W = 1180 - 110, s = W / (tl.v1 - tl.v0);\n"
    "  for (var i = 0; i < tl.bars.length; i++) {\n"
    "    var r = tl.bars[i][0], b = tl.bars[i][1], x = tl.bars[i][2];\n"
    "    var x0 = (b[3] - tl.v0) * s, x1 = (b[4] - tl.v0) * s;\n"
    "    if (x1 < 0 || x0 > W) { r.setAttribute('width', 0); x.textContent = ''; continue; }\n"
    "    x0 = Math.max(x0, 0); x1 = Math.min(x1, W);\n"
    "    r.setAttribute('x', 110 + x0); r.setAttribute('width', Math.max(x1 - x0, 0.5));\n"
    "    var fits = Math.floor((x1 - x0 - 4) / 6);\n"
    "    x.setAttribute('x', 110 + x0 + 2);\n"
    "    x.textContent = fits >= 3 ? (tl.bars[i][3].length > fits ? tl.bars[i][3].slice(0, fits - 1) + '\\u2026'\n"
    "      : tl.bars[i][3]) : '';\n"
    "  }\n"
    "  placeAxis();\n"
    "  document.getElementById('tl-range').textContent = fmt(Math.round(tl.v0)) + ' to ' + fmt(Math.round(tl.v1));\n"
    "}\n"
    "function colour(name) { var h = 0; for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;\n"
    "  return 'hsl(' + (h % 60 + 10) + ',80%,' + (55 + h % 20) + '%)'; }\n"
    "function timelineEvents() {\n"
    "  var svg = document.getElementById('timeline'), drag = null;\n"
    "  svg.onwheel = function (e) {\n"
    "    e.preventDefault();\n"
    "    var box = svg.getBoundingClientRect(), f = Math.min(Math.max((e.clientX - box.left - 110) / (box.width - 110), 0), 1);\n"
    "    var at = tl.v0 + f * (tl.v1 - tl.v0), k = e.deltaY < 0 ? 0.8 : 1.25;\n"
    "    tl.v0 = at - (at - tl.v0) * k; tl.v1 = at + (tl.v1 - at) * k; placeBars();\n"
    "  };\n"
    "  svg.onmousedown = function (e) { drag = [e.clientX, tl.v0, tl.v1]; };\n"
    "  window.addEventListener('mouseup', function () { drag = null; });\n"
    "  svg.onmousemove = function (e) {\n"
    "    if (!drag) return;\n"
    "    var box = svg.getBoundingClientRect(), d = (e.clientX - drag[0]) / (box.width - 110) * (drag[2] - drag[1]);\n"
    "    tl.v0 = drag[1] - d; tl.v1 = drag[2] - d; placeBars();\n"
    "  };\n"
    "  svg.ondblclick = function () { tl.v0 = T.span[0]; tl.v1 = Math.max(T.span[1], T.span[0] + 1); placeBars(); };\n"
    "}\n"
    "document.getElementById('filter').oninput = drawProfile;\n"
    "var heads = document.querySelectorAll('#profile th');\n"
    "for (var h = 0; h < heads.length; h++)\n"
    "  heads[h].onclick = (function (k) { return function () { sortBy(k); }; })(+heads[h].getAttribute('data-k'));\n"
    "function drawDiff() {\n"
    "  if (!P.diff) return;\n"
    "  document.getElementById('diff-sec').style.display = '';\n"
    "  document.getElementById('diff-base').textContent = P.base + ' (the base)';\n"
    "  document.getElementById('diff-runs').textContent = 'thread time: ' + fmt(P.base_run_ns) + ' there, '\n"
    "    + fmt(P.run_ns) + ' here; each function by the change of its self time, the largest first';\n"
    "  var body = document.querySelector('#diff tbody');\n"
    "  for (var i = 0; i < P.diff.length; i++) {\n"
    "    var d = P.diff[i], tr = document.createElement('tr'), ch = d[6] - d[3], eb = d[7], eh = d[8];\n"
    "    tr.className = 'drow';\n"
    "    cell(tr, fmt(d[3], eb), 'n'); cell(tr, fmt(d[6], eh), 'n');\n"
    "    cell(tr, (ch < 0 ? '-' : '+') + fmt(Math.abs(ch), eb || eh), 'n');\n"
    "    cell(tr, d[3] ? (100 * ch / d[3]).toFixed(1) + '%' : 'new', 'n');\n"
    "    cell(tr, fmt(d[2], eb), 'n'); cell(tr, fmt(d[5], eh), 'n'); cell(tr, d[1], 'n'); cell(tr, d[4], 'n');\n"
    "    cell(tr, d[0], 'fn');\n"
    "    body.appendChild(tr);\n"
    "  }\n"
    "}\n"
    "function drawProcesses() {\n"
    "  if (PROCS.length < 2) return;\n"
    "  document.getElementById('procs-sec').style.display = '';\n"
    "  document.getElementById('procs-nav').style.display = '';\n"
    "  var svg = document.getElementById('procs'), W = 1180, L = 230, R = 16, H = 16, end = 1;\n"
    "  for (var i = 0; i < PROCS.length; i++) end = Math.max(end, PROCS[i][4]);\n"
    "  svg.setAttribute('height', PROCS.length * H + 24);\n"
    "  function x(ns) { return L + (W - L - R) * ns / end; }\n"
    "  for (var k = 0; k <= 10; k++) {\n"
    "    svg.appendChild(svgEl('line', { x1: x(end * k / 10), x2: x(end * k / 10), y1: 0, y2: PROCS.length * H, stroke: '#eee' }));\n"
    "    var t = svgEl('text', { x: x(end * k / 10), y: PROCS.length * H + 14, 'class': 'ticklabel', 'text-anchor': 'middle' });\n"
    "    t.textContent = fmt(Math.round(end * k / 10)); svg.appendChild(t);\n"
    "  }\n"
    "  var hue = { fork: '#5b8fd6', exec: '#4caf6e', spawn: '#c98b2f', '-': '#888' };\n"
    "  for (var i = 0; i < PROCS.length; i++) {\n"
    "    var p = PROCS[i], y = i * H, g = svgEl('g', { 'class': 'proc' });\n"
    "    var name = svgEl('text', { x: 4 + 10 * Math.min(p[8], 12), y: y + 12, 'class': 'label' });\n"
    "    name.textContent = p[6] + ' ' + p[0]; g.appendChild(name);\n"
    "    g.appendChild(svgEl('rect', { x: x(p[3]), y: y + 3, width: Math.max(1, x(p[4]) - x(p[3])), height: H - 6, fill: hue[p[2]] || '#888' }));\n"
    "    var tip = svgEl('title', {});\n"
    "    tip.textContent = p[6] + ' (pid ' + p[0] + ', ' + p[2] + '): ' + fmt(p[3]) + ' to ' + fmt(p[4]) + ', ' + p[5] + ' calls' + (p[7] ? '; ' + p[7] : '');\n"
    "    g.appendChild(tip);\n"
    "    if (p[1] >= 0) svg.appendChild(svgEl('line', { x1: x(p[3]), x2: x(p[3]), y1: p[1] * H + H / 2, y2: y + H / 2, stroke: hue[p[2]] || '#888', 'stroke-dasharray': p[2] === 'exec' ? '2,2' : '' }));\n"
    "    svg.appendChild(g);\n"
    "  }\n"
    "}\n"
    "drawProfile();\n"
    "drawProcesses();\n"
    "drawDiff();\n"
    "drawTimeline();\n"
    "timelineEvents();\n"
    "if (typeof fgInit === 'function') fgInit();\n"
    "// report.html#fn=NAME: that function's callers and callees (NAME as the\n"
    "// profile has it, or without its \" (file)\"); #sort=KEY: the profile sorted\n"
    "// by that column (function, calls, total, self, ...), as a click on it\n"
    "function byName(want) {\n"
    "  for (var i = 0; i < P.functions.length; i++) if (P.functions[i][0] === want) return i;\n"
    "  for (var i = 0; i < P.functions.length; i++)\n"
    "    if (P.functions[i][0].replace(/ \\([^()]*\\)$/, '') === want) return i;\n"
    "  return -1;\n"
    "}\n"
    "var hash = decodeURIComponent(location.hash.replace(/^#/, ''));\n"
    "if (hash.indexOf('fn=') === 0 && byName(hash.slice(3)) >= 0) select(byName(hash.slice(3)));\n"
    "if (hash.indexOf('sort=') === 0)\n"
    "  for (var h = 0; h < heads.length; h++)\n"
    "    if (heads[h].textContent === hash.slice(5)) { sortBy(+heads[h].getAttribute('data-k')); break; }\n";

static const char page_style[] =
    "body { font-family: Verdana, sans-serif; font-size: 13px; margin: 16px; color: #111; background: #fafaf6; }\n"
    "h1 { font-size: 20px; margin: 0 0 4px 0; } h2 { font-size: 16px; margin: 22px 0 6px 0; }\n"
    ".sub { color: #444; margin: 2px 0; }\n"
    "nav a { margin-right: 14px; }\n"
    "table { border-collapse: collapse; }\n"
    "th { text-align: right; padding: 2px 8px; background: #e8e4d8; cursor: pointer; white-space: nowrap; }\n"
    "th.fn, td.fn { text-align: left; }\n"
    "td { padding: 1px 8px; white-space: nowrap; } td.n { text-align: right; font-family: monospace; }\n"
    "tr.row:hover, tr.edge:hover { background: #f0e6c8; cursor: pointer; } tr.sel { background: #f5d68a; }\n"
    ".scroll { max-height: 420px; overflow: auto; border: 1px solid #ccc; background: white; }\n"
    ".cg { display: flex; gap: 24px; } .cg > div { flex: 1; }\n"
    "#timeline { background: white; border: 1px solid #ccc; cursor: grab; }\n"
    "#timeline .label, #timeline .ticklabel { font-size: 9px; pointer-events: none; }\n"
    "#timeline .bar { cursor: pointer; }\n"
    "pre { background: white; border: 1px solid #ccc; padding: 6px; overflow: auto; max-height: 300px; }\n"
    ".note { color: #8a4b00; }\n";

static void html_end(struct view *v)
{
    struct html *h = (struct html *)v;
    FILE *out = v->out;
    fclose(h->info_out);
    trim_bars(h);
    uint64_t t0 = UINT64_MAX, t1 = 0, left_out = h->bars_seen - h->n_bars;
    for (size_t i = 0; i < h->n_bars; i++) {
        struct bar *b = &h->bars[i];
        if (left_out && b->end_ns > h->cut_ns) {    /* still running at the cut */
            b->end_ns = h->cut_ns;
            b->clipped = 1;
        }
        t0 = b->start_ns < t0 ? b->start_ns : t0;
        t1 = b->end_ns > t1 ? b->end_ns : t1;
    }
    uint64_t calls = 0;
    for (size_t i = 0; i < h->n_lanes; i++)
        calls += h->lanes[i].calls;
    if (!h->n_bars)
        t0 = 0;
    if (h->programs) {
        char *several = xasprintf("%d processes of several programs, the first %s", h->any_trace,
                                  h->title);
        free(h->title);
        h->title = several;
    }
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>litifut report: ",
          out);
    put_markup(out, h->title ? h->title : "", SIZE_MAX);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head><body>\n<h1>litifut report: ", page_style);
    put_markup(out, h->title ? h->title : "(no trace)", SIZE_MAX);
    fprintf(out, "</h1>\n<p class=\"sub\" id=\"summary\">%d trace%s, %zu thread%s, %" PRIu64
                 " call%s</p>\n", h->any_trace, h->any_trace == 1 ? "" : "s", h->n_lanes,
            h->n_lanes == 1 ? "" : "s", calls, calls == 1 ? "" : "s");
    if (h->pairs)
        fprintf(out, "<p class=\"sub note\" id=\"pairs\">%" PRIu64 " (caller, callee) pairs "
                     "of LITIFUT_MODE=count or dedup traces: calls not in order, so only the "
                     "coverage shows them</p>\n", h->pairs);
    if (h->est.any) {
        fputs("<p class=\"sub note\" id=\"estimates\">~ marks estimates: ", out);
        for (size_t i = 0; i < h->est.n; i++) {
            char *line = estimates_line(&h->est, i);
            if (i)
                fputs("; ", out);
            put_markup(out, line, SIZE_MAX);
            free(line);
        }
        fputs("</p>\n", out);
    }
    char *own = own_time_text(h->est.own_ns, h->est.n_own);
    if (own) {
        fputs("<p class=\"sub note\" id=\"own-time\">", out);
        put_markup(out, own, SIZE_MAX);
        fputs("</p>\n", out);
        free(own);
    }
    fprintf(out, "<nav><a href=\"#profile-sec\">Profile</a>%s<a id=\"procs-nav\" style=\"display:none\" "
                 "href=\"#procs-sec\">Processes</a><a href=\"#flame-sec\">Flame graph</a>"
                 "<a href=\"#timeline-sec\">Timeline</a><a href=\"#coverage-sec\">Coverage</a>"
                 "<a href=\"#info-sec\">Traces</a></nav>\n",
            h->diff ? "<a href=\"#diff-sec\">Comparison</a>" : "");
    fputs("<section id=\"profile-sec\"><h2>Profile</h2>\n"
          "<p><input id=\"filter\" placeholder=\"filter functions\" size=\"40\"> "
          "<span id=\"shown\"></span> (click a column to sort, a row for its callers and "
          "callees; avg .. p99: of each call's inclusive time)</p>\n<div class=\"scroll\">"
          "<table id=\"profile\"><thead><tr><th data-k=\"4\">self%</th><th data-k=\"4\">self</th>"
          "<th data-k=\"3\">total</th><th data-k=\"2\">calls</th><th data-k=\"5\">avg</th>"
          "<th data-k=\"6\">min</th><th data-k=\"7\">max</th><th data-k=\"8\">p50</th>"
          "<th data-k=\"9\">p90</th><th data-k=\"10\">p99</th><th data-k=\"0\" class=\"fn\">"
          "function</th></tr></thead><tbody></tbody></table></div>\n"
          "<div id=\"callgraph\" style=\"display:none\"><h2>Call graph of <span id=\"cg-name\">"
          "</span></h2><div class=\"cg\"><div><b>called by</b><table id=\"callers\"><thead><tr>"
          "<th>calls</th><th>total</th><th>self</th><th class=\"fn\">caller</th></tr></thead>"
          "<tbody></tbody></table></div><div><b>calls</b><table id=\"callees\"><thead><tr>"
          "<th>calls</th><th>total</th><th>self</th><th class=\"fn\">callee</th></tr></thead>"
          "<tbody></tbody></table></div></div></div></section>\n", out);
    fputs("<section id=\"diff-sec\" style=\"display:none\"><h2>Compared with <span "
          "id=\"diff-base\"></span></h2><p id=\"diff-runs\"></p><div class=\"scroll\">"
          "<table id=\"diff\"><thead><tr><th>self base</th><th>self</th><th>change</th>"
          "<th>change%</th><th>total base</th><th>total</th><th>calls base</th><th>calls</th>"
          "<th class=\"fn\">function</th></tr></thead><tbody></tbody></table></div></section>\n",
          out);
    fputs("<section id=\"procs-sec\" style=\"display:none\"><h2>Processes</h2>\n<p>Each "
          "process a bar from its trace's start to its last record, in order of start under "
          "the process it came from: a line from the parent at the child's start (blue: a "
          "fork, green and dotted: an exec, orange: spawned before any traced call); hover "
          "for its calls and top functions.</p>\n<svg id=\"procs\" width=\"1180\" height=\"40\" "
          "xmlns=\"http://www.w3.org/2000/svg\"></svg>\n</section>\n", out);
    fputs("<section id=\"flame-sec\"><h2>Flame graph</h2>\n", out);
    h->flame->ops->end(h->flame);       /* the inline SVG */
    fputs("</section>\n<section id=\"timeline-sec\"><h2>Timeline</h2>\n<p>", out);
    if (left_out)
        fprintf(out, "<span class=\"note\" id=\"tl-cut\">The %zu frames that start first are "
                     "shown, %" PRIu64 " that start later are not; the ones still running then "
                     "end at the cut, marked: choose a stretch with --time-range=A~B, or threads "
                     "with --tid.</span> ", h->n_bars, left_out);
    fputs("Each frame a bar (paler: entered without a traced call); a click on one shows its "
          "function.  The wheel zooms, dragging pans, a double click shows all: "
          "<span id=\"tl-range\"></span></p>\n<svg id=\"timeline\" width=\"1180\" "
          "height=\"40\" xmlns=\"http://www.w3.org/2000/svg\"></svg>\n</section>\n", out);
    h->coverage->ops->end(h->coverage);     /* its text, into coverage_text */
    fclose(h->coverage_out);
    fputs("<section id=\"coverage-sec\"><h2>Coverage</h2>\n<pre id=\"coverage\">", out);
    put_markup(out, h->coverage_text ? h->coverage_text : "", h->coverage_len);
    fputs("</pre></section>\n", out);
    fputs("<section id=\"info-sec\"><h2>Traces</h2>\n<pre id=\"info\">", out);
    put_markup(out, h->info ? h->info : "", h->info_len);
    /* litifut-emu's clock: the times are guest instructions ("in") */
    fprintf(out, "</pre></section>\n<script>\nvar INSNS = %s;\nvar PROFILE = ",
            durations_are_instructions() ? "true" : "false");
    h->profile->ops->end(h->profile);   /* the JSON */
    fprintf(out, ";\nvar TIMELINE = {\"span\":[%" PRIu64 ",%" PRIu64 "],\"estimates\":%d,"
                 "\"threads\":[", t0, t1, h->est.any != 0);
    for (size_t i = 0; i < h->n_lanes; i++)
        fprintf(out, "%s[%" PRIu32 ",%" PRIu32 "]", i ? "," : "", h->lanes[i].pid, h->lanes[i].tid);
    fputs("],\n\"names\":[", out);
    for (size_t i = 0; i < h->n_names; i++) {
        if (i)
            fputc(',', out);
        html_json_string(out, v->ft->v[h->names[i]].name);
    }
    fputs("],\n\"bars\":[", out);
    for (size_t i = 0; i < h->n_bars; i++) {
        const struct bar *b = &h->bars[i];
        fprintf(out, "%s[%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%d,%d]",
                i ? (i % 8 ? "," : ",\n") : "", b->thread, b->name, b->depth, b->start_ns,
                b->end_ns, b->call, b->clipped);
    }
    fputs("]};\nvar PROCS = ", out);
    h->procs->ops->end(h->procs);       /* the processes' JSON */
    fprintf(out, ";\n%s</script>\n</body></html>\n", page_script);
    estimates_free(&h->est);
    free(h->info);
    free(h->coverage_text);
    free(h->title);
    free(h->lanes);
    free(h->bars);
    free(h->name_of_fid);
    free(h->names);
    free(h);
}

void html_set_base(struct view *v, struct view *base, const char *base_name)
{
    ((struct html *)v)->diff = 1;
    profile_set_base(((struct html *)v)->profile, base, base_name);
}

struct view *html_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    static const struct view_ops ops = {
        .trace_begin = html_trace_begin, .thread_begin = html_thread_begin,
        .push = html_push, .pop = html_pop, .thread_end = html_thread_end,
        .trace_end = html_trace_end, .pair = html_pair, .end = html_end,
    };
    struct html *h = xcalloc(1, sizeof *h);
    view_init(&h->v, &ops, out, ft);
    h->cut_ns = UINT64_MAX;
    h->profile = profile_json_view(out, ft, o);
    h->flame = flame_html_view(out, ft, o);
    h->procs = processes_json_view(out, ft, o);
    h->info_out = open_memstream(&h->info, &h->info_len);
    h->coverage_out = open_memstream(&h->coverage_text, &h->coverage_len);
    struct view_options text = *o;
    text.tsv = 0;
    h->coverage = coverage_view(h->coverage_out, ft, &text);
    if (!h->info_out || !h->coverage_out) {
        error("out of memory");
        exit(1);
    }
    return &h->v;
}
