/*
 * Measured or estimated (estimates.h): a trace's kind from its header,
 * the sentences the views print about it, and durations with their
 * mark.  The header lines, e.g. for a default trace of today's tracer:
 *
 *   # ~ marks estimates: times interpolated between time marks every 256
 *     records (estimates); returns inferred (a function's end is taken at
 *     its caller's next event): durations and self times are estimates
 *                                                          (one line)
 * and where the processes a view adds up differ:
 *
 *   # ~ marks estimates; per process:
 *   #   pid 1234: returns inferred (...): durations and self times are estimates
 *   #   pid 1240: times and returns measured per call
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/views/estimates.h"
#include "lib/error.h"

unsigned trace_estimates(const struct litifut_trace_header *h)
{
    if (h->mode != LITIFUT_MODE_FULL)
        return 0;                       /* (pairs: no durations; first calls read the clock) */
    return (h->clock == LITIFUT_CLOCK_MARKS ? ESTIMATE_TIMES : 0) |
           (h->flags & LITIFUT_TRACE_RETURNS ? 0 : ESTIMATE_RETURNS);
}

char *estimates_text(unsigned kind, uint32_t every)
{
    static const char returns[] = "returns inferred (a function's end is taken at its "
                                  "caller's next event): durations and self times are estimates";
    if (kind == (ESTIMATE_TIMES | ESTIMATE_RETURNS))
        return xasprintf("times interpolated between time marks every %" PRIu32
                         " records (estimates); %s", every, returns);
    if (kind == ESTIMATE_TIMES)
        return xasprintf("times interpolated between time marks every %" PRIu32
                         " records (estimates)", every);
    return kind ? xstrdup(returns) : NULL;
}

void estimates_add(struct estimates *e, const struct litifut_trace_header *h)
{
    unsigned kind = trace_estimates(h);
    uint32_t every = kind & ESTIMATE_TIMES ? h->time_every : 0;
    size_t i = 0;
    while (i < e->n && (e->g[i].kind != kind || e->g[i].every != every))
        i++;
    if (i == e->n) {
        e->g = xrealloc(e->g, (e->n + 1) * sizeof *e->g);
        memset(&e->g[i], 0, sizeof e->g[i]);
        e->g[i].kind = kind;
        e->g[i].every = every;
        e->n++;
    }
    struct estimate_group *g = &e->g[i];
    if (g->n < ESTIMATES_PIDS)
        g->pids[g->n] = h->pid;
    g->n++;
    e->any |= kind;
}

void estimates_add_own(struct estimates *e, uint64_t own_ns, uint64_t n_own)
{
    e->own_ns += own_ns;
    e->n_own += n_own;
}

char *own_time_text(uint64_t own_ns, uint64_t n_own)
{
    if (!own_ns)
        return NULL;
    char d[32];
    format_duration(d, sizeof d, own_ns, 0, 0);
    return xasprintf("the tracer's own time, %s in %" PRIu64 " new trace chunk%s (the file "
                     "grown, pages faulted in), is in no function's time", d, n_own,
                     n_own == 1 ? "" : "s");
}

char *estimates_line(const struct estimates *e, size_t i)
{
    const struct estimate_group *g = &e->g[i];
    char pids[ESTIMATES_PIDS * 12 + 32] = "";
    size_t len = 0;
    for (size_t k = 0; k < g->n && k < ESTIMATES_PIDS; k++)
        len += (size_t)snprintf(pids + len, sizeof pids - len, "%s%" PRIu32, k ? ", " : "",
                                g->pids[k]);
    if (g->n > ESTIMATES_PIDS)
        snprintf(pids + len, sizeof pids - len, " and %zu more", g->n - ESTIMATES_PIDS);
    char *text = estimates_text(g->kind, g->every);
    char *line = xasprintf("pid %s: %s", pids, text ? text : "times and returns measured per call");
    free(text);
    return line;
}

void estimates_note(FILE *out, unsigned kind, uint32_t every)
{
    char *text = estimates_text(kind, every);
    if (text)
        fprintf(out, "# ~ marks estimates: %s\n", text);
    free(text);
}

void estimates_print(FILE *out, const struct estimates *e)
{
    if (e->any && e->n == 1) {
        estimates_note(out, e->g[0].kind, e->g[0].every);
    } else if (e->any) {
        fputs("# ~ marks estimates; per process:\n", out);
        for (size_t i = 0; i < e->n; i++) {
            char *line = estimates_line(e, i);
            fprintf(out, "#   %s\n", line);
            free(line);
        }
    }
    own_time_note(out, e->own_ns, e->n_own);
}

void own_time_note(FILE *out, uint64_t own_ns, uint64_t n_own)
{
    char *own = own_time_text(own_ns, n_own);
    if (own)
        fprintf(out, "# %s\n", own);
    free(own);
}

void estimates_free(struct estimates *e)
{
    free(e->g);
    memset(e, 0, sizeof *e);
}

/* v in decimal, at least `digits` digits; returns the end. */
static char *put_decimal(char *p, uint64_t v, int digits)
{
    char t[24];
    int n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || n < digits);
    while (n)
        *p++ = t[--n];
    return p;
}

/* As snprintf(buf, size, "%*s %s", width - 3, number, unit) with the
 * number "%.3f" of ns in the unit (or ns as an integer), in integers:
 * the log prints one per call.  An exact tie rounds as printf rounds
 * the double (the only case where they could differ). */
static int in_instructions;

void durations_set_instructions(int on)
{
    in_instructions = on;
}

int durations_are_instructions(void)
{
    return in_instructions;
}

size_t format_duration(char *buf, size_t size, uint64_t ns, int width, int estimate)
{
    static const struct { uint64_t ns; const char *unit; } units[] = {
        { 1000000000, " s" }, { 1000000, "ms" }, { 1000, "us" },
    };
    char num[48], *p = num;
    const char *unit = "ns";
    if (estimate)
        *p++ = '~';
    size_t i = 0;
    while (i < sizeof units / sizeof units[0] && ns < units[i].ns)
        i++;
    if (in_instructions) {
        p = put_decimal(p, ns, 1);
        unit = "in";
    } else if (i == sizeof units / sizeof units[0]) {
        p = put_decimal(p, ns, 1);
    } else {
        uint64_t step = units[i].ns / 1000, q = ns / step, r = ns % step;
        if (2 * r > step) {
            q++;
        } else if (2 * r == step) {
            char t[48], *dot;
            snprintf(t, sizeof t, "%.3f", (double)ns / (double)units[i].ns);
            q = strtoull(t, &dot, 10) * 1000 + (*dot == '.' ? strtoull(dot + 1, NULL, 10) : 0);
        }
        p = put_decimal(p, q / 1000, 1);
        *p++ = '.';
        p = put_decimal(p, q % 1000, 3);
        unit = units[i].unit;
    }
    size_t len = (size_t)(p - num), field = width > 3 ? (size_t)width - 3 : 0;
    size_t pad = len < field ? field - len : 0;
    if (size < pad + len + 4) {
        if (size)
            *buf = 0;
        return 0;
    }
    memset(buf, ' ', pad);
    memcpy(buf + pad, num, len);
    buf[pad + len] = ' ';
    memcpy(buf + pad + len + 1, unit, 3);       /* with its NUL */
    return pad + len + 3;
}

void print_duration(FILE *out, uint64_t ns, int width, int estimate)
{
    char buf[64];
    format_duration(buf, sizeof buf, ns, width, estimate);
    fputs(buf, out);
}
