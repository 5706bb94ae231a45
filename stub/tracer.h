/*
 * Internal interface of the tracer module (stub/).  One copy of the
 * module is linked into every instrumented object (the executable and
 * each library); the copies of one process share one trace through the
 * process block (process.c).  One file per job, calls going one way
 * (down this list; checked by reading, function by function):
 *   events.c     constructors, destructors, fork, and the program's
 *                signal handlers (__wrap_sigaction and kin, the entry the
 *                kernel runs in their place): the entries from the C
 *                library and the kernel (and arch/mips/bridge.c's
 *                constructors, which join this object to the run-time
 *                bridges)
 *   entries.c    the program's functions the C library calls back (a
 *                thread's start routine, qsort's comparator, an exit
 *                handler): __wrap_pthread_create and kin, the entries
 *                they give in their place
 *   arch/<arch>/unwind.c  the entries from unwinders: the return
 *                trampoline's personality routine, __wrap_backtrace
 *   call.c       the per-call path's C half: the slow path, the hot
 *                path's refill (litifut_refill); a signal delivery's
 *                records (entry_enter, entry_leave: signals, thread starts)
 *   returns.c    exact returns: hooks, shadow stack, the trampolines' C
 *                half
 *   pairs.c      LITIFUT_MODE dedup and count
 *   copyout.c    LITIFUT_COPY_TO's and a ring's fatal-signal handlers,
 *                LITIFUT_SNAPSHOT_SIGNAL's, the copy at exit
 *   control.c    what turns recording on and off: LITIFUT_SIGNAL, the
 *                control file, function triggers, the state at start,
 *                and the snapshots the last two ask for;
 *                and a refill with what comes due at one (control_refill:
 *                the budget's charge, the control file's poll)
 *   budget.c     ... and LITIFUT_BUDGET's pauses
 *   recording.c  the recording switch those flip, and its STATE records
 *   thread.c     the per-thread state and the one layer that writes a
 *                thread's records: TLS slot, chunks (and their CHUNK
 *                records), call and return times (event_time), time
 *                marks; OBJECT records (a ring's and the modes' into the
 *                process's own chunk)
 *   copy.c       this copy: registration, its page table, sled modes
 *                (arch/<arch>/sleds.c, and on MIPS bridge.c's entries,
 *                which sleds.c points at the mode's code)
 *   tracefile.c  the trace file: header, chunks (a ring's slots), the
 *                process's own chunk, maps copy, snapshots, the copy to
 *                LITIFUT_COPY_TO
 *   process.c    the process block: lock, objects, thread pool.  It
 *                reaches each live copy's sleds through the function
 *                pointer the copy registered (copy_set_recording): the
 *                one call that goes up, as another object's copy can be
 *                reached no other way.
 * and helpers every file may use, which call none of the above:
 * settings.c, procfs.c, fileid.c, elfsym.c (a loaded object's dynamic
 * symbols), skip.c (LITIFUT_EXCLUDE_CALLEE at run time: the object's
 * call sites put back; copy.c calls it), sys.h, text.h.
 */
#ifndef LITIFUT_STUB_TRACER_H
#define LITIFUT_STUB_TRACER_H

#include <stddef.h>
#include <stdint.h>
#include "tracer-arch.h"
#include "layout.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* The data model: ILP32 (ARM, MIPS) or LP64 (AArch64).  Trace records
 * stay 32-bit words; a run-time address in them takes WORD_WORDS words,
 * low first (trace-format.h "Word size"). */
#if UINTPTR_MAX > 0xffffffffu
#define TRACER_LP64 1
#else
#define TRACER_LP64 0
#endif
#define WORD_WORDS ((unsigned)sizeof(uintptr_t) / 4)
/* The ELF structures of this data model (process.c, control.c,
 * elfsym.c read their own objects'): ELF(Ehdr) is Elf32_Ehdr or
 * Elf64_Ehdr. */
#if TRACER_LP64
#define ELF(type) Elf64_##type
#else
#define ELF(type) Elf32_##type
#endif

/* A run-time address into the trace at p (WORD_WORDS words); the word after. */
static inline uint32_t *put_address(uint32_t *p, uintptr_t a)
{
    *p++ = (uint32_t)a;
#if TRACER_LP64
    *p++ = (uint32_t)((uint64_t)a >> 32);
#endif
    return p;
}

/* One more in a counter other threads (and signal handlers) count in
 * too. */
static inline void count_up(volatile uint32_t *p)
{
    uint32_t n;
    do
        n = *p;
    while (!arch_cmpxchg(p, n, n + 1));
}

/* Compare-and-swap of a pointer-sized word (the kernel's 32-bit one on
 * ILP32). */
static inline int cmpxchg_ptr(volatile uintptr_t *p, uintptr_t oldval, uintptr_t newval)
{
#if TRACER_LP64
    return arch_cmpxchg_ptr(p, oldval, newval);
#else
    return arch_cmpxchg((volatile uint32_t *)p, (uint32_t)oldval, (uint32_t)newval);
#endif
}

/* The modes' pair entry (trace-format.h): struct litifut_pair64 with an
 * 8-byte word. */
#if TRACER_LP64
typedef struct litifut_pair64 pair_entry;
#else
typedef struct litifut_pair pair_entry;
#endif

/* This object's instruction DB (include/litifut/db-format.h), generated
 * by the rewriter: header, pages, sites. */
