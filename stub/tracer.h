/*
 * Internal interface of the tracer module (stub/): record.c holds the
 * per-call path, tracefile.c the process-wide trace file.
 */
#ifndef LITIFUT_STUB_TRACER_H
#define LITIFUT_STUB_TRACER_H

#include <stdint.h>

#define HIDDEN __attribute__((visibility("hidden")))

enum thread_state { THREAD_NEW = 0, THREAD_ON, THREAD_OFF };

/*
 * Per-thread recording state, in TLS (or in early_thread before the C
 * library has set up TLS).  `busy` is set while this thread is inside
 * the tracer: a call made meanwhile (by the tracer's own work or by a
 * signal handler that interrupted it) runs untraced.  Records go to
 * [cur, lim); reaching lim enters the slow path (time mark due, chunk
 * full, or thread not started yet).
 */
struct litifut_thread {
    volatile uint32_t busy;
    uint32_t state;             /* enum thread_state */
    uint32_t *cur;
    uint32_t *lim;
    uint32_t *chunk;            /* mapping of the current chunk */
    uint32_t *chunk_end;
    uint32_t tid;
};

/* A chunk claimed for a thread: mapped, header written. */
struct chunk {
    uint32_t *base;
    uint32_t *end;
};

/* tracefile.c */
HIDDEN int tracefile_start(void);               /* 1: tracing on */
HIDDEN int tracefile_new_chunk(uint32_t tid, struct chunk *out);
HIDDEN void tracefile_drop_chunk(uint32_t *base);
HIDDEN uint32_t tracefile_time_every(void);

/* record.c */
HIDDEN uintptr_t program_load_bias(void);
HIDDEN struct litifut_thread *current_thread(void);
HIDDEN void thread_put_time_mark(struct litifut_thread *t);
HIDDEN void thread_forget(struct litifut_thread *t);

#define TIME_MARK_WORDS 3u
#define CALL_MAX_WORDS  2u
#define PATH_SIZE       600

/* settings.c: from the environment */
struct settings {
    int off;                    /* LITIFUT_TRACE=0 */
    uint32_t chunk_kb;
    uint32_t time_every;
    char dir[PATH_SIZE - 64];   /* absolute */
};
HIDDEN void read_settings(struct settings *st);

/* procfs.c */
#define PROC_FILE_MAX (256 * 1024ul)
/* A small /proc file, read whole into fresh memory (NUL-terminated;
 * free it with free_proc_file); NULL if it cannot be read. */
HIDDEN char *read_proc_file(const char *path, unsigned long *len);
HIDDEN void free_proc_file(char *buf);
/* The file this tracer's code was mapped from (/proc/self/maps): the
 * program, also when ld.so was run explicitly (then /proc/self/exe
 * names ld.so).  0 if it cannot tell. */
HIDDEN int own_path(char *out, unsigned long size);
/* What /proc/self/fd says descriptor fd is; 0 if it cannot tell. */
HIDDEN int fd_path(int fd, char *out, unsigned long size);

#endif
