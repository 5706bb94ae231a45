/*
 * Internal interface of the tracer module (stub/): record.c holds the
 * per-call path, tracefile.c the process-wide trace file.
 */
#ifndef LITIFUT_STUB_TRACER_H
#define LITIFUT_STUB_TRACER_H

#include <stdint.h>
#include "tracer-arch.h"

#define HIDDEN __attribute__((visibility("hidden")))

enum thread_state { THREAD_NEW = 0, THREAD_ON, THREAD_OFF };

/*
 * `busy` says whether a call made by this thread now may be recorded:
 *   0            yes;
 *   BUSY_OFF     never (tracing off, or the trace file failed);
 *   BUSY_SPAWN   the thread called vfork or clone: a child may be
 *                running on this very state (vfork shares memory), so
 *                each call compares the pid with spawn_pid and records
 *                only in the parent, which clears the mark once back
 *                above spawn_sp;
 *   otherwise    the address of the tracer frame working for this
 *                thread: a call made meanwhile (by the tracer itself,
 *                or by a signal handler that interrupted it) runs
 *                untraced, unless that frame was abandoned (a handler
 *                left with siglongjmp): see busy_abandoned() in record.c.
 */
#define BUSY_OFF   ((uintptr_t)-1)
#define BUSY_SPAWN ((uintptr_t)-2)

/*
 * Per-thread recording state, in TLS (or in early_thread before the C
 * library has set up TLS).  Records go to [cur, lim); reaching lim
 * enters the slow path (time mark due, chunk full, or thread not
 * started yet).  Every field is consistent at every instruction
 * boundary, so a tracer frame abandoned anywhere leaves state a later
 * call can use.
 */
struct litifut_thread {
    volatile uintptr_t busy;
    uint32_t state;             /* enum thread_state */
    uint32_t *cur;
    uint32_t *lim;
    uint32_t *chunk;            /* mapping of the current chunk */
    uint32_t *chunk_end;
    uint32_t *prev_chunk;       /* unmapped one chunk later (see refill) */
    uint32_t tid;
    uint32_t spawn_pid;         /* with BUSY_SPAWN: who called vfork/clone */
    uintptr_t spawn_sp;         /* ... with this stack pointer */
};

/* Marks t busy for the slow-path work of one tracer function (whose
 * frame address `frame` is); returns the previous mark, to restore. */
static inline uintptr_t busy_enter(struct litifut_thread *t, uintptr_t frame)
{
    uintptr_t old = t->busy;
    t->busy = frame;
    __asm__ volatile("" ::: "memory");
    return old;
}

static inline void busy_leave(struct litifut_thread *t, uintptr_t old)
{
    __asm__ volatile("" ::: "memory");
    t->busy = old;
}

#define FRAME_ADDRESS() ((uintptr_t)__builtin_frame_address(0))

/* A chunk claimed for a thread: mapped, header written. */
struct chunk {
    uint32_t *base;
    uint32_t *end;
};

/* tracefile.c */
HIDDEN int tracefile_start(void);               /* 1: tracing on */
HIDDEN void tracefile_block_signals(uint32_t *saved);   /* saved: SIGSET_WORDS */
HIDDEN void tracefile_restore_signals(const uint32_t *saved);
/* Called with every signal blocked (record.c's next_chunk). */
HIDDEN int tracefile_new_chunk(uint32_t tid, struct chunk *out);
HIDDEN void tracefile_drop_chunk(uint32_t *base);
HIDDEN uint32_t tracefile_time_every(void);

/* record.c */
HIDDEN uintptr_t program_load_bias(void);
HIDDEN struct litifut_thread *current_thread(void);
HIDDEN void thread_put_time_mark(struct litifut_thread *t);
HIDDEN void thread_forget(struct litifut_thread *t);

/* Kernel signal sets: 64 signals on ARM, 128 on MIPS. */
#define SIGSET_WORDS (ARCH_NSIG / 32)

#define TIME_MARK_WORDS 3u
#define CALL_MAX_WORDS  2u
#define PATH_SIZE       600

/* settings.c: from the environment */
struct settings {
    int off;                    /* LITIFUT_TRACE=0 */
    int dir_too_long;           /* LITIFUT_DIR does not fit: no trace */
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

/* fileid.c: which file a descriptor is (device and inode), for telling
 * whether a path still names the file we created; 0 on success. */
struct file_id {
    uint64_t dev, ino;
};
HIDDEN int file_id_of(int fd, struct file_id *out);

#endif
