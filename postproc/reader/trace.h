/* Reading a raw trace file (include/litifut/trace-format.h).  Records
 * are 32-bit words whatever the target; the run-time addresses in them
 * (call targets, load biases, return addresses, pair targets) are of
 * header.word_size (4 or 8) and held here in 64 bits. */
#ifndef LITIFUT_POSTPROC_TRACE_H
#define LITIFUT_POSTPROC_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "litifut/trace-format.h"

/*
 * One event of a thread, as a cursor (below) hands it out.  Times are
 * ns since the trace's start (header.start_ns), from the clock the
 * header names: exact per event, or interpolated between time marks
 * (clock "marks").
 */
enum trace_event_kind {
    TRACE_CALL,                 /* a traced call: object, site, target */
    TRACE_RETURN,               /* the thread's innermost open traced call returned
                                   (exact return mode; traces without them have none) */
    TRACE_SIGNAL,               /* a signal handler entered: site is the signal's number
                                   (0: not known), target the handler (runtime) */
    TRACE_SIGNAL_END,           /* the innermost signal handler returned */
    TRACE_ENTRY,                /* a function entered by no traced call: site is how
                                   (LITIFUT_ENTRY_*), target the function (runtime) */
    TRACE_ENTRY_END,            /* the innermost entry returned */
};

struct trace_event {
    uint8_t kind;               /* enum trace_event_kind */
    uint8_t has_target;         /* TRACE_CALL through a register: target is its runtime target */
    uint32_t object;            /* TRACE_CALL: index into the trace's objects */
    uint32_t site;              /* index into that object's DB */
    uint64_t target;            /* runtime (of the trace's word size) */
    uint64_t time_ns;
    uint64_t own_ns;            /* the tracer's own time since the thread's event before
                                   (OWN_TIME records: a new chunk), in no function's */
    /* LITIFUT_ARGS: a TRACE_CALL's arguments, a TRACE_RETURN's return
     * value (the ARGS record after it, checked: postproc/reader/args.h),
     * args_n words (0: none) valid until the cursor's next chunk */
    const uint32_t *args;
    uint32_t args_n, args_at;
};

/* What of a 64-bit number is a run-time address of a trace whose
 * header.word_size is `word_size`: a link-time address plus a load
 * bias wraps there, as the target's addresses do. */
static inline uint64_t trace_address_mask(unsigned word_size)
{
    return word_size == 8 ? UINT64_MAX : UINT32_MAX;
}

/* Kept for the views that still take one call at a time. */
#define trace_call trace_event

/* A chunk of the file: where, its bytes, its index (ascending), its
 * thread (as its header says) and, in a frozen trace, the bytes of it
 * that are part of the trace (0: none; UINT32_MAX: all). */
struct trace_chunk {
    uint64_t off;
    uint32_t size, index, tid, keep;
};

/* A frozen trace's FROZEN record: thread tid's records end at word
 * `words` of its chunk `index`. */
struct trace_frozen {
    uint32_t tid, index, words;
};

/* A thread: its chunks, read one at a time through a cursor. */
struct trace_thread {
    uint32_t tid;
    uint32_t first_chunk;       /* (positions in trace_file.chunks) */
    uint32_t first_index;       /* ... that chunk's index (threads are ordered by it) */
    uint32_t *chunks;           /* its chunks' positions, by index */
    size_t n_chunks;
    uint64_t n_calls;           /* call records (also ones a cursor will skip as bad) */
    /* What the trace does not hold of the thread (its chunks' CHUNK
     * records say; all 0 in traces without them): */
    uint32_t chunks_before;     /* chunks before its first (a ring overwrote them) */
    uint64_t words_before;      /* ... their record words */
    uint32_t chunks_missing;    /* chunks missing between its chunks (a stream dropped
                                   them; in a ring, ones before a gap are left out) */
    /* A ring's thread whose history was cut: its hooked calls open at
     * its first chunk, and the return addresses of the innermost of
     * them (runtime, outermost first), for the views' first frames. */
    uint32_t open_depth;
    uint64_t *open_ra;
    size_t n_open_ra;
    uint64_t start_ns;          /* ... the time its records start */
    uint32_t first_site;        /* ... its first event's site id if a call (else ~0u):
                                   the function running then */
};

/* An instrumented object, from its OBJECT record (host byte order,
 * checked).  Its site ids are [base, base + n_sites). */
struct trace_object {
    uint32_t base, n_sites;
    uint32_t db_checksum;
    uint64_t load_bias;         /* runtime - link-time (modulo 2^(8 * word_size)) */
    uint32_t build_id_size;     /* 0: none (or the record's length was wrong) */
    uint8_t build_id[LITIFUT_BUILD_ID_MAX];
    char *path;                 /* as mapped on the target; no control characters */
    int unloaded;               /* an UNLOAD record names it (dlclose) */
    /* Set by the caller before trace_read_records(): whether the
     * object's file is in use (if not, the caller has said why, and its
     * calls are left out without a word), and how many sites its DB
     * has (calls naming more are warned about and skipped). */
    int usable;
    uint32_t db_sites;
};

