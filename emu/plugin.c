/*
 * litifut-emu.so: a QEMU user-mode TCG plugin that writes litifut's own
 * trace (include/litifut/trace-format.h) of any program QEMU runs,
 * instrumented or not: every call instruction executed, its return,
 * and each signal handler's entry and return, per thread, with the
 * thread's guest instruction count as the clock (or, clock=wall, the
 * host's CLOCK_MONOTONIC).  litifut-emu (emu/main.c) loads it; every
 * litifut-postproc view reads what it writes.
 *
 *   qemu-arm -plugin litifut-emu.so,dir=DIR[,clock=insns|wall][,returns=off]
 *            [,start_at=F][,stop_at=G][,control=FILE] -L SYSROOT PROG ARGS...
 *
 * How it sees calls.  The plugin API (version 1) gives each translated
 * block's instructions and a callback when a block runs, not registers.
 * Each block's end is decoded at translation (arch/<arch>/emu-<arch>.c):
 * a call, a return-like jump, another indirect jump, or none; when the
 * next block of the same thread runs, its address is where that end
 * went: a call's target (a conditional call that went on at its
 * fall-through was not taken), or, after a return-like jump, a return
 * if it is the return address of an open call (that call and those
 * opened after it return, innermost first); after another indirect
 * jump only the innermost open call can return so.  Landing again on
 * the return address of a call that did return, deeper than it was
 * made (setjmp after longjmp), closes the calls opened since.  A
 * call's site id names its address: ids are handed out per object (a
 * guest file mapped with execute permission) in ranges that OBJECT
 * records give, and a SITE_ADDR record gives each id's address, in the
 * process's own chunks.  Every call record carries its target (tag 1,
 * or tag 2 when it is the site's last one).
 *
 * Signals.  The rt_sigaction system calls give each signal's handler
 * (read from the guest's memory through /proc/self/mem, which fails
 * cleanly on a bad pointer).  A block that starts at a handler's
 * address when the block before it did not call there is the handler
 * entered by a delivery: a SIGNAL record (the signal's number when
 * only one signal has that handler, else 0), pushed as a frame whose
 * call the signal interrupted stays pending; rt_sigreturn (or
 * sigreturn) ends it (SIGNAL_END) and the pending call or return goes
 * on; a handler left by siglongjmp closes as a frame does.
 *
 * Time.  clock=insns (the default): a thread's clock is the guest
 * instructions it ran (each block counted when it starts), a thread
 * started by clone starts at its creator's count; so the same program
 * and input give the same trace, whatever the host does.  The header
 * says clock LITIFUT_CLOCK_INSNS with clock_hz 10^9: the reader's
 * nanoseconds are instructions.  clock=wall: CLOCK_MONOTONIC per
 * event, as a device trace with clock monotonic.
 *
 * Files.  DIR/litifut.<pid>.trace, written as the tracer writes it:
 * chunks mapped shared (a SIGKILL of qemu loses nothing written),
 * claimed with fallocate (a full disk stops recording with one line,
 * never a SIGBUS); DIR/litifut.<pid>.maps: the guest's mappings (guest
 * addresses, the host paths of the files), written at exit and before
 * an exec.  A fork child writes its own trace (its header names the
 * parent's thread and chunk at the fork), every object and site again.
 *
 * Trace control, as the tracer's: start_at/stop_at name functions
 * (each guest file's .symtab or .dynsym): a call of F while off turns
 * recording on before it is recorded, a call of G while on turns it off
 * after; control=FILE's first word, on or off, read every 2^22
 * instructions of a thread; STATE records say when.  Recording starts
 * off with start_at or record=off.
 *
 * The plugin never changes what the guest does: it reads, it does not
 * write guest memory or registers; its files are its own (O_EXCL,
 * O_NOFOLLOW).  Thread safety: each vcpu (guest thread) has its own
 * state, touched only by its own callbacks; what threads share (sites,
 * objects, the process's chunk, the file's end) is under one mutex.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "emu/qemu-plugin-api.h"
#include "emu/emu-arch.h"
#include "litifut/trace-format.h"
#include "lib/funcnames.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define HEADER_SIZE 4096u
#define FIRST_CHUNK 4096u               /* a thread's first chunk; each next one doubles */
#define MAX_CHUNK   65536u
#define ROOM        24u                 /* words an event needs at most */
#define MAX_VCPUS   65536u
#define CONTROL_POLL_BITS 22            /* control file: every 2^22 instructions */
#define NSIG_MAX    65

/* --- settings --- */
static const struct emu_arch *A;
static char out_dir[PATH_MAX];
static int wall_clock, with_returns = 1, start_off;
static char start_at[128], stop_at[128], control_path[PATH_MAX];

/* --- what threads share, under `lock` --- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;  /* file_end only (taken last) */
static int fd = -1;
static char trace_path[PATH_MAX + 64];
static dev_t trace_dev;
static ino_t trace_ino;
static uint32_t pid;
static uint64_t file_end;
static uint32_t n_chunks;               /* claimed so far (file_lock) */
static atomic_int stopped;              /* recording stopped for good (the file failed) */
static atomic_int recording = 1;        /* on (start_at, stop_at, the control file) */
static atomic_uint off_epoch;           /* incremented at every off: frames opened before are closed */
static uint64_t guest_base;             /* host address of guest address 0 */
static int have_guest_base;
static uint64_t clone_clock;            /* the count of the thread that cloned last */
static atomic_int forked;               /* set in a fork child until it has its own trace */

/* A guest ELF file, read on the host once. */
struct file {
    char *path;
    int is_guest;                       /* an ELF file of the guest's machine */
    int is_exec;                        /* ET_EXEC */
    struct load { uint64_t vaddr, offset, filesz; uint32_t flags; } load[16];
    unsigned n_load;
    uint8_t build_id[LITIFUT_BUILD_ID_MAX];
    uint32_t build_id_size;
    uint64_t start_fn, stop_fn;         /* the trigger functions' link-time addresses (0: none) */
    uint32_t (*left_alone)[2];          /* an instrumented file's tracer: the ranges of its
                                           .litifut_other_code (the code its link did not
                                           rewrite) that hold litifut_ symbols */
    uint32_t n_left_alone;
    uint64_t thunks[2];                 /* its .litifut_thunks (link-time; empty: none) */
    uint8_t *sled;                      /* ... per range: it holds a sled or the thunks
                                           (a trampoline): SLED_RANGE, THUNK_RANGE */
    struct func *funcs;                 /* its functions (.symtab, else .dynsym), by start */
    size_t n_funcs, cap_funcs;
    uint64_t plts[8][2];                /* its PLTs and stubs (.plt, .iplt, .MIPS.stubs) */
    unsigned n_plts;
    struct file *next;
};

/* A function of a file (link-time): a jump to its start from another
 * function's code is a tail jump (tail_jump_at). */
struct func {
    uint64_t start, size;
    uint32_t base;                      /* a hash of its name without a cold part's suffix */
    uint8_t cold, stub;                 /* a cold part "f.cold"; a linker's stub (funcnames.h) */
};
static struct file *files;

/* A guest mapping of a file (guest addresses). */
struct mapping {
    uint64_t start, end, offset;
    char perms[5];
    struct file *file;
};
static struct mapping *maps, *old_maps;
static size_t n_maps, n_old_maps;

/* An object: a guest file at one load bias, and its site id ranges. */
struct object {
    struct file *file;
    uint64_t bias;
    uint32_t base, size, used;          /* its current range */
    uint32_t ranges;                    /* ranges so far */
    uint32_t *range_base, *range_size;  /* ... each (a fork child's trace repeats them) */
    uint64_t start_rt, stop_rt;         /* its triggers' run-time addresses (0: none) */
    struct object *next;
};
static struct object *objects;
static uint32_t next_site_id;
static int warned_sites;

/* Sites by address (open addressing, at most half full). */
struct site_slot { uint64_t addr; uint32_t id_plus1; uint8_t jump; };
static struct site_slot *sites;
static size_t site_cap, n_sites;

/* Records of the process's own chunk (tid 0). */
struct chunk {
    uint32_t *w;                        /* mapped */
    uint32_t n, cap;                    /* words */
    uint32_t index, size;               /* its number in the file (every thread's), bytes */
    uint32_t seq;                       /* its number in its thread */
    uint64_t words_before;
};
static struct chunk proc_chunk;

/* Which signals have which handler. */
static _Atomic uint64_t handler_of[NSIG_MAX];
static atomic_uint handler_gen = 1;

/* --- a translated block --- */
struct block {
    uint64_t pc;
    uint32_t n_insns;
    uint8_t n_ends;                     /* readings: 1, or 2 (ARM and Thumb) */
    uint8_t helper;                     /* the kernel's helper code: returns to lr */
    uint8_t tracer;                     /* in an instrumented object's tracer: no call sites */
    uint8_t trampoline;                 /* ... its sleds and what they run (or code no file
                                           holds: a MIPS bridge): a call there is on its way */
    uint8_t thunk;                      /* ... its thunks (arch thunk_site) */
    uint8_t call_thunk;                 /* ... one a jump enters (jump_thunk): a call, or
                                           a jump from another site (EMU_THUNK_*) */
    uint8_t call_site, call_ra;         /* ... its site and return address, past the
                                           jump's site */
    atomic_uint gen;                    /* handler_gen when `handler` was worked out */
    atomic_int handler;                 /* the signal whose handler starts here (-1: none,
                                           0: more than one) */
    struct { struct emu_end e; uint32_t site_plus1; } end[2];
    /* a direct jump that is a tail jump (emu_end.jump to a function's
     * start: tail_jump_at, at translation): its site; an indirect jump's
     * last target and whether that was one */
    uint32_t jump_plus1[2];
    _Atomic uint64_t last_pc;
    atomic_uint last_plus1;
};

