/*
 * Reading a raw trace file.  The file comes from a device: it may be cut
 * short (power lost, copy interrupted), damaged, or not a trace at all.
 * So every header field is checked before the header is believed, and
 * every chunk header and record before it is used; problems are one
 * line each (per kind, not per record) and the rest is still read.
 * Record words are 32-bit; the run-time addresses they hold are of the
 * header's word size (4 or 8: addr_words), read by it alone.
 */
#include <inttypes.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "postproc/util/grow.h"
#include "postproc/util/gz.h"
#include "lib/arch.h"
#include "postproc/reader/trace.h"
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
    P_OBJECT, P_OVERLAP, P_BUILD_ID, P_BIAS, P_UNLOAD, P_CACHE, P_PAIR, P_ARGS,
};

struct reader {
    const unsigned char *data;  /* the chunk being read (the header page, in trace_open) */
    size_t size;
    int big;
    struct trace_file *t;
    uint32_t *unloads;          /* bases the UNLOAD records name */
    size_t n_unloads, cap_unloads;
    size_t cap_objects;
    size_t cap_pairs;
    size_t cap_site_addrs;
};

static uint32_t word(const struct reader *r, size_t off)
{
    const unsigned char *p = r->data + off;
    return r->big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                  : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Two words of a record, low first, as one number. */
static uint64_t dword(const struct reader *r, size_t off)
{
    return (uint64_t)word(r, off + 4) << 32 | word(r, off);
}

/* A 64-bit field (the header's, a pair's target) in the target's byte order. */
static uint64_t header_u64(const struct reader *r, size_t off)
{
    return r->big ? (uint64_t)word(r, off) << 32 | word(r, off + 4) : dword(r, off);
}

/* The words of a run-time address in a record (trace-format.h: 1, or
 * with header.word_size 8, 2), and the address at `off`: low word first. */
static size_t addr_words(const struct trace_file *t)
{
    return t->header.word_size / 4;
}

static uint64_t addr_at(const struct reader *r, size_t off)
{
    return addr_words(r->t) == 2 ? dword(r, off) : word(r, off);
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
    h->start_ns = header_u64(r, so);
    h->clock_hz = header_u64(r, offsetof(struct litifut_trace_header, clock_hz));
    const size_t po = offsetof(struct litifut_trace_header, parent_pid);
    h->parent_pid = word(r, po);
    h->parent_tid = word(r, po + 4);
    h->parent_chunk = word(r, po + 8);
    h->parent_words = word(r, po + 12);
    h->stopped = word(r, offsetof(struct litifut_trace_header, stopped));
    h->stop_errno = word(r, offsetof(struct litifut_trace_header, stop_errno));
    h->stop_ns = header_u64(r, offsetof(struct litifut_trace_header, stop_ns));
    h->returns_resumed = word(r, offsetof(struct litifut_trace_header, returns_resumed));
    h->ring_size = word(r, offsetof(struct litifut_trace_header, ring_size));
    h->snapshot = word(r, offsetof(struct litifut_trace_header, snapshot));
    h->snapshot_arg = word(r, offsetof(struct litifut_trace_header, snapshot_arg));
    h->snapshot_ns = header_u64(r, offsetof(struct litifut_trace_header, snapshot_ns));
    h->overwritten_chunks = header_u64(r, offsetof(struct litifut_trace_header, overwritten_chunks));
    h->overwritten_bytes = header_u64(r, offsetof(struct litifut_trace_header, overwritten_bytes));
    h->streamed = word(r, offsetof(struct litifut_trace_header, streamed));
    h->dropped_chunks = header_u64(r, offsetof(struct litifut_trace_header, dropped_chunks));
    h->dropped_bytes = header_u64(r, offsetof(struct litifut_trace_header, dropped_bytes));
    h->signals_unrecorded = word(r, offsetof(struct litifut_trace_header, signals_unrecorded));
    h->clock_read_ns = word(r, offsetof(struct litifut_trace_header, clock_read_ns));
    h->max_size_kb = word(r, offsetof(struct litifut_trace_header, max_size_kb));
    h->ppid = word(r, offsetof(struct litifut_trace_header, ppid));
    h->max_total_kb = word(r, offsetof(struct litifut_trace_header, max_total_kb));
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
    if (h->version < 4 || h->version > LITIFUT_TRACE_VERSION)
        return error("%s: trace format version %" PRIu32 " (%s litifut's tracer); this "
                     "post-processor reads versions 4 to %u", r->t->path, h->version,
                     h->version < LITIFUT_TRACE_VERSION ? "an older" : "a newer",
                     LITIFUT_TRACE_VERSION);
    if (!arch_by_trace_arch(h->arch))
        return bad_header(r, "unknown architecture %u", h->arch);
    if (h->word_size != 4 && h->word_size != 8)
        return bad_header(r, "word size %u (the tracer writes 4 or 8)", h->word_size);
    if (h->header_size < sizeof *h || h->header_size > MAX_HEADER_SIZE ||
        h->header_size % PAGE)
        return bad_header(r, "header_size %" PRIu32 " (expected whole 4 KB pages, at most %u)",
                          h->header_size, MAX_HEADER_SIZE);
    if (h->clock != LITIFUT_CLOCK_MARKS && h->clock != LITIFUT_CLOCK_MONOTONIC &&
        h->clock != LITIFUT_CLOCK_INSNS && !arch_by_counter_clock(h->clock))
        return bad_header(r, "unknown clock %u", h->clock);
    if (h->mode > LITIFUT_MODE_COUNT)
        return bad_header(r, "unknown mode %u", h->mode);
    if (h->time_shift > 32)
        return bad_header(r, "time_shift %u (at most 32)", h->time_shift);
    if (h->chunk_size < MIN_CHUNK_SIZE || h->chunk_size > MAX_CHUNK_SIZE ||
        h->chunk_size % PAGE)
        return bad_header(r, "chunk_size %" PRIu32 " (the tracer writes whole 4 KB pages, "
                          "4 KB to 64 MB)", h->chunk_size);
    return check_exe(r, h);
}

/* What a fork child's header says of its parent (trace.h), `why` set
 * if a field cannot be right (then the rest is not believed). */
static struct trace_fork fork_of(const struct litifut_trace_header *h, const char **why)
{
    struct trace_fork f = { h->parent_pid, h->parent_tid, h->parent_chunk, h->parent_words, 0 };
    *why = NULL;
    if (!f.parent_pid) {
        if (f.parent_tid || f.chunk || f.words)
            *why = "a fork point without a parent process";
    } else if (f.parent_pid > PID_MAX_LIMIT || f.parent_pid == h->pid) {
        *why = "a parent pid that cannot be one";
    } else if (f.parent_tid > PID_MAX_LIMIT) {
        *why = "a parent thread id that cannot be one";
    } else if (f.parent_tid && (f.words < sizeof(struct litifut_chunk_header) / 4 ||
                                f.words > h->chunk_size / 4)) {
        *why = "a fork point outside a chunk";
    } else if (!f.parent_tid && (f.chunk || f.words)) {
        *why = "a fork point without a thread";
    } else {
        f.point_ok = 1;
    }
    if (*why && f.parent_pid && f.parent_pid <= PID_MAX_LIMIT && f.parent_pid != h->pid)
        f.parent_tid = f.chunk = f.words = 0;       /* a child still, of an unknown point */
    else if (*why)
        memset(&f, 0, sizeof f);
    return f;
}

/* Fields that only inform: a bad one is a warning. */
static void check_details(const struct reader *r, const struct litifut_trace_header *h)
{
    if (h->pid == 0 || h->pid > PID_MAX_LIMIT)
        warning("%s: the header's pid %" PRIu32 " cannot be a process id", r->t->path, h->pid);
    const char *why;
    r->t->fork = fork_of(h, &why);
    if (why)
        warning("%s: the header has %s (parent pid %" PRIu32 ", thread %" PRIu32 ", chunk %"
                PRIu32 ", word %" PRIu32 "); the stack at the fork is not known", r->t->path, why,
                h->parent_pid, h->parent_tid, h->parent_chunk, h->parent_words);
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

/* Reads the chunk at (off, size) into r->data (the buffer `buf`,
 * chunk_size bytes).  Returns the whole words read, 0 if the file ends
 * before the chunk's header; *whole says whether the file holds all of
 * it. */
static size_t load_chunk_at(struct reader *r, unsigned char *buf, uint64_t off, uint32_t size,
                            int *whole)
{
    const struct trace_file *t = r->t;
    r->data = buf;
    r->size = 0;
    *whole = 0;
    if (off >= t->size || t->size - off < sizeof(struct litifut_chunk_header))
        return 0;
    size_t len = t->size - off < size ? (size_t)(t->size - off) : size;
    ssize_t got = pread(t->fd, buf, len, (off_t)off);
    if (got < (ssize_t)sizeof(struct litifut_chunk_header))
        return 0;                       /* (the file shrank while read) */
    *whole = (size_t)got == size;
    r->size = (size_t)got & ~(size_t)3;
    return r->size / 4;
}

/* Chunk number `pos` of the file, as trace_open found it; of a frozen
 * trace's thread chunk, the part before the freeze (keep). */
static size_t load_chunk(struct reader *r, unsigned char *buf, uint32_t pos, int *whole)
{
    const struct trace_chunk *ch = &r->t->chunks[pos];
    if (ch->keep < sizeof(struct litifut_chunk_header))
        return 0;
    size_t n = load_chunk_at(r, buf, ch->off, ch->size, whole);
    if (n && r->size > ch->keep) {
        r->size = ch->keep & ~(uint32_t)3;
        *whole = 1;
        n = r->size / 4;
    }
    return n;
}

/* A record that needs more words than its chunk has left: the file
 * was cut there, or (in a whole chunk) the record is damaged. */
static void record_past_end(struct reader *r, int whole, uint32_t index)
{
    if (!whole)
        warn_once(r, P_TRUNCATED, "truncated: the file ends inside a record; "
                                  "kept every whole record");
    else
        warn_once(r, P_RECORD, "a record runs past the end of chunk %" PRIu32
                               "; skipped the rest of that chunk", index);
}

/* Zero words end a chunk's data; non-zero words after them are records
 * whose page was lost (not written back before power-off): say so and
 * read on.  Returns where reading goes on, or r->size if nothing
 * follows (the unused rest of the chunk). */
static size_t skip_zeros(struct reader *r, size_t pos)
{
    size_t z = pos;
    while (z + 4 <= r->size && word(r, z) == 0)
        z += 4;
    if (z + 4 > r->size)
        return r->size;
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

/* An OBJECT record's words before its path: struct
 * litifut_object_record, and with word size 8 the load bias's high half. */
static size_t object_words(const struct trace_file *t)
{
    return LITIFUT_OBJECT_RECORD_WORDS + addr_words(t) - 1;
}

/* The OBJECT record whose payload (n words, more than object_words:
 * control_word_ok) is at `off`: checked, and kept unless it is bad. */
static void add_object(struct reader *r, size_t off, size_t n, uint32_t chunk)
{
    struct trace_object o;
    memset(&o, 0, sizeof o);
    const size_t head = object_words(r->t);
    o.base = word(r, off);
    o.n_sites = word(r, off + 4);
    o.db_checksum = word(r, off + 8);
    o.load_bias = word(r, off + offsetof(struct litifut_object_record, load_bias));
    if (head > LITIFUT_OBJECT_RECORD_WORDS)
        o.load_bias |= (uint64_t)word(r, off + 4 * LITIFUT_OBJECT_RECORD_WORDS) << 32;
    o.build_id_size = word(r, off + 16);
    memcpy(o.build_id, r->data + off + offsetof(struct litifut_object_record, build_id),
           sizeof o.build_id);
    const char *path = (const char *)r->data + off + 4 * head;
    const char *why = path_problem(path, 4 * (n - head));
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
        warn_once(r, P_BIAS, "the load bias 0x%08" PRIx64 " of %s is not page-aligned; "
                  "addresses in it may be wrong", o.load_bias, path);
    o.path = xstrdup(path);
    struct trace_file *t = r->t;
    if (t->n_objects == r->cap_objects) {
        r->cap_objects = r->cap_objects * 2 + 8;
        t->objects = xrealloc(t->objects, r->cap_objects * sizeof *t->objects);
    }
    t->objects[t->n_objects++] = o;
}

/* Why an object of a trace did not apply LITIFUT_EXCLUDE_CALLEE
 * (LITIFUT_SKIP_*). */
const char *trace_skip_why(uint32_t status)
{
    static const char *const why[] = {
        [LITIFUT_SKIP_DONE] = "done",
        [LITIFUT_SKIP_NO_FILE] = "the tracer could not read the object's file",
        [LITIFUT_SKIP_NO_TABLE] = "the object has no call-site table (stripped, or linked by an "
                                  "older litifut)",
        [LITIFUT_SKIP_OTHER_DB] = "the object's file was not the one loaded",
        [LITIFUT_SKIP_NOT_WRITABLE] = "its code could not be made writable",
        [LITIFUT_SKIP_SEGMENTS] = "its call sites lie in more than one segment",
        [LITIFUT_SKIP_NO_RULES] = "the tracer could not read the rules' @FILE",
    };
    return status < sizeof why / sizeof why[0] ? why[status] : "an unknown reason";
}

/* A SKIPPED record at byte pos, payload n words: kept once per object
 * base, its text cut at the first NUL, other control characters than
 * line ends made '?'. */
static void add_skip(struct reader *r, size_t pos, size_t n)
{
    struct trace_file *t = r->t;
    uint32_t base = word(r, pos);
    for (size_t i = 0; i < t->n_skips; i++)
        if (t->skips[i].base == base)
            return;
    t->skips = grow_for_one(t->skips, t->n_skips, &t->cap_skips, sizeof *t->skips);
    size_t len = 4 * (n - 3);
    char *text = xcalloc(len + 1, 1);
    memcpy(text, r->data + pos + 12, len);
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 32 && *c != '\n')
            *c = '?';
    t->skips[t->n_skips++] = (struct trace_skip){ base, word(r, pos + 4), word(r, pos + 8), text };
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
    const uint64_t kx[] = { x->base, x->n_sites, x->db_checksum, x->load_bias, x->build_id_size };
    const uint64_t ky[] = { y->base, y->n_sites, y->db_checksum, y->load_bias, y->build_id_size };
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

/* --- records --- */

/* The object whose site range holds site id `id`, or NULL. */
static struct trace_object *object_of_site(const struct trace_file *t, uint32_t id);

int trace_site_of(const struct trace_file *t, uint32_t id, uint32_t *object, uint32_t *site)
{
    const struct trace_object *o = id == ~0u ? NULL : object_of_site(t, id);
    if (!o || !o->usable || id - o->base >= o->db_sites)
        return 0;
    *object = (uint32_t)(o - t->objects);
    *site = id - o->base;
    return 1;
}

static struct trace_object *object_of_site(const struct trace_file *t, uint32_t id)
{
    size_t lo = 0, hi = t->n_with_sites;    /* the last one with base <= id */
    if (!hi || t->objects[t->with_sites[0]].base > id)
        return NULL;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->objects[t->with_sites[mid]].base <= id)
            lo = mid;
        else
            hi = mid;
    }
    struct trace_object *o = &t->objects[t->with_sites[lo]];
    return id - o->base < o->n_sites ? o : NULL;
}

/* Whether control word `w` is one this version has, with its length
 * (of the trace's word size: an OBJECT's path and a CHUNK's return
 * addresses start after more words with 8). */
static int control_word_ok(const struct trace_file *t, uint32_t w)
{
    uint32_t n = LITIFUT_REC_PAYLOAD(w);
    switch (LITIFUT_REC_TYPE(w)) {
    case LITIFUT_REC_TIME:
        return n == 4 || n == 2;
    case LITIFUT_REC_OBJECT:
        return n > object_words(t) && n <= object_words(t) + LITIFUT_OBJECT_PATH_MAX / 4;
    case LITIFUT_REC_UNLOAD:
        return n == 1;
    case LITIFUT_REC_CACHE_RESET:
        return n == 0;
    case LITIFUT_REC_STATE:
        return n == 1 || n == 2;
    case LITIFUT_REC_BUDGET:
        return n == 3;
    case LITIFUT_REC_STOPPED:
        return n == 2;
    case LITIFUT_REC_CHUNK:
        return n >= LITIFUT_CHUNK_REC_WORDS && (n - LITIFUT_CHUNK_REC_WORDS) % addr_words(t) == 0;
    case LITIFUT_REC_SITE_ADDR:
    case LITIFUT_REC_SIGNAL:
        return n == 1 + addr_words(t);
    case LITIFUT_REC_SIGNAL_END:
        return n == 0;
    case LITIFUT_REC_ENTRY:             /* (version 6) */
        return n == 1 + addr_words(t) && t->header.version >= 6;
    case LITIFUT_REC_ENTRY_END:
        return n == 0 && t->header.version >= 6;
    case LITIFUT_REC_FROZEN:
        return n == LITIFUT_FROZEN_REC_WORDS;
    case LITIFUT_REC_OWN_TIME:
        return n == 2;
    case LITIFUT_REC_SKIPPED:
        return n >= 4 && n <= 3 + LITIFUT_SKIP_TEXT_MAX / 4;
    case LITIFUT_REC_ARGS:              /* (version 7) */
        return n >= 1 && t->header.version >= 7;
    default:
        return 0;
    }
}

static uint64_t clock_ns(const struct trace_file *t, const struct trace_clock *k)
{
    if (!k->have_mark)
        return 0;
    return k->mark_ns + (uint64_t)((double)(k->units - k->mark_units) * t->ns_per_unit);
}

/* What one walk over a chunk is for. */
struct walk {
    struct trace_cursor *c;     /* NULL: trace_open's scan (objects, counts, times) */
    struct trace_clock clock;
    uint32_t index;             /* the chunk's */
    int whole;
    uint64_t calls;             /* call records seen */
    uint64_t last_ns;           /* of the last event or mark */
    uint32_t rec_end;           /* the record being read ends before this word */
    uint32_t event_end;         /* ... as it was when the last event was made */
    uint32_t dropped_end;       /* ... after a call record that made no event (said why) */
    uint64_t own_ns;            /* OWN_TIME since the last event, for the next */
    /* its CHUNK record (the scan's), its first TIME and first event */
    int has_seq, has_first_ns;
    uint64_t first_ns;
    uint32_t first_site;        /* the first event's site id, if it is a call (else ~0u) */
    int first_event;
    uint32_t seq, depth, ra_pos, n_ra;  /* n_ra return addresses at byte ra_pos */
    uint64_t words_before;
    /* the cursor's, clock MARKS: the events at which a TIME record came */
    size_t *mark_at;
    uint64_t *mark_ns;
    size_t n_marks, cap_marks;
};

static void add_mark(struct walk *w, size_t at, uint64_t ns)
{
    if (w->n_marks == w->cap_marks) {
        w->cap_marks = w->cap_marks * 2 + 16;
        w->mark_at = xrealloc(w->mark_at, w->cap_marks * sizeof *w->mark_at);
        w->mark_ns = xrealloc(w->mark_ns, w->cap_marks * sizeof *w->mark_ns);
    }
    w->mark_at[w->n_marks] = at;
    w->mark_ns[w->n_marks++] = ns;
}

/* The TIME record whose payload (n words) is at `pos`. */
static void time_record(struct reader *r, struct walk *w, size_t pos, size_t n)
{
    const struct trace_file *t = r->t;
    uint64_t ticks = n == 4 ? dword(r, pos) : 0, ns = dword(r, pos + 4 * n - 8);
    struct trace_clock *k = &w->clock;
    k->units = k->mark_units = t->header.time_shift < 64 ? ticks >> t->header.time_shift : 0;
    k->mark_ns = ns > t->header.start_ns ? ns - t->header.start_ns : 0;
    k->have_mark = 1;
    w->last_ns = k->mark_ns;
    if (!w->has_first_ns) {
        w->has_first_ns = 1;
        w->first_ns = k->mark_ns;
    }
    if (!w->c) {
        struct trace_file *tf = r->t;   /* for a clock of unknown rate: its extremes */
        if (!tf->n_time_marks || ns < tf->first_mark[1]) {
            tf->first_mark[0] = ticks;
            tf->first_mark[1] = ns;
        }
        if (!tf->n_time_marks || ns >= tf->last_mark[1]) {
            tf->last_mark[0] = ticks;
            tf->last_mark[1] = ns;
        }
        tf->n_time_marks++;
    } else if (t->header.clock == LITIFUT_CLOCK_MARKS) {
        add_mark(w, w->c->n_ev, k->mark_ns);
    }
}

/* Recording turned on or off at `ns` (a STATE record: at its TIME record). */
static void add_state(struct trace_file *t, uint64_t ns, uint32_t w, int has_count,
                      uint32_t unrecorded)
{
    t->states = grow_for_one(t->states, t->n_states, &t->cap_states, sizeof *t->states);
    t->states[t->n_states++] = (struct trace_state){ ns, LITIFUT_STATE_ON(w) != 0,
                                                     (uint8_t)LITIFUT_STATE_WHY(w),
                                                     (uint8_t)has_count, unrecorded };
}

static int by_time(const void *a, const void *b)
{
    const struct trace_state *x = a, *y = b;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* Recording stopped for good (the header says so, and each thread
 * that found out has a STOPPED record): the first time and why, the
 * threads, and an "off" state then, so that views end open frames
 * there, as at any off window. */
static void stop_at(struct trace_file *t, uint64_t ns, uint32_t why, uint32_t err)
{
    if (!t->stop_why || ns < t->stop_ns) {
        t->stop_ns = ns;
        t->stop_why = why;
        t->stop_errno = err;
    }
}

static void stopped_record(struct reader *r, struct walk *w, uint32_t why, uint32_t err)
{
    struct trace_file *t = r->t;
    stop_at(t, w->clock.mark_ns, why, err);
    t->stopped_tids = grow_for_one(t->stopped_tids, t->n_stopped_tids, &t->cap_stopped_tids,
                                   sizeof *t->stopped_tids);
    t->stopped_tids[t->n_stopped_tids++] = word(r, 4);
}

static inline struct trace_event *new_event(struct walk *w, uint8_t kind, uint64_t ns);

/* An ARGS record at pos (n payload words), for a cursor: checked value
 * by value, kept in the cursor's words (the header and value words in
 * this machine's order, a copy's bytes as they are) and given to the
 * event it follows: a call's arguments, a RETURN's value.  One that
 * follows no such event, or does not read, is skipped alone. */
static void args_record(struct reader *r, struct walk *w, size_t pos, size_t n)
{
    struct trace_cursor *c = w->c;
    uint32_t first = word(r, pos + 4), which = first & 0xffu, count = (first >> 8) & 0xffu;
    struct trace_event *e = c->n_ev ? &c->ev[c->n_ev - 1] : NULL;
    const char *bad = NULL;
    if (which == LITIFUT_ARGS_CALL && w->dropped_end && w->dropped_end == pos / 4) {
        w->rec_end = (uint32_t)(pos + 4 + 4 * n) / 4;   /* (its call was skipped: said why) */
        return;
    }
    if (which != LITIFUT_ARGS_CALL && which != LITIFUT_ARGS_RETURN)
        bad = "of no known kind";
    else if (!e || w->rec_end != pos / 4 || w->event_end != pos / 4 || e->args_n ||
             e->kind != (which == LITIFUT_ARGS_CALL ? TRACE_CALL : TRACE_RETURN))
        bad = which == LITIFUT_ARGS_CALL ? "that follow no call" : "that follows no return";
    else if (count > LITIFUT_ARGS_MAX_VALUES || (which == LITIFUT_ARGS_RETURN && count != 1))
        bad = "with too many values";
    size_t at = pos + 8, end = pos + 4 + 4 * n;
    const size_t aw = addr_words(r->t);
    for (uint32_t i = 0; !bad && i < count; i++) {
        uint32_t h = at + 4 <= end ? word(r, at) : 0, kind = h & 0xfu, arg = (h >> 8) & 0xffu;
        uint32_t bytes = h >> 16;
        if (at + 4 * (1 + aw) > end || !kind || kind > LITIFUT_VALUE_FLOAT ||
            (h & 0xe0u) || ((h & LITIFUT_VALUE_CUT) && kind != LITIFUT_VALUE_STRING &&
                            kind != LITIFUT_VALUE_MEMORY) ||
            ((kind == LITIFUT_VALUE_INT || kind == LITIFUT_VALUE_UNREADABLE) && bytes) ||
            (kind == LITIFUT_VALUE_FLOAT && bytes != 4 && bytes != 8) ||
            bytes > LITIFUT_ARGS_COPY_MAX || (which == LITIFUT_ARGS_RETURN) != (arg == 0) ||
            arg > (kind == LITIFUT_VALUE_FLOAT ? 16u : 8u) ||
            at + 4 * (1 + aw) + 4 * (((size_t)bytes + 3) / 4) > end)
            bad = "that do not read";
        else
            at += 4 * (1 + aw + (bytes + 3) / 4);
    }
    if (!bad && at != end)
        bad = "that do not read";
    if (bad) {
        warn_once(r, P_ARGS, "chunk %" PRIu32 " has LITIFUT_ARGS values %s; skipped every such "
                  "record", w->index, bad);
        return;
    }
    if (c->n_args + n > c->cap_args) {
        c->cap_args = 2 * (c->n_args + n) + 256;
        c->args = xrealloc(c->args, c->cap_args * sizeof *c->args);
    }
    uint32_t *out = c->args + c->n_args;
    out[0] = first;
    at = pos + 8;
    size_t k = 1;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t h = word(r, at), bytes = h >> 16;
        out[k++] = h;
        for (size_t j = 0; j < aw; j++)
            out[k++] = word(r, at + 4 + 4 * j);
        if ((h & 0xfu) == LITIFUT_VALUE_FLOAT)      /* (words: this machine's order too) */
            for (size_t j = 0; j < bytes / 4; j++)
                out[k + j] = word(r, at + 4 * (1 + aw + j));
        else
            memcpy(out + k, r->data + at + 4 * (1 + aw), ((size_t)bytes + 3) / 4 * 4);
        k += (bytes + 3) / 4;
        at += 4 * (1 + aw + (bytes + 3) / 4);
    }
    e->args_at = (uint32_t)c->n_args;
    e->args_n = (uint32_t)k;
    c->n_args += k;
    w->rec_end = (uint32_t)end / 4;
}

/* The control record at `pos`.  Returns its length in bytes, or 0
 * where reading the chunk ends. */
static size_t control_record(struct reader *r, struct walk *w, size_t pos, uint64_t *cache)
{
    uint32_t cw = word(r, pos);
    size_t n = LITIFUT_REC_PAYLOAD(cw);
    if (pos + 4 + 4 * n > r->size) {
        record_past_end(r, w->whole, w->index);
        return 0;
    }
    if (!control_word_ok(r->t, cw)) {
        warn_once(r, P_RECORD, "chunk %" PRIu32 " has a control record 0x%08" PRIx32
                  " that this trace version does not have; skipped the rest of that chunk",
                  w->index, cw);
        return 0;
    }
    switch (LITIFUT_REC_TYPE(cw)) {
    case LITIFUT_REC_CACHE_RESET:
        memset(cache, 0, LITIFUT_TARGET_CACHE * sizeof *cache);
        break;
    case LITIFUT_REC_TIME:
        time_record(r, w, pos + 4, n);
        break;
    case LITIFUT_REC_OBJECT:
        if (!w->c)
            add_object(r, pos + 4, n, w->index);
        break;
    case LITIFUT_REC_UNLOAD:
        if (!w->c)
            add_unload(r, word(r, pos + 4));
        break;
    case LITIFUT_REC_SKIPPED:
        if (!w->c)
            add_skip(r, pos + 4, n);
        break;
    case LITIFUT_REC_STATE:
        if (!w->c)
            add_state(r->t, w->clock.mark_ns, word(r, pos + 4), n == 2,
                      n == 2 ? word(r, pos + 8) : 0);
        break;
    case LITIFUT_REC_BUDGET:
        if (!w->c) {
            r->t->budget_us = word(r, pos + 4);
            r->t->period_us = word(r, pos + 8);
            r->t->word_cost = word(r, pos + 12);
        }
        break;
    case LITIFUT_REC_STOPPED:
        if (!w->c)
            stopped_record(r, w, word(r, pos + 4), word(r, pos + 8));
        break;
    case LITIFUT_REC_SITE_ADDR:
        if (!w->c && (r->t->header.flags & LITIFUT_TRACE_EMULATED)) {
            struct trace_file *t = r->t;
            t->site_addrs = grow_for_one(t->site_addrs, t->n_site_addrs, &r->cap_site_addrs,
                                         sizeof *t->site_addrs);
            uint32_t id = word(r, pos + 4);
            t->site_addrs[t->n_site_addrs++] = (struct trace_site_addr){
                id & ~LITIFUT_SITE_ADDR_JUMP, addr_at(r, pos + 8),
                (id & LITIFUT_SITE_ADDR_JUMP) != 0 };
        }
        break;
    case LITIFUT_REC_SIGNAL:
    case LITIFUT_REC_SIGNAL_END:
    case LITIFUT_REC_ENTRY:
    case LITIFUT_REC_ENTRY_END:
        w->last_ns = clock_ns(r->t, &w->clock);
        w->rec_end = (uint32_t)(pos + 4 + 4 * n) / 4;
        if (!w->first_event++)
            w->first_site = ~0u;
        if (LITIFUT_REC_TYPE(cw) == LITIFUT_REC_ENTRY && !w->c)
            r->t->entries++;
        if (w->c) {
            static const enum trace_event_kind kinds[] = {
                [LITIFUT_REC_SIGNAL] = TRACE_SIGNAL, [LITIFUT_REC_SIGNAL_END] = TRACE_SIGNAL_END,
                [LITIFUT_REC_ENTRY] = TRACE_ENTRY, [LITIFUT_REC_ENTRY_END] = TRACE_ENTRY_END,
            };
            enum trace_event_kind kind = kinds[LITIFUT_REC_TYPE(cw)];
            struct trace_event *e = new_event(w, kind, w->last_ns);
            if (kind == TRACE_SIGNAL || kind == TRACE_ENTRY) {
                e->site = word(r, pos + 4) & 0xffu;
                e->target = addr_at(r, pos + 8);
            }
        }
        break;
    case LITIFUT_REC_ARGS:
        if (w->c)
            args_record(r, w, pos, n);
        break;
    case LITIFUT_REC_OWN_TIME:
        if (!w->c) {
            r->t->own_ns += dword(r, pos + 4);
            r->t->n_own++;
        } else {
            w->own_ns += dword(r, pos + 4);     /* (the next event carries it) */
        }
        break;
    case LITIFUT_REC_FROZEN:
        if (!w->c && word(r, 4) == 0 && r->t->header.stopped == LITIFUT_STOP_SNAPSHOT) {
            struct trace_file *t = r->t;    /* (the process's own chunks of a frozen trace) */
            t->frozen = grow_for_one(t->frozen, t->n_frozen, &t->cap_frozen, sizeof *t->frozen);
            t->frozen[t->n_frozen++] = (struct trace_frozen){ word(r, pos + 4), word(r, pos + 8),
                                                              word(r, pos + 12) };
        }
        break;
    case LITIFUT_REC_CHUNK:
        if (!w->has_seq) {
            w->has_seq = 1;
            w->seq = word(r, pos + 4);
            w->words_before = dword(r, pos + 8);
            w->depth = word(r, pos + 16);
            w->ra_pos = (uint32_t)pos + 4 + 4 * LITIFUT_CHUNK_REC_WORDS;
            w->n_ra = (uint32_t)((n - LITIFUT_CHUNK_REC_WORDS) / addr_words(r->t));
        }
        break;
    }
    return 4 + 4 * n;
}

static inline struct trace_event *new_event(struct walk *w, uint8_t kind, uint64_t ns)
{
    struct trace_cursor *c = w->c;
    if (c->ev_end)
        c->ev_end[c->n_ev] = w->rec_end;
    w->event_end = w->rec_end;
    struct trace_event *e = &c->ev[c->n_ev++];     /* (cap: a chunk's words) */
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->time_ns = ns;
    e->own_ns = w->own_ns;
    w->own_ns = 0;
    return e;
}

/* A call record, for a cursor: an event if its site is one of a usable
 * object's DB.  A call record says how long it is, so a bad one is
 * skipped alone (and, silently, the ARGS record after it: w->dropped_end). */
static void call_event(struct reader *r, struct walk *w, uint32_t rec, uint64_t target)
{
    w->dropped_end = w->rec_end;        /* (until the event is made) */
    struct trace_cursor *c = w->c;
    uint32_t id = LITIFUT_REC_SITE(rec);
    struct trace_object *o = c->last_object;
    if (!o || id - o->base >= o->n_sites) {
        o = object_of_site(r->t, id);
        if (!o) {
            warn_once(r, P_SITE, "chunk %" PRIu32 " records call site id %" PRIu32 ", which "
                      "no object's range holds; skipped every such record", w->index, id);
            return;
        }
        c->last_object = o;
    }
    if (!o->usable)
        return;                         /* the caller said why */
    if (id - o->base >= o->db_sites) {
        warn_once(r, P_SITE_DB, "chunk %" PRIu32 " records call site %" PRIu32 " of %s, "
                  "whose DB has %" PRIu32 " sites; skipped every such record", w->index,
                  id - o->base, o->path, o->db_sites);
        return;
    }
    w->dropped_end = 0;
    struct trace_event *e = new_event(w, TRACE_CALL, clock_ns(r->t, &w->clock));
    e->object = (uint32_t)(o - r->t->objects);
    e->site = id - o->base;
    e->target = target;
    e->has_target = LITIFUT_REC_TAG(rec) != LITIFUT_REC_CALL;
}

/* Reads the chunk in r->data, replaying the thread's target cache
 * (trace-format.h: targets of the word size; 0 is an empty entry).
 * Returns the bytes its records take. */
static size_t walk_chunk(struct reader *r, struct walk *w)
{
    uint64_t cache[LITIFUT_TARGET_CACHE] = { 0 };   /* empty at each chunk's start */
    const size_t target_len = 4 * addr_words(r->t);
    size_t pos = sizeof(struct litifut_chunk_header);
    while (pos + 4 <= r->size) {
        uint32_t rec = word(r, pos);
        size_t len = 4;
        if (rec == 0) {
            size_t next = skip_zeros(r, pos);
            if (next == r->size)
                break;                  /* the data ends here */
            pos = next;
            continue;
        }
        uint32_t tag = LITIFUT_REC_TAG(rec);
        if (tag == LITIFUT_REC_CONTROL && LITIFUT_REC_IS_ADVANCE(rec)) {
            w->clock.units += rec >> 8;
        } else if (tag == LITIFUT_REC_CONTROL && LITIFUT_REC_IS_RETURN(rec)) {
            w->clock.units += LITIFUT_REC_DELTA(rec);
            w->last_ns = clock_ns(r->t, &w->clock);
            w->rec_end = (uint32_t)(pos + 4) / 4;
            if (!w->first_event++)
                w->first_site = ~0u;
            if (w->c)
                new_event(w, TRACE_RETURN, w->last_ns);
        } else if (tag == LITIFUT_REC_CONTROL) {
            len = control_record(r, w, pos, cache);
        } else {
            /* clock marks: bits 31..24 are no delta, and the cache is
             * keyed by target (trace-format.h) */
            int marks = r->t->header.clock == LITIFUT_CLOCK_MARKS;
            uint64_t *entry = &cache[!marks ? LITIFUT_CACHE_ENTRY_OF_SITE(rec)
                                     : tag == LITIFUT_REC_CALL_CACHED ? LITIFUT_REC_CACHE_ENTRY(rec)
                                     : 0];
            len = tag == LITIFUT_REC_CALL_TARGET ? 4 + target_len : 4;
            if (!marks)
                w->clock.units += LITIFUT_REC_DELTA(rec);
            else if (tag == LITIFUT_REC_CALL_TARGET && pos + len <= r->size)
                entry = &cache[LITIFUT_CACHE_ENTRY_OF_TARGET(word(r, pos + 4))];  /* (low word) */
            w->last_ns = clock_ns(r->t, &w->clock);
            w->calls++;
            if (!w->first_event++)
                w->first_site = LITIFUT_REC_SITE(rec);
            if (pos + len > r->size) {
                record_past_end(r, w->whole, w->index);
                len = 0;
            } else if (tag == LITIFUT_REC_CALL_CACHED && !*entry) {
                warn_once(r, P_CACHE, "chunk %" PRIu32 " has a call whose target is an empty "
                          "cache entry; skipped every such call", w->index);
            } else {
                if (tag == LITIFUT_REC_CALL_TARGET)
                    *entry = addr_at(r, pos + 4);
                w->rec_end = (uint32_t)(pos + len) / 4;
                if (w->c)
                    call_event(r, w, rec, tag == LITIFUT_REC_CALL ? 0 : *entry);
            }
        }
        if (!len)
            break;
        pos += len;
    }
    return pos;
}

/* The chunk in r->data: its header must be the one trace_open found
 * there (the file may have changed since), and name a thread (or 0:
 * the process's own). */
static int chunk_header_ok(struct reader *r, uint32_t index)
{
    uint32_t magic = word(r, 0), tid = word(r, 4), idx = word(r, 8);
    const char *bad = magic != LITIFUT_CHUNK_MAGIC ? "magic"
                      : idx != index               ? "index"
                      : tid > PID_MAX_LIMIT && tid != LITIFUT_PAIRS_TID ? "thread id" : NULL;
    if (bad)
        warn_once(r, P_CHUNK_HEADER, "chunk %" PRIu32 " has a bad header (%s); skipped it "
                  "(and any other such chunk)", index, bad);
    return !bad;
}

/* --- the trace --- */

/* A readable thread chunk, as trace_open found it (pos: its place in
 * t->chunks, which is file order; index: its claim order, which a
 * ring's recycled slots do not follow), and its CHUNK record. */
struct chunk_info {
    uint32_t tid, pos, index;
    uint64_t calls;
    uint64_t first_ns;
    uint32_t first_site;
    int has_seq;
    uint32_t seq, depth, ra_pos, n_ra;
    uint64_t words_before;
};

static int by_tid_then_index(const void *a, const void *b)
{
    const struct chunk_info *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int by_first_index(const void *a, const void *b)
{
    const struct trace_thread *x = a, *y = b;
    return x->first_index < y->first_index ? -1 : x->first_index > y->first_index;
}

/* A ring thread whose history was cut: the return addresses its first
 * chunk's CHUNK record gives (the chunk is read again: the scan keeps
 * no records). */
static void read_open_frames(struct reader *r, struct trace_thread *th, const struct chunk_info *c)
{
    const struct trace_file *t = r->t;
    const size_t size = 4 * addr_words(t);     /* of a return address */
    th->open_depth = c->depth;
    if (!c->n_ra || c->ra_pos + (uint64_t)size * c->n_ra > t->chunks[c->pos].size)
        return;
    size_t n = c->n_ra;
    unsigned char *b = xmalloc(size * n);
    if (pread(t->fd, b, size * n, (off_t)(t->chunks[c->pos].off + c->ra_pos)) ==
        (ssize_t)(size * n)) {
        struct reader rr = { .data = b, .size = size * n, .big = r->big, .t = r->t };
        th->open_ra = xcalloc(n, sizeof *th->open_ra);
        for (size_t i = 0; i < n; i++)
            th->open_ra[i] = addr_at(&rr, size * i);
        th->n_open_ra = n;
    }
    free(b);
}

/* Each thread's chunks by index; threads in order of their first
 * chunk.  Numbers missing from the chunks' CHUNK records are chunks the
 * trace lacks: before the first, a ring overwrote them (or a stream
 * dropped them); between two, a stream dropped them.  A ring keeps a
 * thread's chunks after its last gap only (one before it outlived a
 * slot the ring passed by while its thread held it), so that each
 * thread's records read as one stretch of its history. */
static void make_threads(struct reader *r, struct chunk_info *chunks, size_t n_chunks)
{
    struct trace_file *t = r->t;
    int ring = (t->header.flags & LITIFUT_TRACE_RING) != 0;
    if (n_chunks) {
        qsort(chunks, n_chunks, sizeof *chunks, by_tid_then_index);
        t->threads = xcalloc(n_chunks, sizeof *t->threads);     /* at most one per chunk */
    }
    for (size_t i = 0; i < n_chunks;) {
        size_t j = i;
        while (j < n_chunks && chunks[j].tid == chunks[i].tid)
            j++;
        size_t first = i;
        uint32_t missing = 0;
        for (size_t k = i + 1; k < j; k++) {
            if (!chunks[k].has_seq || !chunks[k - 1].has_seq ||
                chunks[k].seq == chunks[k - 1].seq + 1)
                continue;
            if (ring) {
                first = k;
                missing = 0;
            } else {
                missing += chunks[k].seq > chunks[k - 1].seq ? chunks[k].seq - chunks[k - 1].seq - 1
                                                             : 0;
            }
        }
        struct trace_thread *th = &t->threads[t->n_threads++];
        th->tid = chunks[first].tid;
        th->first_chunk = chunks[first].pos;
        th->first_index = chunks[first].index;
        th->n_chunks = j - first;
        th->chunks = xcalloc(j - first, sizeof *th->chunks);
        for (size_t k = first; k < j; k++) {
            th->chunks[k - first] = chunks[k].pos;
            th->n_calls += chunks[k].calls;
        }
        if (chunks[first].has_seq) {
            th->chunks_before = chunks[first].seq;
            th->words_before = chunks[first].words_before;
        }
        th->chunks_missing = missing + (ring ? (uint32_t)(first - i) : 0);
        if (ring && th->chunks_before) {
            read_open_frames(r, th, &chunks[first]);
            th->start_ns = chunks[first].first_ns;
            th->first_site = chunks[first].first_site;
        }
        t->n_calls += th->n_calls;
        t->chunks_before += th->chunks_before;
        t->chunks_missing += th->chunks_missing;
        i = j;
    }
    if (t->n_threads)
        qsort(t->threads, t->n_threads, sizeof *t->threads, by_first_index);
}

/* ns per unit of the thread clocks: from the header's rate, or (a
 * counter of unknown rate) from the first and last TIME records. */
static void set_clock_rate(struct trace_file *t)
{
    const struct litifut_trace_header *h = &t->header;
    double unit = h->time_shift >= 64 ? 0 : (double)((uint64_t)1 << h->time_shift);
    t->ns_per_unit = 0;
    if (h->clock == LITIFUT_CLOCK_MARKS)
        return;
    if (h->clock_hz)
        t->ns_per_unit = unit * 1e9 / (double)h->clock_hz;
    else if (t->last_mark[1] > t->first_mark[1] && t->last_mark[0] > t->first_mark[0])
        t->ns_per_unit = unit * (double)(t->last_mark[1] - t->first_mark[1]) /
                         (double)(t->last_mark[0] - t->first_mark[0]);
}

/* A chunk of pairs (modes dedup and count): entries up to a zero
 * site_plus1 or the chunk's end (a cut one: its whole entries); struct
 * litifut_pair, or with word size 8 struct litifut_pair64 (its target
 * a 64-bit field in the target's byte order). */
static void read_pairs(struct reader *r, uint32_t index)
{
    struct trace_file *t = r->t;
    const int wide = addr_words(t) == 2;
    const size_t size = wide ? sizeof(struct litifut_pair64) : sizeof(struct litifut_pair);
    const size_t ns_at = wide ? offsetof(struct litifut_pair64, ns_lo)
                              : offsetof(struct litifut_pair, ns_lo);
    const size_t count_at = wide ? offsetof(struct litifut_pair64, count)
                                 : offsetof(struct litifut_pair, count);
    size_t pos = sizeof(struct litifut_chunk_header);
    if (t->header.mode == LITIFUT_MODE_FULL) {
        warn_once(r, P_PAIR, "chunk %" PRIu32 " holds pairs, which a full trace has not; "
                  "skipped it (and any other such chunk)", index);
        return;
    }
    t->record_bytes += pos;
    for (; pos + size <= r->size; pos += size) {
        uint32_t site_plus1 = word(r, pos);
        if (!site_plus1)
            break;
        if (t->n_pairs == r->cap_pairs) {
            r->cap_pairs = r->cap_pairs * 2 + 256;
            t->pairs = xrealloc(t->pairs, r->cap_pairs * sizeof *t->pairs);
        }
        uint64_t ns = dword(r, pos + ns_at);
        uint64_t target = wide ? header_u64(r, pos + offsetof(struct litifut_pair64, target))
                               : word(r, pos + offsetof(struct litifut_pair, target));
        t->pairs[t->n_pairs++] = (struct trace_pair){
            .site = site_plus1 - 1, .target = target, .count = word(r, pos + count_at),
            .ns = ns > t->header.start_ns ? ns - t->header.start_ns : 0,
        };
        t->record_bytes += size;
    }
}

/* A chunk's size, as its header says (version 4: all chunk_size):
 * LITIFUT_MIN_CHUNK times a power of 2, at most chunk_size; 0 if not
 * such. */
static uint32_t chunk_size_of(const struct trace_file *t, uint32_t size)
{
    if (t->header.version == 4)
        return t->header.chunk_size;
    return size >= LITIFUT_MIN_CHUNK && size <= t->header.chunk_size && !(size & (size - 1))
               ? size : 0;
}

/* Finds the chunks: each right after the one before (version 4: every
 * chunk_size bytes).  Where a header is not there (its page lost on
 * power-off, a chunk claimed but never mapped), the next one is looked
 * for at each multiple of LITIFUT_MIN_CHUNK: a header with the magic, a
 * later index and a size.
 * Fills t->chunks. */
static void find_chunks(struct reader *r)
{
    struct trace_file *t = r->t;
    size_t cap = 0;
    uint64_t off = t->header.header_size;
    uint32_t next_index = 0;
    int lost = 0;
    while (off < t->size && t->size - off >= sizeof(struct litifut_chunk_header)) {
        unsigned char b[sizeof(struct litifut_chunk_header)];
        struct reader h = { .data = b, .big = r->big, .t = t };
        uint32_t size = 0, index = 0;
        if (pread(t->fd, b, sizeof b, (off_t)off) == (ssize_t)sizeof b &&
            word(&h, 0) == LITIFUT_CHUNK_MAGIC) {
            index = word(&h, 8);
            size = chunk_size_of(t, word(&h, 12));
            /* (a ring's recycled slots lie anywhere) */
            if ((index < next_index && !(t->header.flags & LITIFUT_TRACE_RING)) ||
                (t->header.version == 4 && index != next_index))
                size = 0;
        }
        if (!size) {
            /* version 4: the slot is known, whatever its header says;
             * version 5: look for the next header a page further */
            if (t->header.version == 4) {
                if (word(&h, 0) != 0)   /* (all zero: claimed but never written) */
                    lost = 1;
                next_index++;
                off += t->header.chunk_size;
            } else {
                if (word(&h, 0) != 0)
                    lost = 1;
                off += LITIFUT_MIN_CHUNK;   /* (chunks lie at its multiples) */
            }
            continue;
        }
        t->chunks = grow_for_one(t->chunks, t->n_chunks, &cap, sizeof *t->chunks);
        t->chunks[t->n_chunks++] = (struct trace_chunk){ off, size, index, word(&h, 4), UINT32_MAX };
        next_index = index + 1;
        off += size;
    }
    if (lost)
        warn_once(r, P_CHUNK_HEADER, "a chunk header is damaged or missing (a page lost?); "
                  "skipped to the next chunk");
    if (t->n_chunks) {
        const struct trace_chunk *last = &t->chunks[t->n_chunks - 1];
        if (last->off + last->size > t->size) {
            warn_once(r, P_TRUNCATED, "truncated: the file ends inside a chunk; "
                                      "kept every whole record");
            t->warned |= 1u << P_SITE;  /* (a site of an OBJECT record cut off: said) */
        }
    }
}

/* A frozen trace: each thread chunk's part before the freeze, from the
 * FROZEN records (a thread's chunks after the one its record names,
 * none of it; one without a record, all: no chunk came after the
 * freeze). */
static void apply_freeze(struct trace_file *t)
{
    for (size_t i = 0; i < t->n_chunks; i++) {
        struct trace_chunk *ch = &t->chunks[i];
        for (size_t k = 0; k < t->n_frozen && ch->tid; k++) {
            const struct trace_frozen *f = &t->frozen[k];
            if (f->tid != ch->tid || f->index > ch->index)
                continue;
            ch->keep = f->index < ch->index ? 0 : f->words > ch->size / 4 ? ch->size : 4 * f->words;
            break;
        }
    }
}

/* Reads every chunk once: objects, unloads, threads, counts; the
 * process's own chunks first (a frozen trace's FROZEN records cut the
 * threads'). */
static void scan_chunks(struct reader *r)
{
    struct trace_file *t = r->t;
    const struct litifut_trace_header *h = &t->header;
    if (t->size < h->header_size)
        warn_once(r, P_TRUNCATED, "truncated: the file ends inside the header page");
    find_chunks(r);
    if (h->stopped)
        stop_at(t, h->stop_ns > h->start_ns ? h->stop_ns - h->start_ns : 0, h->stopped,
                h->stop_errno);
    unsigned char *buf = xmalloc(h->chunk_size);
    struct chunk_info *chunks = NULL;
    size_t n_chunks = 0, cap = 0;
    uint64_t last_ns = 0;
    for (uint32_t k = 0; k < 2 * t->n_chunks; k++) {
        uint32_t pos = k % (uint32_t)t->n_chunks;
        if ((t->chunks[pos].tid != 0) != (k >= t->n_chunks))
            continue;                   /* (the process's own chunks, then the others) */
        if (k == t->n_chunks && t->n_frozen)
            apply_freeze(t);
        uint32_t index = t->chunks[pos].index;
        struct walk w = { .index = index };
        if (!load_chunk(r, buf, pos, &w.whole) || !chunk_header_ok(r, index))
            continue;
        if (word(r, 4) == LITIFUT_PAIRS_TID) {
            read_pairs(r, index);
            continue;
        }
        t->record_bytes += walk_chunk(r, &w);
        if (w.last_ns > last_ns)
            last_ns = w.last_ns;
        if (word(r, 4) == 0)
            continue;               /* the process's own: no thread's */
        if (n_chunks == cap) {
            cap = cap * 2 + 64;
            chunks = xrealloc(chunks, cap * sizeof *chunks);
        }
        chunks[n_chunks++] = (struct chunk_info){ word(r, 4), pos, index, w.calls, w.first_ns,
                                                  w.first_event ? w.first_site : ~0u, w.has_seq,
                                                  w.seq, w.depth, w.ra_pos, w.n_ra,
                                                  w.words_before };
    }
    set_clock_rate(t);                  /* (a counter's: now known) */
    t->end_ns = last_ns;
    if (t->stop_why)                    /* every thread is off from then on */
        add_state(t, t->stop_ns, LITIFUT_STATE_WORD(0, TRACE_STATE_STOPPED), 0, 0);
    if (t->n_states)
        qsort(t->states, t->n_states, sizeof *t->states, by_time);
    make_threads(r, chunks, n_chunks);
    free(chunks);
    free(buf);
}

static int pair_by_time(const void *a, const void *b)
{
    const struct trace_pair *x = a, *y = b;
    return x->ns != y->ns ? (x->ns < y->ns ? -1 : 1) : (x->site > y->site) - (x->site < y->site);
}

/* Each pair's site id as object and DB index, once the objects are
 * known; pairs of no object are dropped (one warning); by time. */
static void resolve_pairs(struct reader *r)
{
    struct trace_file *t = r->t;
    size_t k = 0;
    for (size_t i = 0; i < t->n_pairs; i++) {
        struct trace_pair p = t->pairs[i];
        struct trace_object *o = object_of_site(t, p.site);
        if (!o) {
            warn_once(r, P_SITE, "pair of site id %" PRIu32 " names no object's site; skipped "
                      "it (and any other such record)", p.site);
            continue;
        }
        p.object = (uint32_t)(o - t->objects);
        p.site -= o->base;
        t->pairs[k++] = p;
    }
    t->n_pairs = k;
    if (k)
        qsort(t->pairs, k, sizeof *t->pairs, pair_by_time);
    for (size_t i = 0; i < k; i++) {
        t->n_calls += t->header.mode == LITIFUT_MODE_COUNT ? t->pairs[i].count : 0;
        if (t->pairs[i].ns > t->end_ns)
            t->end_ns = t->pairs[i].ns;
    }
}

/* <base>.maps for <base>.trace or <base>.trace.gz, or <base>.maps.gz if
 * only that is there (any other name: <name>.maps). */
static char *maps_path_of(const char *path)
{
    size_t plen = strlen(path);
    if (plen > 3 && strcmp(path + plen - 3, ".gz") == 0)
        plen -= 3;
    char *maps = plen > 6 && strncmp(path + plen - 6, ".trace", 6) == 0
                     ? xasprintf("%.*s.maps", (int)(plen - 6), path)
                     : xasprintf("%.*s.maps", (int)plen, path);
    struct stat st;
    if (stat(maps, &st) != 0) {
        char *gz = xasprintf("%s.gz", maps);
        if (stat(gz, &st) == 0) {
            free(maps);
            return gz;
        }
        free(gz);
    }
    return maps;
}

static int site_addr_cmp(const void *a, const void *b)
{
    const struct trace_site_addr *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

int trace_open(const char *path, struct trace_file *t)
{
    memset(t, 0, sizeof *t);
    t->path = xstrdup(path);
    t->fd = open_regular_file(path);
    if (t->fd < 0) {
        trace_free(t);
        return -1;
    }
    if (gz_magic(t->fd)) {              /* gzip: read what it inflates to (gz.c) */
        int damaged, raw = gz_inflate_to_temp(t->fd, path, &damaged);
        if (damaged)                    /* (said once: a cut stream, a cut trace) */
            t->warned |= 1u << P_TRUNCATED | 1u << P_RECORD | 1u << P_CHUNK_HEADER | 1u << P_SITE;
        close(t->fd);
        t->fd = raw;
        if (raw < 0) {
            trace_free(t);
            return -1;
        }
    }
    struct stat st;
    unsigned char *head = xcalloc(1, MAX_HEADER_SIZE);
    ssize_t got = fstat(t->fd, &st) == 0 ? pread(t->fd, head, MAX_HEADER_SIZE, 0) : -1;
    if (got < 0) {
        error("%s: cannot read: %s", path, strerror(errno));
        free(head);
        trace_free(t);
        return -1;
    }
    t->size = (uint64_t)st.st_size;
    struct reader r = { .data = head, .size = (size_t)got, .t = t };
    int rc = read_header(&r, &t->header);
    free(head);
    if (rc != 0) {
        trace_free(t);
        return -1;
    }
    t->maps_path = maps_path_of(path);
    /* the objects first: a call may come before its object's record */
    set_clock_rate(t);
    scan_chunks(&r);
    if (t->n_time_marks && t->header.clock != LITIFUT_CLOCK_MARKS) {
        /* the scan's times used a rate not yet known: the last mark is a lower bound */
        uint64_t ns = t->last_mark[1] > t->header.start_ns ? t->last_mark[1] - t->header.start_ns : 0;
        if (ns > t->end_ns)
            t->end_ns = ns;
    }
    if (t->n_objects)
        qsort(t->objects, t->n_objects, sizeof *t->objects, object_cmp);
    drop_repeats_and_overlaps(&r);
    apply_unloads(&r);
    free(r.unloads);
    t->with_sites = xcalloc(t->n_objects + 1, sizeof *t->with_sites);
    for (size_t i = 0; i < t->n_objects; i++)
        if (t->objects[i].n_sites)
            t->with_sites[t->n_with_sites++] = i;
    resolve_pairs(&r);
    if (t->n_site_addrs)
        qsort(t->site_addrs, t->n_site_addrs, sizeof *t->site_addrs, site_addr_cmp);
    return 0;
}

size_t trace_site_addr_at(const struct trace_file *t, uint64_t id)
{
    size_t lo = 0, hi = t->n_site_addrs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->site_addrs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The text of a target's error number (Linux's; an ABI may number
 * some of them otherwise: arch_ops.host_errno). */
static const char *target_error_text(const struct trace_file *t, uint32_t err)
{
    const struct arch_ops *a = arch_by_trace_arch(t->header.arch);
    if (a && a->host_errno)
        err = a->host_errno(err);
    return err && err < 134 ? strerror((int)err) : NULL;
}

char *trace_stop_text(const struct trace_file *t)
{
    if (!t->stop_why)
        return NULL;
    if (t->stop_why == LITIFUT_STOP_SNAPSHOT)
        return xasprintf("recording frozen at %.6f s by a snapshot: nothing after it is in the "
                         "trace", (double)t->stop_ns / 1e9);
    char cap[128];
    if (t->stop_why == LITIFUT_STOP_TOTAL)
        snprintf(cap, sizeof cap, "the run's traces reached LITIFUT_MAX_TOTAL (%" PRIu32 " KB)",
                 t->header.max_total_kb);
    else
        snprintf(cap, sizeof cap, "the trace file reached LITIFUT_MAX_SIZE (%" PRIu32 " KB)",
                 t->header.max_size_kb);
    const char *what = t->stop_why == LITIFUT_STOP_SIZE || t->stop_why == LITIFUT_STOP_TOTAL ? cap
                       : t->stop_why == LITIFUT_STOP_EXTEND ? "the trace file could not grow"
                       : t->stop_why == LITIFUT_STOP_MAP   ? "a chunk could not be mapped"
                       : t->stop_why == LITIFUT_STOP_REPLACED
                           ? "the trace file was removed or replaced" : "an unknown failure";
    const char *err = target_error_text(t, t->stop_errno);
    char num[32] = "";
    if (!err && t->stop_errno)
        snprintf(num, sizeof num, "error %" PRIu32, t->stop_errno);
    size_t len = 0;
    char tids[96] = "";
    for (size_t i = 0; i < t->n_stopped_tids && len + 16 < sizeof tids; i++)
        len += (size_t)snprintf(tids + len, sizeof tids - len, "%s%" PRIu32, i ? ", " : "",
                                t->stopped_tids[i]);
    if (t->n_stopped_tids > 0 && len + 16 >= sizeof tids)
        snprintf(tids + len, sizeof tids - len, ", ...");
    return xasprintf("recording stopped for good at %.6f s: %s%s%s; nothing after it is in "
                     "the trace (found by thread%s %s)", (double)t->stop_ns / 1e9, what,
                     err || *num ? ": " : "", err ? err : num,
                     t->n_stopped_tids == 1 ? "" : "s", t->n_stopped_tids ? tids : "none");
}

static char *bytes_text(uint64_t b)
{
    return b >= 1u << 20 ? xasprintf("%.1f MB", (double)b / (1 << 20))
           : b >= 1u << 10 ? xasprintf("%.1f KB", (double)b / (1 << 10))
           : xasprintf("%" PRIu64 " bytes", b);
}

char *trace_snapshot_text(const struct trace_file *t)
{
    const struct litifut_trace_header *h = &t->header;
    if (!h->snapshot)
        return NULL;
    const char *why = h->snapshot == LITIFUT_SNAPSHOT_EXIT       ? "the process exited"
                      : h->snapshot == LITIFUT_SNAPSHOT_FATAL    ? "a fatal signal"
                      : h->snapshot == LITIFUT_SNAPSHOT_SIGNAL   ? "LITIFUT_SNAPSHOT_SIGNAL"
                      : h->snapshot == LITIFUT_SNAPSHOT_CONTROL  ? "the control file"
                      : h->snapshot == LITIFUT_SNAPSHOT_FUNCTION ? "a call of LITIFUT_SNAPSHOT_AT"
                                                                 : "an unknown cause";
    char sig[48] = "";
    const struct arch_ops *a = arch_by_trace_arch(h->arch);     /* (its numbering) */
    const char *name = a && a->signal_names && h->snapshot_arg < 32
                           ? a->signal_names[h->snapshot_arg] : NULL;
    if (name)
        snprintf(sig, sizeof sig, " (SIG%s)", name);
    else if (h->snapshot_arg)
        snprintf(sig, sizeof sig, " (signal %" PRIu32 ")", h->snapshot_arg);
    uint64_t ns = h->snapshot_ns > h->start_ns ? h->snapshot_ns - h->start_ns : 0;
    return xasprintf("%s%s at %.6f s", why, sig, (double)ns / 1e9);
}

char *trace_history_text(const struct trace_file *t)
{
    const struct litifut_trace_header *h = &t->header;
    char *lost = NULL, *dropped = NULL;
    if ((h->flags & LITIFUT_TRACE_RING) && (h->overwritten_chunks || t->chunks_before)) {
        char *size = bytes_text(h->ring_size), *over = bytes_text(h->overwritten_bytes);
        size_t open = 0;
        for (size_t i = 0; i < t->n_threads; i++)
            open += t->threads[i].n_open_ra != 0;
        lost = xasprintf("a ring of %s: %" PRIu64 " older chunk%s (%s) overwritten; each thread "
                         "starts at its oldest whole chunk (%zu inside open calls)", size,
                         h->overwritten_chunks, h->overwritten_chunks == 1 ? "" : "s", over, open);
        free(size);
        free(over);
    }
    if (h->streamed && (h->dropped_chunks || t->chunks_missing)) {
        char *b = bytes_text(h->dropped_bytes);
        dropped = xasprintf("received from litifut-agent, which dropped %" PRIu64 " chunk%s (%s) "
                            "the link could not carry; %" PRIu64 " missing inside threads",
                            h->dropped_chunks, h->dropped_chunks == 1 ? "" : "s", b,
                            t->chunks_missing);
        free(b);
    }
    char *signals = NULL;
    if (h->signals_unrecorded == 1)
        signals = xstrdup("1 signal delivery not recorded, nor its handler's calls "
                          "(it came while the tracer worked for its thread)");
    else if (h->signals_unrecorded)
        signals = xasprintf("%" PRIu32 " signal deliveries not recorded, nor their handler's "
                            "calls (they came while the tracer worked for their thread)",
                            h->signals_unrecorded);
    char *text = NULL;
    char *parts[3] = { lost, dropped, signals };
    for (int i = 0; i < 3; i++) {
        if (!parts[i])
            continue;
        char *more = text ? xasprintf("%s; %s", text, parts[i]) : xstrdup(parts[i]);
        free(text);
        free(parts[i]);
        text = more;
    }
    return text;
}

/* The header's bytes of the trace at `path` (a regular file only: a
 * FIFO is never waited on; gzip'ed or not), if it has that many and
 * the magic. */
static int header_bytes(const char *path, unsigned char h[sizeof(struct litifut_trace_header)])
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    int regular = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    ssize_t got = !regular ? -1
                : gz_magic(fd) ? gz_read_prefix(fd, h, sizeof(struct litifut_trace_header))
                : pread(fd, h, sizeof(struct litifut_trace_header), 0);
    if (fd >= 0)
        close(fd);
    return got == (ssize_t)sizeof(struct litifut_trace_header) &&
           memcmp(h, LITIFUT_TRACE_MAGIC, 8) == 0 ? 0 : -1;
}

int trace_peek(const char *path, struct trace_peek *out)
{
    unsigned char h[sizeof(struct litifut_trace_header)];
    memset(out, 0, sizeof *out);
    if (header_bytes(path, h) != 0)
        return -1;
    uint8_t endian = h[offsetof(struct litifut_trace_header, endian)];
    if (endian != LITIFUT_BIG_ENDIAN && endian != LITIFUT_LITTLE_ENDIAN)
        return -1;
    struct trace_file t = { .path = (char *)path };
    struct reader r = { .data = h, .size = sizeof h, .big = endian == LITIFUT_BIG_ENDIAN, .t = &t };
    struct litifut_trace_header hd;
    decode_header(&r, &hd);
    if (hd.version < 5 || hd.version > LITIFUT_TRACE_VERSION || hd.pid == 0 || hd.pid > PID_MAX_LIMIT)
        return -1;
    const char *why;
    out->pid = hd.pid;
    out->start_ns = hd.start_ns;
    out->fork = fork_of(&hd, &why);     /* (trace_open says what is wrong) */
    return 0;
}

int trace_peek_mode(const char *path)
{
    unsigned char h[sizeof(struct litifut_trace_header)];
    if (header_bytes(path, h) != 0)
        return -1;
    return h[offsetof(struct litifut_trace_header, mode)];
}

void trace_free(struct trace_file *t)
{
    free(t->site_addrs);
    free(t->chunks);
    free(t->stopped_tids);
    free(t->frozen);
    free(t->states);
    free(t->pairs);
    for (size_t i = 0; i < t->n_threads; i++) {
        free(t->threads[i].chunks);
        free(t->threads[i].open_ra);
    }
    free(t->threads);
    for (size_t i = 0; i < t->n_objects; i++)
        free(t->objects[i].path);
    free(t->objects);
    for (size_t i = 0; i < t->n_skips; i++)
        free(t->skips[i].text);
    free(t->skips);
    free(t->with_sites);
    free(t->path);
    free(t->maps_path);
    if (t->fd >= 0)
        close(t->fd);
    memset(t, 0, sizeof *t);
    t->fd = -1;
}

/* --- cursors --- */

void trace_cursor_open(struct trace_cursor *c, struct trace_file *t, size_t thread)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->th = &t->threads[thread];
    c->buf = xmalloc(t->header.chunk_size);
    c->cap_ev = t->header.chunk_size / 4;
    c->ev = xmalloc(c->cap_ev * sizeof *c->ev);
    c->end_ns = UINT64_MAX;
    if (t->header.stopped == LITIFUT_STOP_SNAPSHOT && t->stop_why == LITIFUT_STOP_SNAPSHOT) {
        c->end_ns = t->stop_ns;         /* (no FROZEN record: cut at the freeze's time) */
        for (size_t k = 0; k < t->n_frozen; k++)
            if (t->frozen[k].tid == c->th->tid)
                c->end_ns = UINT64_MAX;
    }
}

void trace_cursor_track(struct trace_cursor *c)
{
    if (!c->ev_end)
        c->ev_end = xmalloc(c->cap_ev * sizeof *c->ev_end);
}

void trace_cursor_position(const struct trace_cursor *c, uint32_t *chunk, uint32_t *end_word)
{
    *chunk = c->next_chunk ? c->t->chunks[c->th->chunks[c->next_chunk - 1]].index : 0;
    *end_word = c->ev_end && c->pos ? c->ev_end[c->pos - 1] : 0;
}

void trace_cursor_close(struct trace_cursor *c)
{
    free(c->args);
    free(c->ev_end);
    free(c->buf);
    free(c->ev);
    free(c->mark_at);
    free(c->mark_ns);
    memset(c, 0, sizeof *c);
}

/* Clock MARKS: the time of the TIME record that starts the thread's
 * chunk after `k`, if there is one; else 0. */
static int next_chunk_mark(struct trace_cursor *c, size_t k, uint64_t *ns)
{
    if (k >= c->th->n_chunks)
        return 0;
    const struct trace_file *t = c->t;
    unsigned char b[36];
    uint64_t off = t->chunks[c->th->chunks[k]].off;
    if (pread(t->fd, b, sizeof b, (off_t)off) != (ssize_t)sizeof b)
        return 0;
    struct reader r = { .data = b, .size = sizeof b, .big = t->header.endian == LITIFUT_BIG_ENDIAN,
                        .t = c->t };
    uint32_t cw = word(&r, 16);
    if (cw != LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 4) &&
        cw != LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 2))
        return 0;
    uint64_t v = dword(&r, LITIFUT_REC_PAYLOAD(cw) == 4 ? 28 : 20);
    *ns = v > t->header.start_ns ? v - t->header.start_ns : 0;
    return 1;
}