extern const uint32_t litifut_db[] HIDDEN;
static inline const struct litifut_db_header *db_header(void)
{
    return (const struct litifut_db_header *)litifut_db;
}
static inline const uint32_t *db_pages(void)
{
    return litifut_db + LITIFUT_DB_HEADER_WORDS;
}
static inline const uint32_t *db_sites(void)
{
    return db_pages() + db_header()->n_pages;
}

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
 *   BUSY_UNHOOKED the thread is inside backtrace() (arch/<arch>/unwind.c,
 *                returns.c): its calls are recorded but not hooked, so
 *                that the unwinder meets no trampoline in the frames of
 *                the C library's backtrace (traced in a static program);
 *                a call or return from above spawn_sp (the wrapper's
 *                frame, which a handler's siglongjmp left) clears it;
 *   otherwise    the address of the tracer frame working for this
 *                thread: a call made meanwhile (by the tracer itself,
 *                or by a signal handler that interrupted it) runs
 *                untraced, unless that frame was abandoned (a handler
 *                left with siglongjmp): see busy_abandoned() in call.c.
 */
#define BUSY_OFF   ((uintptr_t)-1)
#define BUSY_SPAWN ((uintptr_t)-2)
#define BUSY_UNHOOKED ((uintptr_t)-3)

/*
 * Per-thread recording state, one per thread for the whole process,
 * shared by every copy of the tracer: in the process block's pool (each
 * copy finds it through a TLS pointer of its own, set on the thread's
 * first call through that copy), or in early_thread before the C
 * library has set up TLS.  Records go to [cur, lim); reaching lim
 * enters the slow path (time mark due, chunk full, or thread not
 * started yet).  Every field is consistent at every instruction
 * boundary, so a tracer frame abandoned anywhere leaves state a later
 * call can use.
 */
/* A thread's shadow stack (returns.c): 512 KB of address space, doubled
 * while full up to 32 MB (a recursion 4 M calls deep), after a ring of
 * frames closed early. */
#define SHADOW_ENTRIES     (1u << 16)
#define SHADOW_ENTRIES_MAX (1u << 22)
#define SET_ASIDE_ENTRIES  (1u << 14)
struct shadow_entry {
    uintptr_t sp;               /* the stack pointer at the call */
    uintptr_t ra;               /* the real return address (0: a call not hooked) */
};                              /* (in this order: ARM's hot path stores both with one stm) */

struct litifut_thread {
    volatile uintptr_t busy;    /* the hot path reads busy, cur, lim (layout.h) */
    uint32_t *cur;
    uint32_t *lim;              /* cur < lim: room for a call (2 words) */
    uint32_t time_last;         /* the clock at the last event, in units (trace-format.h) */
#if TRACER_LP64
    uint32_t counter_shift;     /* the process's time_shift, for the counter hot paths
                                   (beside time_last: one load); set with each TIME record */
#endif
    uint32_t state;             /* enum thread_state */
    uint32_t *chunk;            /* mapping of the current chunk */
    uint32_t *chunk_end;        /* its records' end: STOP_RESERVE words before the chunk's */
    uint32_t *prev_chunk;       /* unmapped one chunk later (see refill) */
    uint32_t tid;               /* 0: a free entry of the process's pool */
    uintptr_t tp;               /* the thread pointer of the thread using it */
    uint32_t spawn_pid;         /* with BUSY_SPAWN: who called vfork/clone */
    uintptr_t spawn_sp;         /* ... with this stack pointer (BUSY_UNHOOKED: the frame
                                   of the backtrace() wrapper) */
    uint32_t timespec[2];       /* the ARM hot path's clock_gettime result */
    /* LITIFUT_RETURNS: the hooked calls (returns.c), shadow[1] up to
     * shadow_top (shadow[0] is a sentinel whose sp is above any: the hot
     * paths read the top entry without testing for none); all NULL
     * until the thread's first hooked call.  Top and end side by side
     * (layout.h: ARM loads both with one ldrd). */
    struct shadow_entry *shadow_top;    /* the next entry free */
    struct shadow_entry *shadow_end;    /* ... the first past the mapping */
    uint32_t *budget_from;      /* LITIFUT_BUDGET: cur when the records were last charged */
    uint32_t *prev_chunk_end;   /* (chunks differ in size) */
    uint32_t next_size;         /* bytes of its next chunk: they double from a page */
    uint32_t *stale, *stale_end;    /* a fork child's: what was its parent's chunk, now
                                       private memory (unmapped with prev_chunk) */
    struct shadow_entry *shadow;    /* the shadow stack (entry 0: the sentinel), in a
                                       mapping that starts SET_ASIDE_ENTRIES before */
    uint32_t set_aside;         /* entries ever set aside (returns.c): the ring's next is this mod */
    uint32_t ring_slot, ring_prev;  /* LITIFUT_MODE=ring: the slots (tracefile.c, from 1;
                                       0: none) of its chunk and the one before, which no
                                       thread may take over yet */
    uint32_t chunk_seq;         /* chunks it has had (the CHUNK record's number) */
    uint64_t words_before;      /* ... the words they used (the CHUNK record's) */
    uintptr_t callback;         /* the comparator of the innermost qsort or bsearch the
                                   thread is in (entries.c) */
    struct args_marks *args_marks;  /* LITIFUT_ARGS: the open calls whose return value
                                       it records (args.c), or NULL */
    uint32_t pad[(THREAD_CACHE - THREAD_HEAD) / 4];
    /* the last target recorded (tag 1) per cache entry, in this chunk */
    uintptr_t cache[LITIFUT_TARGET_CACHE];
} __attribute__((aligned(8)));      /* (ARM loads shadow_top and _end with one ldrd) */
/* The shadow stack's whole mapping (returns.c makes and grows it; the
 * pool unmaps it with its thread: process.c). */
static inline void *shadow_mapping(const struct litifut_thread *t)
{
    return t->shadow - SET_ASIDE_ENTRIES;
}
static inline unsigned long shadow_mapping_bytes(const struct litifut_thread *t)
{
    return (unsigned long)(SET_ASIDE_ENTRIES + (t->shadow_end - t->shadow)) *
           sizeof(struct shadow_entry);
}
_Static_assert(offsetof(struct litifut_thread, busy) == THREAD_BUSY, "layout.h");
_Static_assert(offsetof(struct litifut_thread, cur) == THREAD_CUR, "layout.h");
_Static_assert(offsetof(struct litifut_thread, lim) == THREAD_LIM, "layout.h");
_Static_assert(offsetof(struct litifut_thread, time_last) == THREAD_TIME, "layout.h");
_Static_assert(offsetof(struct litifut_thread, timespec) == THREAD_TIMESPEC, "layout.h");
_Static_assert(offsetof(struct litifut_thread, shadow_top) == THREAD_SHADOW_TOP, "layout.h");
_Static_assert(offsetof(struct litifut_thread, shadow_end) == THREAD_SHADOW_TOP + sizeof(uintptr_t),
               "layout.h");
_Static_assert(offsetof(struct litifut_thread, args_marks) + sizeof(uintptr_t) == THREAD_HEAD,
               "layout.h");
#if TRACER_LP64
_Static_assert(offsetof(struct litifut_thread, counter_shift) == THREAD_SHIFT, "layout.h");
#endif
_Static_assert(offsetof(struct litifut_thread, cache) == THREAD_CACHE, "layout.h");

/* This copy's thread-local words (layout.h): the thread's state, and
 * copies of this copy's record delta and page table base, so that the
 * hot path finds all three with one load. */
struct tls_slot {
    struct litifut_thread *t;
    uint32_t rec_delta;         /* record word = rec_delta + (&site word << 8) */
    uintptr_t pages;            /* &page entry of page P = pages + P * sizeof(uintptr_t) */
    uint32_t rec_delta_cached;  /* rec_delta | LITIFUT_REC_CALL_CACHED */
};
_Static_assert(offsetof(struct tls_slot, t) == TLS_THREAD, "layout.h");
_Static_assert(offsetof(struct tls_slot, rec_delta) == TLS_REC_DELTA, "layout.h");
_Static_assert(offsetof(struct tls_slot, pages) == TLS_PAGES, "layout.h");
_Static_assert(offsetof(struct tls_slot, rec_delta_cached) == TLS_REC_DELTA_REG, "layout.h");

/*
 * This copy's TLS slot (thread.c).  An executable's copy uses local-exec
 * TLS (no relocation needed); a library's must use initial-exec (its
 * offset is in the GOT, relocated by the dynamic linker), so a library's
 * copy records nothing before its constructor has run.
 */
#ifdef LITIFUT_SHARED
#define TLS_MODEL "initial-exec"
#define SLOT_OFFSET() ARCH_TPOFF_IE(litifut_tls_slot)
#else
#define TLS_MODEL "local-exec"
#define SLOT_OFFSET() ARCH_TPOFF(litifut_tls_slot)
#endif
HIDDEN extern __thread struct tls_slot litifut_tls_slot __attribute__((tls_model(TLS_MODEL)));

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
    /* in, a ring's thread chunk: the thread's slot word, set to the new
     * chunk's slot under the tracer's lock (no other thread may take it
     * over from then on), and the slot it holds now */
    uint32_t *ring_hold;
    uint32_t ring_held;
};

