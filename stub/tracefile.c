/*
 * The trace file: its header, the chunks threads record into, the copy
 * of /proc/self/maps.  Its state is in the process block, shared by
 * every copy of the tracer.  Everything here runs on slow paths, with
 * the calling thread marked busy so that calls it makes are not traced.
 */
#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

#define P (litifut_copy.proc)

/* The C library's text for the errors the tracer can meet. */
static const char *error_text(long err)
{
    switch (-err) {
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case EIO: return "Input/output error";
    case EBADF: return "Bad file descriptor";
    case ENOMEM: return "Cannot allocate memory";
    case EACCES: return "Permission denied";
    case EEXIST: return "File exists";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case EINVAL: return "Invalid argument";
    case ENFILE: return "Too many open files in system";
    case EMFILE: return "Too many open files";
    case EFBIG: return "File too large";
    case ENOSPC: return "No space left on device";
    case EROFS: return "Read-only file system";
    case ENAMETOOLONG: return "File name too long";
    case ELOOP: return "Too many levels of symbolic links";
    case EDQUOT: return "Disk quota exceeded";
    case ENODEV: return "No such device";
    default: return NULL;
    }
}

/* One line on stderr: "litifut: WHAT PATH: ERROR; tracing disabled".
 * Called under the lock (it uses P->msg). */
void die_at(const char *before, uintptr_t addr, const char *after)
{
    static const char hex[] = "0123456789abcdef";
    char num[11] = "0x", msg[200], *p = msg, *end = msg + sizeof msg;  /* (no process block yet?) */
    for (int i = 0; i < 8; i++)
        num[2 + i] = hex[(addr >> (28 - 4 * i)) & 15];
    num[10] = 0;
    p = str_put(p, end, "litifut: ");
    p = str_put(p, end, before);
    p = str_put(p, end, num);
    p = str_put(p, end, after);
    p = str_put(p, end, "\n");
    sys_write(2, msg, (unsigned long)(p - msg));
    arch_syscall6(__NR_kill, sys_getpid(), SIGABRT, 0, 0, 0, 0);
    for (;;)                            /* (SIGABRT blocked or caught) */
        arch_syscall6(__NR_exit_group, 134, 0, 0, 0, 0, 0);
}

void say(const char *what, const char *path, long err, const char *tail)
{
    char *msg = P->msg, *p = msg, *end = msg + sizeof P->msg;
    p = str_put(p, end, "litifut: ");
    p = str_put(p, end, what);
    if (path) {
        p = str_put(p, end, " ");
        p = str_put(p, end, path);
    }
    if (err) {
        const char *text = error_text(err);
        p = str_put(p, end, ": ");
        if (text) {
            p = str_put(p, end, text);
        } else {
            p = str_put(p, end, "error ");
            p = str_put_uint(p, end, (uint32_t)-err);
        }
    }
    p = str_put(p, end, tail);
    p = str_put(p, end, "\n");
    sys_write(2, msg, (unsigned long)(p - msg));
}

void warn(const char *what, const char *path, long err)
{
    say(what, path, err, "; tracing disabled");
}

/* What one reading of the event clock costs (the header's
 * clock_read_ns): the best of 3 rounds of 16 reads; 0 for marks. */
static uint32_t clock_read_ns(uint32_t clock)
{
    if (clock != LITIFUT_CLOCK_MONOTONIC && clock != ARCH_COUNTER_CLOCK)
        return 0;
    uint64_t best = ~0ull;
    for (int round = 0; round < 3; round++) {
        uint64_t t0 = sys_monotonic_ns();
        for (int i = 0; i < 16; i++) {
            if (clock == LITIFUT_CLOCK_MONOTONIC)
                (void)sys_monotonic_ns();
            else
                (void)arch_counter();
        }
        uint64_t d = sys_monotonic_ns() - t0;
        best = d < best ? d : best;
    }
    uint64_t per = udiv64(best, 16);
    return per > 0xffffffffu ? 0xffffffffu : per ? (uint32_t)per : 1u;  /* (1: below a ns) */
}

/* --- the header --- */

static void fill_header(struct litifut_trace_header *h)
{
    static const char magic[8] = LITIFUT_TRACE_MAGIC;
    for (int i = 0; i < 8; i++)
        h->magic[i] = magic[i];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    h->endian = LITIFUT_BIG_ENDIAN;
#else
    h->endian = LITIFUT_LITTLE_ENDIAN;
#endif
    h->arch = ARCH_ID;
    h->word_size = (uint8_t)sizeof(uintptr_t);
    /* (version 7 only where ARGS records may come: other traces stay
     * readable by the post-processors that read 6) */
    h->version = P->settings.args[0] ? LITIFUT_TRACE_VERSION : LITIFUT_TRACE_VERSION_NO_ARGS;
    h->header_size = P->page;
    h->chunk_size = P->chunk_size;
    h->pid = (uint32_t)sys_getpid();
    h->time_every = P->time_every;
    h->start_ns = sys_monotonic_ns();
    h->clock = (uint8_t)P->clock;
    h->clock_read_ns = clock_read_ns(P->clock);
    h->time_shift = (uint8_t)P->time_shift;
    h->clock_hz = P->clock == LITIFUT_CLOCK_MONOTONIC ? 1000000000u
                  : P->clock == ARCH_COUNTER_CLOCK ? P->counter_hz : 0;
    h->flags = (P->settings.returns ? LITIFUT_TRACE_RETURNS : 0) |
               (P->ring_chunk ? LITIFUT_TRACE_RING : 0);
    h->ring_size = P->ring_want * P->ring_chunk;
    h->mode = (uint8_t)P->mode;
    h->max_size_kb = P->settings.max_size_kb;
    h->max_total_kb = P->settings.max_total_kb;
    h->ppid = (uint32_t)SYS0(__NR_getppid);
    long n = sys_readlink("/proc/self/exe", h->exe, sizeof h->exe - 1);
    h->exe[n > 0 ? n : 0] = 0;
    h->parent_pid = P->fork_from[0];
    h->parent_tid = P->fork_from[1];
    h->parent_chunk = P->fork_from[2];
    h->parent_words = P->fork_from[3];
}