/* A state the reader makes (struct trace_state.why): recording stopped
 * for good (the trace file failed: trace_file.stop_why). */
#define TRACE_STATE_STOPPED 0x80u

/* Recording turned on or off (LITIFUT_SIGNAL, LITIFUT_RECORD). */
struct trace_state {
    uint64_t ns;                        /* since the trace's start */
    uint8_t on, why;                    /* LITIFUT_STATE_* */
    uint8_t has_count;                  /* the record has unrecorded: */
    uint32_t unrecorded;                /* calls not recorded while off, since the start */
};

/* A (site, target) pair of the modes dedup and count. */
struct trace_pair {
    uint32_t object;            /* index into the trace's objects */
    uint32_t site;              /* index into that object's DB (check it against db_sites) */
    uint64_t target;            /* runtime */
    uint32_t count;             /* count mode: its calls; dedup: 0 */
    uint64_t ns;                /* its first call, since the trace's start */
};

/* A fork child's trace: where it branched off its parent's (the
 * header's parent_* fields, checked: all 0 if it is not a fork child or
 * they cannot be right). */
struct trace_fork {
    uint32_t parent_pid;        /* 0: not a fork child (or not known) */
    uint32_t parent_tid;        /* the thread that forked (0: it had no records) */
    uint32_t chunk, words;      /* its chunk at the fork, and the words written in it */
    int point_ok;               /* the fields above can be believed */
};

/* An emulated trace's call site (LITIFUT_REC_SITE_ADDR). */
struct trace_site_addr {
    uint32_t id;
    uint64_t addr;              /* runtime, of the call instruction */
    uint8_t jump;               /* a tail jump's site (LITIFUT_SITE_ADDR_JUMP) */
};

/* LITIFUT_EXCLUDE_CALLEE at run time: what one object did (a SKIPPED
 * record). */
struct trace_skip {
    uint32_t base;              /* the object's site id base */
    uint32_t sites;             /* call sites put back to plain calls */
    uint32_t status;            /* LITIFUT_SKIP_* (0: done) */
    char *text;                 /* "rule count" lines; no control characters but '\n' */
};

/* What a trace_skip's status says, for people. */
const char *trace_skip_why(uint32_t status);

struct trace_file {
    char *path;
    char *maps_path;                    /* <base>.maps */
    struct litifut_trace_header header; /* in host byte order, checked */
    struct trace_fork fork;             /* from the header, checked */
    struct trace_object *objects;       /* by base, ranges disjoint */
    size_t n_objects;
    struct trace_thread *threads;       /* ordered by first chunk */
    size_t n_threads;
    uint64_t n_calls;                   /* call records of every thread (count mode:
                                           the pairs' counts added up) */
    uint64_t record_bytes;              /* chunk headers, calls and control records */
    uint64_t end_ns;                    /* the last time the trace gives (since start) */
    struct trace_state *states;         /* by time; none: recording was always on */
    size_t n_states, cap_states;
    uint32_t budget_us, period_us;      /* LITIFUT_BUDGET (a BUDGET record; 0: none) */
    uint32_t word_cost;                 /* ... its cost of a recorded word, ns/1024 */
    double ns_per_unit;                 /* of the thread clocks' units (0: clock MARKS) */
    struct trace_pair *pairs;           /* modes dedup, count (header.mode): by time */
    size_t n_pairs;
    struct trace_skip *skips;           /* SKIPPED records, one per object at most */
    size_t n_skips, cap_skips;
    struct trace_site_addr *site_addrs; /* an emulated trace's sites, by id */
    size_t n_site_addrs;
    struct trace_chunk *chunks;         /* every chunk found, in file order */
    size_t n_chunks;
    uint64_t chunks_before, chunks_missing; /* the threads' (trace_thread), added up */
    struct trace_frozen *frozen;        /* a frozen trace's FROZEN records */
    size_t n_frozen, cap_frozen;
    uint32_t stop_why, stop_errno;      /* recording stopped for good (LITIFUT_STOP_*;
                                           0: it did not), first at stop_ns */
    uint64_t stop_ns;                   /* (since the trace's start) */
    uint32_t *stopped_tids;             /* the threads whose STOPPED record says so */
    size_t n_stopped_tids, cap_stopped_tids;
    /* the reader's */
    int fd;
    uint64_t first_mark[2], last_mark[2];   /* TIME records (ticks, ns): earliest, latest */
    uint64_t n_time_marks;
    uint64_t own_ns, n_own;             /* OWN_TIME records: the tracer's own time, added up */
    uint64_t entries;                   /* ENTRY records */
    uint64_t size;                      /* of the file */
    size_t *with_sites;                 /* indices of the objects with sites (by base) */
    size_t n_with_sites;
    unsigned warned;                    /* kinds of problem already warned about */
};