/* A copy of /proc/self/maps' worth of per-object facts, kept in the
 * process block for every object registered, so that a new trace (a
 * fork child's) can describe every object loaded. */
struct object_entry {
    uint32_t live;              /* not unloaded */
    void (*set_recording)(int on);  /* its copy's copy_set_recording (control.c) */
    uint32_t ended;             /* its destructor has run (copyout.c) */
    pair_entry **site_pairs;    /* modes dedup, count: its copy's (pairs.c) */
    uint32_t emitted;           /* its OBJECT record is in the current trace */
    uint32_t words;             /* payload words of its OBJECT record */
    struct litifut_object_record rec;
#if TRACER_LP64
    uint32_t load_bias_hi;      /* the OBJECT record's high half of load_bias */
#endif
    char path[LITIFUT_OBJECT_PATH_MAX];
    /* LITIFUT_EXCLUDE_CALLEE at run time (skip.c): its SKIPPED record */
    uint32_t skip_words;        /* the payload's words (0: none) */
    uint32_t skip_emitted;      /* ... it is in the current trace */
    uint32_t skip[3 + LITIFUT_SKIP_TEXT_MAX / 4];
};

/* Thread states come in pages of the process's pool. */
#define POOL_PAGE 16384u
struct pool_page {
    struct pool_page *next;
    struct litifut_thread t[(POOL_PAGE - 8) / sizeof(struct litifut_thread)];
};

enum trace_state { TRACE_NEW = 0, TRACE_ON, TRACE_OFF };

/* Kernel signal sets: 64 signals on ARM, 128 on MIPS. */
#define SIGSET_WORDS (ARCH_NSIG / 32)

#define PATH_SIZE       600
#define TRIGGER_SNAPSHOT 2u         /* triggers[].stop: LITIFUT_SNAPSHOT_AT's (0 start, 1 stop) */
#define MAX_TRIGGERS    16          /* functions LITIFUT_START_AT/STOP_AT name (all objects) */

/* settings.c: from the environment */
#define SKIP_RULES_MAX 1024         /* LITIFUT_EXCLUDE_CALLEE's bytes, with the NUL */
#define SKIP_MAX_RULES 64           /* ... its rules (an @FILE's lines included) */
struct settings {
    int off;                    /* LITIFUT_TRACE=0 */
    int dir_too_long;           /* LITIFUT_DIR does not fit: no trace */
    uint32_t chunk_kb;
    uint32_t time_every;
    uint32_t clock;             /* LITIFUT_CLOCK: a LITIFUT_CLOCK_* (0: not set) */
    int returns;                /* LITIFUT_RETURNS (default 1; never with a LITIFUT_MODE but full) */
    int returns_set;            /* ... given in the environment */
    int returns_ignored;        /* ... set to 1, with such a mode */
    int copy_to_too_long;       /* LITIFUT_COPY_TO does not fit: no copy */
    int toggle_signal;          /* LITIFUT_SIGNAL: 0, or the signal that toggles recording */
    int record_off;             /* LITIFUT_RECORD=off */
    char start_at[128], stop_at[128];   /* LITIFUT_START_AT, LITIFUT_STOP_AT ("": none) */
    uint32_t mode;              /* LITIFUT_MODE: a LITIFUT_MODE_* */
    uint32_t budget_us, period_us;  /* LITIFUT_BUDGET=B/T (0: none) */
    int mode_set;               /* LITIFUT_MODE given */
    int ring;                   /* LITIFUT_MODE=ring (mode is then LITIFUT_MODE_FULL) */
    uint32_t ring_kb;           /* ... LITIFUT_RING: the ring's size (0: no ring) */
    int ring_ignored;           /* LITIFUT_RING set, with LITIFUT_MODE dedup or count */
    char snapshot_at[128];      /* LITIFUT_SNAPSHOT_AT ("": none) */
    int snapshot_signal;        /* LITIFUT_SNAPSHOT_SIGNAL: 0, or the signal */
    int bad;                    /* the first setting with a value it does not take
                                   (enum bad_setting, 0: none): no trace */
    int budget_ignored;         /* ... set, with a LITIFUT_MODE but full */
    char dir[PATH_SIZE - 64];   /* absolute */
    char copy_to[PATH_SIZE - 64];   /* LITIFUT_COPY_TO, absolute ("": none) */
    char control[PATH_SIZE - 64];   /* LITIFUT_CONTROL, absolute ("": none) */
    int control_too_long;
    uint32_t max_size_kb;       /* LITIFUT_MAX_SIZE: the trace file's cap (0: none) */
    uint32_t max_total_kb;      /* LITIFUT_MAX_TOTAL: the run's traces' cap (0: none) */
    char exclude_callee[SKIP_RULES_MAX];    /* LITIFUT_EXCLUDE_CALLEE ("": none; skip.c) */
    char args[SKIP_RULES_MAX];  /* LITIFUT_ARGS ("": none; args.c) */
};
enum bad_setting { BAD_TRACE = 1, BAD_CHUNK_KB, BAD_TIME_EVERY, BAD_CLOCK, BAD_RETURNS,
                   BAD_RECORD, BAD_SIGNAL, BAD_MODE, BAD_BUDGET, BAD_START_AT, BAD_STOP_AT,
                   BAD_RING, BAD_SNAPSHOT_AT, BAD_SNAPSHOT_SIGNAL, BAD_SNAPSHOT_SAME,
                   BAD_DIR, BAD_MAX_SIZE, BAD_MAX_TOTAL, BAD_EXCLUDE_CALLEE, BAD_ARGS,
                   BAD_ARGS_MODE };