/* --- a thread --- */
struct frame {
    uint64_t ra;
    uint8_t signal;                     /* a signal handler's frame */
    uint8_t recorded;                   /* its call (or SIGNAL) was written */
    uint32_t epoch;                     /* off_epoch at its push */
    const struct block *pending;        /* signal: the block whose end was pending */
    const struct block *via;            /* ... and a rewritten call on its way (vcpu.via) */
    int via_end, via_jump;
    uint32_t via_site_plus1;
    uint64_t via_ra;
};

/* Return addresses returned to, and the depth their call was made at
 * (setjmp's, for a longjmp back to it): open addressing, at most half
 * full, one entry per return address (a site's latest call). */
struct returned { uint64_t ra; uint32_t depth_plus1; };

struct vcpu {
    uint32_t tid;
    uint64_t clock;                     /* instructions run (clock=insns) */
    uint64_t last;                      /* the clock at its last event, in units */
    const struct block *prev;           /* the block that ran last */
    struct frame *stack;
    uint32_t depth, cap;
    struct chunk c;
    uint64_t cache[LITIFUT_TARGET_CACHE];
    struct returned *returned;
    size_t returned_cap, n_returned;
    uint64_t next_poll;
    int dead;                           /* its chunk could not be had: it records no more */
    int in_tracer;                      /* its last block was an instrumented object's own code
                                           (a kernel helper it calls is passed over too) */
    const struct block *via;            /* a rewritten call on its way through the tracer */
    int via_end;                        /* (its reading) */
    const struct block *via_last;       /* the last block it went through */
    uint32_t via_site_plus1;            /* its site if not the block's (a thunk's call) */
    int via_jump;                       /* it is a rewritten tail jump, into its thunk */
    uint64_t via_ra;                    /* its return address if not its end's (a call thunk's) */
};
static struct vcpu *vcpus[MAX_VCPUS];

/* --- small things --- */

static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    dprintf(2, "litifut-emu: %s\n", line);
}

static void *xzalloc(size_t n)
{
    void *p = calloc(1, n);
    if (!p) {
        say("out of memory");
        abort();
    }
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        say("out of memory");
        abort();
    }
    return p;
}

/* A word in the guest's byte order (the trace's). */
static uint32_t tw(uint32_t x)
{
    return A->big_endian ? __builtin_bswap32(x) : x;
}

static uint64_t now_units(const struct vcpu *v)
{
    if (!wall_clock)
        return v ? v->clock : 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) >> 5;
}

/* The TIME record's ticks and ns for a clock reading in units. */
static uint64_t units_ticks(uint64_t u)
{
    return wall_clock ? u << 5 : u;
}

/* --- the file --- */

/* Stops recording for good, with one line. */
static void stop_recording(const char *what, int err)
{
    int was = atomic_exchange(&stopped, 1);
    if (!was)
        say("%s/litifut.%u.trace: %s: %s; recording stopped, the trace ends here", out_dir, pid,
            what, strerror(err));
}

/* f moved to a high descriptor number (the program takes the lowest
 * free ones: it gets the numbers it would have had); f itself if none. */
static int move_high(int f)
{
    struct rlimit rl;
    long top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                   ? (long)rl.rlim_cur : 1024;
    int g = top > 64 ? fcntl(f, F_DUPFD_CLOEXEC, (int)(top - 32)) : -1;
    if (g < 0)
        return f;
    close(f);
    return g;
}

/* The trace's descriptor is still the trace file (the program runs in
 * this process: a daemon closes every descriptor, and may reuse the
 * number); else the file again by its path, never another (file_lock
 * held).  0, or an error number. */
static int trace_fd_check(void)
{
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == trace_dev && st.st_ino == trace_ino)
        return 0;
    int f = open(trace_path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (f < 0)
        return errno;
    if (fstat(f, &st) != 0 || st.st_dev != trace_dev || st.st_ino != trace_ino) {
        close(f);
        return ESTALE;                  /* removed or replaced: not ours to write */
    }
    fd = move_high(f);                  /* (the old number is the program's now) */
    return 0;
}

/* A new chunk of `size` bytes at the file's end, mapped; its header
 * written.  0, or -1 (recording stopped). */
static int claim_chunk(struct chunk *c, uint32_t tid, uint32_t size)
{
    if (atomic_load(&stopped))
        return -1;
    pthread_mutex_lock(&file_lock);
    uint64_t off = file_end;
    uint32_t index = n_chunks;
    struct rlimit rl;
    int err = trace_fd_check();
    /* the program's file size limit is qemu's too: stop short of it, as
     * the tracer does, never a SIGXFSZ the program would not have had */
    if (!err && getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        off + size > rl.rlim_cur)
        err = EFBIG;
    if (!err)
        err = posix_fallocate(fd, (off_t)off, size);
    if (err == 0)
        file_end += size, n_chunks++;
    pthread_mutex_unlock(&file_lock);
    if (err) {
        stop_recording("cannot grow", err);
        return -1;
    }
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
    if (m == MAP_FAILED) {
        stop_recording("cannot map a chunk", errno);
        return -1;
    }
    if (c->w) {
        c->words_before += c->n - 4;
        munmap(c->w, (size_t)c->cap * 4);
        c->seq++;
    }
    c->index = index;
    c->w = m;
    c->cap = size / 4;
    c->size = size;
    c->w[0] = tw(LITIFUT_CHUNK_MAGIC);
    c->w[1] = tw(tid);
    c->w[2] = tw(c->index);
    c->w[3] = tw(size);
    c->n = 4;
    return 0;
}

static void put(struct chunk *c, uint32_t w)
{
    c->w[c->n++] = tw(w);
}

static void put_addr(struct chunk *c, uint64_t a)
{
    put(c, (uint32_t)a);
    if (A->word_size == 8)
        put(c, (uint32_t)(a >> 32));
}

static void put_time(struct chunk *c, uint64_t units)
{
    uint64_t t = units_ticks(units);
    put(c, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 4));
    put(c, (uint32_t)t), put(c, (uint32_t)(t >> 32));
    put(c, (uint32_t)t), put(c, (uint32_t)(t >> 32));
}

/* Room for `words` more in the process's chunk (under the lock). */
static int proc_room(uint32_t words)
{
    if (proc_chunk.w && proc_chunk.n + words <= proc_chunk.cap)
        return 0;
    /* (4 KB first, each next one twice the last, as a thread's) */
    uint32_t size = proc_chunk.w ? (proc_chunk.size < MAX_CHUNK ? proc_chunk.size * 2 : MAX_CHUNK)
                                 : FIRST_CHUNK;
    return claim_chunk(&proc_chunk, 0, size);
}

/* A thread's next chunk: its TIME and CHUNK records first. */
static int vcpu_next_chunk(struct vcpu *v)
{
    uint32_t size = v->c.w ? (v->c.size < MAX_CHUNK ? v->c.size * 2 : MAX_CHUNK) : FIRST_CHUNK;
    if (v->dead || claim_chunk(&v->c, v->tid, size) != 0) {
        v->dead = 1;
        return -1;
    }
    put_time(&v->c, v->last);
    put(&v->c, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CHUNK, LITIFUT_CHUNK_REC_WORDS));
    put(&v->c, v->c.seq);
    put(&v->c, (uint32_t)v->c.words_before), put(&v->c, (uint32_t)(v->c.words_before >> 32));
    uint32_t open = 0;
    for (uint32_t i = 0; i < v->depth; i++)
        open += v->stack[i].recorded;
    put(&v->c, with_returns ? open : 0);
    memset(v->cache, 0, sizeof v->cache);
    return 0;
}

/* Room for an event; its time delta (the clock moved to `now`): an
 * ADVANCE word or a TIME record first where it does not fit. */
static int event_begin(struct vcpu *v, uint64_t now, uint32_t *delta)
{
    if (v->dead || atomic_load(&stopped))
        return -1;
    if ((!v->c.w || v->c.n + ROOM > v->c.cap) && vcpu_next_chunk(v) != 0)
        return -1;
    uint64_t d = now - v->last;
    v->last = now;
    if (d >= LITIFUT_REC_DELTA_LIMIT) {
        if (d < LITIFUT_REC_ADVANCE_LIMIT)
            put(&v->c, (uint32_t)d << 8 | LITIFUT_REC_ADVANCE);
        else
            put_time(&v->c, now);
        d = 0;
    }
    *delta = (uint32_t)d;
    return 0;
}

/* Room for an event that carries no time of its own (SIGNAL,
 * SIGNAL_END: control records), at the clock brought to `now` by an
 * ADVANCE word (or a TIME record) first: a delta event_begin gives back
 * is no record's. */
static int event_begin_untimed(struct vcpu *v, uint64_t now)
{
    uint32_t d;
    if (event_begin(v, now, &d) != 0)
        return -1;
    if (d)
        put(&v->c, d << 8 | LITIFUT_REC_ADVANCE);
    return 0;
}

/* --- guest files and mappings --- */

static uint64_t rd(const uint8_t *p, unsigned n, int be)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
    return v;
}

/* pread all of n bytes, or -1 */
static int read_at(int f, void *buf, size_t n, uint64_t off)
{
    ssize_t r = pread(f, buf, n, (off_t)off);
    return r == (ssize_t)n ? 0 : -1;
}

enum { SLED_RANGE = 1, THUNK_RANGE = 2 };     /* struct file.sled */

/* The C runtime's start files' functions (crt1, crti, crtn, crtbegin),
 * which the link also leaves alone: their calls are the program's. */
