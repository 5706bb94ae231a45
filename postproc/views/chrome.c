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
 * LITIFUT_ARGS' values: the B event's args.args (the call's arguments
 * as the log prints them), the E event's args.retval (the viewers add
 * an E's args to its slice's).
 * A frame that is no traced call (a function entered without one, as
 * the log's "(untraced) -> f"; a fork child's frames from its parent)
 * has args.call false.
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
 * The processes (a boot, a test suite): each one's process_sort_index
 * is its start, so that the tracks come in order of start; a fork
 * child gets a flow arrow ("ph":"s" at its parent's forking thread,
 * "ph":"f" at its own first slice, "cat":"process"), an exec'd program
 * an instant event "exec PROGRAM" (forks.h says how both are known).
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
#include "postproc/views/report.h"
#include "postproc/view.h"
#include "postproc/views/args.h"
#include "postproc/views/outbuf.h"
#include "postproc/util/grow.h"
#include "lib/error.h"

struct chrome {
    struct view v;
    int srcline;
    int auto_args;              /* --auto-args */
    struct args_buf args;       /* LITIFUT_ARGS' values as text */
    int any;                    /* an event written: the next needs a comma */
    struct estimates est;       /* what the traces read estimate */
    struct outbuf ob;           /* events being built (outbuf.h) */
    /* per function id: its ,"name":...,"cat":... as JSON, made once */
    struct fn_json { char *text; size_t len; } *fn_json;
    size_t n_fn_json;
    size_t flows;               /* fork arrows written (their ids) */
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

static void ob_json_string(struct outbuf *ob, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    ob_char(ob, '"');
    while (*s) {
        size_t n = utf8_length(s);
        if (n == 1 && (*s == '"' || *s == '\\')) {
            ob_char(ob, '\\');
            ob_char(ob, (char)*s);
        } else if (n == 1 && (*s < 0x20 || *s == 0x7f)) {
            ob_char(ob, '?');
        } else if (n) {
            ob_mem(ob, (const char *)s, n);
        } else {
            ob_char(ob, '?');
            n = 1;
        }
        s += n;
    }
    ob_char(ob, '"');
}

static void put_json_string(FILE *out, const char *str)
{
    struct outbuf *ob = xcalloc(1, sizeof *ob);
    ob->out = out;
    ob_json_string(ob, str);
    ob_flush(ob);
    free(ob);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The next event: a comma after the one before. */
static void next_event(struct chrome *c)
{
    ob_flush(&c->ob);                   /* (the metadata events write to the FILE) */
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

/* A process's origin, where the traces know it: a flow arrow from
 * the parent's forking thread, at the fork, to the child's first slice
 * (a fork child), or an instant event "exec PROGRAM" (an exec: the
 * same pid's earlier trace is another program's). */
static void origin_events(struct chrome *c)
{
    const struct litifut_trace_header *h = &c->v.trace->t->header;
    const struct fork_origin *o = c->v.trace->fork;
    uint64_t at = h->start_ns;
    char ts[48];
    snprintf(ts, sizeof ts, "%" PRIu64 ".%03u", at / 1000, (unsigned)(at % 1000));
    if (o && o->parent_pid && o->parent_tid) {
        c->flows++;
        next_event(c);
        fprintf(c->v.out, "{\"ph\":\"s\",\"id\":%zu,\"name\":\"fork\",\"cat\":\"process\","
                "\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":%s}", c->flows, o->parent_pid,
                o->parent_tid, ts);
        next_event(c);
        fprintf(c->v.out, "{\"ph\":\"f\",\"id\":%zu,\"name\":\"fork\",\"cat\":\"process\","
                "\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":%s}", c->flows, h->pid, h->pid, ts);
    }
    if (o && o->execed) {
        next_event(c);
        fprintf(c->v.out, "{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"process\",\"pid\":%" PRIu32
                ",\"tid\":%" PRIu32 ",\"ts\":%s,\"name\":", h->pid, h->pid, ts);
        char *name = xasprintf("exec %s", base_name(h->exe));
        put_json_string(c->v.out, name);
        free(name);
        fputs("}", c->v.out);
    }
}

static void chrome_trace_begin(struct view *v)
{
    struct chrome *c = (struct chrome *)v;
    const struct litifut_trace_header *h = &v->trace->t->header;
    metadata(c, "process_name", h->pid, "name", base_name(h->exe));
    next_event(c);                      /* processes in order of start */
    fprintf(v->out, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%" PRIu32
            ",\"tid\":%" PRIu32 ",\"args\":{\"sort_index\":%" PRIu64 "}}", h->pid, h->pid,
            h->start_ns / 1000);
    origin_events(c);
    if (v->trace->estimates)
        metadata(c, "process_labels", h->pid, "labels", "estimated durations");
    estimates_add(&c->est, h);
    estimates_add_own(&c->est, v->trace->t->own_ns, v->trace->t->n_own);
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
    struct outbuf *ob = &c->ob;
    ob_str(ob, c->any ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
    c->any = 1;
    ob_char(ob, phase);
    ob_str(ob, "\",\"pid\":");
    ob_u64(ob, s->t->header.pid);
    ob_str(ob, ",\"tid\":");
    ob_u64(ob, s->th->tid);
    ob_str(ob, ",\"ts\":");
    ob_u64(ob, at / 1000);
    ob_char(ob, '.');
    ob_dec(ob, at % 1000, 3, 1);
}

/* ,"name":...,"cat":... of function `fid`, made on its first event. */
static void put_function(struct chrome *c, uint32_t fid)
{
    c->fn_json = grow_to_hold(c->fn_json, &c->n_fn_json, fid, sizeof *c->fn_json, 0);
    struct fn_json *j = &c->fn_json[fid];
    if (!j->text) {
        const struct func *fn = &c->v.ft->v[fid];
        struct outbuf *tmp = xcalloc(1, sizeof *tmp);     /* (out NULL: kept in memory) */
        ob_str(tmp, ",\"name\":");
        ob_json_string(tmp, fn->name);
        ob_str(tmp, ",\"cat\":");
        ob_json_string(tmp, base_name(fn->obj));
        j->text = xmalloc(tmp->n + 1);
        memcpy(j->text, tmp->b, tmp->n);
        j->len = tmp->n;
        free(tmp);
    }
    ob_mem(&c->ob, j->text, j->len);
}

static void chrome_push(struct view *v, struct callstack *s, struct frame *f)
{
    struct chrome *c = (struct chrome *)v;
    if (!f->shown)
        return;
    event_start(c, s, 'B', f->start_ns);
    put_function(c, f->fid);
    const char *line = NULL;
    if (c->srcline && frame_has_site(f)) {
        const struct program *p = &v->trace->ps->v[f->call.object];
        line = trace_funcs_srcline(v->trace->tf, p->obj, p->site_addr[f->call.site]);
    }
    struct outbuf *ob = &c->ob;
    int entry = f->signal == FRAME_ENTRY;
    uint32_t n_values;
    const uint32_t *values = frame_args(s, f, &n_values);
    if (line || v->trace->estimates || !frame_is_call(f) || entry || f->jump || values) {
        const char *sep = "";
        ob_str(ob, ",\"args\":{");
        if (values) {                   /* LITIFUT_ARGS: "args":"\"/etc/config\", 0" */
            ob_str(ob, "\"args\":");
            ob_json_string(ob, args_buf_text(&c->args, &v->trace->t->header, values, n_values,
                                             &v->ft->v[f->fid], c->auto_args));
            sep = ",";
        }
        if (line) {
            ob_str(ob, "\"site\":");
            ob_json_string(ob, line);
            sep = ",";
        }
        if (v->trace->estimates) {
            ob_str(ob, sep);
            ob_str(ob, "\"estimate\":true");
            sep = ",";
        }
        if (!frame_is_call(f)) {        /* entered without a traced call, or before the trace */
            ob_str(ob, sep);
            ob_str(ob, "\"call\":false");
        }
        if (entry) {                    /* a call the C library made through the tracer's entry */
            ob_str(ob, sep);
            static const char *const names[] = LITIFUT_ENTRY_NAMES;
            ob_str(ob, "\"entry\":\"");
            ob_str(ob, f->call.site < LITIFUT_ENTRY_KINDS ? names[f->call.site] : "entry");
            ob_char(ob, '"');
        }
        if (f->jump) {                  /* a tail jump's callee */
            ob_str(ob, sep);
            ob_str(ob, "\"jump\":true");
        }
        ob_char(ob, '}');
    }
    ob_char(ob, '}');
    ob_line_done(ob);
}

static void chrome_pop(struct view *v, struct callstack *s, struct frame *f, uint64_t end_ns)
{
    if (!f->shown)
        return;
    struct chrome *c = (struct chrome *)v;
    event_start(c, s, 'E', end_ns);
    if (f->ret) {                       /* LITIFUT_ARGS: the viewer adds it to the slice's args */
        ob_str(&c->ob, ",\"args\":{\"retval\":");
        ob_json_string(&c->ob, args_buf_text(&c->args, &v->trace->t->header, f->ret, f->ret_n,
                                             &v->ft->v[f->fid], c->auto_args));
        ob_char(&c->ob, '}');
    }
    ob_char(&c->ob, '}');
    ob_line_done(&c->ob);
}

/* Where some trace has estimates: what each process's times are; and
 * the tracer's own time, which no slice holds. */
static void other_data(struct chrome *c)
{
    FILE *out = c->v.out;
    const char *sep = "";
    fputs(",\"otherData\":{", out);
    if (c->est.any) {
        fputs("\"estimate\":\"a slice whose args.estimate is true has an "
              "estimated duration\",\"times\":[", out);
        for (size_t i = 0; i < c->est.n; i++) {
            char *line = estimates_line(&c->est, i);
            fputs(i ? "," : "", out);
            put_json_string(out, line);
            free(line);
        }
        fputs("]", out);
        sep = ",";
    }
    char *own = own_time_text(c->est.own_ns, c->est.n_own);
    if (own) {
        fprintf(out, "%s\"tracer_own_time\":", sep);
        put_json_string(out, own);
        free(own);
    }
    fputs("}", out);
}

static void chrome_end(struct view *v)
{
    struct chrome *c = (struct chrome *)v;
    ob_flush(&c->ob);
    for (size_t i = 0; i < c->n_fn_json; i++)
        free(c->fn_json[i].text);
    free(c->fn_json);
    fputs("\n]", v->out);
    if (c->est.any || c->est.own_ns)
        other_data(c);
    else if (durations_are_instructions())  /* (litifut-emu's clock) */
        fputs(",\"otherData\":{\"clock\":\"guest instructions (litifut-emu): a "
              "microsecond here is 1000 instructions\"}", v->out);
    fputs("}\n", v->out);
    estimates_free(&c->est);
    args_buf_free(&c->args);
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
    c->ob.out = out;
    c->srcline = o->srcline;
    c->auto_args = o->auto_args;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    return &c->v;
}
