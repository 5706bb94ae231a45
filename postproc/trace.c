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
enum problem {
    P_TRUNCATED, P_GAP, P_CHUNK_HEADER, P_SITE, P_SITE_DB, P_RECORD,
    P_OBJECT, P_OVERLAP, P_BUILD_ID, P_BIAS, P_UNLOAD, P_CACHE,
};

struct reader {
    const unsigned char *data;
    size_t size;
    int big;
    struct trace_file *t;
    int calls_pass;             /* 0: OBJECT and UNLOAD records only; 1: the rest */
    uint32_t *unloads;          /* bases the UNLOAD records name */
    size_t n_unloads, cap_unloads;
    size_t cap_objects;
    size_t *with_sites;         /* indices of the objects with sites (by base) */
    size_t n_with_sites;
    struct chunk_calls *chunks; /* second pass: every readable chunk's calls */
    size_t n_chunks, cap_chunks;
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

static int has_control_chars(const char *s, const char *end)
{
    for (; s < end; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
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
    size_t so = offsetof(struct litifut_trace_header, start_ns);
    h->start_ns = r->big ? (uint64_t)word(r, so) << 32 | word(r, so + 4)
                         : (uint64_t)word(r, so + 4) << 32 | word(r, so);
}

/* The program path: a NUL-terminated string without control characters
 * (it goes into messages and reports). */
static int check_exe(const struct reader *r, const struct litifut_trace_header *h)
{
    const char *end = memchr(h->exe, 0, sizeof h->exe);
    if (!end)
        return bad_header(r, "the program path is not NUL-terminated");
    if (has_control_chars(h->exe, end))
        return bad_header(r, "the program path has control characters");
    return 0;
}

/* Fields without which nothing can be read: each is an error. */
static int check_layout(const struct reader *r, const struct litifut_trace_header *h)
{
    if (h->version != LITIFUT_TRACE_VERSION)
        return error("%s: trace format version %" PRIu32 " (%s litifut's tracer); this "
                     "post-processor reads version %u", r->t->path, h->version,
                     h->version < LITIFUT_TRACE_VERSION ? "an older" : "a newer",
                     LITIFUT_TRACE_VERSION);
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

/* Fields that only inform: a bad one is a warning. */
static void check_details(const struct reader *r, const struct litifut_trace_header *h)
{
    if (h->pid == 0 || h->pid > PID_MAX_LIMIT)
        warning("%s: the header's pid %" PRIu32 " cannot be a process id", r->t->path, h->pid);
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

/* --- walking the chunks --- */

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

/* --- OBJECT and UNLOAD records (the first pass) --- */

/* What is wrong with an OBJECT record's path (`n` bytes: the string,
 * its NUL, zeros to a whole word), or NULL.  The path names a file to
 * open and goes into messages and reports. */
static const char *path_problem(const char *path, size_t n)
{
    const char *end = memchr(path, 0, n);
    if (!end)
        return "whose path is not NUL-terminated";
    if (end == path)
        return "without a path";
    if (has_control_chars(path, end))
        return "whose path has control characters";
    for (const char *p = end; p < path + n; p++)
        if (*p)
            return "with bytes after its path's NUL";
    return NULL;
}

/* The OBJECT record whose payload (n words) is at `off`: checked, and
 * kept unless it is bad. */
static void add_object(struct reader *r, size_t off, size_t n, uint32_t chunk)
{
    struct trace_object o;
    memset(&o, 0, sizeof o);
    o.base = word(r, off);
    o.n_sites = word(r, off + 4);
    o.db_checksum = word(r, off + 8);
    o.load_bias = word(r, off + 12);
    o.build_id_size = word(r, off + 16);
    memcpy(o.build_id, r->data + off + offsetof(struct litifut_object_record, build_id),
           sizeof o.build_id);
    const char *path = (const char *)r->data + off + 4 * LITIFUT_OBJECT_RECORD_WORDS;
    const char *why = path_problem(path, 4 * (n - LITIFUT_OBJECT_RECORD_WORDS));
    /* a call record holds site id + 1 in 22 bits */
    if (!why && (uint64_t)o.base + o.n_sites > LITIFUT_SITE_ID_LIMIT)
        why = "whose site ids go past the largest a call record can hold";
    if (why) {
        warn_once(r, P_OBJECT, "chunk %" PRIu32 " has an OBJECT record %s; skipped it (and "
                  "any other bad one)", chunk, why);
        return;
    }
    if (o.build_id_size > LITIFUT_BUILD_ID_MAX) {
        warn_once(r, P_BUILD_ID, "the OBJECT record of %s has a build-id length %" PRIu32
                  ", more than %u bytes; its build-id ignored (and any other such)", path,
                  o.build_id_size, LITIFUT_BUILD_ID_MAX);
        o.build_id_size = 0;
    }
    memset(o.build_id + o.build_id_size, 0, sizeof o.build_id - o.build_id_size);
    if (o.load_bias % PAGE)
        warn_once(r, P_BIAS, "the load bias 0x%08" PRIx32 " of %s is not page-aligned; "
                  "addresses in it may be wrong", o.load_bias, path);
    o.path = xstrdup(path);
    struct trace_file *t = r->t;
    if (t->n_objects == r->cap_objects) {
        r->cap_objects = r->cap_objects * 2 + 8;
        t->objects = xrealloc(t->objects, r->cap_objects * sizeof *t->objects);
    }
    t->objects[t->n_objects++] = o;
}

static void add_unload(struct reader *r, uint32_t base)
{
    if (r->n_unloads == r->cap_unloads) {
        r->cap_unloads = r->cap_unloads * 2 + 8;
        r->unloads = xrealloc(r->unloads, r->cap_unloads * sizeof *r->unloads);
    }
    r->unloads[r->n_unloads++] = base;
}

/* Orders by base, then every other field, so that repeats are next to
 * each other (and an empty range comes before one at the same base). */
static int object_cmp(const void *a, const void *b)
{
    const struct trace_object *x = a, *y = b;
    const uint32_t kx[] = { x->base, x->n_sites, x->db_checksum, x->load_bias, x->build_id_size };
    const uint32_t ky[] = { y->base, y->n_sites, y->db_checksum, y->load_bias, y->build_id_size };
    for (size_t i = 0; i < sizeof kx / sizeof kx[0]; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    int c = memcmp(x->build_id, y->build_id, sizeof x->build_id);
    return c ? c : strcmp(x->path, y->path);
}

/* Drops the objects flagged in `drop`, keeping the order. */
static void drop_objects(struct trace_file *t, const unsigned char *drop)
{
    size_t k = 0;
    for (size_t i = 0; i < t->n_objects; i++) {
        if (drop[i])
            free(t->objects[i].path);
        else
            t->objects[k++] = t->objects[i];
    }
    t->n_objects = k;
}

/* A record repeated as is (a fork child's trace repeats the objects
 * loaded) is one object; records whose site ranges overlap cannot all
 * be right, and which one is cannot be told: all are dropped.  The
 * objects are sorted; empty ranges overlap nothing. */
static void drop_repeats_and_overlaps(struct reader *r)
{
    struct trace_file *t = r->t;
    unsigned char *drop = xcalloc(t->n_objects + 1, 1);
    for (size_t i = 1; i < t->n_objects; i++)
        drop[i] = object_cmp(&t->objects[i - 1], &t->objects[i]) == 0;
    drop_objects(t, drop);
    memset(drop, 0, t->n_objects + 1);
    uint64_t max_end = 0;               /* of the ranges before i */
    size_t prev = SIZE_MAX, max_at = 0; /* the last non-empty one; the one ending at max_end */
    for (size_t i = 0; i < t->n_objects; i++) {
        const struct trace_object *o = &t->objects[i];
        if (!o->n_sites)
            continue;
        if (prev != SIZE_MAX && max_end > o->base) {
            const struct trace_object *p = &t->objects[max_at];
            warn_once(r, P_OVERLAP, "the OBJECT records of %s (site ids %" PRIu32 "..%" PRIu64
                      ") and %s (%" PRIu32 "..%" PRIu64 ") overlap; skipped both (and any "
                      "other such)", p->path, p->base, (uint64_t)p->base + p->n_sites - 1,
                      o->path, o->base, (uint64_t)o->base + o->n_sites - 1);
            drop[i] = drop[prev] = 1;   /* (any earlier one it overlaps overlaps prev too) */
        }
        if ((uint64_t)o->base + o->n_sites > max_end) {
            max_end = (uint64_t)o->base + o->n_sites;
            max_at = i;
        }
        prev = i;
    }
    drop_objects(t, drop);
    free(drop);
}

/* The first object with base >= `base` (t->n_objects if none). */
static size_t first_at_or_after(const struct trace_file *t, uint32_t base)
{
    size_t lo = 0, hi = t->n_objects;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->objects[mid].base < base)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Marks the objects the UNLOAD records name. */
static void apply_unloads(struct reader *r)
{
    struct trace_file *t = r->t;
    for (size_t i = 0; i < r->n_unloads; i++) {
        size_t k = first_at_or_after(t, r->unloads[i]);
        if (k == t->n_objects || t->objects[k].base != r->unloads[i])
            warn_once(r, P_UNLOAD, "an UNLOAD record names the object at site id %" PRIu32
                      ", which no OBJECT record has; ignored it (and any other such)",
                      r->unloads[i]);
        for (; k < t->n_objects && t->objects[k].base == r->unloads[i]; k++)
            t->objects[k].unloaded = 1;
    }
}

/* --- call records (the second pass) --- */

/* The object whose site range holds site id `id`, or NULL. */
static struct trace_object *object_of_site(const struct reader *r, uint32_t id)
{
    size_t lo = 0, hi = r->n_with_sites;    /* the last one with base <= id */
    if (!hi || r->t->objects[r->with_sites[0]].base > id)
        return NULL;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->t->objects[r->with_sites[mid]].base <= id)
            lo = mid;
        else
            hi = mid;
    }
    struct trace_object *o = &r->t->objects[r->with_sites[lo]];
    return id - o->base < o->n_sites ? o : NULL;
}

/* A call record: kept if its site is one of a usable object's DB.  A
 * call record says how long it is, so a bad one is skipped alone. */
static void add_site_call(struct reader *r, struct chunk_calls *c, uint32_t w, uint32_t target)
{
    uint32_t id = LITIFUT_REC_SITE(w);
    struct trace_object *o = object_of_site(r, id);
    if (!o) {
        warn_once(r, P_SITE, "chunk %" PRIu32 " records call site id %" PRIu32 ", which no "
                  "object's range holds; skipped every such record", c->index, id);
        return;
    }
    if (!o->usable)
        return;                         /* the caller said why */
    if (id - o->base >= o->db_sites) {
        warn_once(r, P_SITE_DB, "chunk %" PRIu32 " records call site %" PRIu32 " of %s, "
                  "whose DB has %" PRIu32 " sites; skipped every such record", c->index,
                  id - o->base, o->path, o->db_sites);
        return;
    }
    struct trace_call call = { (uint32_t)(o - r->t->objects), id - o->base, target,
                               LITIFUT_REC_TAG(w) != LITIFUT_REC_CALL, 0 };
    add_call(c, &call);
}

/* --- reading a chunk --- */

/* Whether control word `w` is one this version has, with its length. */
static int control_word_ok(uint32_t w)
{
    uint32_t n = LITIFUT_REC_PAYLOAD(w);
    if (w & 0xfc)
        return 0;
    switch (LITIFUT_REC_TYPE(w)) {
    case LITIFUT_REC_TIME:
        return n == 2;
    case LITIFUT_REC_OBJECT:
        return n > LITIFUT_OBJECT_RECORD_WORDS &&
               n <= LITIFUT_OBJECT_RECORD_WORDS + LITIFUT_OBJECT_PATH_MAX / 4;
    case LITIFUT_REC_UNLOAD:
        return n == 1;
    case LITIFUT_REC_CACHE_RESET:
        return n == 0;
    default:
        return 0;
    }
}

/* The control record at `pos`: used as the pass wants it.  Returns its
 * length in bytes, or 0 where reading the chunk ends. */
static size_t control_record(struct reader *r, const struct chunk_span *s, size_t pos,
                             struct chunk_calls *c, uint32_t *cache)
{
    uint32_t w = word(r, pos);
    size_t n = LITIFUT_REC_PAYLOAD(w);
    if (pos + 4 + 4 * n > s->end) {
        record_past_end(r, s, c);
        return 0;
    }
    if (!control_word_ok(w)) {
        warn_once(r, P_RECORD, "chunk %" PRIu32 " has a control record 0x%08" PRIx32
                  " that this trace version does not have; skipped the rest of that chunk",
                  c->index, w);
        return 0;
    }
    uint32_t type = LITIFUT_REC_TYPE(w);
    if (type == LITIFUT_REC_CACHE_RESET)
        memset(cache, 0, LITIFUT_TARGET_CACHE * sizeof *cache);
    else if (r->calls_pass && type == LITIFUT_REC_TIME)
        add_mark(c, (uint64_t)word(r, pos + 8) << 32 | word(r, pos + 4), r->t->header.start_ns);
    else if (!r->calls_pass && type == LITIFUT_REC_OBJECT)
        add_object(r, pos + 4, n, c->index);
    else if (!r->calls_pass && type == LITIFUT_REC_UNLOAD)
        add_unload(r, word(r, pos + 4));
    return 4 + 4 * n;
}

/* Reads one chunk's records (into c, in the calls pass), replaying the
 * thread's target cache (trace-format.h).  Returns the bytes they take. */
static size_t parse_chunk(struct reader *r, const struct chunk_span *s, struct chunk_calls *c)
{
    uint32_t cache[LITIFUT_TARGET_CACHE] = { 0 };   /* empty at each chunk's start */
    size_t pos = s->start;
    while (pos + 4 <= s->end) {
        uint32_t w = word(r, pos);
        size_t len;
        if (w == 0) {
            size_t next = skip_zeros(r, s, pos);
            if (next == s->end)
                break;              /* the data ends here */
            pos = next;
            continue;
        }
        uint32_t tag = LITIFUT_REC_TAG(w), *entry = &cache[LITIFUT_REC_CACHE_ENTRY(w)];
        if (tag == LITIFUT_REC_CONTROL) {
            len = control_record(r, s, pos, c, cache);
        } else if ((w >> LITIFUT_REC_AUX_SHIFT) && tag != LITIFUT_REC_CALL_CACHED) {
            warn_once(r, P_RECORD, "chunk %" PRIu32 " has a call record 0x%08" PRIx32
                      " that this trace version does not have; skipped the rest of that "
                      "chunk", c->index, w);
            len = 0;
        } else {
            len = tag == LITIFUT_REC_CALL_TARGET ? 8 : 4;
            if (pos + len > s->end) {
                record_past_end(r, s, c);
                len = 0;
            } else if (tag == LITIFUT_REC_CALL_CACHED && !*entry) {
                warn_once(r, P_CACHE, "chunk %" PRIu32 " has a call whose target is an empty "
                          "cache entry; skipped every such call", c->index);
            } else {
                uint32_t target = tag == LITIFUT_REC_CALL_CACHED ? *entry : 0;
                if (tag == LITIFUT_REC_CALL_TARGET) {
                    target = word(r, pos + 4);
                    cache[LITIFUT_CACHE_ENTRY(target)] = target;
                }
                if (r->calls_pass)
                    add_site_call(r, c, w, target);
            }
        }
        if (!len)
            break;
        pos += len;
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

/* The calls pass's place for the next chunk. */
static struct chunk_calls *new_chunk(struct reader *r)
{
    if (r->n_chunks == r->cap_chunks) {
        r->cap_chunks = r->cap_chunks * 2 + 16;
        r->chunks = xrealloc(r->chunks, r->cap_chunks * sizeof *r->chunks);
    }
    return &r->chunks[r->n_chunks++];
}

/* Reads every readable chunk, in file order, for the pass. */
static void read_chunks(struct reader *r)
{
    struct trace_file *t = r->t;
    const struct litifut_trace_header *h = &t->header;
    const size_t head = sizeof(struct litifut_chunk_header);
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
        struct chunk_calls scratch, *c = r->calls_pass ? new_chunk(r) : &scratch;
        memset(c, 0, sizeof *c);
        c->tid = word(r, off + 4);
        c->index = index;
        struct chunk_span s = { off + head, off + (len & ~(size_t)3), len == h->chunk_size };
        size_t bytes = parse_chunk(r, &s, c);
        if (r->calls_pass)
            t->record_bytes += bytes;
    }
}

/* --- the trace --- */

int trace_open(const char *path, struct trace_file *t)
{
    memset(t, 0, sizeof *t);
    t->path = xstrdup(path);
    if (read_file(path, &t->data, &t->size) != 0) {
        trace_free(t);
        return -1;
    }
    struct reader r = { .data = t->data, .size = t->size, .t = t };
    if (read_header(&r, &t->header) != 0) {
        trace_free(t);
        return -1;
    }
    size_t plen = strlen(path);
    t->maps_path = plen > 6 && strcmp(path + plen - 6, ".trace") == 0
                       ? xasprintf("%.*s.maps", (int)(plen - 6), path)
                       : xasprintf("%s.maps", path);
    /* the objects first: a call may come before its object's record */
    read_chunks(&r);
    if (t->n_objects)
        qsort(t->objects, t->n_objects, sizeof *t->objects, object_cmp);
    drop_repeats_and_overlaps(&r);
    apply_unloads(&r);
    free(r.unloads);
    return 0;
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

/* Each thread's chunks, joined; threads in order of their first chunk. */
static void join_threads(struct trace_file *t, struct chunk_calls *chunks, size_t n_chunks)
{
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
}

void trace_read_records(struct trace_file *t)
{
    struct reader r = { .data = t->data, .size = t->size,
                        .big = t->header.endian == LITIFUT_BIG_ENDIAN, .t = t, .calls_pass = 1 };
    r.with_sites = xcalloc(t->n_objects + 1, sizeof *r.with_sites);
    for (size_t i = 0; i < t->n_objects; i++)
        if (t->objects[i].n_sites)
            r.with_sites[r.n_with_sites++] = i;
    read_chunks(&r);
    join_threads(t, r.chunks, r.n_chunks);
    for (size_t i = 0; i < r.n_chunks; i++) {
        free(r.chunks[i].calls);
        free(r.chunks[i].mark_at);
        free(r.chunks[i].mark_ns);
    }
    free(r.chunks);
    free(r.with_sites);
    free(t->data);
    t->data = NULL;
    t->size = 0;
}

void trace_free(struct trace_file *t)
{
    for (size_t i = 0; i < t->n_threads; i++)
        free(t->threads[i].calls);
    free(t->threads);
    for (size_t i = 0; i < t->n_objects; i++)
        free(t->objects[i].path);
    free(t->objects);
    free(t->path);
    free(t->maps_path);
    free(t->data);
    memset(t, 0, sizeof *t);
}