/* --- growing the file: never a signal the program would not get
 * (xfsz_pending, xfsz_undo: sys.h) --- */

long tracefile_write(int fd, const void *buf, unsigned long n)
{
    int was = xfsz_pending();
    long w = sys_write(fd, buf, n);
    xfsz_undo(w, was);
    return w;
}

/* The trace file made `size` bytes long (0, or -errno).  Under the lock. */
static long grow_file(uint64_t size)
{
    if (size <= P->file_size)
        return 0;
    if (size > sys_file_size_limit())
        return -EFBIG;
    int was = xfsz_pending();
    long err = arch_fallocate(P->fd, 0, P->file_size, size - P->file_size);
    if (err == -EOPNOTSUPP || err == -ENOSYS)
        err = arch_ftruncate64(P->fd, size);
    xfsz_undo(err, was);
    if (!err)
        P->file_size = size;
    return err;
}

/* Recording stops for good (`why`: a LITIFUT_STOP_*): said once on
 * stderr (unless `what` is NULL) and in the header, and every copy's sleds go to the "off"
 * code, so that calls cost what LITIFUT_TRACE=0 costs from now on.
 * Each thread that finds it out says so in its own chunk
 * (thread.c).  Under the lock. */
static void trace_stops(uint32_t why, long err, const char *what)
{
    if (P->trace == TRACE_ON) {
        if (what)               /* (none for LITIFUT_MAX_SIZE: the user's own limit) */
            say(what, P->path, err, "; recording stopped, the trace ends here");
        if (P->header) {
            P->header->stop_errno = (uint32_t)-err;
            P->header->stop_ns = sys_monotonic_ns();
            __asm__ volatile("" ::: "memory");
            P->header->stopped = why;
        }
        P->stop_why = why;
        P->stop_errno = (uint32_t)-err;
    }
    P->trace = TRACE_OFF;
    objects_set_recording(0);
}

#define COPY_CHUNK (1ul << 20)      /* bytes per sendfile */

/* Copies all of `in` to `out`: sendfile, or read and write where the
 * kernel cannot send between these files.  0 or -errno.  (A file size
 * limit makes it fail, never sends the program SIGXFSZ: copy_fd.) */
static long copy_fd_raw(int in, int out)
{
    long n;
    while ((n = arch_syscall6(__NR_sendfile, out, in, 0, (long)COPY_CHUNK, 0, 0)) > 0)
        ;
    if (n != -EINVAL && n != -ENOSYS)
        return n;
    while ((n = sys_read(in, P->io, sizeof P->io)) > 0) {
        long w = sys_write(out, P->io, (unsigned long)n);
        if (w != n)
            return w < 0 ? w : -ENOSPC;     /* a short write: the disk is full */
    }
    return n;
}

static long copy_fd(int in, int out)
{
    int was = xfsz_pending();
    long rc = copy_fd_raw(in, out);
    xfsz_undo(rc, was);
    return rc;
}

/* `from` to DIR/name, through DIR/.name.tmp.  0 or -errno. */
static long copy_file(const char *from, const char *dir, const char *name)
{
    char *tmp = P->scratch[0], *final = P->scratch[1];
    const unsigned long size = sizeof P->scratch[0];
    if (str_len(dir) + str_len(name) + sizeof "/..tmp" > size)
        return -ENAMETOOLONG;           /* never a shortened path */
    char *p = str_put(str_put(tmp, tmp + size, dir), tmp + size, "/.");
    str_put(str_put(p, tmp + size, name), tmp + size, ".tmp");
    str_put(str_put(str_put(final, final + size, dir), final + size, "/"), final + size, name);
    int in = sys_open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0);
    if (in < 0)
        return in;
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int out = sys_open(tmp, flags, 0644);
    if (out == -EEXIST && sys_unlink(tmp) == 0)     /* left by a crash: ours to replace */
        out = sys_open(tmp, flags, 0644);
    long rc = out;
    if (out >= 0) {
        rc = copy_fd(in, out);
        if (rc == 0)
            rc = SYS3(__NR_fsync, out, 0, 0);
        long closed = sys_close(out);
        if (rc == 0)
            rc = closed;
        if (rc == 0)
            rc = sys_rename(tmp, final);
        if (rc != 0)
            sys_unlink(tmp);
    }
    sys_close(in);
    return rc;
}

static void sync_dir(const char *dir)
{
    int fd = sys_open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd >= 0) {
        SYS3(__NR_fsync, fd, 0, 0);
        sys_close(fd);
    }
}