static int is_crt_function(const char *name)
{
    static const char *const crt[] = {
        "_init", "_fini", "_start", "__start", "call_weak_fn", "deregister_tm_clones",
        "register_tm_clones", "__do_global_dtors_aux", "frame_dummy", "__libc_csu_init",
        "__libc_csu_fini", "_dl_relocate_static_pie", "hlt",
    };
    for (size_t i = 0; i < sizeof crt / sizeof crt[0]; i++)
        if (!strcmp(name, crt[i]))
            return 1;
    return 0;
}

/* One pass over a symbol table section: the trigger functions' values
 * (those not found yet), and which of the file's left-alone ranges
 * hold a crt function (crt[i]: not the tracer's). */
static void scan_symbols(int f, const uint8_t *sh, int be, int is64, uint64_t shoff,
                         unsigned shentsize, unsigned shnum, struct file *fl, uint8_t *crt,
                         uint8_t *sled)
{
    unsigned entsz = is64 ? 24 : 16;
    uint64_t off = rd(sh + (is64 ? 24 : 16), is64 ? 8 : 4, be);
    uint64_t size = rd(sh + (is64 ? 32 : 20), is64 ? 8 : 4, be);
    unsigned link = (unsigned)rd(sh + (is64 ? 40 : 24), 4, be);
    if (link >= shnum || size > (256u << 20))
        return;
    uint8_t strh[64];
    if (read_at(f, strh, shentsize, shoff + (uint64_t)link * shentsize) != 0)
        return;
    uint64_t stroff = rd(strh + (is64 ? 24 : 16), is64 ? 8 : 4, be);
    uint64_t strsize = rd(strh + (is64 ? 32 : 20), is64 ? 8 : 4, be);
    if (strsize > (256u << 20))
        return;
    size_t start_len = strlen(start_at), stop_len = strlen(stop_at);
    uint8_t *syms = malloc(size ? size : 1);
    char *strs = malloc(strsize + 1);
    if (syms && strs && read_at(f, syms, size, off) == 0 && read_at(f, strs, strsize, stroff) == 0) {
        strs[strsize] = 0;
        for (uint64_t i = 0; i + entsz <= size; i += entsz) {
            const uint8_t *sy = syms + i;
            uint64_t nm = rd(sy, 4, be);
            unsigned info = is64 ? sy[4] : sy[12];
            uint64_t value = (is64 ? rd(sy + 8, 8, be) : rd(sy + 4, 4, be)) & ~A->isa_bits;
            unsigned shndx = (unsigned)rd(sy + (is64 ? 6 : 14), 2, be);
            if (shndx == SHN_UNDEF || nm >= strsize)
                continue;
            const char *name = strs + nm;
            if ((info & 0xf) == STT_FUNC) {
                if (fl->n_funcs == fl->cap_funcs) {
                    fl->cap_funcs = fl->cap_funcs * 2 + 256;
                    fl->funcs = xrealloc(fl->funcs, fl->cap_funcs * sizeof *fl->funcs);
                }
                uint32_t h = 2166136261u;
                for (size_t c = 0, n = base_name_len(name); c < n; c++)
                    h = (h ^ (uint8_t)name[c]) * 16777619u;
                uint64_t fsize = is64 ? rd(sy + 16, 8, be) : rd(sy + 8, 4, be);
                fl->funcs[fl->n_funcs++] = (struct func){ value, fsize, h, (uint8_t)is_cold_part(name),
                                                          (uint8_t)is_linker_stub(name) };
                if (start_len && !fl->start_fn && !strcmp(name, start_at))
                    fl->start_fn = value;
                if (stop_len && !fl->stop_fn && !strcmp(name, stop_at))
                    fl->stop_fn = value;
            }
            int is_sled = !strcmp(name, "litifut_sled") || !strcmp(name, "litifut_island_sled") ||
                          !strcmp(name, "litifut_far_sled") ? SLED_RANGE
                          : !strcmp(name, "litifut_thunks") ? THUNK_RANGE : 0;
            if (crt && (is_sled || is_crt_function(name)))
                for (uint32_t k = 0; k < fl->n_left_alone; k++)
                    if (value >= fl->left_alone[k][0] && value < fl->left_alone[k][1]) {
                        if (is_sled)
                            sled[k] = (uint8_t)is_sled;
                        else
                            crt[k] = 1;
                    }
        }
    }
    free(syms);
    free(strs);
}

static int func_cmp(const void *a, const void *b)
{
    uint64_t x = ((const struct func *)a)->start, y = ((const struct func *)b)->start;
    return x < y ? -1 : x > y;
}

/* The function of `fl` that starts at `link` (want_start) or holds it
 * (the nearest start at or before it whose size covers it), or NULL. */
static const struct func *func_at(const struct file *fl, uint64_t link, int want_start)
{
    size_t lo = 0, hi = fl->n_funcs;
    while (lo < hi) {                   /* the first starting after link */
        size_t mid = lo + (hi - lo) / 2;
        if (fl->funcs[mid].start <= link)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo, steps = 0; i > 0 && steps < 8; i--, steps++) {
        const struct func *f = &fl->funcs[i - 1];
        if (want_start ? f->start == link && !f->cold
                       : link - f->start < (f->size ? f->size : 1))
            return f;
        if (want_start && f->start < link)
            break;
    }
    return NULL;
}

/* Reads what the plugin needs of an ELF file: its machine, loads,
 * build-id, its functions and the trigger functions. */
static void read_elf(struct file *fl)
{
    int f = open(fl->path, O_RDONLY | O_CLOEXEC);
    uint8_t eh[64];
    if (f < 0)
        return;
    if (read_at(f, eh, sizeof eh, 0) != 0 || memcmp(eh, ELFMAG, SELFMAG) != 0)
        goto out;
    int is64 = eh[EI_CLASS] == ELFCLASS64, be = eh[EI_DATA] == ELFDATA2MSB;
    if (rd(eh + 18, 2, be) != A->elf_machine || (is64 ? 8 : 4) != A->word_size ||
        be != A->big_endian)
        goto out;
    unsigned type = (unsigned)rd(eh + 16, 2, be);
    uint64_t phoff = rd(eh + (is64 ? 32 : 28), is64 ? 8 : 4, be);
    uint64_t shoff = rd(eh + (is64 ? 40 : 32), is64 ? 8 : 4, be);
    unsigned phentsize = (unsigned)rd(eh + (is64 ? 54 : 42), 2, be);
    unsigned phnum = (unsigned)rd(eh + (is64 ? 56 : 44), 2, be);
    unsigned shentsize = (unsigned)rd(eh + (is64 ? 58 : 46), 2, be);
    unsigned shnum = (unsigned)rd(eh + (is64 ? 60 : 48), 2, be);
    if (phentsize < (is64 ? 56u : 32u) || phentsize > 64 || phnum > 256)
        goto out;
    fl->is_guest = 1;
    fl->is_exec = type == ET_EXEC;
    for (unsigned i = 0; i < phnum; i++) {
        uint8_t ph[64];
        if (read_at(f, ph, phentsize, phoff + (uint64_t)i * phentsize) != 0)
            break;
        uint32_t pt = (uint32_t)rd(ph, 4, be);
        uint64_t offset = rd(ph + (is64 ? 8 : 4), is64 ? 8 : 4, be);
        uint64_t vaddr = rd(ph + (is64 ? 16 : 8), is64 ? 8 : 4, be);
        uint64_t filesz = rd(ph + (is64 ? 32 : 16), is64 ? 8 : 4, be);
        if (pt == PT_LOAD && fl->n_load < 16) {
            fl->load[fl->n_load].flags = (uint32_t)rd(ph + (is64 ? 4 : 24), 4, be);
            fl->load[fl->n_load].vaddr = vaddr;
            fl->load[fl->n_load].offset = offset;
            fl->load[fl->n_load++].filesz = filesz;
        } else if (pt == PT_NOTE && filesz <= 4096 && !fl->build_id_size) {
            uint8_t notes[4096];
            if (read_at(f, notes, filesz, offset) != 0)
                continue;
            for (uint64_t p = 0; p + 12 <= filesz;) {
                uint64_t namesz = rd(notes + p, 4, be), descsz = rd(notes + p + 4, 4, be);
                uint64_t ntype = rd(notes + p + 8, 4, be);
                uint64_t name_at = p + 12, desc_at = name_at + ((namesz + 3) & ~3ull);
                if (desc_at + descsz > filesz)
                    break;
                if (ntype == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(notes + name_at, "GNU", 4) &&
                    descsz <= LITIFUT_BUILD_ID_MAX) {
                    memcpy(fl->build_id, notes + desc_at, descsz);
                    fl->build_id_size = (uint32_t)descsz;
                    break;
                }
                p = desc_at + ((descsz + 3) & ~3ull);
            }
        }
    }
    unsigned shstrndx = (unsigned)rd(eh + (is64 ? 62 : 50), 2, be);
    uint64_t plts[8][2];
    unsigned n_plts = 0;
    if (shentsize >= (is64 ? 64u : 40u) && shentsize <= 64 && shnum < 65536 && shstrndx < shnum) {
        uint8_t sh[64];
        char names[65536];
        uint64_t names_size = 0;
        if (read_at(f, sh, shentsize, shoff + (uint64_t)shstrndx * shentsize) == 0) {
            uint64_t off = rd(sh + (is64 ? 24 : 16), is64 ? 8 : 4, be);
            names_size = rd(sh + (is64 ? 32 : 20), is64 ? 8 : 4, be);
            if (names_size >= sizeof names || read_at(f, names, names_size, off) != 0)
                names_size = 0;
            names[names_size] = 0;
        }
        for (unsigned i = 0; i < shnum && names_size; i++) {
            if (read_at(f, sh, shentsize, shoff + (uint64_t)i * shentsize) != 0)
                break;
            uint64_t name = rd(sh, 4, be);
            uint64_t off = rd(sh + (is64 ? 24 : 16), is64 ? 8 : 4, be);
            uint64_t size = rd(sh + (is64 ? 32 : 20), is64 ? 8 : 4, be);
            if (name < names_size && !strcmp(names + name, ".litifut_thunks")) {
                /* the sites' thunks (not in .litifut_other_code): a trampoline */
                fl->thunks[0] = rd(sh + (is64 ? 16 : 12), is64 ? 8 : 4, be);
                fl->thunks[1] = fl->thunks[0] + size;
                continue;
            }
            if (name < names_size && (!strncmp(names + name, ".plt", 4) ||
                                      !strcmp(names + name, ".iplt") ||
                                      !strcmp(names + name, ".MIPS.stubs"))) {
                /* a PLT: the link left it alone, calls go to it (its
                 * jumps are the way on, no tail jumps) */
                uint64_t addr = rd(sh + (is64 ? 16 : 12), is64 ? 8 : 4, be);
                if (n_plts < 8)
                    plts[n_plts][0] = addr, plts[n_plts++][1] = addr + size;
                if (fl->n_plts < 8)
                    fl->plts[fl->n_plts][0] = addr, fl->plts[fl->n_plts++][1] = addr + size;
                continue;
            }
            if (name >= names_size || strcmp(names + name, ".litifut_other_code") != 0 ||
                size > (1u << 20) || fl->left_alone)
                continue;
            uint8_t *pairs = malloc(size + 1);
            fl->left_alone = xzalloc((size / 8 + 1) * sizeof *fl->left_alone);
            if (pairs && read_at(f, pairs, size, off) == 0)
                for (uint64_t k = 0; k + 8 <= size; k += 8) {
                    fl->left_alone[fl->n_left_alone][0] = (uint32_t)rd(pairs + k, 4, be);
                    fl->left_alone[fl->n_left_alone++][1] = (uint32_t)rd(pairs + k + 4, 4, be);
                }
            free(pairs);
        }
    }
    /* .symtab, else .dynsym (a stripped library's exports): the
     * triggers, and which left-alone code is crt code, not the tracer's */
    uint8_t *crt = fl->n_left_alone ? xzalloc(fl->n_left_alone) : NULL;
    fl->sled = fl->n_left_alone ? xzalloc(fl->n_left_alone) : NULL;
    for (uint32_t k = 0; k < fl->n_left_alone; k++)
        for (unsigned i = 0; i < n_plts; i++)
            if (fl->left_alone[k][0] < plts[i][1] && plts[i][0] < fl->left_alone[k][1])
                crt[k] = 1;
    if (shentsize >= (is64 ? 64u : 40u) && shentsize <= 64 && shnum < 65536) {
        for (int want = SHT_SYMTAB; want; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
            int found = 0;
            for (unsigned i = 0; i < shnum; i++) {
                uint8_t sh[64];
                if (read_at(f, sh, shentsize, shoff + (uint64_t)i * shentsize) != 0 ||
                    rd(sh + 4, 4, be) != (uint64_t)want)
                    continue;
                scan_symbols(f, sh, be, is64, shoff, shentsize, shnum, fl, crt, fl->sled);
                found = 1;
            }
            if (found && want == SHT_SYMTAB)
                break;
        }
    }
    if (fl->n_funcs)
        qsort(fl->funcs, fl->n_funcs, sizeof *fl->funcs, func_cmp);
    uint32_t n = 0;
    for (uint32_t k = 0; k < fl->n_left_alone; k++)
        if (!crt[k]) {
            fl->left_alone[n][0] = fl->left_alone[k][0];
            fl->left_alone[n][1] = fl->left_alone[k][1];
            fl->sled[n++] = fl->sled[k];
        }
    fl->n_left_alone = n;
    free(crt);
out:
    close(f);
}

