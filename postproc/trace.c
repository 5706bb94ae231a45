/*
 * Reading a raw trace file.  The file comes from a device: it may be cut
 * short (power lost, copy interrupted), damaged, or not a trace at all.
 * So every header field is checked before the header is believed, and
 * every chunk header and record before it is used; problems are one
 * line each (per kind, not per record) and the rest is still read.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/trace.h"
#include "lib/elfimage.h"
#include "lib/error.h"
#include "lib/files.h"

/* Limits of what the tracer writes (stub/settings.c, stub/tracefile.c).
 * Both sizes are whole pages: the tracer maps the header and each chunk
 * on their own, and mmap offsets are page multiples. */
#define MIN_CHUNK_SIZE   4096u
#define MAX_CHUNK_SIZE   (64u << 20)
#define MAX_HEADER_SIZE  (64u << 10)
#define PAGE             4096u
#define PID_MAX_LIMIT    4194304u       /* Linux's largest pid_max */

/* Kinds of damage, each warned about once per trace. */
enum problem { P_TRUNCATED, P_GAP, P_CHUNK_HEADER, P_SITE, P_RECORD };

struct reader {
    const unsigned char *data;
    size_t size;
    int big;
    struct trace_file *t;
};

static uint32_t word(const struct reader *r, size_t off)
{
    const unsigned char *p = r->data + off;
    return r->big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void warn_once(struct reader *r, enum problem kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn_once(struct reader *r, enum problem kind, const char *fmt, ...)
{
    if (r->t->warned & (1u << kind))
        return;
    r->t->warned |= 1u << kind;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    warning("%s: %s", r->t->path, what);
}

/* --- the header --- */

static int bad_header(const struct reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad_header(const struct reader *r, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return error("%s: corrupt trace header: %s", r->t->path, what);
}

/* The header's words in host byte order (the bytes are copied as is). */
static void decode_header(const struct reader *r, struct litifut_trace_header *h)
{
    memcpy(h, r->data, sizeof *h);
    const size_t o = offsetof(struct litifut_trace_header, version);
    h->version = word(r, o);
    h->header_size = word(r, o + 4);
    h->chunk_size = word(r, o + 8);
    h->pid = word(r, o + 12);
    h->time_every = word(r, o + 16);
    h->db_checksum = word(r, o + 20);
    h->db_sites = word(r, o + 24);
    h->load_bias = word(r, o + 28);
    h->reserved = word(r, o + 32);
    size_t so = offsetof(struct litifut_trace_header, start_ns);
    h->start_ns = r->big ? (uint64_t)word(r, so) << 32 | word(r, so + 4)
                         : (uint64_t)word(r, so + 4) << 32 | word(r, so);
}

/* The program path: a NUL-terminated string without control characters
 * (it names a file to open and goes into messages and reports). */
static int check_exe(const struct reader *r, const struct litifut_trace_header *h)
{
    const char *end = memchr(h->exe, 0, sizeof h->exe);
    if (!end)
        return bad_header(r, "the program path is not NUL-terminated");
    for (const char *c = h->exe; c < end; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return bad_header(r, "the program path has control characters");
    return 0;
}

/* Fields without which nothing can be read: each is an error. */
static int check_layout(const struct reader *r, const struct litifut_trace_header *h)
{
    if (h->version != LITIFUT_TRACE_VERSION)
        return error("%s: trace format version %" PRIu32 ", this post-processor reads %u",
                     r->t->path, h->version, LITIFUT_TRACE_VERSION);
    if (h->arch != LITIFUT_ARCH_ARM && h->arch != LITIFUT_ARCH_MIPS)
        return bad_header(r, "unknown architecture %u", h->arch);
    if (h->word_size != 4)
        return bad_header(r, "word size %u (the tracer writes 4)", h->word_size);
    if (h->header_size < sizeof *h || h->header_size > MAX_HEADER_SIZE ||
        h->header_size % PAGE)
        return bad_header(r, "header_size %" PRIu32 " (expected whole 4 KB pages, at most %u)",
                          h->header_size, MAX_HEADER_SIZE);
    if (h->chunk_size < MIN_CHUNK_SIZE || h->chunk_size > MAX_CHUNK_SIZE ||
        h->chunk_size % PAGE)
        return bad_header(r, "chunk_size %" PRIu32 " (the tracer writes whole 4 KB pages, "
                          "4 KB to 64 MB)", h->chunk_size);
    return check_exe(r, h);
}

/* Fields that only inform: a bad one is a warning, and is not used. */
static void check_details(const struct reader *r, struct litifut_trace_header *h)
{
    if (h->build_id_size > sizeof h->build_id) {
        warning("%s: the header's build-id length %u is more than %zu bytes; build-id ignored",
                r->t->path, h->build_id_size, sizeof h->build_id);
        h->build_id_size = 0;
    }
    if (h->pid == 0 || h->pid > PID_MAX_LIMIT)
        warning("%s: the header's pid %" PRIu32 " cannot be a process id", r->t->path, h->pid);
    if (h->load_bias % PAGE)
        warning("%s: the header's load bias 0x%08" PRIx32 " is not page-aligned; addresses "
                "may be wrong", r->t->path, h->load_bias);
}

static int read_header(struct reader *r, struct litifut_trace_header *h)
{
    if (r->size < sizeof h->magic || memcmp(r->data, LITIFUT_TRACE_MAGIC, 8) != 0)
        return error("%s: not a litifut trace", r->t->path);
    if (r->size < sizeof *h)
        return error("%s: truncated: the file ends inside the trace header (%zu bytes)",
                     r->t->path, r->size);
    uint8_t endian = r->data[offsetof(struct litifut_trace_header, endian)];
    if (endian != LITIFUT_BIG_ENDIAN && endian != LITIFUT_LITTLE_ENDIAN)
        return bad_header(r, "byte-order mark %u", endian);
    r->big = endian == LITIFUT_BIG_ENDIAN;
    decode_header(r, h);
    if (check_layout(r, h) != 0)
        return -1;
    check_details(r, h);
    return 0;
}

int trace_open(const char *path, struct trace_file *t)
{
    memset(t, 0, sizeof *t);
    t->path = xstrdup(path);
    if (read_file(path, &t->data, &t->size) != 0) {
        trace_free(t);
        return -1;
    }
    struct reader r = { t->data, t->size, 0, t };
    if (read_header(&r, &t->header) != 0) {
        trace_free(t);
        return -1;
    }
    size_t plen = strlen(path);
    t->maps_path = plen > 6 && strcmp(path + plen - 6, ".trace") == 0
                       ? xasprintf("%.*s.maps", (int)(plen - 6), path)
                       : xasprintf("%s.maps", path);
    return 0;
}

/* --- the records --- */

/* One chunk's records. */
struct chunk_calls {
    uint32_t tid, index;
    struct trace_call *calls;
    size_t n, cap;
    /* time marks: before call number mark_at[i], the time was mark_ns[i] */
    size_t *mark_at;
    uint64_t *mark_ns;
    size_t n_marks, mcap;
};

/* Where a chunk's records are. */
struct chunk_span {
    size_t start, end;          /* the records: after the chunk header, whole words */
    int whole;                  /* the file holds the whole chunk (else truncated) */
};

static void add_mark(struct chunk_calls *c, uint64_t ns, uint64_t start_ns)
{
    if (c->n_marks == c->mcap) {
        c->mcap = c->mcap * 2 + 16;
        c->mark_at = xrealloc(c->mark_at, c->mcap * sizeof *c->mark_at);
        c->mark_ns = xrealloc(c->mark_ns, c->mcap * sizeof *c->mark_ns);
    }
    c->mark_at[c->n_marks] = c->n;
    c->mark_ns[c->n_marks++] = ns >= start_ns ? ns - start_ns : 0;
}

static void add_call(struct chunk_calls *c, const struct trace_call *call)
{
    if (c->n == c->cap) {
        c->cap = c->cap * 2 + 256;
        c->calls = xrealloc(c->calls, c->cap * sizeof *c->calls);
    }
    c->calls[c->n++] = *call;
}

/* A record that needs more words than its chunk has left: the file
 * was cut there, or (in a whole chunk) the record is damaged. */
static void record_past_end(struct reader *r, const struct chunk_span *s,
                            const struct chunk_calls *c)
{
    if (!s->whole)
        warn_once(r, P_TRUNCATED, "truncated: the file ends inside a record; "
                                  "kept every whole record");
    else
        warn_once(r, P_RECORD, "a record runs past the end of chunk %" PRIu32
                               "; skipped the rest of that chunk", c->index);
}

/* Zero words end a chunk's data; non-zero words after them are records
 * whose page was lost (not written back before power-off): say so and
 * read on.  Returns where reading goes on, or s->end if nothing
 * follows (the unused rest of the chunk). */
static size_t skip_zeros(struct reader *r, const struct chunk_span *s, size_t pos)
{
    size_t z = pos;
    while (z + 4 <= s->end && word(r, z) == 0)
        z += 4;
    if (z + 4 > s->end)
        return s->end;
    warn_once(r, P_GAP, "a chunk has a gap of lost records (pages not written back?); "
                        "read on after it");
    return z;
}

/* Reads one chunk's records into c.  Returns the bytes they take. */
static size_t parse_chunk(struct reader *r, const struct chunk_span *s, uint64_t start_ns,
                          uint32_t n_sites, struct chunk_calls *c)
{
    size_t pos = s->start;
    while (pos + 4 <= s->end) {
        uint32_t w = word(r, pos);
        if (w == 0) {
            size_t next = skip_zeros(r, s, pos);
            if (next == s->end)
                break;              /* the data ends here */
            pos = next;
            continue;
        }
        if (w & LITIFUT_REC_CONTROL) {
            size_t n = w & 0xffff;
            if (pos + 4 + 4 * n > s->end) {
                record_past_end(r, s, c);
                break;
            }
            /* version 1 has one control record: the time mark */
            if (w != LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 2)) {
                warn_once(r, P_RECORD, "chunk %" PRIu32 " has a control record 0x%08" PRIx32
                          " that this trace version does not have; skipped the rest of "
                          "that chunk", c->index, w);
                break;
            }
            add_mark(c, (uint64_t)word(r, pos + 8) << 32 | word(r, pos + 4), start_ns);
            pos += 12;
            continue;
        }
        struct trace_call call = { (w & LITIFUT_REC_SITE_MASK) - 1, 0, 0, 0 };
        if (w & LITIFUT_REC_HAS_TARGET) {
            if (pos + 8 > s->end) {
                record_past_end(r, s, c);
                break;
            }
            call.target = word(r, pos + 4);
            call.has_target = 1;
        }
        /* A call record says how long it is, so a bad one is skipped alone. */
        if (call.site < n_sites)
            add_call(c, &call);
        else
            warn_once(r, P_SITE, "chunk %" PRIu32 " records call site %" PRIu32 ", the "
                      "program has %" PRIu32 " sites; skipped every such record",
                      c->index, call.site, n_sites);
        pos += call.has_target ? 8 : 4;
    }
    return pos - s->start + sizeof(struct litifut_chunk_header);
}

/* Chunk `index` at `off`: its header must say so, and name a thread. */
static int chunk_header_ok(struct reader *r, size_t off, uint32_t index)
{
    uint32_t magic = word(r, off), tid = word(r, off + 4), idx = word(r, off + 8);
    const char *bad = magic != LITIFUT_CHUNK_MAGIC ? "magic"
                      : idx != index               ? "index"
                      : tid == 0 || tid > PID_MAX_LIMIT ? "thread id" : NULL;
    if (bad)
        warn_once(r, P_CHUNK_HEADER, "chunk %" PRIu32 " has a bad header (%s); skipped it "
                  "(and any other such chunk)", index, bad);
    return !bad;
}

static int by_tid_then_index(const void *a, const void *b)
{
    const struct chunk_calls *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int by_first_chunk(const void *a, const void *b)
{
    const struct trace_thread *x = a, *y = b;
    return x->first_chunk < y->first_chunk ? -1 : x->first_chunk > y->first_chunk;
}

/* Joins one thread's chunks and gives every call a time, interpolated
 * linearly between the time marks around it. */
static void join_thread(struct trace_thread *t, struct chunk_calls *c, size_t n)
{
    size_t total = 0, n_marks = 0;
    for (size_t i = 0; i < n; i++) {
        total += c[i].n;
        n_marks += c[i].n_marks;
    }
    t->tid = c[0].tid;
    t->first_chunk = c[0].index;
    t->calls = xcalloc(total, sizeof *t->calls);
    size_t *at = xcalloc(n_marks, sizeof *at);
    uint64_t *ns = xcalloc(n_marks, sizeof *ns);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < c[i].n_marks; j++, m++) {
            at[m] = t->n_calls + c[i].mark_at[j];
            ns[m] = c[i].mark_ns[j];
        }
        if (c[i].n)
            memcpy(t->calls + t->n_calls, c[i].calls, c[i].n * sizeof *c[i].calls);
        t->n_calls += c[i].n;
    }
    for (size_t i = 0, k = 0; i < t->n_calls; i++) {
        while (k < n_marks && at[k] <= i)
            k++;
        if (k == 0)
            continue;               /* before the first mark: time 0 */
        uint64_t t0 = ns[k - 1];
        if (k < n_marks && ns[k] > t0 && at[k] > at[k - 1])
            t0 += (ns[k] - t0) * (i - at[k - 1]) / (at[k] - at[k - 1]);
        t->calls[i].time_ns = t0;
    }
    free(at);
    free(ns);
}

/* Every readable chunk's records, in file order. */
static struct chunk_calls *read_chunks(struct reader *r, uint32_t n_sites, size_t *n_out)
{
    struct trace_file *t = r->t;
    const struct litifut_trace_header *h = &t->header;
    const size_t head = sizeof(struct litifut_chunk_header);
    struct chunk_calls *chunks = NULL;
    size_t n = 0, cap = 0;
    if (r->size < h->header_size)
        warn_once(r, P_TRUNCATED, "truncated: the file ends inside the header page");
    else if ((r->size - h->header_size) % h->chunk_size)
        warn_once(r, P_TRUNCATED, "truncated: the file ends inside a chunk; "
                                  "kept every whole record");
    uint32_t index = 0;
    for (size_t off = h->header_size; off < r->size && r->size - off >= head;
         off += h->chunk_size, index++) {
        size_t len = r->size - off < h->chunk_size ? r->size - off : h->chunk_size;
        if (word(r, off) == 0)
            continue;               /* claimed but never written (lost on power-off) */
        if (!chunk_header_ok(r, off, index))
            continue;
        if (n == cap) {
            cap = cap * 2 + 16;
            chunks = xrealloc(chunks, cap * sizeof *chunks);
        }
        struct chunk_calls *c = &chunks[n++];
        memset(c, 0, sizeof *c);
        c->tid = word(r, off + 4);
        c->index = index;
        struct chunk_span s = { off + head, off + (len & ~(size_t)3), len == h->chunk_size };
        t->record_bytes += parse_chunk(r, &s, h->start_ns, n_sites, c);
    }
    *n_out = n;
    return chunks;
}

void trace_read_records(struct trace_file *t, uint32_t n_sites)
{
    struct reader r = { t->data, t->size, t->header.endian == LITIFUT_BIG_ENDIAN, t };
    size_t n_chunks;
    struct chunk_calls *chunks = read_chunks(&r, n_sites, &n_chunks);
    if (n_chunks) {
        qsort(chunks, n_chunks, sizeof *chunks, by_tid_then_index);
        t->threads = xcalloc(n_chunks, sizeof *t->threads);     /* at most one per chunk */
    }
    for (size_t i = 0; i < n_chunks;) {
        size_t j = i;
        while (j < n_chunks && chunks[j].tid == chunks[i].tid)
            j++;
        struct trace_thread *th = &t->threads[t->n_threads++];
        join_thread(th, chunks + i, j - i);
        t->n_calls += th->n_calls;
        i = j;
    }
    if (t->n_threads)
        qsort(t->threads, t->n_threads, sizeof *t->threads, by_first_chunk);
    for (size_t i = 0; i < n_chunks; i++) {
        free(chunks[i].calls);
        free(chunks[i].mark_at);
        free(chunks[i].mark_ns);
    }
    free(chunks);
    free(t->data);
    t->data = NULL;
    t->size = 0;
}

void trace_free(struct trace_file *t)
{
    for (size_t i = 0; i < t->n_threads; i++)
        free(t->threads[i].calls);
    free(t->threads);
    free(t->path);
    free(t->maps_path);
    free(t->data);
    memset(t, 0, sizeof *t);
}
