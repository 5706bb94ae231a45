/* Reading a raw trace file (include/litifut/trace-format.h). */
#ifndef LITIFUT_POSTPROC_TRACE_H
#define LITIFUT_POSTPROC_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "litifut/trace-format.h"

struct trace_call {
    uint32_t object;            /* index into the trace's objects */
    uint32_t site;              /* index into that object's DB */
    uint32_t target;            /* runtime target, if has_target (indirect call) */
    uint8_t has_target;
    uint64_t time_ns;           /* since the trace started; see trace_read_records() */
};

struct trace_thread {
    uint32_t tid;
    uint32_t first_chunk;
    struct trace_call *calls;
    size_t n_calls;
};

/* An instrumented object, from its OBJECT record (host byte order,
 * checked).  Its site ids are [base, base + n_sites). */
struct trace_object {
    uint32_t base, n_sites;
    uint32_t db_checksum;
    uint32_t load_bias;         /* runtime - link-time */
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

struct trace_file {
    char *path;
    char *maps_path;                    /* <base>.maps */
    struct litifut_trace_header header; /* in host byte order, checked */
    struct trace_object *objects;       /* by base, ranges disjoint */
    size_t n_objects;
    struct trace_thread *threads;       /* ordered by first chunk */
    size_t n_threads;
    size_t n_calls;
    uint64_t record_bytes;              /* chunk headers, calls and control records */
    /* between trace_open() and trace_read_records(): the file's bytes */
    unsigned char *data;
    size_t size;
    unsigned warned;                    /* kinds of problem already warned about */
};

/* Reads `path` (a regular file only), checks its header and collects
 * the OBJECT records of every chunk (they may come after the calls
 * that use them).  A header the records cannot be read with (magic,
 * byte order, version, arch, word size, header or chunk size, program
 * path) is one error line and -1; a doubtful pid is one warning.  A bad
 * OBJECT record (path without its NUL or with control characters, a
 * site range a record cannot name), and every record of a site range
 * that overlaps another, is skipped with one warning per kind; a
 * build-id length beyond its field or a load bias off a page boundary
 * is one warning (the build-id is then ignored). */
int trace_open(const char *path, struct trace_file *t);
/* Reads every whole record, each checked against the file and against
 * the objects (their `usable` and `db_sites` set by the caller).
 * Damage gives one warning per kind of problem and the rest is read: a
 * bad chunk header skips the chunk, a call record whose site id no
 * object has, or beyond its object's DB, is skipped, any other bad
 * record ends its chunk, a truncated file keeps every whole record.
 * Call times are interpolated between the time marks. */
void trace_read_records(struct trace_file *t);
void trace_free(struct trace_file *t);

#endif