/* The load segment of `fl` a mapping at file offset `off` is of. */
static const struct load *load_of(const struct file *fl, uint64_t off)
{
    for (unsigned i = 0; i < fl->n_load; i++) {
        uint64_t o = fl->load[i].offset & ~0xfffull;
        if (off >= o && off < fl->load[i].offset + fl->load[i].filesz)
            return &fl->load[i];
    }
    return NULL;
}

static struct file *file_of(const char *path)
{
    for (struct file *f = files; f; f = f->next)
        if (!strcmp(f->path, path))
            return f;
    struct file *f = xzalloc(sizeof *f);
    f->path = strdup(path);
    if (!f->path) {
        say("out of memory");
        abort();
    }
    read_elf(f);
    f->next = files;
    files = f;
    return f;
}

/* Reads the guest's file mappings from the host's /proc/self/maps
 * (guest address = host address - guest_base); under the lock.  The
 * last reading's mappings that are gone are kept for the maps file
 * (a library dlclose'd: its calls still name it). */
static void read_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f)
        return;
    struct mapping *v = NULL;
    size_t n = 0;
    char line[PATH_MAX + 128];
    uint64_t limit = A->word_size == 8 ? UINT64_MAX : 0xffffffffull;
    while (fgets(line, sizeof line, f)) {
        unsigned long long s, e, off;
        char perms[8];
        int at = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &at) != 4 || !at)
            continue;
        char *path = line + at;
        path[strcspn(path, "\n")] = 0;
        if (path[0] != '/' || s < guest_base || e - guest_base - 1 > limit)
            continue;
        struct file *fl = file_of(path);
        if (!fl->is_guest)
            continue;
        v = xrealloc(v, (n + 1) * sizeof *v);
        v[n] = (struct mapping){ .start = s - guest_base, .end = e - guest_base, .offset = off,
                                 .file = fl };
        /* the guest's permissions are its segment's: QEMU maps guest code
         * without execute permission on the host */
        memcpy(v[n].perms, perms, 4);
        const struct load *ld = load_of(fl, off);
        if (ld) {
            v[n].perms[0] = ld->flags & PF_R ? 'r' : '-';
            v[n].perms[1] = ld->flags & PF_W ? 'w' : '-';
            v[n].perms[2] = ld->flags & PF_X ? 'x' : '-';
        }
        n++;
    }
    fclose(f);
    /* the old ones no new one overlaps stay, as gone */
    struct mapping *keep = NULL;
    size_t n_keep = 0;
    struct mapping *both[2] = { old_maps, maps };
    size_t counts[2] = { n_old_maps, n_maps };
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < counts[k]; i++) {
            int over = 0;
            for (size_t j = 0; j < n && !over; j++)
                over = both[k][i].start < v[j].end && v[j].start < both[k][i].end;
            for (size_t j = 0; j < n_keep && !over; j++)
                over = both[k][i].start < keep[j].end && keep[j].start < both[k][i].end;
            if (!over) {
                keep = xrealloc(keep, (n_keep + 1) * sizeof *keep);
                keep[n_keep++] = both[k][i];
            }
        }
    free(old_maps);
    free(maps);
    old_maps = keep, n_old_maps = n_keep;
    maps = v, n_maps = n;
}

static const struct mapping *mapping_of(uint64_t addr)
{
    for (size_t i = 0; i < n_maps; i++)
        if (addr >= maps[i].start && addr < maps[i].end && maps[i].perms[2] == 'x')
            return &maps[i];
    return NULL;
}

/* An object's OBJECT record for its current range (under the lock). */
static void put_object_record(const struct object *o, uint32_t base, uint32_t size)
{
    size_t plen = strlen(o->file->path) + 1;
    uint32_t path_words = (uint32_t)((plen + 3) / 4);
    uint32_t n = LITIFUT_OBJECT_RECORD_WORDS + (A->word_size == 8) + path_words;
    if (proc_room(1 + n) != 0)
        return;
    struct chunk *c = &proc_chunk;
    put(c, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OBJECT, n));
    put(c, base), put(c, size), put(c, 0), put(c, (uint32_t)o->bias);
    put(c, o->file->build_id_size);
    for (unsigned i = 0; i < LITIFUT_BUILD_ID_MAX; i += 4)  /* bytes as they are */
        c->w[c->n++] = (uint32_t)o->file->build_id[i] | (uint32_t)o->file->build_id[i + 1] << 8 |
                       (uint32_t)o->file->build_id[i + 2] << 16 |
                       (uint32_t)o->file->build_id[i + 3] << 24;
    if (A->word_size == 8)
        put(c, (uint32_t)(o->bias >> 32));
    memset(c->w + c->n, 0, path_words * 4);
    memcpy(c->w + c->n, o->file->path, plen);
    c->n += path_words;
}

/* The next range of site ids for `o` (under the lock): -1 if the ids
 * ran out. */
static int new_range(struct object *o)
{
    uint32_t size = o->ranges < 8 ? 256u << o->ranges : 65536u;
    if (next_site_id + (uint64_t)size > LITIFUT_SITE_ID_LIMIT) {
        if (!warned_sites++)
            say("more than %u call sites ran: the calls of further sites are not recorded",
                next_site_id);
        return -1;
    }
    o->base = next_site_id;
    o->size = size;
    o->used = 0;
    o->range_base = xrealloc(o->range_base, (o->ranges + 1) * sizeof *o->range_base);
    o->range_size = xrealloc(o->range_size, (o->ranges + 1) * sizeof *o->range_size);
    o->range_base[o->ranges] = o->base;
    o->range_size[o->ranges] = size;
    o->ranges++;
    next_site_id += size;
    put_object_record(o, o->base, size);
    return 0;
}

/* The bias of file `fl` mapped by `m`: run-time - link-time. */
static uint64_t bias_of(const struct mapping *m)
{
    const struct load *ld = load_of(m->file, m->offset);
    return (m->start - m->offset) - (ld ? ld->vaddr - ld->offset : 0);
}

