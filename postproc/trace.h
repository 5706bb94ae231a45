/* Reading a raw trace file (include/litifut/trace-format.h). */
#ifndef LITIFUT_POSTPROC_TRACE_H
#define LITIFUT_POSTPROC_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "litifut/trace-format.h"

struct trace_call {
    uint32_t site;              /* index into the program's DB */
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

struct trace_file {
    char *path;
    char *maps_path;                    /* <base>.maps */
    struct litifut_trace_header header; /* in host byte order, checked */
    struct trace_thread *threads;       /* ordered by first chunk */
    size_t n_threads;
    size_t n_calls;
    uint64_t record_bytes;              /* chunk headers, calls and time marks */
    /* between trace_open() and trace_read_records(): the file's bytes */
    unsigned char *data;
    size_t size;
    unsigned warned;                    /* kinds of problem already warned about */
};

/* Reads `path` (a regular file only) and checks its header.  A header
 * the records cannot be read with (magic, byte order, version, arch,
 * word size, header or chunk size, program path) is one error line and
 * -1; a doubtful field that does not matter for reading (build-id
 * length, pid, load bias) is one warning line. */
int trace_open(const char *path, struct trace_file *t);
/* Reads every whole record, each checked against the file and against
 * the program's `n_sites` (the program's DB, not the header, says how
 * many sites there are).  Damage gives one warning per kind of problem
 * and the rest is read: a bad chunk header skips the chunk, a call
 * record for a site the program does not have is skipped, any other
 * bad record ends its chunk, a truncated file keeps every whole record.
 * Call times are interpolated between the time marks. */
void trace_read_records(struct trace_file *t, uint32_t n_sites);
void trace_free(struct trace_file *t);

#endif
