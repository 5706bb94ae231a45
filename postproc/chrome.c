/*
 * --format=chrome: the Chrome trace event format (JSON), which the
 * Perfetto UI (ui.perfetto.dev) and chrome://tracing open:
 *
 *   {"displayTimeUnit":"ns","traceEvents":[
 *   {"ph":"M","name":"process_name","pid":1234,"tid":1234,"args":{"name":"prog"}},
 *   {"ph":"M","name":"thread_name","pid":1234,"tid":1234,"args":{"name":"prog"}},
 *   {"ph":"B","pid":1234,"tid":1234,"ts":5012.345,"name":"main","cat":"prog"},
 *   {"ph":"E","pid":1234,"tid":1234,"ts":5052.345},
 *   ...]}
 *
 * A begin event when a frame is pushed, an end event when it is popped
 * (complete "X" events would need each duration before the event is
 * written: the whole subtree kept in memory).  So each thread's events
 * nest properly and come in time order; threads come one after
 * another.  ts: microseconds of CLOCK_MONOTONIC on the target (the
 * trace's start plus the event's time), so that several processes line
 * up; cat: the file the function is in.  --srcline adds args.site.
 *
 * Estimates (estimates.h): a trace without a per-call clock or without
 * return records gets a "process_labels" event ("estimated durations",
 * shown beside the process's name), its begin events args.estimate
 * true, and the document an "otherData" object (the format's place for
 * metadata) saying what each process's times are:
 *
 *   ],"otherData":{"estimate":"a slice whose args.estimate is true ...",
 *   "times":["pid 1234: returns inferred (...): durations and ..."]}}
 *
 * A trace with both measured adds none of these.
 *
 * JSON strings: no JSON library is installed here (json-c and jansson
 * are there without their headers), and writing strings is all that
 * is needed: '"' and '\' escaped, control characters (none are left in
 * names) as '?', and bytes that are not well-formed UTF-8 as '?', so
 * that a crafted name in a target file cannot break the document.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/report.h"
#include "postproc/view.h"
#include "lib/error.h"

struct chrome {
    struct view v;
    int srcline;
    int any;                    /* an event written: the next needs a comma */
    struct estimates est;       /* what the traces read estimate */
};

/* The length of the well-formed UTF-8 sequence at s (RFC 3629), or 0. */
static size_t utf8_length(const unsigned char *s)
{
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                            : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
        return 0;                       /* overlong; a surrogate */
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
        return 0;                       /* overlong; beyond U+10FFFF */
    return n;
}

static void put_json_string(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', out);
    while (*s) {
        size_t n = utf8_length(s);
        if (n == 1 && (*s == '"' || *s == '\\')) {
            fputc('\\', out);
            fputc(*s, out);
        } else if (n == 1 && (*s < 0x20 || *s == 0x7f)) {
            fputc('?', out);
        } else if (n) {
            fwrite(s, 1, n, out);
        } else {
            fputc('?', out);
            n = 1;
        }
        s += n;
    }
    fputc('"', out);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The next event: a comma after the one before. */
static void next_event(struct chrome *c)
{
    fputs(c->any ? ",\n" : "\n", c->v.out);
    c->any = 1;
}

/* A metadata event: `what` (process_name, ...), its argument `key` = `value`. */
static void metadata(struct chrome *c, const char *what, uint32_t tid, const char *key,
                     const char *value)
{
    next_event(c);
    fprintf(c->v.out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
            ",\"args\":{\"%s\":", what, c->v.trace->t->header.pid, tid, key);
    put_json_string(c->v.out, value);
    fputs("}}", c->v.out);
}

static void chrome_trace_begin(struct view *v)
{
    struct chrome *c = (struct chrome *)v;
    const struct litifut_trace_header *h = &v->trace->t->header;
    metadata(c, "process_name", h->pid, "name", base_name(h->exe));
    if (v->trace->estimates)
        metadata(c, "process_labels", h->pid, "labels", "estimated durations");
    estimates_add(&c->est, h);
}

static void chrome_thread_begin(struct view *v, struct callstack *s)
{
    const struct litifut_trace_header *h = &v->trace->t->header;
    char name[64];
    snprintf(name, sizeof name, "thread %" PRIu32, s->th->tid);
    metadata((struct chrome *)v, "thread_name", s->th->tid, "name",
             s->th->tid == h->pid ? base_name(h->exe) : name);
}

/* An event's start: phase, process, thread, time. */
static void event_start(struct chrome *c, const struct callstack *s, char phase, uint64_t ns)
{
    uint64_t at = c->v.trace->t->header.start_ns + ns;
    next_event(c);
    fprintf(c->v.out, "{\"ph\":\"%c\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":%" PRIu64
            ".%03u", phase, s->t->header.pid, s->th->tid, at / 1000, (unsigned)(at % 1000));
}

static void chrome_push(struct view *v, struct callstack *s, struct frame *f)
{
    struct chrome *c = (struct chrome *)v;
    if (!f->shown)
        return;
    const struct func *fn = &v->ft->v[f->fid];
    event_start(c, s, 'B', f->start_ns);
    fputs(",\"name\":", v->out);
    put_json_string(v->out, fn->name);
    fputs(",\"cat\":", v->out);
    put_json_string(v->out, base_name(fn->obj));
    const char *line = NULL;
    if (c->srcline && frame_is_call(f)) {
        const struct program *p = &v->trace->ps->v[f->call.object];
        line = trace_funcs_srcline(v->trace->tf, p->obj, p->site_addr[f->call.site]);
    }
    if (line || v->trace->estimates) {
        fputs(",\"args\":{", v->out);
        if (line) {
            fputs("\"site\":", v->out);
            put_json_string(v->out, line);
        }
        if (v->trace->estimates)
            fputs(line ? ",\"estimate\":true" : "\"estimate\":true", v->out);
        fputc('}', v->out);
    }
    fputc('}', v->out);
}

static void chrome_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    if (!f->shown)
        return;
    event_start((struct chrome *)v, s, 'E', end_ns);
    fputc('}', v->out);
}

/* Where some trace has estimates: what each process's times are. */
static void other_data(struct chrome *c)
{
    FILE *out = c->v.out;
    fputs(",\"otherData\":{\"estimate\":\"a slice whose args.estimate is true has an "
          "estimated duration\",\"times\":[", out);
    for (size_t i = 0; i < c->est.n; i++) {
        char *line = estimates_line(&c->est, i);
        fputs(i ? "," : "", out);
        put_json_string(out, line);
        free(line);
    }
    fputs("]}", out);
}

static void chrome_end(struct view *v)
{
    struct chrome *c = (struct chrome *)v;
    fputs("\n]", v->out);
    if (c->est.any)
        other_data(c);
    fputs("}\n", v->out);
    estimates_free(&c->est);
    free(c);
}

struct view *chrome_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    static const struct view_ops ops = {
        .trace_begin = chrome_trace_begin, .thread_begin = chrome_thread_begin,
        .push = chrome_push, .pop = chrome_pop, .end = chrome_end,
    };
    struct chrome *c = xcalloc(1, sizeof *c);
    view_init(&c->v, &ops, out, ft);
    c->srcline = o->srcline;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    return &c->v;
}