static struct object *object_at(uint64_t addr)
{
    const struct mapping *m = mapping_of(addr);
    if (!m) {
        read_maps();
        m = mapping_of(addr);
    }
    if (!m)
        return NULL;
    uint64_t bias = bias_of(m);
    for (struct object *o = objects; o; o = o->next)
        if (o->file == m->file && o->bias == bias)
            return o;
    struct object *o = xzalloc(sizeof *o);
    o->file = m->file;
    o->bias = bias;
    uint64_t mask = A->word_size == 8 ? UINT64_MAX : 0xffffffffull;
    if (m->file->start_fn)
        o->start_rt = (m->file->start_fn + bias) & mask;
    if (m->file->stop_fn)
        o->stop_rt = (m->file->stop_fn + bias) & mask;
    o->next = objects;
    objects = o;
    if (new_range(o) != 0)
        o->size = o->used = 0;          /* (its sites go unrecorded) */
    return o;
}

/* What `pc` is (under the lock): TRACER_CODE, an instrumented object's
 * tracer; TRAMPOLINE, its sleds and the paths they run, or code no file
 * holds (a MIPS bridge: the kernel's helpers excepted); 0, other code. */
enum { TRACER_CODE = 1, TRAMPOLINE = 2, THUNK = 3 };
static int code_kind_at(uint64_t pc, int helper)
{
    const struct mapping *m = mapping_of(pc);
    if (!m) {
        read_maps();
        m = mapping_of(pc);
    }
    if (!m)
        return helper ? 0 : TRAMPOLINE;
    uint64_t link = pc - bias_of(m);
    if (link >= m->file->thunks[0] && link < m->file->thunks[1])
        return THUNK;
    if (!m->file->n_left_alone)
        return 0;
    for (uint32_t i = 0; i < m->file->n_left_alone; i++)
        if (link >= m->file->left_alone[i][0] && link < m->file->left_alone[i][1])
            return m->file->sled[i] == THUNK_RANGE ? THUNK : m->file->sled[i] ? TRAMPOLINE
                                                                               : TRACER_CODE;
    return 0;
}

static void put_site_record(uint32_t id, uint64_t addr)
{
    if (proc_room(2 + A->word_size / 4) != 0)
        return;
    put(&proc_chunk, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_SITE_ADDR, 1 + A->word_size / 4));
    put(&proc_chunk, id);
    put_addr(&proc_chunk, addr);
}

/* The site id + 1 of the call (or, `jump`, the tail jump: its SITE_ADDR
 * record says so) at `addr` (0: none to be had); under the lock. */
static uint32_t site_of_kind(uint64_t addr, int jump)
{
    if (n_sites * 2 >= site_cap) {
        size_t cap = site_cap ? site_cap * 2 : 4096;
        struct site_slot *t = xzalloc(cap * sizeof *t);
        for (size_t i = 0; i < site_cap; i++)
            if (sites[i].id_plus1) {
                size_t j = (sites[i].addr * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
                while (t[j].id_plus1)
                    j = (j + 1) & (cap - 1);
                t[j] = sites[i];
            }
        free(sites);
        sites = t, site_cap = cap;
    }
    size_t j = (addr * 0x9e3779b97f4a7c15ull >> 20) & (site_cap - 1);
    for (; sites[j].id_plus1; j = (j + 1) & (site_cap - 1))
        if (sites[j].addr == addr)
            return sites[j].id_plus1;
    struct object *o = object_at(addr);
    if (!o || (o->used == o->size && new_range(o) != 0) || !o->size)
        return 0;
    uint32_t id = o->base + o->used++;
    sites[j] = (struct site_slot){ addr, id + 1, (uint8_t)jump };
    n_sites++;
    put_site_record(id | (jump ? LITIFUT_SITE_ADDR_JUMP : 0), addr);
    return id + 1;
}

static uint32_t site_of(uint64_t addr)
{
    return site_of_kind(addr, 0);
}

/* Whether a jump (no call) from `site` that reached `pc` is a tail jump
 * (under the lock): `pc` starts a function (not a cold part) of a guest
 * file, `site` lies in another function of one (not a linker's stub,
 * not the same function's cold part), and in no PLT or stub section:
 * their jumps are the way on to what was called. */
static int tail_jump_at(uint64_t site, uint64_t pc)
{
    const struct mapping *ms = mapping_of(site), *mt = mapping_of(pc);
    if (!ms || !mt) {
        read_maps();
        ms = mapping_of(site), mt = mapping_of(pc);
    }
    if (!ms || !mt || !ms->file->n_funcs || !mt->file->n_funcs)
        return 0;
    uint64_t ls = site - bias_of(ms), lt = pc - bias_of(mt);
    const struct func *to = func_at(mt->file, lt, 1), *from = func_at(ms->file, ls, 0);
    if (!to || !from || from->stub)
        return 0;
    for (unsigned i = 0; i < ms->file->n_plts; i++)
        if (ls >= ms->file->plts[i][0] && ls < ms->file->plts[i][1])
            return 0;
    return !(ms->file == mt->file && (from->start == to->start || from->base == to->base));
}

/* Every object range and site again, with the same ids (the blocks
 * translated hold them): a fork child's new trace (under the lock). */
static void put_all_sites(void)
{
    for (struct object *o = objects; o; o = o->next)
        for (uint32_t r = 0; r < o->ranges; r++)
            put_object_record(o, o->range_base[r], o->range_size[r]);
    for (size_t i = 0; i < site_cap; i++)
        if (sites[i].id_plus1)
            put_site_record((sites[i].id_plus1 - 1) | (sites[i].jump ? LITIFUT_SITE_ADDR_JUMP : 0),
                            sites[i].addr);
}

/* --- the header, the maps file --- */

/* The header; `start`: the trace's start, in the clock's units (a fork
 * child's: the forking thread's clock then, so that its times count
 * from the fork, not again from the parent's start). */
static void put_header(uint32_t parent_pid, uint32_t parent_tid, uint32_t parent_chunk,
                       uint32_t parent_words, uint64_t start_units)
{
    struct litifut_trace_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, LITIFUT_TRACE_MAGIC, 8);
    h.endian = A->big_endian ? LITIFUT_BIG_ENDIAN : LITIFUT_LITTLE_ENDIAN;
    h.arch = A->trace_arch;
    h.word_size = A->word_size;
    h.version = tw(LITIFUT_TRACE_VERSION);
    h.header_size = tw(HEADER_SIZE);
    h.chunk_size = tw(MAX_CHUNK);
    h.pid = tw(pid);
    uint64_t start = units_ticks(start_units);
    uint64_t hz = 1000000000u;
    uint32_t *s = (uint32_t *)&h.start_ns, *z = (uint32_t *)&h.clock_hz;
    /* 64-bit fields as the target stores them: each half in its order */
    s[A->big_endian] = tw((uint32_t)start), s[!A->big_endian] = tw((uint32_t)(start >> 32));
    z[A->big_endian] = tw((uint32_t)hz), z[!A->big_endian] = tw((uint32_t)(hz >> 32));
    h.clock = wall_clock ? LITIFUT_CLOCK_MONOTONIC : LITIFUT_CLOCK_INSNS;
    h.time_shift = wall_clock ? 5 : 0;
    h.flags = LITIFUT_TRACE_EMULATED | (with_returns ? LITIFUT_TRACE_RETURNS : 0);
    h.mode = LITIFUT_MODE_FULL;
    /* the program's path as the maps name it: absolute */
    const char *exe = qemu_plugin_path_to_binary();
    char *abs = exe ? realpath(exe, NULL) : NULL;
    snprintf(h.exe, sizeof h.exe, "%s", abs ? abs : exe ? exe : "?");
    free(abs);
    h.parent_pid = tw(parent_pid);
    h.parent_tid = tw(parent_tid);
    h.parent_chunk = tw(parent_chunk);
    h.parent_words = tw(parent_words);
    uint8_t page[HEADER_SIZE];
    memset(page, 0, sizeof page);
    memcpy(page, &h, sizeof h);
    pthread_mutex_lock(&file_lock);
    int err = trace_fd_check();
    if (!err && pwrite(fd, page, sizeof page, 0) != (ssize_t)sizeof page)
        err = errno ? errno : EIO;
    pthread_mutex_unlock(&file_lock);
    if (err)
        stop_recording("cannot write the header", err);
}

/* The trace file of this process: DIR/litifut.<pid>.trace (.<n> if taken). */
static int open_trace(void)
{
    char *path = trace_path;
    size_t size = sizeof trace_path;
    pid = (uint32_t)getpid();
    for (int n = 0; n < 1000; n++) {
        if (n)
            snprintf(path, size, "%s/litifut.%u.%d.trace", out_dir, pid, n);
        else
            snprintf(path, size, "%s/litifut.%u.trace", out_dir, pid);
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        say("%s: %s", path, strerror(errno));
        return -1;
    }
    trace_dev = st.st_dev;
    trace_ino = st.st_ino;
    fd = move_high(fd);
    file_end = HEADER_SIZE;
    n_chunks = 0;
    return 0;
}

/* DIR/litifut.<pid>.maps: the guest's file mappings, guest addresses,
 * the host's paths (a temporary file renamed over it). */
static void write_maps(void)
{
    char tmp[PATH_MAX + 72], path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/litifut.%u.maps", out_dir, pid);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    pthread_mutex_lock(&lock);
    if (have_guest_base)
        read_maps();
    unlink(tmp);
    int f = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *out = f >= 0 ? fdopen(f, "w") : NULL;
    if (out) {
        int w = A->word_size * 2;
        struct mapping *both[2] = { maps, old_maps };
        size_t counts[2] = { n_maps, n_old_maps };
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < counts[k]; i++)
                fprintf(out, "%0*llx-%0*llx %s %08llx 00:00 0 %s\n", w,
                        (unsigned long long)both[k][i].start, w,
                        (unsigned long long)both[k][i].end, both[k][i].perms,
                        (unsigned long long)both[k][i].offset, both[k][i].file->path);
        if (fclose(out) == 0)
            rename(tmp, path);
        else
            unlink(tmp);
    } else if (f >= 0) {
        close(f);
    }
    pthread_mutex_unlock(&lock);
}