static const char *last_component(const char *path)
{
    const char *base = path;
    for (const char *s = path; *s; s++)
        if (*s == '/')
            base = s + 1;
    return base;
}

/* Copies the maps (fresh) and the trace to LITIFUT_COPY_TO.  Under the
 * lock. */
void tracefile_copy_out(void)
{
    const char *dir = P->settings.copy_to;
    if (!dir[0] || (P->trace != TRACE_ON && !P->snapshot) || !P->header)
        return;
    tracefile_copy_maps();
    char maps_name[PATH_SIZE], maps_path[PATH_SIZE + 16];
    str_put(str_put(maps_path, maps_path + sizeof maps_path, P->base),
            maps_path + sizeof maps_path, ".maps");
    str_put(maps_name, maps_name + sizeof maps_name, last_component(maps_path));
    long rc = copy_file(P->path, dir, last_component(P->path));
    if (rc == 0)
        rc = copy_file(maps_path, dir, maps_name);
    if (rc == 0)
        sync_dir(dir);
    else
        say("cannot copy the trace to", dir, rc, "; it stays in LITIFUT_DIR");
}


/* --- the ring (LITIFUT_MODE=ring): a flight recorder ---
 *
 * Every thread chunk is ring_chunk bytes (a 32nd of the ring, at most
 * LITIFUT_CHUNK_KB, at least a page and a 32768th of the ring, when
 * the trace's chunk size grows to it) in a *slot*: the first ring_want
 * slots are made at the file's end as threads need them; after that a
 * thread's next chunk takes over the slot the hand points at, the one
 * taken longest ago, skipping slots a thread still holds (its current
 * chunk, and the one before, where a record store a signal handler
 * interrupted may still land: thread.c).  If every slot is held (more
 * threads than the ring has room for) a new one is made: the file
 * holds the ring or two chunks per live thread, whichever is more.
 * The process's own chunks (objects, states) are never taken over. */

#define RING_MAX_SLOTS 65536u       /* (2 GB of 32 KB chunks) */

