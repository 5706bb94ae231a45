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
    uint64_t time_ns;           /* since the trace started; see trace_read() */
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
    struct litifut_trace_header header; /* in host byte order */
    struct trace_thread *threads;       /* ordered by first chunk */
    size_t n_threads;
    size_t n_calls;
    uint64_t record_bytes;              /* chunk headers, calls and time marks */
};

/* Reads every whole record of `path`.  A truncated or damaged file
 * gives one warning and what could be read; only an unusable header is
 * an error.  Call times are interpolated between the time marks. */
int trace_read(const char *path, struct trace_file *t);
void trace_free(struct trace_file *t);

#endif