/* Opens `path` (a regular file only), checks its header and reads
 * every chunk once: the OBJECT and UNLOAD records (they may come after
 * the calls that use them), each thread's chunks and call count.  A
 * header the records cannot be read with (magic, byte order, version,
 * arch, word size (4 or 8), header or chunk size, clock, program path) is one
 * error line and -1; a doubtful pid is one warning, and so is a fork
 * point that cannot be right (t->fork then says no point).  A bad OBJECT
 * record (path without its NUL or with control characters, a site
 * range a record cannot name), and every record of a site range that
 * overlaps another, is skipped with one warning per kind; a build-id
 * length beyond its field or a load bias off a page boundary is one
 * warning (the build-id is then ignored).  Memory: the objects and a
 * few words per chunk, never the records. */
int trace_open(const char *path, struct trace_file *t);
/* Site id `id` as (object, DB index) of a usable object; 0 if none. */
int trace_site_of(const struct trace_file *t, uint32_t id, uint32_t *object, uint32_t *site);
/* An emulated trace's SITE_ADDR records (t->site_addrs, by id): the
 * first whose id is `id` or more (t->n_site_addrs if none). */
size_t trace_site_addr_at(const struct trace_file *t, uint64_t id);
/* Whether the trace was written by litifut-emu's plugin (its objects
 * have no DB: SITE_ADDR records name their sites). */
static inline int trace_is_emulated(const struct trace_file *t)
{
    return (t->header.flags & LITIFUT_TRACE_EMULATED) != 0;
}
void trace_free(struct trace_file *t);
/* NULL if recording never stopped for good; else one line's text (to
 * free) saying when, why and which threads found out. */
char *trace_stop_text(const struct trace_file *t);
/* NULL if the trace holds every record its threads wrote; else one
 * line (to free): what a ring overwrote, what a stream dropped. */
char *trace_history_text(const struct trace_file *t);
/* NULL if the header names no snapshot; else why and when the ring's
 * records end (to free). */
char *trace_snapshot_text(const struct trace_file *t);
/* The mode (LITIFUT_MODE_*) the header of the trace at `path` names,
 * -1 if it cannot be read (trace_open says why). */
int trace_peek_mode(const char *path);
/* What the header of the trace at `path` says of its process, read
 * without a word (trace_open checks the header and says what is
 * wrong): 0, or -1 if it is not a trace of this version with a pid. */
struct trace_peek {
    uint32_t pid;
    uint64_t start_ns;
    struct trace_fork fork;
};
int trace_peek(const char *path, struct trace_peek *out);

/*
 * Reading one thread's events in order, one chunk in memory at a time.
 * Each record is checked against the file and against the objects
 * (their `usable` and `db_sites` set by the caller first): damage gives
 * one warning per trace and kind of problem and the rest is read: a
 * bad chunk header skips the chunk, a call record whose site id no
 * object has, or beyond its object's DB, is skipped, any other bad
 * record ends its chunk, a truncated file keeps every whole record.
 * Several cursors (of one thread or of several) may be open at once.
 */
struct trace_clock {
    uint64_t units;                     /* now, in units of the trace's clock */
    uint64_t mark_units;                /* at the last TIME record */
    uint64_t mark_ns;                   /* the same moment, ns since the trace's start */
    int have_mark;
};

struct trace_cursor {
    struct trace_file *t;
    const struct trace_thread *th;
    size_t next_chunk;                  /* index into th->chunks */
    unsigned char *buf;                 /* the current chunk, as in the file */
    struct trace_event *ev;             /* its events */
    size_t n_ev, pos, cap_ev;
    struct trace_clock clock;           /* carried from chunk to chunk */
    struct trace_object *last_object;   /* of the last call (most calls stay in one) */
    size_t *mark_at;                    /* clock MARKS: TIME records within the chunk */
    uint64_t *mark_ns;
    size_t cap_marks;
    uint32_t *ev_end;                   /* trace_cursor_track: where each event's record ends */
    uint32_t *args;                     /* the chunk's ARGS records' payloads (events' args) */
    size_t n_args, cap_args;
    uint64_t end_ns;                    /* a frozen trace's thread without a FROZEN record:
                                           its events end at the freeze (else UINT64_MAX) */
};
void trace_cursor_open(struct trace_cursor *c, struct trace_file *t, size_t thread);
/* The thread's next event, valid until the next call; NULL at its end. */
const struct trace_event *trace_cursor_next(struct trace_cursor *c);
/* The time of the last TIME record read so far (ns since the start; 0 if
 * none): at the thread's end, the latest time its trace gives. */
static inline uint64_t trace_cursor_mark_ns(const struct trace_cursor *c)
{
    return c->clock.have_mark ? c->clock.mark_ns : 0;
}
void trace_cursor_close(struct trace_cursor *c);
/* Keeps where each event's record ends, for trace_cursor_position
 * (before the first trace_cursor_next). */
void trace_cursor_track(struct trace_cursor *c);
/* Where the last event handed out is: its chunk's index, and the word
 * of that chunk its record ends before (its header's words counted). */
void trace_cursor_position(const struct trace_cursor *c, uint32_t *chunk, uint32_t *end_word);

#endif
