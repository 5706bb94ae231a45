#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "trace.h"
#include "error.h"
#include "files.h"

struct reader {
    const unsigned char *data;
    size_t size;
    int big;
    const char *path;
    int warned;
};

static uint32_t word(const struct reader *r, size_t off)
{
    const unsigned char *p = r->data + off;
    return r->big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static void warn_once(struct reader *r, const char *what)
{
    if (!r->warned++)
        warning("%s: %s; kept every whole record", r->path, what);
}

/* One chunk's records, appended to a growing per-chunk list. */
struct chunk_calls {
    uint32_t tid, index;
    struct trace_call *calls;
    size_t n;
    /* time marks: before call number mark_at[i], the time was mark_ns[i] */
    size_t *mark_at;
    uint64_t *mark_ns;
    size_t n_marks;
};

/* Returns the bytes the chunk's data takes (header and records). */
static size_t parse_chunk(struct reader *r, size_t off, size_t len, uint64_t start_ns,
                          uint32_t n_sites, struct chunk_calls *c)
{
    size_t cap = 0, mcap = 0;
    size_t pos = off + sizeof(struct litifut_chunk_header), end = off + (len & ~(size_t)3);
    while (pos + 4 <= end) {
        uint32_t w = word(r, pos);
        if (w == 0) {
            size_t z = pos;
            while (z + 4 <= end && word(r, z) == 0)
                z += 4;
            if (z + 4 > end)
                break;              /* the unused rest of the chunk */
            warn_once(r, "a chunk has a gap of lost records (pages not written back?)");
            pos = z;
            continue;
        }
        if (w & LITIFUT_REC_CONTROL) {
            uint32_t type = (w >> 16) & 0xff, n = w & 0xffff;
            if (pos + 4 + 4 * (size_t)n > end) {
                warn_once(r, "the file ends inside a record (truncated)");
                break;
            }
            if (type == LITIFUT_REC_TIME && n == 2) {
                uint64_t ns = (uint64_t)word(r, pos + 8) << 32 | word(r, pos + 4);
                if (c->n_marks == mcap) {
                    mcap = mcap * 2 + 16;
                    c->mark_at = xrealloc(c->mark_at, mcap * sizeof *c->mark_at);
                    c->mark_ns = xrealloc(c->mark_ns, mcap * sizeof *c->mark_ns);
                }
                c->mark_at[c->n_marks] = c->n;
                c->mark_ns[c->n_marks++] = ns >= start_ns ? ns - start_ns : 0;
            }
            pos += 4 + 4 * (size_t)n;
            continue;
        }
        struct trace_call call = { (w & LITIFUT_REC_SITE_MASK) - 1, 0, 0, 0 };
        if (w & LITIFUT_REC_HAS_TARGET) {
            if (pos + 8 > end) {
                warn_once(r, "the file ends inside a record (truncated)");
                break;
            }
            call.target = word(r, pos + 4);
            call.has_target = 1;
        }
        if (call.site >= n_sites) {
            warn_once(r, "a chunk holds a record for a call site the program does not have");
            break;
        }
        if (c->n == cap) {
            cap = cap * 2 + 256;
            c->calls = xrealloc(c->calls, cap * sizeof *c->calls);
        }
        c->calls[c->n++] = call;
        pos += call.has_target ? 8 : 4;
    }
    return pos - off;
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

static int read_header(struct reader *r, struct litifut_trace_header *h)
{
    if (r->size < sizeof *h || memcmp(r->data, LITIFUT_TRACE_MAGIC, 8) != 0)
        return error("%s: not a litifut trace", r->path);
    memcpy(h, r->data, sizeof *h);
    r->big = h->endian == LITIFUT_BIG_ENDIAN;
    if (h->endian != LITIFUT_BIG_ENDIAN && h->endian != LITIFUT_LITTLE_ENDIAN)
        return error("%s: bad byte-order mark in the header", r->path);
    const size_t o = offsetof(struct litifut_trace_header, version);
    h->version = word(r, o);
    h->header_size = word(r, o + 4);
    h->chunk_size = word(r, o + 8);
    h->pid = word(r, o + 12);
    h->time_every = word(r, o + 16);
    h->db_checksum = word(r, o + 20);
    h->db_sites = word(r, o + 24);
    h->load_bias = word(r, o + 28);
    size_t so = offsetof(struct litifut_trace_header, start_ns);
    h->start_ns = r->big ? (uint64_t)word(r, so) << 32 | word(r, so + 4)
                         : (uint64_t)word(r, so + 4) << 32 | word(r, so);
    h->exe[sizeof h->exe - 1] = 0;
    if (h->version != LITIFUT_TRACE_VERSION)
        return error("%s: trace format version %" PRIu32 ", this post-processor reads %u",
                     r->path, h->version, LITIFUT_TRACE_VERSION);
    if (h->header_size < sizeof *h || h->chunk_size < 4096 || h->chunk_size % 4096)
        return error("%s: corrupt trace header", r->path);
    return 0;
}

int trace_read(const char *path, struct trace_file *t)
{
    unsigned char *data;
    size_t size;
    memset(t, 0, sizeof *t);
    if (read_file(path, &data, &size) != 0)
        return -1;
    struct reader r = { data, size, 0, path, 0 };
    if (read_header(&r, &t->header) != 0) {
        free(data);
        return -1;
    }
    t->path = xstrdup(path);
    size_t plen = strlen(path);
    t->maps_path = plen > 6 && strcmp(path + plen - 6, ".trace") == 0
                       ? xasprintf("%.*s.maps", (int)(plen - 6), path)
                       : xasprintf("%s.maps", path);

    const struct litifut_trace_header *h = &t->header;
    size_t n_chunks = 0;
    struct chunk_calls *chunks = NULL;
    if (size < h->header_size)
        warn_once(&r, "the file ends inside the header (truncated)");
    for (size_t off = h->header_size; off + sizeof(struct litifut_chunk_header) <= size;
         off += h->chunk_size) {
        size_t len = size - off < h->chunk_size ? size - off : h->chunk_size;
        if (len < h->chunk_size)
            warn_once(&r, "the file ends inside a chunk (truncated)");
        uint32_t magic = word(&r, off);
        if (magic == 0)
            continue;               /* claimed but never written (lost on power-off) */
        if (magic != LITIFUT_CHUNK_MAGIC) {
            warn_once(&r, "a chunk has a bad header");
            continue;
        }
        chunks = xrealloc(chunks, (n_chunks + 1) * sizeof *chunks);
        struct chunk_calls *c = &chunks[n_chunks++];
        memset(c, 0, sizeof *c);
        c->tid = word(&r, off + 4);
        c->index = word(&r, off + 8);
        t->record_bytes += parse_chunk(&r, off, len, h->start_ns, h->db_sites, c);
    }
    if (size > h->header_size && (size - h->header_size) % h->chunk_size)
        warn_once(&r, "the file ends inside a chunk (truncated)");
    if (n_chunks)
        qsort(chunks, n_chunks, sizeof *chunks, by_tid_then_index);
    for (size_t i = 0; i < n_chunks;) {
        size_t j = i;
        while (j < n_chunks && chunks[j].tid == chunks[i].tid)
            j++;
        t->threads = xrealloc(t->threads, (t->n_threads + 1) * sizeof *t->threads);
        struct trace_thread *th = &t->threads[t->n_threads++];
        memset(th, 0, sizeof *th);
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
    free(data);
    return 0;
}

void trace_free(struct trace_file *t)
{
    for (size_t i = 0; i < t->n_threads; i++)
        free(t->threads[i].calls);
    free(t->threads);
    free(t->path);
    free(t->maps_path);
    memset(t, 0, sizeof *t);
}