static int ring_setup(void)
{
    const struct settings *st = &P->settings;
    if (!st->ring)
        return 1;
    uint64_t ring = (uint64_t)st->ring_kb * 1024;
    uint32_t c = P->chunk_size, shift = 0;
    while (c > P->page && (uint64_t)c * 32 > ring)
        c /= 2;
    if (c < P->page)
        c = P->page;            /* (LITIFUT_CHUNK_KB below a 16 or 64 KB page) */
    while (ring > (uint64_t)c * (RING_MAX_SLOTS / 2))
        c *= 2;                 /* (a ring of more slots than its table: larger chunks) */
    while ((1u << shift) < c)
        shift++;
    P->chunk_size = c;          /* (the header's: no chunk is larger; the process's own
                                   are no larger either) */
    P->ring_chunk = c;
    P->ring_want = (uint32_t)(ring >> shift);
    if (P->ring_want < 2)
        P->ring_want = 2;
    P->ring_n = P->ring_hand = 0;
    if (!P->ring_off) {
        void *m = map_aside(RING_MAX_SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (sys_mmap_failed(m)) {
            warn("cannot map the ring's table", NULL, (long)m);
            return 0;
        }
        P->ring_off = m;
    }
    return 1;
}

/* The slot (from 1) a thread's next chunk takes over, 0 if it needs a
 * new one.  `held`: the thread's current slot (its own pool entry may
 * not say: a static program's first thread has none yet). */
static uint32_t ring_take(uint32_t held)
{
    if (P->ring_n < P->ring_want)
        return 0;
    for (uint32_t tries = 0; tries < P->ring_n; tries++) {
        uint32_t slot = P->ring_hand + 1;
        P->ring_hand = slot == P->ring_n ? 0 : slot;
        if (slot != held && !pool_slot_held(slot))
            return slot;
    }
    return 0;
}

/* The slot's old records go: the file's blocks are given back, so that
 * after a power cut its pages read as zeros, not as another thread's
 * records under the new chunk's header.  Where the file system cannot
 * (1), the caller clears the mapping. */
static int ring_clear(uint64_t off, uint32_t size)
{
    long err = arch_fallocate(P->fd, 3 /* FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE */, off,
                              size);
    return err != 0;
}

/* --- snapshots --- */

/* A snapshot asked for (signal, control file, function): the room for
 * its FROZEN records first (a new chunk of the process's own takes the
 * lock), then the snapshot under the lock. */
void tracefile_freeze(uint32_t why, uint32_t arg)
{
    uint32_t mask[SIGSET_WORDS];
    if (P->trace == TRACE_ON && !P->snapshot)
        tracefile_events_room((pool_threads() + 8) * (1 + LITIFUT_FROZEN_REC_WORDS));
    lock(mask);
    tracefile_snapshot(why, arg);
    unlock(mask);
}

/* The ring's records end here, for `why` (a LITIFUT_SNAPSHOT_*; arg:
 * the signal).  A snapshot asked for (signal, control file, function)
 * freezes the trace for good: recording stops, as when the file fails
 * (but silently), a FROZEN record per thread says where its records end
 * (room made by tracefile_freeze before the lock), and
 * LITIFUT_COPY_TO gets the copy now.  Exit and a
 * fatal signal only say why (nothing comes after them); the fatal
 * signal copies too.  The first cause is kept.  Under the lock. */
void tracefile_snapshot(uint32_t why, uint32_t arg)
{
    if (P->trace != TRACE_ON || !P->header)
        return;
    int freeze = why != LITIFUT_SNAPSHOT_EXIT && why != LITIFUT_SNAPSHOT_FATAL;
    if (!P->snapshot && (P->settings.ring || freeze)) {
        P->snapshot = why;
        /* where each thread's records end, then the time: every record
         * before its thread's end was timed before it.  What a thread
         * stores from now on (a hot path under way, a return, a time
         * mark) is not in the trace, nor in the copy made below. */
        if (freeze && P->events_cur)
            P->events_cur = pool_frozen(P->events_cur, P->events_end);
        uint64_t now = sys_monotonic_ns();
        P->header->snapshot_arg = arg;
        P->header->snapshot_ns = now;
        __asm__ volatile("" ::: "memory");
        P->header->snapshot = why;
        if (freeze) {
            P->header->stop_ns = now;
            __asm__ volatile("" ::: "memory");
            P->header->stopped = LITIFUT_STOP_SNAPSHOT;
            P->stop_why = LITIFUT_STOP_SNAPSHOT;
            P->trace = TRACE_OFF;
            objects_set_recording(0);
        }
    }
    if ((freeze || why == LITIFUT_SNAPSHOT_FATAL) && P->settings.copy_to[0])
        tracefile_copy_out();
}

static int same_file(const struct file_id *a, const struct file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

/* Daemons close every descriptor when they start, and may then get our
 * number for a file of their own: before using the descriptor, check
 * that it still is the trace file (device and inode), and reopen that
 * by path if not: never through a symbolic link, and only if the path
 * still names the very file we created.  0, or why not (-errno; 1: the
 * path names another file now).  Called under the lock. */
static long trace_fd_usable(void)
{
    struct file_id id;
    if (file_id_of(P->fd, &id) == 0 && same_file(&id, &P->id))
        return 0;
    int fd = sys_open(P->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);
    if (fd < 0)
        return fd;
    if (file_id_of(fd, &id) != 0 || !same_file(&id, &P->id)) {
        sys_close(fd);
        return 1;
    }
    P->fd = fd;                       /* the old number is not ours any more */
    return 0;
}

/* LITIFUT_DIR's patterns (core(5)'s; settings.c let no other through):
 * %p the pid, %e the program's file name, %t the start time (seconds
 * since the epoch), %h the host name, %u the user id, %% a %.  Into
 * out; 0 if the result does not fit. */
static int expand_dir(const char *pattern, char *out, unsigned long size)
{
    char *p = out, *end = out + size;
    for (const char *s = pattern; *s && p < end - 1; s++) {
        if (*s != '%' || !s[1]) {
            *p++ = *s;
            continue;
        }
        char *io = P->io;
        long n;
        switch (*++s) {
        case 'p':
            p = str_put_uint(p, end, (uint32_t)sys_getpid());
            break;
        case 't':
            p = str_put_uint(p, end, sys_realtime_s());
            break;
        case 'u':
            p = str_put_uint(p, end, (uint32_t)SYS0(__NR_getuid));
            break;
        case 'e':
            n = sys_readlink("/proc/self/exe", io, sizeof P->io - 1);
            io[n > 0 ? n : 0] = 0;
            p = str_put(p, end, n > 0 ? last_component(io) : "unknown");
            break;
        case 'h':           /* struct utsname: 65-byte fields, nodename second */
            n = SYS3(__NR_uname, io, 0, 0);
            io[65 + 64] = 0;
            p = str_put(p, end, n == 0 && io[65] ? io + 65 : "unknown");
            break;
        default:
            *p++ = *s;      /* %% */
        }
    }
    if (p >= end - 1)
        return 0;
    *p = 0;
    return 1;
}

/* The directories of `dir` (absolute) that are missing, made as mkdir
 * -p makes them (0755 less the umask, the program's user and group).
 * The deepest one that is there is opened as the path names it (so
 * also under qemu-user's -L, which redirects absolute paths only); each
 * one made below it is entered with O_NOFOLLOW, so that a symbolic
 * link put in its place meanwhile is never followed.  0, or -errno.
 * Uses P->io and P->scratch[0] (not the stack: it may be a signal's
 * small alternate one). */
static long make_dirs(const char *dir)
{
    char *have = P->io;
    unsigned long len = str_len(dir);
    if (len >= sizeof P->io)
        return -ENAMETOOLONG;
    str_put(have, have + sizeof P->io, dir);
    int fd;
    for (;;) {              /* the deepest directory there */
        fd = sys_openat(AT_FDCWD, have[0] ? have : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 || fd != -ENOENT || !have[0])
            break;
        while (len && have[len - 1] == '/')
            len--;
        while (len && have[len - 1] != '/')
            len--;
        have[len] = 0;
    }
    char *name = P->scratch[0];     /* (create_trace_file makes its path again after) */
    for (const char *s = dir + len; fd >= 0 && *s;) {
        while (*s == '/')
            s++;
        unsigned long n = 0;
        while (s[n] && s[n] != '/')
            n++;
        if (!n)
            break;
        if (n >= sizeof P->scratch[0]) {
            sys_close(fd);
            return -ENAMETOOLONG;
        }
        for (unsigned long i = 0; i < n; i++)
            name[i] = s[i];
        name[n] = 0;
        s += n;
        long made = sys_mkdirat(fd, name, 0755);
        if (made && made != -EEXIST) {
            sys_close(fd);
            return made;
        }
        int next = sys_openat(fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC |
                                            (made == 0 ? O_NOFOLLOW : 0));
        sys_close(fd);
        fd = next;
    }
    if (fd < 0)
        return fd;
    sys_close(fd);
    return 0;
}

/* LITIFUT_MAX_TOTAL: the run's shared count, in LITIFUT_TOTAL_FILE in
 * the run's directory (LITIFUT_DIR before its first pattern: every
 * process of a boot/%e/%p run counts in boot/), made by the first
 * process and mapped by each (a fork child keeps its parent's mapping).
 * The file is another process's, so it is taken only as the run's own:
 * a regular file (no link followed), of this user, of 4096 bytes with
 * the magic, or empty (just made: then this process writes the magic).
 * 1, or 0 if it cannot be had (said: no trace, the cap is not kept
 * otherwise).  Under the lock. */
static int total_open(const char *pattern)
{
    if (!P->settings.max_total_kb || P->total)
        return 1;
    char *path = P->scratch[0];
    const unsigned long size = sizeof P->scratch[0];
    unsigned long root = 0, i = 0;      /* the run's directory: up to the last '/' before a % */
    for (; pattern[i] && pattern[i] != '%'; i++)
        if (pattern[i] == '/')
            root = i;
    if (!pattern[i])
        root = i;                       /* no pattern: LITIFUT_DIR itself */
    if (root + sizeof "/" LITIFUT_TOTAL_FILE > size)
        return 0;
    for (i = 0; i < root; i++)
        path[i] = pattern[i];
    str_put(path + root, path + size, "/" LITIFUT_TOTAL_FILE);
    int fd = sys_open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    struct file_id id;
    long err = fd < 0 ? fd : file_id_of(fd, &id);
    if (!err && ((id.mode & 0170000) != 0100000 || id.uid != (uint32_t)SYS0(__NR_geteuid) ||
                 (id.size != 0 && id.size != 4096)))
        err = -EPERM;
    if (!err && id.size == 0)
        err = arch_ftruncate64(fd, 4096);
    void *m = err ? (void *)err : map_aside(4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        sys_close(fd);
    if (sys_mmap_failed(m)) {
        warn("cannot keep LITIFUT_MAX_TOTAL's count in", path, (long)m);
        return 0;
    }
    volatile uint32_t *w = m;
    if (w[0] != LITIFUT_TOTAL_MAGIC && !arch_cmpxchg(w, 0, LITIFUT_TOTAL_MAGIC) &&
        w[0] != LITIFUT_TOTAL_MAGIC) {
        sys_munmap(m, 4096);
        warn("cannot keep LITIFUT_MAX_TOTAL's count in", path, -EPERM);
        return 0;
    }
    P->total = w + 1;
    return 1;
}

/* `bytes` more of trace file for the run: 0 if that would pass
 * LITIFUT_MAX_TOTAL (then nothing is counted). */
static int total_take(uint64_t bytes)
{
    if (!P->total)
        return 1;
    uint32_t units = (uint32_t)((bytes + 511) >> 9), n;
    uint64_t cap = (uint64_t)P->settings.max_total_kb * 2;
    do {
        n = *P->total;
        if (n + (uint64_t)units > cap || n + (uint64_t)units > 0xffffffffu)
            return 0;
    } while (!arch_cmpxchg(P->total, n, n + units));
    return 1;
}

/* Creates dir/litifut.<pid>.trace, dir being LITIFUT_DIR's pattern
 * expanded now (a fork child's %p is its own) and made if missing; if
 * the file exists (an exec in the same process, or a reused pid),
 * litifut.<pid>.1.trace and so on. */
static int create_trace_file(const char *pattern)
{
    char *path = P->scratch[0], *dir = P->scratch[1];
    const unsigned long path_size = sizeof P->scratch[0];
    if (!expand_dir(pattern, dir, sizeof P->base - 32)) {
        warn("LITIFUT_DIR with its patterns expanded is longer than the tracer's limit",
             NULL, 0);
        return -1;
    }
    uint32_t pid = (uint32_t)sys_getpid();
    int made = 0;
    for (uint32_t n = 0; n < 100; n++) {
        char *end = P->base + sizeof P->base;
        char *p = str_put(P->base, end, dir);
        p = str_put(p, end, "/litifut.");
        p = str_put_uint(p, end, pid);
        if (n) {
            p = str_put(p, end, ".");
            p = str_put_uint(p, end, n);
        }
        str_put(str_put(path, path + path_size, P->base), path + path_size, ".trace");
        int fd = sys_open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) {
            str_put(P->path, P->path + sizeof P->path, path);
            if (file_id_of(fd, &P->id) != 0) {
                warn("cannot stat trace file", path, -EBADF);
                sys_close(fd);
                return -1;
            }
            return fd;
        }
        if (fd == -ENOENT && !made++) {
            long err = make_dirs(dir);
            if (err) {
                warn("cannot create directory", dir, err);
                return -1;
            }
            n--;                /* the same name again, in the new directory */
            continue;
        }
        if (fd != -EEXIST) {
            warn("cannot create trace file", path, fd);
            return -1;
        }
    }
    warn("cannot create trace file", path, -EEXIST);
    return -1;
}

/* A new file at `path`, never through a symbolic link and never one
 * somebody else made: a file left there (by a crash, or planted) is
 * removed first (unlink removes a link itself, not its target). */
static int create_private(const char *path)
{
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = sys_open(path, flags, 0644);
    if (fd == -EEXIST && sys_unlink(path) == 0)
        fd = sys_open(path, flags, 0644);
    return fd;
}

/* Copies /proc/self/maps to <base>.maps (through a temporary file, so
 * the copy is always whole; rename replaces a link at <base>.maps, it
 * never writes through it).  Called under the lock. */
void tracefile_copy_maps(void)
{
    char *tmp = P->scratch[0], *final = P->scratch[1];
    const unsigned long size = sizeof P->scratch[0];
    str_put(str_put(tmp, tmp + size, P->base), tmp + size, ".maps.tmp");
    str_put(str_put(final, final + size, P->base), final + size, ".maps");
    int in = sys_open("/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
    if (in < 0)
        return;
    int out = create_private(tmp);
    long n = 0;
    if (out >= 0) {
        while ((n = sys_read(in, P->io, sizeof P->io)) > 0)
            if (tracefile_write(out, P->io, (unsigned long)n) != n) {
                n = -1;
                break;
            }
        sys_close(out);
        if (n == 0)
            sys_rename(tmp, final);
        else
            sys_unlink(tmp);
    }
    sys_close(in);
}

static void settings_once(void)
{
    if (!P->settings_read) {
        read_settings(&P->settings);
        P->settings_read = 1;
    }
}

const struct settings *tracefile_settings(void)
{
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    settings_once();
    unlock(mask);
    return &P->settings;
}

/* Where event times come from (trace-format.h, docs/DESIGN.md "Time"):
 *   counter    the processor's counter (tracer-arch.h), the cheapest
 *              per-event clock; "auto" (the default) takes it where it
 *              can be read (ARM: the HWCAP bit; MIPS: it advances), else
 *              monotonic: a time per event by default;
 *   monotonic  a clock_gettime system call per event, in units of 32 ns
 *              (1e9 / 32 is whole, so units = sec * 31250000 + nsec / 32,
 *              exactly ns >> 5: the deltas are exact);
 *   marks      time marks every time_every record words, interpolated by
 *              the reader. */
#define MONOTONIC_SHIFT 5u

static int counter_usable(void)
{
    if (ARCH_HWCAP_COUNTER)
        return (auxv_value(16 /* AT_HWCAP */) & ARCH_HWCAP_COUNTER) != 0;
    uint64_t c0 = arch_counter();       /* readable: it must also advance */
    for (int i = 0; i < 3; i++)
        sys_getpid();
    return arch_counter() != c0;
}

static void choose_clock(void)
{
    if (P->clock)
        return;
    uint32_t want = P->settings.clock;
    P->time_shift = 0;
    P->clock = LITIFUT_CLOCK_MARKS;
    if (want == LITIFUT_CLOCK_MONOTONIC || (!want && !ARCH_COUNTER_AUTO)) {
        P->clock = LITIFUT_CLOCK_MONOTONIC;
        P->time_shift = MONOTONIC_SHIFT;
    } else if (want == ARCH_COUNTER_CLOCK || (!want && ARCH_COUNTER_AUTO)) {
        /* asked for: used unless known to trap (ARM without the bit) */
        if (counter_usable() || (want && !ARCH_HWCAP_COUNTER)) {
            P->clock = ARCH_COUNTER_CLOCK;
            P->time_shift = ARCH_COUNTER_SHIFT;
            P->counter_hz = arch_counter_hz();
            P->counter_at[0] = arch_counter();
            P->counter_at[1] = sys_monotonic_ns();
        } else if (want) {
            static const char msg[] = "litifut: LITIFUT_CLOCK=counter: this processor's "
                                      "counter cannot be read here; using time marks\n";
            sys_write(2, msg, sizeof msg - 1);
        } else {                        /* auto: a time per event all the same */
            P->clock = LITIFUT_CLOCK_MONOTONIC;
            P->time_shift = MONOTONIC_SHIFT;
        }
    }
}

/* A counter of unknown rate: measured from the first reading to a
 * later one 0.1 to 2 s after (a 32-bit counter wraps in seconds). */
void tracefile_measure_counter(void)
{
    if (P->clock != ARCH_COUNTER_CLOCK || P->counter_hz || !P->header)
        return;
    uint64_t ns = sys_monotonic_ns() - P->counter_at[1];
    if (ns < 100000000u || ns > 2000000000u)
        return;
    uint64_t ticks = (arch_counter() - P->counter_at[0]) & ARCH_COUNTER_MASK;
    P->counter_hz = udiv64(ticks * 1000000u, udiv64(ns, 1000u));  /* per us: no overflow */
    P->header->clock_hz = P->counter_hz;
}

int tracefile_returns(void)
{
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    settings_once();
    int r = P->settings.returns;
    unlock(mask);
    return r;
}

uint32_t tracefile_clock(void)
{
    if (P->clock)
        return P->clock;                /* decided once, before any record */
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    settings_once();
    choose_clock();
    uint32_t c = P->clock;
    unlock(mask);
    return c;
}

uint64_t clock_ticks(uint32_t *units)
{
    uint64_t ticks = 0;
    if (P->clock == LITIFUT_CLOCK_MONOTONIC)
        ticks = sys_monotonic_ns();
    else if (P->clock == ARCH_COUNTER_CLOCK)
        ticks = arch_counter();
    *units = (uint32_t)(ticks >> P->time_shift);
    return ticks;
}

int tracefile_disabled(void)
{
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    settings_once();
    int off = P->trace == TRACE_OFF || P->settings.off;
    unlock(mask);
    return off;
}

static int open_trace(void)
{
    struct settings *st = &P->settings;
    settings_once();
    if (st->off)
        return 0;
    if (st->dir_too_long) {
        _Static_assert(sizeof st->dir == 536, "the message below names the limit");
        warn("LITIFUT_DIR (made absolute) is longer than 535 bytes, the tracer's limit",
             NULL, 0);
        return 0;
    }
    if (st->copy_to_too_long) {
        _Static_assert(sizeof st->copy_to == 536, "the message below names the limit");
        say("LITIFUT_COPY_TO (made absolute) is longer than 535 bytes, the tracer's limit",
            NULL, 0, "; no copy");
    }
    if (settings_problem(st)) {
        warn(settings_problem(st), NULL, 0);
        return 0;
    }
    if (st->budget_ignored)
        say("LITIFUT_BUDGET needs LITIFUT_MODE=full", NULL, 0, "; no budget");
    if (st->returns_ignored)
        say("LITIFUT_RETURNS=1 needs LITIFUT_MODE=full", NULL, 0, "; no return records");
    if (st->ring_ignored)
        say("LITIFUT_RING needs LITIFUT_MODE=ring", NULL, 0, "; no ring");
    P->mode = st->mode;
    /* chunks are mapped one by one: whole pages of the system's size */
    uint32_t page = (uint32_t)auxv_value(6 /* AT_PAGESZ */);
    P->page = page > 4096 && page <= 65536 && !(page & (page - 1)) ? page : 4096;
    P->chunk_size = st->chunk_kb * 1024;
    if (!ring_setup())
        return 0;
    choose_clock();
    P->time_every = P->clock == LITIFUT_CLOCK_MARKS ? st->time_every : 0;
    P->fd = create_trace_file(st->dir);
    if (P->fd < 0)
        return 0;
    if (!total_open(st->dir) || !total_take(P->page)) {
        if (P->total)           /* the run's traces are at the cap: silently (the user's
                                   limit) no trace, counted for the views (word 2) */
            count_up(P->total + 1);
        sys_close(P->fd);
        sys_unlink(P->path);
        P->fd = -1;
        return 0;
    }
    P->file_size = 0;
    long err = grow_file(P->page);
    void *h = err ? (void *)err
                  : map_aside(P->page, PROT_READ | PROT_WRITE, MAP_SHARED, P->fd, 0);
    if (sys_mmap_failed(h)) {
        warn("cannot map trace file", P->base, (long)h);
        sys_close(P->fd);
        P->fd = -1;
        return 0;
    }
    P->header = h;
    P->next_off = P->page;              /* chunk 0: after the header */
    fill_header(P->header);
    tracefile_copy_maps();        /* now, in case the program never exits normally */
    return 1;
}

int tracefile_start(void)
{
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    if (P->trace == TRACE_NEW) {
        P->trace = open_trace() ? TRACE_ON : TRACE_OFF;
        if (P->trace == TRACE_OFF)
            objects_set_recording(0);   /* no trace: the "off" code's cost from now on */
    }
    int on = P->trace == TRACE_ON;
    unlock(mask);
    return on;
}

uint32_t tracefile_time_every(void)
{
    return P->time_every;
}

int tracefile_new_chunk(uint32_t tid, uint32_t size, struct chunk *out)
{
    lock_signals_blocked();
    tracefile_measure_counter();
    if (P->trace != TRACE_ON) {
        unlock_signals_blocked();
        return 0;
    }
    long bad = trace_fd_usable();
    if (bad) {
        trace_stops(LITIFUT_STOP_REPLACED, bad < 0 ? bad : 0,
                    bad < 0 ? "cannot reopen trace file" : "trace file was replaced:");
        unlock_signals_blocked();
        return 0;
    }
    int ring = P->ring_chunk && tid && tid != LITIFUT_PAIRS_TID;
    uint32_t want = size;
    /* (LITIFUT_ARGS: a thread chunk keeps room for an ARGS record after
     * its last call, thread.c: from 8 KB) */
    uint32_t least = P->settings.args[0] && tid ? 4 * 4 * ARGS_RECORD_MAX : LITIFUT_MIN_CHUNK;
    if (least > P->chunk_size)
        least = P->chunk_size;          /* (LITIFUT_CHUNK_KB=4: room enough still) */
    for (size = least; size < want && size < P->chunk_size; size *= 2)
        ;
    if (ring)
        size = P->ring_chunk;
    uint32_t index = P->next_chunk;
    uint32_t slot = ring ? ring_take(out->ring_held) : 0;
    uint64_t off = slot ? P->ring_off[slot - 1] : P->next_off;
    int dirty = 0;
    if (slot) {
        P->header->overwritten_chunks++;
        P->header->overwritten_bytes += size;
        dirty = ring_clear(off, size);
    } else {
        uint64_t cap = (uint64_t)P->settings.max_size_kb << 10;
        if ((cap && off + size > cap) || !total_take(size)) {
            trace_stops(cap && off + size > cap ? LITIFUT_STOP_SIZE : LITIFUT_STOP_TOTAL, 0, NULL);
            unlock_signals_blocked();
            return 0;
        }
        long err = grow_file(off + size);
        if (err) {
            trace_stops(LITIFUT_STOP_EXTEND, err, "cannot extend trace file");
            unlock_signals_blocked();
            return 0;
        }
        P->next_off = off + size;
        if (ring && P->ring_n < RING_MAX_SLOTS) {
            P->ring_off[P->ring_n++] = off;
            slot = P->ring_n;
        }
    }
    P->next_chunk++;
    if (ring)
        *out->ring_hold = slot;
    unlock_signals_blocked();
    struct litifut_chunk_header ch = { LITIFUT_CHUNK_MAGIC, tid, index, size };
    /* a small chunk may share its pages with others: the mapping is
     * of the pages it lies in (process_unmap_chunk) */
    uint64_t map_off = off & ~(uint64_t)(P->page - 1);
    unsigned long map_len = (unsigned long)(off - map_off) + size;
    char *m = map_aside((map_len + P->page - 1) & ~(unsigned long)(P->page - 1),
                       PROT_READ | PROT_WRITE,
                       /* LITIFUT_BUDGET: its page faults now, in refill time */
                       MAP_SHARED | (P->budget_units ? MAP_POPULATE : 0), P->fd, map_off);
    void *p = sys_mmap_failed(m) ? m : m + (off - map_off);
    if (sys_mmap_failed(m)) {
        /* the chunk stays in the file, empty, with its header: readers
         * find the next one after it */
        ch.tid = 0;
        arch_pwrite64(P->fd, &ch, sizeof ch, off);
        lock_signals_blocked();
        trace_stops(LITIFUT_STOP_MAP, (long)p, "cannot map trace file");
        unlock_signals_blocked();
        return 0;
    }
    struct litifut_chunk_header *h = p;
    if (dirty) {                        /* (the old magic first: never a stale header) */
        volatile uint32_t *w = p;
        for (uint32_t i = 0; i < size / 4; i++)
            w[i] = 0;
    } else {
        /* Each page's first write faults (and there the kernel may make
         * a writer wait for writeback): all of them now, in the time the
         * chunk's OWN_TIME record takes out of the program's, not in a
         * later call's.  Only this chunk's words (zeros already): a small
         * chunk shares its page with others. */
        for (char *a = (char *)p; a < (char *)p + size;
             a = (char *)(((uintptr_t)a | (P->page - 1)) + 1))
            *(volatile uint32_t *)a = 0;
    }
    h->tid = ch.tid;
    h->index = ch.index;
    h->size = ch.size;
    __asm__ volatile("" ::: "memory");
    h->magic = ch.magic;
    out->base = p;
    out->end = (uint32_t *)((char *)p + size);
    return 1;
}

/* Room for `words` in the process's own chunk (thread id 0: objects,
 * states), a new one if needed; 0 if there is no trace.  Two threads
 * claiming a chunk at once waste one chunk, nothing else.  Lock not
 * held; signals are blocked here (the lock's holder must never run a
 * handler that takes it: the fatal and snapshot signals' do). */
int tracefile_events_room(uint32_t words)
{
    if (!tracefile_start())
        return 0;               /* (a fork child's trace starts here, if not yet) */
    uint32_t saved[SIGSET_WORDS];
    process_block_signals(saved);
    lock_signals_blocked();
    int room = P->events_cur && (uint32_t)(P->events_end - P->events_cur) >= words;
    unlock_signals_blocked();
    struct chunk c;
    uint32_t want = (uint32_t)sizeof(struct litifut_chunk_header) + 4 * words;
    if (!room && tracefile_new_chunk(0, want > 4096 ? want : 4096, &c)) {
        lock_signals_blocked();
        if (!P->events_cur || (uint32_t)(P->events_end - P->events_cur) < words) {
            P->events_cur = c.base + sizeof(struct litifut_chunk_header) / 4;
            P->events_end = c.end;
        }
        unlock_signals_blocked();
        room = 1;
    }
    process_restore_signals(saved);
    return room;
}

/* A fork child must not write into the parent's file: it drops the
 * parent's mappings and starts a trace of its own on its next call.
 * Called with the lock held. */
void tracefile_after_fork_child(void)
{
    if (P->header) {
        sys_munmap(P->header, P->page);
        sys_close(P->fd);
    }
    P->header = NULL;
    P->fd = -1;
    P->trace = TRACE_NEW;
    P->next_chunk = 0;
    P->next_off = 0;
    P->file_size = 0;
    P->ring_n = P->ring_hand = 0;           /* (its table is private memory: the child's) */
    P->snapshot = 0;
    P->stop_why = P->stop_errno = 0;        /* (the parent's reason: not the child's) */
    P->pid = (uint32_t)sys_getpid();
    P->events_cur = P->events_end = NULL;   /* (in the parent's file: not mapped here) */
    P->budget_emitted = 0;
    P->unrecorded = 0;                      /* (the child's trace counts its own) */
}