/* --- recording on and off --- */

/* A STATE record at `now` (units), under the lock. */
static void put_state(int on, unsigned why, uint64_t now)
{
    if (proc_room(7) != 0)
        return;
    put_time(&proc_chunk, now);
    put(&proc_chunk, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_STATE, 1));
    put(&proc_chunk, LITIFUT_STATE_WORD(on, why));
}

/* Recording turns on (1) or off (0) because of `why`, at `now`. */
static void set_recording(int on, unsigned why, uint64_t now)
{
    pthread_mutex_lock(&lock);
    if (atomic_load(&recording) != on) {
        if (!on)
            atomic_fetch_add(&off_epoch, 1);
        atomic_store(&recording, on);
        put_state(on, why, now);
    }
    pthread_mutex_unlock(&lock);
}

/* The control file's first word: 1 on, 0 off, -1 neither (or no file);
 * a change of the word (not of the state) turns recording on or off. */
static int last_control = -1;
static int control_word(void)
{
    char word[8] = "";
    int f = open(control_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (f < 0)
        return -1;
    ssize_t n = read(f, word, sizeof word - 1);
    close(f);
    word[n > 0 ? n : 0] = 0;
    word[strcspn(word, " \t\r\n")] = 0;
    int w = !strcmp(word, "on") ? 1 : !strcmp(word, "off") ? 0 : -1;
    if (w >= 0 && last_control < 0)
        last_control = w;               /* (at start: the state, no change) */
    return w;
}

static void poll_control(struct vcpu *v)
{
    int w = control_word();
    if (w < 0)
        return;
    pthread_mutex_lock(&lock);
    int changed = w != last_control;
    last_control = w;
    pthread_mutex_unlock(&lock);
    if (changed)
        set_recording(w, LITIFUT_STATE_BY_CONTROL, now_units(v));
}

/* --- threads --- */

static struct vcpu *vcpu_new(unsigned idx)
{
    struct vcpu *v = xzalloc(sizeof *v);
    v->tid = (uint32_t)syscall(SYS_gettid);
    pthread_mutex_lock(&lock);
    v->clock = idx ? clone_clock : 0;
    pthread_mutex_unlock(&lock);
    v->last = now_units(v);
    v->next_poll = v->clock >> CONTROL_POLL_BITS;  /* (its first block reads the file) */
    vcpus[idx] = v;
    return v;
}

static void vcpu_free(struct vcpu *v)
{
    if (v->c.w)
        munmap(v->c.w, (size_t)v->c.cap * 4);
    free(v->stack);
    free(v->returned);
    free(v);
}

static void push(struct vcpu *v, uint64_t ra, int signal, int recorded, const struct block *pending)
{
    if (v->depth == v->cap) {
        v->cap = v->cap ? v->cap * 2 : 64;
        v->stack = xrealloc(v->stack, v->cap * sizeof *v->stack);
    }
    v->stack[v->depth++] = (struct frame){ .ra = ra, .signal = (uint8_t)signal,
                                           .recorded = (uint8_t)recorded,
                                           .epoch = atomic_load(&off_epoch), .pending = pending };
}

/* The entry of return address `ra` (add: made if new; else NULL if none). */
static struct returned *returned_slot(struct vcpu *v, uint64_t ra, int add)
{
    if (add && v->n_returned * 2 >= v->returned_cap) {
        size_t cap = v->returned_cap ? v->returned_cap * 2 : 1024;
        struct returned *t = xzalloc(cap * sizeof *t);
        for (size_t i = 0; i < v->returned_cap; i++)
            if (v->returned[i].depth_plus1) {
                size_t j = (v->returned[i].ra * 0x9e3779b97f4a7c15ull >> 24) & (cap - 1);
                while (t[j].depth_plus1)
                    j = (j + 1) & (cap - 1);
                t[j] = v->returned[i];
            }
        free(v->returned);
        v->returned = t, v->returned_cap = cap;
    }
    if (!v->returned_cap)
        return NULL;
    size_t j = (ra * 0x9e3779b97f4a7c15ull >> 24) & (v->returned_cap - 1);
    for (; v->returned[j].depth_plus1; j = (j + 1) & (v->returned_cap - 1))
        if (v->returned[j].ra == ra)
            return &v->returned[j];
    if (!add)
        return NULL;
    v->n_returned++;
    return &v->returned[j];
}

/* Pops frames down to `depth`, a RETURN record for each that was
 * written and is still open in the reader's eyes. */
static void pop_to(struct vcpu *v, uint32_t depth, uint64_t now)
{
    while (v->depth > depth) {
        struct frame *f = &v->stack[--v->depth];
        if (!f->signal) {
            struct returned *r = returned_slot(v, f->ra, 1);
            r->ra = f->ra;
            r->depth_plus1 = v->depth + 1;
        }
        uint32_t d;
        if (with_returns && f->recorded && f->epoch == atomic_load(&off_epoch) &&
            atomic_load(&recording) && event_begin(v, now, &d) == 0)
            put(&v->c, LITIFUT_REC_RETURN_WORD | d << LITIFUT_REC_DELTA_SHIFT);
    }
}

static void record_call(struct vcpu *v, uint32_t site_plus1, uint64_t target, uint64_t now)
{
    uint32_t d;
    if (!site_plus1 || event_begin(v, now, &d) != 0)
        return;
    uint32_t w = LITIFUT_REC_CALL_WORD(site_plus1 - 1, 0) | d << LITIFUT_REC_DELTA_SHIFT;
    uint64_t *e = &v->cache[LITIFUT_CACHE_ENTRY_OF_SITE(w)];
    if (*e == target + 1) {
        put(&v->c, w | LITIFUT_REC_CALL_CACHED);
    } else {
        put(&v->c, w | LITIFUT_REC_CALL_TARGET);
        put_addr(&v->c, target);
        *e = target + 1;
    }
}

/* The signal whose handler starts at `b` (-1: none; 0: several). */
static int handler_at(struct block *b)
{
    unsigned gen = atomic_load(&handler_gen);
    if (atomic_load(&b->gen) != gen) {
        int sig = -1;
        for (int s = 1; s < NSIG_MAX; s++)
            if (handler_of[s] == b->pc)
                sig = sig == -1 ? s : 0;
        atomic_store(&b->handler, sig);
        atomic_store(&b->gen, gen);
    }
    return atomic_load(&b->handler);
}

/* A trigger function at `target`: 1 start, 2 stop, 0 none. */
static int trigger_at(uint64_t target)
{
    int t = 0;
    pthread_mutex_lock(&lock);
    for (struct object *o = objects; o && !t; o = o->next)
        t = o->start_rt == target ? 1 : o->stop_rt == target ? 2 : 0;
    pthread_mutex_unlock(&lock);
    return t;
}

/* The previous block's end, now that the next block starts at pc. */
/* The reading of p that agrees with where execution went next, pc
 * (ARM or Thumb; others have one). */
static int pick_end(const struct block *p, uint64_t pc)
{
    if (p->n_ends < 2)
        return 0;
    int best = 0, best_score = -2;
    for (int i = 0; i < 2; i++) {
        const struct emu_end *x = &p->end[i].e;
        int score = x->kind == EMU_CALL && x->direct
                        ? (x->target == pc ? 2 : x->conditional && x->fall == pc ? 1 : -1)
                    : x->kind == EMU_FALL ? (x->fall == pc || (x->jump && x->target == pc) ? 2 : 0)
                                          : 1;
        if (score > best_score)
            best = i, best_score = score;
    }
    return best;
}

/* A call reading: taken when execution went on at pc?  (A conditional
 * call to its own fall-through, MIPS's "bltzal t0, 1f" that reads the
 * pc, looks not taken: the oracle's rule too.) */
static int call_taken(const struct emu_end *e, uint64_t pc)
{
    return e->kind == EMU_CALL && !(e->conditional && pc == e->fall);
}

/* A signal handler entered at b: its SIGNAL record and frame; what was
 * pending (p's end, or a rewritten call on its way through the tracer)
 * waits in the frame until the handler returns. */
static void signal_delivered(struct vcpu *v, const struct block *p, const struct block *b,
                             int sig, uint64_t now)
{
    int rec = atomic_load(&recording) && event_begin_untimed(v, now) == 0;
    if (rec) {
        put(&v->c, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_SIGNAL, 1 + A->word_size / 4));
        put(&v->c, (uint32_t)sig);
        put_addr(&v->c, b->pc);
    }
    push(v, 0, 1, rec, p);
    v->stack[v->depth - 1].via = v->via;
    v->stack[v->depth - 1].via_end = v->via_end;
    v->stack[v->depth - 1].via_jump = v->via_jump;
    v->stack[v->depth - 1].via_site_plus1 = v->via_site_plus1;
    v->stack[v->depth - 1].via_ra = v->via_ra;
    v->via = NULL;
}

/* p's jump (its reading i) that reached `pc`: recorded if it is a tail
 * jump.  A direct one was looked at when p was translated; an indirect
 * one's last target is kept in p (another thread's may replace it: the
 * look is only made again). */