HIDDEN void read_settings(struct settings *st);
/* NULL, or "LITIFUT_X: expected ..." for the first bad setting. */
HIDDEN const char *settings_problem(const struct settings *st);

/* procfs.c: the process's file-like objects */
struct file_id {
    uint64_t dev, ino;
    uint64_t size;
    uint32_t uid, mode;
};

/*
 * What the program installed for one signal (events.c's __wrap_sigaction
 * and kin), one per signal in the process block: the kernel holds the
 * tracer's entry in its place, so that deliveries are recorded, but the
 * program must see its own action.  `kind` says what the kernel holds:
 *   SIGNAL_RAW     the program's action itself (SIG_DFL, SIG_IGN, or one
 *                  installed where the tracer does not look): answers
 *                  come from the kernel as they are;
 *   SIGNAL_ENTRY   `entry` (a copy's signal entry, SA_SIGINFO added),
 *                  standing for `handler` with the program's `flags`;
 *   SIGNAL_RESET   SIG_DFL, after a delivery with SA_RESETHAND (the
 *                  kernel reset it; the flags are still the entry's);
 *   SIGNAL_TRACER  `entry`, a handler of the tracer's own (copyout.c,
 *                  control.c), standing for the default action that was
 *                  there before it.
 * Written with the caller's signals blocked, field by field: another
 * thread's concurrent sigaction of the same signal may see a mix (as
 * it would race in the kernel anyway).
 */
enum signal_kind { SIGNAL_RAW = 0, SIGNAL_ENTRY, SIGNAL_RESET, SIGNAL_TRACER };
struct signal_slot {
    volatile uintptr_t handler;     /* the program's (SIGNAL_ENTRY) */
    volatile uintptr_t entry;       /* what the kernel holds (SIGNAL_ENTRY, _TRACER) */
    volatile uint32_t flags;        /* the program's sa_flags */
    volatile uint32_t kind;         /* enum signal_kind */
};

/*
 * The process block: everything the copies of the tracer in one
 * process share.  Anonymous memory that no object owns, so unloading
 * any object (the first copy's included) loses nothing.  The copies
 * find it through the exported pointer litifut_process (the dynamic
 * linker binds every copy's reference to one definition); a copy built
 * with another layout does not join (PROCESS_LAYOUT).
 */
#define PROCESS_MAGIC  0x5250544cu  /* "LTPR" */
#define PROCESS_LAYOUT 12u          /* bump with any change below or in litifut_thread */
struct litifut_process {
    uint32_t magic, layout, size;
    volatile uint32_t lock;     /* owner's tid; taken with every signal blocked */
    uint32_t pid;               /* whose block this is (a fork child resets it) */
    volatile uint32_t unrecorded;   /* calls not recorded while recording was off
                                       (the paused path's; layout.h) */
    /* the trace file */
    uint32_t trace;             /* enum trace_state */
    uint32_t settings_read;
    int fd;                     /* the trace file, while header is mapped */
    uint32_t chunk_size;
    uint32_t time_every;
    uint32_t clock;             /* LITIFUT_CLOCK_*, decided once (tracefile_clock) */
    uint32_t time_shift;        /* a unit of the thread clocks is 2^time_shift ticks */
    uint64_t counter_hz;        /* the counter's rate (0: not known yet) */
    uint64_t counter_at[2];     /* a first reading: counter, CLOCK_MONOTONIC ns */
    uint32_t next_chunk;        /* the next chunk's index */
    uint64_t next_off;          /* ... and where in the file it goes */
    uint32_t page;              /* the system's page size: the header's */
    uint64_t file_size;
    uint32_t stop_why, stop_errno;  /* recording stopped for good (trace-format.h) */
    /* LITIFUT_MAX_TOTAL: the run's count of trace bytes, shared by every
     * process of the run (tracefile.c: LITIFUT_TOTAL_FILE, mapped; a fork
     * child keeps the parent's mapping) */
    volatile uint32_t *total;   /* its count of 512-byte units (NULL: no cap) */
    /* LITIFUT_MODE=ring (tracefile.c): every thread chunk is ring_chunk
     * bytes, in one of the ring's slots, taken over oldest first */
    uint32_t ring_chunk;        /* 0: no ring */
    uint32_t ring_want;         /* the slots the ring's size holds */
    uint32_t ring_n, ring_hand; /* slots made; the next one to take over */
    uint64_t *ring_off;         /* each slot's offset in the file (RING_MAX_SLOTS) */
    uint32_t snapshot;          /* LITIFUT_SNAPSHOT_*: the ring is frozen (or the process ended) */
    uint32_t fork_from[4];      /* a fork child's parent: pid, tid, chunk, words */
    struct litifut_trace_header *header;
    char base[PATH_SIZE];       /* dir/litifut.<pid>[.<n>], absolute */
    char path[PATH_SIZE + 16];  /* the trace file (absolute) */
    struct file_id id;          /* ... and which file that is */
    /* fork: the handlers of every copy run; the first and last act */
    uint32_t fork_depth;
    uintptr_t fork_busy;
    uint32_t fork_sigmask[SIGSET_WORDS];
    /* objects */
    uint32_t next_base;         /* site id for the next object registered */
    uint32_t n_objects, cap_objects, objects_pending;
    struct object_entry *objects;
    /* thread states */
    struct pool_page *pool;
    uint32_t bridges;           /* MIPS: 256 MB regions with a run-time bridge */
    uint32_t copyout_signals;   /* copyout.c: its handlers are installed */
    /* control.c: recording on and off */
    volatile uint32_t recording_off;    /* the slow path records nothing: user_off
                                           or budget_paused */
    uint32_t user_off;                  /* off by LITIFUT_RECORD, _SIGNAL, _CONTROL, triggers */
    uint32_t control_started;
    uint32_t *events_cur, *events_end;  /* the process's own chunk (thread id 0) */
    uint32_t n_triggers;                /* LITIFUT_START_AT, LITIFUT_STOP_AT: functions */
    uint64_t control_seen[3];           /* LITIFUT_CONTROL: the file's inode, size, mtime
                                           as last read */
    uint32_t control_polls;
    struct { uintptr_t addr; uint32_t stop; } triggers[MAX_TRIGGERS];
    /* budget.c: LITIFUT_BUDGET */
    uint32_t budget_units;              /* B, in units of 16 ns (0: no budget) */
    uint32_t budget_paused;             /* this period's budget is spent */
    uint32_t budget_emitted;            /* the BUDGET record is in the current trace */
    uint32_t word_cost;                 /* the estimated cost of a recorded word, ns/1024 */
    uint32_t clock_cost;                /* ... of a clock read, ns */
    volatile uint32_t spent;            /* this period's tracer time, units of 16 ns */
    volatile uint64_t period_end;       /* CLOCK_MONOTONIC ns; written under the lock */
    uint64_t period_ns;
    /* pairs.c: LITIFUT_MODE dedup and count */
    uint32_t mode;                      /* LITIFUT_MODE_*, decided when the trace opens */
    pair_entry *pairs_cur, *pairs_end;  /* the current chunk of pairs */
    uintptr_t *volatile pair_table;     /* word 0 its size (a power of 2), then pair pointers */
    uint32_t n_pairs;
    pair_entry no_pair;                 /* what a site's pointer names before its first call */
    /* Buffers for code that runs under the lock; here, not on the
     * stack, so that the tracer's stack stays small (it may run in a
     * signal handler on a small alternate stack). */
    char io[4096];
    char scratch[2][PATH_SIZE + 16];
    char msg[PATH_SIZE + 128];
    struct settings settings;
    /* events.c: the program's signal actions (index: the signal) */
    struct signal_slot signals[ARCH_NSIG + 1];
    volatile uint32_t recording_changes;    /* recording.c: recording_off flipped (a
                                               SIGNAL_END is written only if it did not
                                               meanwhile) */
};