/* Clock MARKS: call times interpolated linearly between the marks
 * around them (after the chunk's last mark: the next chunk's first). */
static void interpolate(struct trace_cursor *c, struct walk *w)
{
    uint64_t next_ns;
    if (next_chunk_mark(c, c->next_chunk, &next_ns))
        add_mark(w, c->n_ev, next_ns);
    for (size_t m = 0; m + 1 < w->n_marks; m++) {
        size_t a = w->mark_at[m], b = w->mark_at[m + 1];
        uint64_t t0 = w->mark_ns[m], t1 = w->mark_ns[m + 1];
        if (b <= a || t1 <= t0)
            continue;
        for (size_t i = a; i < b && i < c->n_ev; i++)
            c->ev[i].time_ns = t0 + (t1 - t0) * (i - a) / (b - a);
    }
}

/* Reads the thread's next chunk that has events.  0 at its end. */
static int next_chunk(struct trace_cursor *c)
{
    struct reader r = { .big = c->t->header.endian == LITIFUT_BIG_ENDIAN, .t = c->t };
    while (c->next_chunk < c->th->n_chunks) {
        uint32_t pos = c->th->chunks[c->next_chunk++];
        struct walk w = { .c = c, .clock = c->clock, .index = c->t->chunks[pos].index,
                          .mark_at = c->mark_at, .mark_ns = c->mark_ns,
                          .cap_marks = c->cap_marks };
        c->n_ev = c->pos = 0;
        c->n_args = 0;
        if (load_chunk(&r, c->buf, pos, &w.whole) && chunk_header_ok(&r, w.index))
            walk_chunk(&r, &w);
        for (size_t i = 0; i < c->n_ev; i++)  /* (the words are where they stay now) */
            c->ev[i].args = c->ev[i].args_n ? c->args + c->ev[i].args_at : NULL;
        if (c->t->header.clock == LITIFUT_CLOCK_MARKS)
            interpolate(c, &w);
        c->clock = w.clock;
        c->mark_at = w.mark_at;
        c->mark_ns = w.mark_ns;
        c->cap_marks = w.cap_marks;
        if (c->n_ev)
            return 1;
    }
    return 0;
}

const struct trace_event *trace_cursor_next(struct trace_cursor *c)
{
    if (c->pos == c->n_ev && !next_chunk(c))
        return NULL;
    if (c->ev[c->pos].time_ns > c->end_ns)
        return NULL;
    return &c->ev[c->pos++];
}