static void settle_jump(struct vcpu *v, struct block *p, int i, uint64_t pc, uint64_t now)
{
    const struct emu_end *e = &p->end[i].e;
    uint32_t site_plus1 = 0;
    if (e->kind == EMU_FALL) {
        if (!e->jump || pc != e->target || !(site_plus1 = p->jump_plus1[i]))
            return;
    } else if (atomic_load(&p->last_pc) == pc + 1) {
        site_plus1 = atomic_load(&p->last_plus1);
    } else if (!p->tracer) {
        pthread_mutex_lock(&lock);
        site_plus1 = tail_jump_at(e->site, pc) ? site_of_kind(e->site, 1) : 0;
        pthread_mutex_unlock(&lock);
        atomic_store(&p->last_plus1, site_plus1);
        atomic_store(&p->last_pc, pc + 1);
    }
    if (site_plus1 && atomic_load(&recording))
        record_call(v, site_plus1, pc, now);
}

/* The end of p (its reading `i`) now that the next block b starts;
 * `taken`: p's call reached a sled, so it was taken. */
static void settle_end(struct vcpu *v, const struct block *p, int i, const struct block *b,
                       uint64_t now, int taken)
{
    uint64_t pc = b->pc;
    const struct emu_end *e = &p->end[i].e;
    uint32_t site_plus1 = taken && v->via_site_plus1 ? v->via_site_plus1 : p->end[i].site_plus1;
    uint64_t ra = taken && v->via_ra ? v->via_ra : e->ra;
    int is_call = taken || call_taken(e, pc);
    if (is_call) {
        int trig = (start_at[0] || stop_at[0]) ? trigger_at(pc) : 0;
        if (trig == 1 && !atomic_load(&recording))
            set_recording(1, LITIFUT_STATE_BY_FUNCTION, now);
        int rec = atomic_load(&recording);
        if (rec)
            record_call(v, site_plus1, pc, now);
        push(v, ra, 0, rec && site_plus1, NULL);
        if (trig == 2 && atomic_load(&recording))   /* (after the call: a unit later) */
            set_recording(0, LITIFUT_STATE_BY_FUNCTION, now + 1);
        return;
    }
    if (!p->helper && ((e->kind == EMU_FALL && (pc != e->fall || (e->jump && pc == e->target))) ||
                       e->kind == EMU_JUMP)) {
        /* a jump, direct or not, that entered another function: a tail
         * jump, recorded as a call from its site with no frame (the
         * callee returns where the jumper would have) */
        settle_jump(v, (struct block *)p, i, pc, now);
        if (e->kind == EMU_FALL)
            return;
    }
    if (e->kind != EMU_RETURN && e->kind != EMU_JUMP && !p->helper)
        return;
    /* a return: the innermost open call returning to pc (only the
     * innermost after a jump that is no return) */
    uint32_t low = e->kind == EMU_JUMP && !p->helper && v->depth ? v->depth - 1 : 0;
    for (uint32_t k = v->depth; k-- > low;)
        if (!v->stack[k].signal && v->stack[k].ra == pc) {
            pop_to(v, k, now);
            return;
        }
    {                                   /* setjmp's return again, after longjmp */
        const struct returned *r = returned_slot(v, pc, 0);
        if (r && r->depth_plus1 - 1 < v->depth)
            pop_to(v, r->depth_plus1 - 1, now);
    }
}

/* A rewritten call or tail jump (v->via) reached b, out of the tracer's
 * code: the call's end, or the jump's (a tail jump from its site). */
static void settle_via(struct vcpu *v, const struct block *b, uint64_t now)
{
    if (v->via_jump) {
        const struct emu_end *e = &v->via->end[v->via_end].e;
        uint64_t site = v->via_ra ? v->via_ra : e->site;    /* (a jump thunk's other site) */
        pthread_mutex_lock(&lock);
        uint32_t site_plus1 = tail_jump_at(site, b->pc) ? site_of_kind(site, 1) : 0;
        pthread_mutex_unlock(&lock);
        if (site_plus1 && atomic_load(&recording))
            record_call(v, site_plus1, b->pc, now);
    } else {
        settle_end(v, v->via, v->via_end, b, now, 1);
    }
    v->via = NULL;
    v->via_jump = 0;
}

/* The previous block's end, now that block b starts. */
static void settle(struct vcpu *v, const struct block *p, struct block *b, uint64_t now)
{
    int i = pick_end(p, b->pc);
    const struct emu_end *e = &p->end[i].e;
    int sig = handler_at(b);
    if (sig >= 0 && !(call_taken(e, b->pc) && (!e->direct || e->target == b->pc))) {
        signal_delivered(v, p, b, sig, now);    /* (p's end waits for the handler) */
        return;
    }
    settle_end(v, p, i, b, now, 0);
}

static void handle_fork_child(struct vcpu *v, unsigned idx);

/*
 * Each block as it starts.  An instrumented object's rewritten call
 * goes to its sled (a trampoline: the sleds, the hot and "off" paths,
 * far sleds, thunks; a MIPS bridge, which no file holds), through the
 * tracer's code to its target: `via` keeps the call until execution
 * leaves the tracer, and the block it reaches is its target.  The rest
 * of the tracer's code (its constructor, its __wrap_ functions) is code
 * like any other, but has no call site of its own.
 */
static void on_block(unsigned int idx, void *data)
{
    struct block *b = data;
    if (idx >= MAX_VCPUS)
        return;
    struct vcpu *v = vcpus[idx];
    if (atomic_load(&forked))
        handle_fork_child(v, idx), v = vcpus[idx];
    if (!v)
        v = vcpu_new(idx);
    uint64_t now = now_units(v);
    /* a delay slot a page boundary split from its jump (MIPS): the
     * jump's end is settled by the block after it */
    const struct block *p = v->via ? v->via_last : v->prev;
    if (p && p->end[0].e.slot_next && b->pc == p->end[0].e.site + 4) {
        v->clock += b->n_insns;
        return;
    }
    /* (the tracer's own function is the target when a trampoline's
     * indirect jump reaches it: a __wrap_ function; a call from a
     * trampoline into the tracer is its slow path, on the way) */
    const struct block *w = v->via_last;
    int sig, jumped = v->via && w && w->trampoline && b->tracer && !b->trampoline &&
                 (w->end[0].e.kind == EMU_JUMP || w->end[0].e.kind == EMU_RETURN ||
                  (v->via_jump && w->thunk));       /* (a thunk's jump to a __wrap_ function) */
    if (jumped) {
        settle_via(v, b, now);
        v->prev = b;
        v->in_tracer = 1;
    } else if (v->via) {
        if (b->tracer || b->trampoline || (b->helper && v->in_tracer)) {
            v->in_tracer = 1;           /* on its way through */
            v->via_last = b;
        } else if ((sig = handler_at(b)) >= 0) {
            signal_delivered(v, NULL, b, sig, now);
            v->prev = b;
            v->in_tracer = 0;
        } else {
            settle_via(v, b, now);
            v->prev = b;
            v->in_tracer = 0;
        }
    } else {
        int i;
        const struct emu_end *pe = v->prev ? &v->prev->end[i = pick_end(v->prev, b->pc)].e : NULL;
        if (b->thunk && pe && pe->kind == EMU_FALL && pe->jump && pe->target == b->pc &&
            !v->prev->tracer) {
            v->via = v->prev;           /* a rewritten tail jump, into its thunk */
            v->via_end = i;
            v->via_last = b;
            v->via_site_plus1 = 0;
            v->via_ra = 0;
            v->via_jump = 1;
            if (b->call_thunk == EMU_THUNK_CALL) {  /* ... or a call its thunk makes */
                pthread_mutex_lock(&lock);
                v->via_site_plus1 = site_of(pe->site + b->call_site);
                pthread_mutex_unlock(&lock);
                v->via_ra = pe->site + b->call_ra;
                v->via_jump = 0;
            } else if (b->call_thunk == EMU_THUNK_JUMP) {   /* ... a jump from its site */
                v->via_ra = pe->site + b->call_site;        /* (via_jump: the site) */
            }
            v->prev = NULL;
            v->in_tracer = 1;
        } else if (b->trampoline && pe && pe->kind == EMU_CALL) {
            v->via = v->prev;           /* a rewritten call, into its sled */
            v->via_end = i;
            v->via_last = b;
            v->via_site_plus1 = 0;
            v->via_ra = 0;
            v->via_jump = 0;
            if (b->thunk && A->thunk_site) {
                pthread_mutex_lock(&lock);
                v->via_site_plus1 = site_of(A->thunk_site(b->pc, v->prev->end[i].e.ra));
                pthread_mutex_unlock(&lock);
            }
            v->prev = NULL;
            v->in_tracer = 1;
        } else {
            if (v->prev)
                settle(v, v->prev, b, now);
            v->prev = b;
            v->in_tracer = b->tracer;
        }
    }
    v->clock += b->n_insns;
    if (control_path[0] && (v->clock >> CONTROL_POLL_BITS) >= v->next_poll) {
        v->next_poll = (v->clock >> CONTROL_POLL_BITS) + 1;
        poll_control(v);
    }
}