/* This copy: its object and its process. */
enum copy_state { COPY_NEW = 0, COPY_READY = COPY_READY_VALUE, COPY_OFF };
struct copy {
    volatile uint32_t state;    /* enum copy_state */
    uintptr_t tls_offset;       /* a library's: its TLS slot's offset from the
                                   thread pointer, once READY (the hot path's) */
    uint32_t base;              /* site id of this object's DB site 0 */
    uint32_t rec_delta;         /* struct tls_slot's, set before READY */
    volatile uintptr_t pages;   /* struct tls_slot's: into a copy of the page
                                   table holding addresses (copy.c), 0 until made */
    volatile uintptr_t pair_delta;  /* modes dedup, count: &site_pairs[i] - &sites[i]
                                       * WORD_WORDS (pairs.c: the pointers are words,
                                       the sites 32 bits)
                                       (pairs.c), 0 until made */
    struct litifut_process *proc;
    int ctor_done;              /* our constructor has run (libc is usable) */
    int returns;                /* LITIFUT_RETURNS: 1 hook calls, 0 not, -1 not known yet */
    int atfork_done;
    int mode;                   /* LITIFUT_MODE_*, -1 until known (call.c) */
    int in_fork;                /* its prepare handler took part in the fork now
                                   under way (events.c; the lock holder's) */
    const uint8_t *skipped;     /* LITIFUT_EXCLUDE_CALLEE: a bit per DB site put back to
                                   a plain call (skip.c), or NULL */
    const struct args_site *args;   /* LITIFUT_ARGS: the selected sites by return
                                       address (args.c), n_args of them */
    uint32_t n_args;
};
HIDDEN extern struct copy litifut_copy;
_Static_assert(offsetof(struct copy, tls_offset) == COPY_TLS_OFFSET, "layout.h");
_Static_assert(offsetof(struct copy, pages) == COPY_PAGES, "layout.h");
_Static_assert(offsetof(struct copy, pair_delta) == COPY_PAIR_DELTA, "layout.h");
_Static_assert(offsetof(struct copy, proc) == COPY_PROC, "layout.h");
_Static_assert(offsetof(struct litifut_process, unrecorded) == PROCESS_UNRECORDED, "layout.h");
_Static_assert(offsetof(struct litifut_pair, target) == LITIFUT_PAIR_TARGET, "trace-format.h");
_Static_assert(offsetof(struct litifut_pair, count) == LITIFUT_PAIR_COUNT, "trace-format.h");
_Static_assert(offsetof(pair_entry, target) == PAIR_TARGET && offsetof(pair_entry, count) == PAIR_COUNT &&
               offsetof(pair_entry, next) == PAIR_NEXT, "layout.h");

/* process.c */
HIDDEN int copy_register(void);     /* 1: litifut_copy.state is COPY_READY */
/* This copy's SKIPPED record (skip.c's result) into its object entry,
 * for the trace (and each fork child's).  Under the lock. */
struct skip_result;
HIDDEN void object_set_skipped(const struct skip_result *r);
HIDDEN void process_block_signals(uint32_t *saved);   /* saved: SIGSET_WORDS */
HIDDEN void process_restore_signals(const uint32_t *saved);
HIDDEN void lock(uint32_t *saved_mask);
HIDDEN int lock_unless_mine(uint32_t *saved_mask);   /* 0: this thread holds it */
HIDDEN void unlock(const uint32_t *saved_mask);
HIDDEN void lock_signals_blocked(void);
HIDDEN void unlock_signals_blocked(void);
/* The pool entry of the thread (tid, tp), made if new; NULL if none can
 * be made.  Called under the lock. */
HIDDEN struct litifut_thread *pool_thread(uint32_t tid, uintptr_t tp);
/* In a fork child: every thread state but the calling thread's (the one
 * with thread pointer tp) freed, its own emptied for a new trace;
 * returns it (NULL if it has none).  Called under the lock. */
HIDDEN struct litifut_thread *pool_after_fork_child(uintptr_t tp);
HIDDEN void process_unmap_chunk(uint32_t *base, uint32_t *end);
/* Every live copy's sleds: recording (on), paused or, once the trace
 * has stopped for good, off (each copy's copy_set_recording).  Under
 * the lock. */
HIDDEN void objects_set_recording(int on);
HIDDEN void pool_mark_due(void);        /* under the lock */
/* Threads with a chunk (for the room of their FROZEN records: a look
 * without the lock may miss a thread just starting) */
HIDDEN uint32_t pool_threads(void);
/* A frozen trace: each thread's FROZEN record at p, as many as fit
 * before end; returns where the next goes.  Under the lock. */
HIDDEN uint32_t *pool_frozen(uint32_t *p, uint32_t *end);
HIDDEN int pool_slot_held(uint32_t slot);   /* a thread holds this ring slot; under the lock */
HIDDEN void objects_after_fork_child(void);
/* Copies the next object record not yet in the trace to `to` if it
 * fits in `room` words; returns the words written, 0 if none is
 * pending, -1 if it does not fit.  Called under the lock. */
HIDDEN long object_take_pending(uint32_t *to, uint32_t room);
HIDDEN void object_unloaded(uint32_t base);
/* The object's destructor has run: 1 if it was the last loaded one's. */
HIDDEN int objects_end(uint32_t base);

/* tracefile.c */
HIDDEN int tracefile_start(void);               /* 1: tracing on */
HIDDEN int tracefile_disabled(void);            /* 1: this process records nothing */
HIDDEN const struct settings *tracefile_settings(void);     /* read once, from any copy */
/* A new chunk of at least `size` bytes (LITIFUT_MIN_CHUNK times a power
 * of 2, at most chunk_size) for thread `tid`; 0 if the trace file
 * failed (recording has stopped for good: header, warning, every copy's
 * sleds off).  Called with every signal blocked. */
HIDDEN int tracefile_new_chunk(uint32_t tid, uint32_t size, struct chunk *out);
/* write() to a file of the tracer's: a file size limit never sends
 * SIGXFSZ to the program.  Every signal blocked. */
HIDDEN long tracefile_write(int fd, const void *buf, unsigned long n);
HIDDEN uint32_t tracefile_time_every(void);
/* Whether calls are hooked for exact returns (LITIFUT_RETURNS=1). */
HIDDEN int tracefile_returns(void);
/* returns.c */
HIDDEN int returns_hookable(uintptr_t target);
HIDDEN uint32_t *returns_before_call(struct litifut_thread *t, uint32_t *p, uintptr_t sp_call,
                                     uintptr_t target);
HIDDEN uint32_t *returns_before_jump(struct litifut_thread *t, uint32_t *p, uintptr_t sp_jump);
HIDDEN void returns_hook(struct litifut_thread *t, uintptr_t *ra_slot, uintptr_t sp_call);  /* ra_slot NULL: not hookable */
HIDDEN uint32_t *returns_put(struct litifut_thread *t, uint32_t *p);
/* A signal handler returned to the entry that pushed the signal's entry
 * (sp, no return address): the entries above it popped (their RETURN
 * words at p, if p is not NULL), then its own, without a record.
 * Returns p as it moved. */
HIDDEN uint32_t *returns_signal_end(struct litifut_thread *t, uint32_t *p, uintptr_t sp);
/* A function that returns twice (vfork) called through a hot path that
 * hooked it: its entry becomes a call not hooked, and the real return
 * address is returned (`ra` if it is no trampoline of this copy). */
HIDDEN uintptr_t returns_unhook(struct litifut_thread *t, uintptr_t ra);
/* The real return address of the thread's hooked call made with stack
 * pointer sp, 0 if none (for unwinders). */
HIDDEN uintptr_t returns_real_address(uintptr_t sp);
/* Whether ra is one of this copy's return trampolines (the C one, the
 * hot paths'); the C one, which LITIFUT_ARGS' return values take. */
HIDDEN int returns_is_trampoline(uintptr_t ra);
extern const char litifut_return_trampoline[] HIDDEN;
/* A forced unwinding (pthread_exit, cancellation) leaves the hooked call
 * made with stack pointer sp: its RETURN and those inside it, now (the
 * trampoline's personality routine, after returns_real_address). */
HIDDEN void returns_forced_unwind(uintptr_t sp);
/* The unwinder's function `name` where a weak reference cannot see it
 * (glibc's private libgcc_s), NULL if none. */
HIDDEN void *returns_unwinder_function(const char *name);
/* backtrace() through the tracer's __wrap_backtrace (arch/<arch>/):
 * the frames the program would see kept of the n in buf. */
HIDDEN int returns_backtrace_filter(void **buf, int n, uintptr_t lo, uintptr_t hi);
/* ... the thread's calls recorded but not hooked (BUSY_UNHOOKED) from
 * the wrapper's `frame` on, if they are recorded at all (busy 0): 1 if
 * so, for returns_unhooked_end. */
HIDDEN int returns_unhooked_begin(struct litifut_thread *t, uintptr_t frame);
HIDDEN void returns_unhooked_end(struct litifut_thread *t, int marked);
/* Whether busy (t's, BUSY_UNHOOKED) is left: a call or return from
 * stack pointer sp above the wrapper's frame. */
HIDDEN int returns_unhooked_left(const struct litifut_thread *t, uintptr_t sp);
/* elfsym.c: the address of symbol `name` of a loaded object (mapped at
 * base, these program headers) from its dynamic symbol table, 0 if
 * none; ... of the first loaded object whose file name starts with
 * `object` (dl_iterate_phdr). */
HIDDEN uintptr_t elf_symbol(uintptr_t base, const void *phdrs, unsigned phnum, const char *name);
HIDDEN uintptr_t loaded_symbol(const char *object, const char *name);
/* call.c: was the tracer frame that marked a thread busy at `busy`
 * abandoned, now that it enters the tracer from stack pointer caller_sp? */
HIDDEN int busy_abandoned(uintptr_t busy, uintptr_t caller_sp);
/* call.c: a signal delivered to this thread (events.c's entry), its
 * handler at `fn` about to run (type LITIFUT_REC_SIGNAL, how the
 * signal's number), or a thread's start routine (LITIFUT_REC_ENTRY,
 * LITIFUT_ENTRY_THREAD), called from the entry whose frame is at `sp`:
 * the record (and with exact returns a shadow stack entry for it), if
 * the thread records now; then, once the function has returned, its
 * END record.  `m` carries what the second needs. */
struct signal_mark {
    struct litifut_thread *t;   /* NULL: nothing was recorded */
    uintptr_t sp;
    uint32_t end_type;          /* LITIFUT_REC_SIGNAL_END or LITIFUT_REC_ENTRY_END */
    uintptr_t busy_after;       /* what busy was, and goes back to */
    uint32_t changes;           /* the process's recording_changes then */
    int hooked;                 /* a shadow stack entry was pushed */
};
HIDDEN void entry_enter(struct signal_mark *m, uint32_t type, uint32_t how, uintptr_t fn,
                        uintptr_t sp, uintptr_t *ra_slot);