/* --- translation --- */

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    if (!n)
        return;
    struct emu_insn *in = calloc(n, sizeof *in);
    struct block *b = xzalloc(sizeof *b);
    if (!in) {
        say("out of memory");
        abort();
    }
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *qi = qemu_plugin_tb_get_insn(tb, i);
        in[i].vaddr = qemu_plugin_insn_vaddr(qi);
        in[i].size = (uint32_t)qemu_plugin_insn_size(qi);
        memcpy(in[i].bytes, qemu_plugin_insn_data(qi), in[i].size < 4 ? in[i].size : 4);
        if (!have_guest_base && qemu_plugin_insn_haddr(qi)) {
            /* (the program's path is known from here on, not at install) */
            pthread_mutex_lock(&lock);
            guest_base = (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(qi) - in[i].vaddr;
            have_guest_base = 1;
            put_header(0, 0, 0, 0, now_units(NULL));
            pthread_mutex_unlock(&lock);
        }
    }
    b->pc = qemu_plugin_tb_vaddr(tb);
    b->n_insns = (uint32_t)n;
    b->helper = A->helper_page && A->helper_page(b->pc);
    pthread_mutex_lock(&lock);
    int kind = code_kind_at(b->pc, b->helper);
    b->tracer = kind != 0;
    b->trampoline = kind == TRAMPOLINE || kind == THUNK;
    b->thunk = kind == THUNK;
    pthread_mutex_unlock(&lock);
    if (b->thunk && A->jump_thunk && have_guest_base) {
        /* (the thunk's words past the block's first instructions: read
         * as the sigaction's handler is, a bad address an error) */
        uint8_t bytes[32] = { 0 };
        struct iovec here = { bytes, sizeof bytes };
        struct iovec there = { (void *)(uintptr_t)(guest_base + b->pc), sizeof bytes };
        uint64_t site = 0, ra = 0;
        int what;
        if (process_vm_readv(getpid(), &here, 1, &there, 1, 0) == (ssize_t)sizeof bytes &&
            (what = A->jump_thunk(bytes, sizeof bytes, A->big_endian, 0, &site, &ra)) &&
            site < 256 && ra < 256) {
            b->call_thunk = (uint8_t)what;
            b->call_site = (uint8_t)site;
            b->call_ra = (uint8_t)ra;
        }
    }
    atomic_init(&b->gen, 0);
    atomic_init(&b->handler, -1);
    unsigned isas = A->block_isas(in, n, A->big_endian);
    for (unsigned isa = 0; isa < 2 && b->n_ends < 2; isa++) {
        if (!(isas & 1u << isa))
            continue;
        struct emu_end *e = &b->end[b->n_ends].e;
        A->block_end(isa, in, n, A->big_endian, e);
        if (e->kind == EMU_CALL && !b->tracer) {
            pthread_mutex_lock(&lock);
            b->end[b->n_ends].site_plus1 = site_of(e->site);
            pthread_mutex_unlock(&lock);
        } else if (e->kind == EMU_FALL && e->jump && !b->tracer) {
            pthread_mutex_lock(&lock);
            if (tail_jump_at(e->site, e->target))
                b->jump_plus1[b->n_ends] = site_of_kind(e->site, 1);
            pthread_mutex_unlock(&lock);
        }
        b->n_ends++;
    }
    free(in);
    /* (blocks live as long as qemu: a block translated again after a
     * flush gets a new one) */
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, b);
}

/* --- system calls --- */

/* Every thread's records flushed to the file as they stand: the chunks
 * are mapped shared, so only the maps file is left to write. */
static void before_exec(void)
{
    write_maps();
}

static void on_syscall(qemu_plugin_id_t id, unsigned int idx, int64_t num, uint64_t a1,
                       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                       uint64_t a7, uint64_t a8)
{
    (void)id, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    struct vcpu *v = idx < MAX_VCPUS ? vcpus[idx] : NULL;
    if (num == A->sys_rt_sigaction && a1 > 0 && a1 < NSIG_MAX && a2 && have_guest_base) {
        /* (no descriptor: a bad pointer is EFAULT, not a crash) */
        uint8_t buf[8] = { 0 };
        struct iovec here = { buf, A->word_size };
        struct iovec there = { (void *)(uintptr_t)(guest_base + a2 + A->sigaction_handler_offset),
                               A->word_size };
        if (process_vm_readv(getpid(), &here, 1, &there, 1, 0) == (ssize_t)A->word_size) {
            uint64_t h = rd(buf, A->word_size, A->big_endian);
            h &= ~A->isa_bits;          /* (a Thumb handler) */
            handler_of[a1] = h > 1 ? h : 0;     /* (SIG_DFL, SIG_IGN) */
            atomic_fetch_add(&handler_gen, 1);
        }
    } else if ((num == A->sys_rt_sigreturn || num == A->sys_sigreturn) && v) {
        /* the innermost handler returns; the end it interrupted goes on */
        for (uint32_t i = v->depth; i-- > 0;) {
            if (!v->stack[i].signal)
                continue;
            struct frame f = v->stack[i];
            v->depth = i;
            if (f.recorded && f.epoch == atomic_load(&off_epoch) && atomic_load(&recording) &&
                event_begin_untimed(v, now_units(v)) == 0)
                put(&v->c, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_SIGNAL_END, 0));
            v->prev = f.pending;
            v->via = f.via;
            v->via_end = f.via_end;
            v->via_jump = f.via_jump;
            v->via_site_plus1 = f.via_site_plus1;
            v->via_ra = f.via_ra;
            break;
        }
    } else if (num == A->sys_clone || num == A->sys_clone3) {
        if (v) {
            pthread_mutex_lock(&lock);
            clone_clock = v->clock;
            pthread_mutex_unlock(&lock);
        }
    } else if (num == A->sys_execve || num == A->sys_execveat) {
        before_exec();
    } else if (num == A->sys_exit_group) {
        write_maps();
    }
}

/* --- fork --- */

static void atfork_child(void)
{
    atomic_store(&forked, 1);
}

/* In a fork child, at its first block: its own trace, every object and
 * site again, the forking thread's frames inherited. */
static void handle_fork_child(struct vcpu *v, unsigned idx)
{
    atomic_store(&forked, 0);
    pthread_mutex_init(&lock, NULL);            /* (another thread may have held them) */
    pthread_mutex_init(&file_lock, NULL);
    for (unsigned i = 0; i < MAX_VCPUS; i++)     /* the parent's other threads are not here */
        if (vcpus[i] && i != idx) {
            vcpu_free(vcpus[i]);
            vcpus[i] = NULL;
        }
    uint32_t parent = pid, ptid = 0, pchunk = 0, pwords = 0;
    if (v && v->c.w)
        ptid = v->tid, pchunk = v->c.index, pwords = v->c.n;
    /* the parent's chunks: unmapped here, never written by the child */
    if (v && v->c.w)
        munmap(v->c.w, (size_t)v->c.cap * 4);
    if (proc_chunk.w)
        munmap(proc_chunk.w, (size_t)proc_chunk.cap * 4);
    proc_chunk = (struct chunk){ 0 };
    if (v)
        v->c = (struct chunk){ 0 }, v->dead = 0;
    struct stat st;                     /* (only ours: the number may be the program's) */
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == trace_dev && st.st_ino == trace_ino)
        close(fd);
    fd = -1;
    atomic_store(&stopped, 0);
    if (open_trace() != 0) {
        atomic_store(&stopped, 1);
        return;
    }
    put_header(parent, ptid, pchunk, pwords, now_units(v));
    pthread_mutex_lock(&lock);
    put_all_sites();
    if (!atomic_load(&recording))
        put_state(0, LITIFUT_STATE_AT_START, now_units(v));
    pthread_mutex_unlock(&lock);
    if (v)
        v->tid = (uint32_t)syscall(SYS_gettid);
}

/* --- start and end --- */

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int idx)
{
    (void)id;
    if (idx < MAX_VCPUS && vcpus[idx]) {        /* an index a finished thread had */
        vcpu_free(vcpus[idx]);
        vcpus[idx] = NULL;
    }
}

static void at_exit(qemu_plugin_id_t id, void *data)
{
    (void)id, (void)data;
    write_maps();
    for (unsigned i = 0; i < MAX_VCPUS; i++)
        if (vcpus[i] && vcpus[i]->c.w)
            msync(vcpus[i]->c.w, (size_t)vcpus[i]->c.cap * 4, MS_ASYNC);
}

static int parse_arg(const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq)
        return -1;
    size_t k = (size_t)(eq - arg);
    const char *val = eq + 1;
#define KEY(s) (k == sizeof s - 1 && !memcmp(arg, s, k))
    if (KEY("dir"))
        return snprintf(out_dir, sizeof out_dir, "%s", val) < (int)sizeof out_dir ? 0 : -1;
    if (KEY("clock"))
        return !strcmp(val, "insns") ? (wall_clock = 0) : !strcmp(val, "wall") ? (wall_clock = 1, 0) : -1;
    if (KEY("returns"))
        return !strcmp(val, "on") ? (with_returns = 1, 0) : !strcmp(val, "off") ? (with_returns = 0) : -1;
    if (KEY("record"))
        return !strcmp(val, "on") ? (start_off = 0) : !strcmp(val, "off") ? (start_off = 1, 0) : -1;
    if (KEY("start_at"))
        return snprintf(start_at, sizeof start_at, "%s", val) < (int)sizeof start_at ? 0 : -1;
    if (KEY("stop_at"))
        return snprintf(stop_at, sizeof stop_at, "%s", val) < (int)sizeof stop_at ? 0 : -1;
    if (KEY("control"))
        return snprintf(control_path, sizeof control_path, "%s", val) < (int)sizeof control_path
                   ? 0 : -1;
#undef KEY
    return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                                           int argc, char **argv)
{
    A = emu_arch_by_target(info->target_name);
    if (!A || info->system_emulation) {
        say("no support for the guest %s%s", info->target_name ? info->target_name : "?",
            info->system_emulation ? " in system emulation" : "");
        return -1;
    }
    snprintf(out_dir, sizeof out_dir, ".");
    for (int i = 0; i < argc; i++)
        if (parse_arg(argv[i]) != 0) {
            say("bad plugin argument: %s", argv[i]);
            return -1;
        }
    if (open_trace() != 0)
        return -1;
    if (control_path[0] && control_word() == 0)
        start_off = 1;                  /* (the control file's word at start: the state then) */
    if (start_at[0] || start_off)
        set_recording(0, LITIFUT_STATE_AT_START, now_units(NULL));
    pthread_atfork(NULL, NULL, atfork_child);
    qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