HIDDEN void entry_leave(const struct signal_mark *m);
/* The clock of every event (LITIFUT_CLOCK_*), decided on first use. */
HIDDEN uint32_t tracefile_clock(void);
/* Now, on that clock: its ticks, and in units of the thread clocks. */
HIDDEN uint64_t clock_ticks(uint32_t *units);
/* A counter of unknown rate: its rate into the header, once known. */
HIDDEN void tracefile_measure_counter(void);
HIDDEN void tracefile_copy_maps(void);          /* under the lock */
HIDDEN int tracefile_events_room(uint32_t words);  /* the process's own chunk */
HIDDEN void tracefile_copy_out(void);           /* LITIFUT_COPY_TO, now; under the lock */
HIDDEN void tracefile_snapshot(uint32_t why, uint32_t arg);   /* under the lock */
HIDDEN void tracefile_freeze(uint32_t why, uint32_t arg);   /* takes the lock */
HIDDEN void tracefile_after_fork_child(void);
HIDDEN void warn(const char *what, const char *path, long err);   /* under the lock */
/* One line: "litifut: WHAT PATH: ERROR" and `tail`.  Under the lock. */
HIDDEN void say(const char *what, const char *path, long err, const char *tail);
/* control.c (LITIFUT_SIGNAL, LITIFUT_RECORD) */
HIDDEN void control_start(void);                /* from a constructor */
HIDDEN void control_at_end(void);   /* from the last object's destructor, under the lock */
/* The slow path, while there are function triggers: before it records
 * a call to `target` (LITIFUT_START_AT) and after (LITIFUT_STOP_AT). */
HIDDEN void control_before_call(uintptr_t target);
HIDDEN void control_after_call(uintptr_t target);
/* LITIFUT_CONTROL: reads the control file at every `every`-th call of
 * this (a power of 2), turning recording on or off if what it says
 * changed. */
HIDDEN void control_poll(uint32_t every);
HIDDEN void control_after_fork_child(void);     /* once the child's lock is free */
/* One of the tracer's own signal handlers installed (SA_RESTART unless
 * `fatal`), through the C library's real sigaction: if the action was
 * the default, only then when `only_if_default`, and the program, if it
 * asks, still sees the default (struct signal_slot's SIGNAL_TRACER).
 * From a constructor. */
HIDDEN void control_own_signal(int sig, void (*handler)(int), int only_if_default, int fatal);
/* thread_refill, and what comes due at a refill: the budget's charge,
 * the control file's poll.  Where the next record goes, or NULL. */
HIDDEN uint32_t *control_refill(struct litifut_thread *t);
/* budget.c (LITIFUT_BUDGET) */
HIDDEN void budget_start(void);         /* from control_start, once */
/* A refill's: the time at its start (0: no budget) and the records
 * since the last one charged (*words); at its end the refill's time
 * and those records charged. */
HIDDEN uint64_t budget_refill_start(const struct litifut_thread *t, uint32_t *words);
HIDDEN void budget_refill_end(struct litifut_thread *t, uint32_t words, uint64_t start);
HIDDEN void budget_poll(void);          /* paused: a new period resumes */
/* recording.c: recording on or off for `why` (a LITIFUT_STATE_*): the
 * user's state, or the budget's pause (LITIFUT_STATE_BY_BUDGET); it
 * records only if neither is off.  Blocks signals itself; lock not
 * held. */
HIDDEN void recording_set(int on, uint32_t why);
/* A fork child whose recording is off: its STATE record at its start. */
HIDDEN void recording_mark_start(void);
/* A TIME and a STATE record for `why`, if there is room.  Under the lock. */
HIDDEN void recording_put_state(uint32_t why);
/* Room for `words` in the process's own chunk (thread id 0; a new one
 * if not); 0 if there is no trace.  Lock not held; blocks signals. */
/* arch/<arch>/stub.S: `rounds` rounds of a recorded call's instructions
 * on `scratch` (8 words: its own address, 0, 0, 0, 0, 0, 1, 0) */
HIDDEN void litifut_calibrate(uint32_t rounds, uint32_t *scratch);
/* copy.c: this copy's sleds to the hot path (on) or the "off" code */
HIDDEN void copy_set_recording(int on);
/* pairs.c (LITIFUT_MODE dedup and count) */
HIDDEN void pairs_prepare(void);        /* this copy's site pointers, once READY */
/* A call of the modes: its pair found or made, and counted. */
HIDDEN void pairs_call(uint32_t index, uint32_t site, uintptr_t target);
HIDDEN void pairs_after_fork_child(void);       /* under the lock */
/* copyout.c (LITIFUT_COPY_TO) */
HIDDEN void copyout_at_end(void);       /* from the last object's destructor, under the lock */
HIDDEN void copyout_catch_signals(void);        /* from a constructor */
/* One line, "litifut: BEFORE0x<addr>AFTER", then the process dies by
 * SIGABRT: the tracer cannot go on correctly. */
HIDDEN void die_at(const char *before, uintptr_t addr, const char *after)
    __attribute__((noreturn));

/* arch/<arch>/sleds.c: where this copy's sleds send calls: the slow
 * path (as linked), the hot path, or the code that only finds the
 * target; 0 if they cannot be changed. */
/* ON_CLOCK, ON_COUNTER: the hot paths that read the monotonic clock or
 * the counter per call (ARM); an architecture without them leaves such
 * calls to the slow path. */
/* DEDUP, COUNT: the paths of those modes (pairs.c), which need no
 * thread state. */
/* PAUSED: recording off while tracing: the "off" code that also counts
 * the call (process block's `unrecorded`) and every 4096th goes to the
 * slow path (control_poll). */
/* ON_RET*: the hot paths that also hook the call (LITIFUT_RETURNS),
 * per clock; an architecture without them leaves such calls to the
 * slow path. */
enum sleds_mode { SLEDS_START, SLEDS_ON, SLEDS_OFF, SLEDS_ON_CLOCK, SLEDS_ON_COUNTER,
                  SLEDS_DEDUP, SLEDS_COUNT, SLEDS_PAUSED,
                  SLEDS_ON_RET, SLEDS_ON_RET_CLOCK, SLEDS_ON_RET_COUNTER };
HIDDEN int arch_sleds_select(enum sleds_mode mode);

/* Runtime minus link-time address of this object's code. */
extern const char litifut_sled[] HIDDEN;
static inline uintptr_t object_load_bias(void)
{
    return (uintptr_t)litifut_sled - db_header()->sled_vaddr;
}

/* copy.c */
HIDDEN int copy_start(void);        /* registers this copy; 1: READY */
HIDDEN void copy_sleds_ready(void); /* from its constructor */

/* thread.c */
/* The calling thread's state as this copy sees it; attaches it if this
 * is its first call through this copy.  May return the static "off"
 * state (busy = BUSY_OFF), never NULL. */
HIDDEN struct litifut_thread *thread_self(void);
HIDDEN int thread_is_real(const struct litifut_thread *t);
/* Whether thread t is a vfork (or CLONE_VM) child running on its
 * parent's memory: the process block is the parent's then. */
HIDDEN int spawn_child(const struct litifut_thread *t);
/* Whether this copy's __wrap_ functions act now (else their calls go
 * straight to the C library): the copy ready (a library's constructor
 * has run), the process traced (not LITIFUT_TRACE=0, no failed start),
 * the caller no vfork child. */
HIDDEN int copy_wraps_now(void);
/* A TIME record at t's cur, which becomes its last event; returns the
 * record's ns (CLOCK_MONOTONIC). */
HIDDEN uint64_t thread_put_time_mark(struct litifut_thread *t);
/* A TIME record at p (TIME_MARK_WORDS at most); returns the word after
 * it.  *units: now, in units of the thread clocks; *ns (if not NULL):
 * the record's CLOCK_MONOTONIC time. */
HIDDEN uint32_t *put_time_record(uint32_t *p, uint32_t *units, uint64_t *ns);
/* Appends a control record (type, n payload words) to t's chunks. */
HIDDEN void thread_events_control(uint32_t type, const uint32_t *payload, uint32_t n);
HIDDEN void thread_events_objects(void);    /* OBJECT records to the process's chunk */
HIDDEN void thread_emit_objects(struct litifut_thread *t);
/* Where the next record goes (a time mark or a new chunk made first),
 * or NULL if this thread records no more (then BUSY_OFF for good). */
HIDDEN uint32_t *thread_refill(struct litifut_thread *t);
HIDDEN uint32_t *thread_room(struct litifut_thread *t, uint32_t words);   /* args.c's records */
/* The time since t's last event, for a record at p (an ADVANCE
 * word or a TIME record first if it does not fit).  Returns where the
 * record goes, NULL if t records no more. */
HIDDEN uint32_t *event_time(struct litifut_thread *t, uint32_t *p, uint32_t *delta);
HIDDEN void thread_cache_clear(struct litifut_thread *t);

#define TIME_MARK_WORDS 5u          /* at most (clock marks: 3) */
/* Each thread chunk keeps room at its end for the TIME and STOPPED
 * records that say the thread records no more (thread.c). */
#define STOP_RESERVE    (TIME_MARK_WORDS + 3u)
#define CALL_MAX_WORDS  (1u + WORD_WORDS)  /* a tag 1 call and its target */

/* aside.c: the tracer's own memory, mapped where the program's
 * mappings do not go (sys_mmap's result: check with sys_mmap_failed) */
HIDDEN void *map_aside(unsigned long len, int prot, int flags, int fd, uint64_t off);

/* skip.c: LITIFUT_EXCLUDE_CALLEE at run time, for the object at `path`
 * (this copy's); *skipped: a bit per DB site it put back (NULL: none). */
struct skip_result {
    uint32_t sites;             /* call sites put back */
    uint32_t status;            /* LITIFUT_SKIP_* */
    char text[LITIFUT_SKIP_TEXT_MAX];   /* "rule count" lines */
};
HIDDEN void skip_callees(const char *path, const char *rules, struct skip_result *r,
                         uint8_t **skipped);
/* ... its reader of the call-site table, which args.c shares: the table
 * of the object file mapped at f (n bytes), checked against the file and
 * the loaded DB (LITIFUT_SKIP_DONE, or why not); and fnmatch(3)'s globs. */
struct litifut_callsites_header;
struct callsites_view {
    const struct litifut_callsites_header *h;
    const struct litifut_callsite_callee *callee;
    const struct litifut_callsite *site;
    const char *names;
    const void *ph;             /* the file's program headers (ELF(Phdr)) */
    unsigned phnum;
};
HIDDEN uint32_t callsites_find(const unsigned char *f, unsigned long n, struct callsites_view *v);
/* The object file at `path` mapped read-only (its *size bytes; unmap
 * it), or NULL if it cannot be read. */
HIDDEN const unsigned char *map_object_file(const char *path, unsigned long *size);
HIDDEN int glob_match(const char *pattern, const char *s);

/* args.c: LITIFUT_ARGS, what selected calls are given and give back.
 * args_spec_problem: NULL if `spec` reads (settings.c), else what is
 * wrong.  args_start: once per copy, under the lock: the object at
 * `path`'s selected calls routed to the slow path (a problem: one line
 * on stderr).  litifut_slow hands on the calls args_site_at finds. */
#define ARGS_K4 0xffffffffu         /* the "4k" of the args entry (arch/<arch>/) */
#define ARGS_RECORD_MAX 512u        /* words of one ARGS record, at most: each chunk keeps
                                       them after its last call (thread.c); a chunk is a
                                       page or more */
struct args_site;
HIDDEN const char *args_spec_problem(const char *spec);
HIDDEN void args_start(const char *path, const char *spec);
HIDDEN const struct args_site *args_site_at(uintptr_t ra);
HIDDEN uintptr_t args_target(const struct args_site *a, uintptr_t target);
HIDDEN uintptr_t args_call(struct arch_frame *frame);
HIDDEN void args_after_call(struct litifut_thread *t, struct arch_frame *frame,
                            const struct args_site *a, uintptr_t sp_call);
HIDDEN uint32_t *args_on_return(struct litifut_thread *t, uint32_t *p, uintptr_t sp_call,
                                uintptr_t sp_ret);

/* procfs.c */
#define PROC_FILE_MAX (256 * 1024ul)
/* A small /proc file, read whole into fresh memory (NUL-terminated;
 * free it with free_proc_file); NULL if it cannot be read. */
HIDDEN char *read_proc_file(const char *path, unsigned long *len);
HIDDEN void free_proc_file(char *buf);
/* The value of an AT_* entry of /proc/self/auxv (0: none). */
HIDDEN uint32_t auxv_value(uint32_t type);
/* The file this tracer's code was mapped from (/proc/self/maps): this
 * object's file (for the executable also when ld.so was run explicitly,
 * where /proc/self/exe names ld.so).  0 if it cannot tell. */
HIDDEN int own_path(char *out, unsigned long size);
/* What /proc/self/fd says descriptor fd is; 0 if it cannot tell. */
HIDDEN int fd_path(int fd, char *out, unsigned long size);

/* fileid.c: which file a descriptor is (device and inode), for telling
 * whether a path still names the file we created; 0 on success. */
HIDDEN int file_id_of(int fd, struct file_id *out);

#endif
