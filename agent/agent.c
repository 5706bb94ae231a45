/*
 * litifut-agent: on the device, follows the traces litifut writes into
 * a directory (litifut.<pid>[.<n>].trace and .maps, files appearing
 * later included) and streams them over one TCP connection to
 * litifut-recv on a host (include/litifut/stream-format.h).
 *
 * Contract:
 * - It never slows the traced processes: they only store into their
 *   shared mappings; the agent reads the files (pread) and never
 *   writes into them, but for punching holes (fallocate
 *   PUNCH_HOLE|KEEP_SIZE) where chunks no thread can write any more
 *   were sent (or dropped), so the device's storage (tmpfs: memory)
 *   stays about --backlog plus what threads are writing.
 * - A thread's chunk is complete when its thread has claimed two chunks
 *   after it (the tracer keeps the previous chunk mapped until its next
 *   switch: a store a signal interrupted may still land there), or the
 *   thread is gone (tgkill(pid, tid, 0): ESRCH), or its process is
 *   (kill(pid, 0)); the process's own chunks (thread id 0) only when the
 *   process is gone.  A complete chunk is sent once, then punched.  A
 *   chunk still being written is sent as far as its data goes, then at
 *   each look (--interval) its new words only (the TAIL bytes before
 *   the end sent are compared; all of what was sent once more when it
 *   completes; a change sends it again whole).
 *   The header page and the pairs chunks of the modes dedup and count
 *   (rewritten in place; never punched) are re-sent whenever they
 *   changed (a hash of what was sent tells).  CHUNK frames say when a
 *   chunk's data began and when it is complete (litifut-recv --follow).
 * - Memory is bounded: a fixed output buffer (sending never blocks:
 *   MSG_DONTWAIT), fixed tables (each trace may fill its share of the
 *   chunk table, then it alone waits).  When the complete chunks not
 *   yet sent exceed --backlog bytes, the oldest are punched unsent,
 *   counted and reported to the receiver (DROP) and, at the end, on
 *   stderr.
 * - SIGTERM, SIGINT: what is complete is sent (10 s at most), then it
 *   exits 0.  --exit-when-idle: exits once every followed process is
 *   gone and its files sent.
 * Built freestanding and static (no C library: raw system calls,
 * arch/<arch>/agent-arch.h, entry point arch/<arch>/agent-start.S),
 * for each target triple.  Errors are one line naming the file.
 */
#include <stdint.h>
#include <stddef.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <poll.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/falloc.h>
#include "agent-arch.h"
#include "litifut/trace-format.h"
#include "litifut/stream-format.h"

#ifndef O_LARGEFILE
#define O_LARGEFILE 0
#endif

/* ---- the little a C library would give ---- */

void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);

typedef uint32_t __attribute__((may_alias)) alias_word;

/* (by words where both are aligned: every byte sent is copied twice) */
void *memcpy(void *d, const void *s, size_t n)
{
    char *dp = d;
    const char *sp = s;
    if (!(((uintptr_t)dp | (uintptr_t)sp) & 3))
        for (; n >= 4; n -= 4, dp += 4, sp += 4)
            *(alias_word *)dp = *(const alias_word *)sp;
    while (n--)
        *dp++ = *sp++;
    return d;
}

void *memmove(void *d, const void *s, size_t n)
{
    char *dp = d;
    const char *sp = s;
    if (dp < sp)
        return memcpy(d, s, n);         /* (forward, a word at a time: safe) */
    while (n--)
        dp[n] = sp[n];
    return d;
}

void *memset(void *d, int c, size_t n)
{
    char *dp = d;
    while (n--)
        *dp++ = (char)c;
    return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x - *y;
    return 0;
}

/* libgcc's division by zero calls it (never happens here) */
int raise(int sig);
int raise(int sig)
{
    (void)sig;
    return 0;
}

static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static int str_eq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static const char *str_after(const char *s, const char *prefix)
{
    while (*prefix)
        if (*s++ != *prefix++)
            return NULL;
    return s;
}

#define SYS3(n, a, b, c) arch_syscall6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)

static long sys_write(int fd, const void *p, unsigned long n) { return SYS3(__NR_write, fd, p, n); }
static int sys_close(int fd) { return (int)SYS3(__NR_close, fd, 0, 0); }
static int sys_openat(int dir, const char *path, int flags)
{
    return (int)arch_syscall6(__NR_openat, dir, (long)path, flags | O_LARGEFILE | O_CLOEXEC, 0, 0, 0);
}
static __attribute__((noreturn)) void sys_exit(int code)
{
    for (;;)
        SYS3(__NR_exit_group, code, 0, 0);
}

/* the kernel's struct statx (the same on every architecture) */
struct kstatx {
    uint32_t mask, blksize;
    uint64_t attributes;
    uint32_t nlink, uid, gid;
    uint16_t mode, pad0;
    uint64_t ino, size, blocks, attributes_mask;
    struct { int64_t sec; uint32_t nsec; int32_t pad; } atime, btime, ctime, mtime;
    uint32_t pad1[36];
};
#define KSTATX_BASIC 0x7ffu
#define AT_EMPTY_PATH_ 0x1000

static long sys_statx(int dir, const char *path, int flags, struct kstatx *st)
{
    return arch_syscall6(__NR_statx, dir, (long)path, flags, KSTATX_BASIC, (long)st, 0);
}

struct ktimespec { long sec, nsec; };   /* the 32-bit kernel's */

static uint64_t now_ms(void)
{
    struct ktimespec ts;
    if (SYS3(__NR_clock_gettime, 1 /* CLOCK_MONOTONIC */, &ts, 0) != 0)
        return 0;
    return (uint64_t)(unsigned long)ts.sec * 1000u + (unsigned long)ts.nsec / 1000000u;
}

/* ---- messages ---- */

static char msg[512];
static size_t msg_len;

static void put(const char *s)
{
    while (*s && msg_len < sizeof msg - 1)
        msg[msg_len++] = *s++;
}

/* (by subtraction: a 64-bit division would be a libgcc call) */
static void put_u64(uint64_t v)
{
    uint64_t tens[20];
    tens[0] = 1;
    for (int i = 1; i < 20; i++)
        tens[i] = tens[i - 1] * 10;
    int started = 0;
    for (int i = 19; i >= 0; i--) {
        char d = '0';
        while (v >= tens[i])
            v -= tens[i], d++;
        started |= d != '0' || i == 0;
        if (started && msg_len < sizeof msg - 1)
            msg[msg_len++] = d;
    }
}

static const char *err_text(long err)
{
    switch (-err) {
    case ENOENT: return "No such file or directory";
    case EACCES: return "Permission denied";
    case EPERM: return "Operation not permitted";
    case ENOTDIR: return "Not a directory";
    case ENOSPC: return "No space left on device";
    case EOPNOTSUPP: return "Operation not supported";
    case ENOSYS: return "Function not implemented";
    case ECONNREFUSED: return "Connection refused";
    case ECONNRESET: return "Connection reset by peer";
    case EPIPE: return "Broken pipe";
    case ETIMEDOUT: return "Connection timed out";
    case EHOSTUNREACH: return "No route to host";
    case ENETUNREACH: return "Network is unreachable";
    case ELOOP: return "Too many levels of symbolic links";
    case EMFILE: return "Too many open files";
    default: return NULL;
    }
}

/* "litifut-agent: WHAT: PROBLEM[: error]\n" on stderr */
static void say(const char *what, const char *problem, long err)
{
    msg_len = 0;
    put("litifut-agent: ");
    if (what) {
        put(what);
        put(": ");
    }
    put(problem);
    if (err) {
        const char *t = err_text(err);
        put(": ");
        if (t)
            put(t);
        else {
            put("error ");
            put_u64((uint64_t)-err);
        }
    }
    msg[msg_len++] = '\n';
    sys_write(2, msg, msg_len);
}

static __attribute__((noreturn)) void die(const char *what, const char *problem, long err)
{
    say(what, problem, err);
    sys_exit(1);
}

/* ---- settings ---- */

static const char usage[] =
    "usage: litifut-agent [--backlog=SIZE] [--interval=MS] [--no-punch] [--exit-when-idle]\n"
    "                     DIR HOST:PORT\n"
    "Streams the litifut traces in DIR (litifut.*.trace, .maps; also those that\n"
    "appear later) to litifut-recv at HOST:PORT (an IPv4 address), over TCP.\n"
    "  --backlog=SIZE     complete chunks not yet sent, in bytes (K, M, G), before\n"
    "                     the oldest are dropped (default 16M)\n"
    "  --interval=MS      how often the files are looked at (default 100)\n"
    "  --no-punch         leave sent chunks in the files (default: their room is freed)\n"
    "  --exit-when-idle   exit once every traced process is gone and its files sent\n"
    "SIGTERM or SIGINT: sends what is complete, then exits.\n";

static uint64_t opt_backlog = 16u << 20;
static uint32_t opt_interval = 100;
static int opt_no_punch, opt_idle_exit;
static const char *opt_dir, *dir_name;   /* ".", and as given (for messages) */

/* A decimal number with an optional K, M, G suffix, at most `max`;
 * 0 and sets *ok = 0 if it is not one. */
static uint64_t parse_size(const char *s, uint64_t max, int suffix, int *ok)
{
    uint64_t v = 0;
    *ok = 0;
    if (!*s)
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > max)
            return 0;
    }
    if (suffix && *s) {
        int shift = *s == 'K' || *s == 'k' ? 10 : *s == 'M' || *s == 'm' ? 20 :
                    *s == 'G' || *s == 'g' ? 30 : -1;
        if (shift < 0 || s[1])
            return 0;
        for (; shift > 0; shift -= 10) {    /* (constant shifts: no libgcc call) */
            if (v > (max >> 10))
                return 0;
            v <<= 10;
        }
        s++;
    }
    if (*s)
        return 0;
    *ok = 1;
    return v;
}

/* "a.b.c.d:port" into a sockaddr_in; 0 if it is not one */
static int parse_addr(const char *s, struct sockaddr_in *sa)
{
    uint32_t a = 0;
    int ok;
    for (int i = 0; i < 4; i++) {
        uint32_t part = 0;
        int digits = 0;
        for (; *s >= '0' && *s <= '9' && digits < 4; s++, digits++)
            part = part * 10 + (uint32_t)(*s - '0');
        if (!digits || part > 255 || *s++ != (i < 3 ? '.' : ':'))
            return 0;
        a = a << 8 | part;
    }
    uint64_t port = parse_size(s, 65535, 0, &ok);
    if (!ok || !port)
        return 0;
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    unsigned char *p = (unsigned char *)&sa->sin_port;
    p[0] = (unsigned char)(port >> 8);
    p[1] = (unsigned char)port;
    p = (unsigned char *)&sa->sin_addr;
    p[0] = (unsigned char)(a >> 24);
    p[1] = (unsigned char)(a >> 16);
    p[2] = (unsigned char)(a >> 8);
    p[3] = (unsigned char)a;
    return 1;
}

/* ---- the connection: a bounded output buffer, sent without waiting ---- */

#define OUT_SIZE (256u * 1024)
static unsigned char out[OUT_SIZE] __attribute__((aligned(8)));
static size_t out_len;
static int sock = -1;
static const char *host_name;

/* Sends what the socket takes now.  A lost connection ends the agent. */
static void flush(void)
{
    size_t done = 0;
    while (done < out_len) {
        long n = arch_syscall6(__NR_sendto, sock, (long)(out + done), (long)(out_len - done),
                               MSG_DONTWAIT | MSG_NOSIGNAL, 0, 0);
        if (n == -EINTR)
            continue;
        if (n == -EAGAIN || n == -EWOULDBLOCK)
            break;
        if (n <= 0)
            die(host_name, "connection lost", n < 0 ? n : -EPIPE);
        done += (size_t)n;
    }
    memmove(out, out + done, out_len - done);
    out_len -= done;
}

/* Room for a frame with `len` bytes of payload (flushing first if
 * there is not); 0 if the connection cannot take it yet. */
static int room(size_t len)
{
    if (OUT_SIZE - out_len >= LITIFUT_FRAME_HEADER + len)
        return 1;
    flush();
    return OUT_SIZE - out_len >= LITIFUT_FRAME_HEADER + len;
}

/* (by 32-bit halves: a variable 64-bit shift would be a libgcc call) */
static void put_le(unsigned char *p, uint64_t v, int n)
{
    uint32_t half[2] = { (uint32_t)v, (uint32_t)(v >> 32) };
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(half[i / 4] >> (8 * (i % 4)));
}

/* Appends a frame; room() said yes. */
static void frame(uint32_t type, uint32_t id, uint64_t a, const void *payload, uint32_t len)
{
    unsigned char *p = out + out_len;
    put_le(p, type, 4);
    put_le(p + 4, id, 4);
    put_le(p + 8, a, 8);
    put_le(p + 16, len, 4);
    memcpy(p + LITIFUT_FRAME_HEADER, payload, len);
    out_len += LITIFUT_FRAME_HEADER + len;
}

/* ---- followed files and their chunks ---- */

#define MAX_FILES  128
#define MAX_CHUNKS 8192
#define HASH_INIT  0x811c9dc5u
#define TAIL       256u         /* bytes before a live chunk's sent end compared at each look */

enum { F_FREE, F_TRACE, F_MAPS };

struct file {
    int kind, fd;
    int opened;                 /* its OPEN frame was sent */
    int done;                   /* its END was sent (or it is refused): only the name is kept */
    int seen;                   /* in this directory scan */
    int gone;                   /* its process is gone */
    int gone_scanned;           /* ... and its chunks were scanned after that */
    uint32_t id, pid;
    char name[LITIFUT_STREAM_NAME_MAX + 1];
    uint64_t size, size_sent;
    /* traces */
    int have_header, punch_failed;
    unsigned n_chunks;          /* in the chunk table */
    int full_said;              /* "waiting" was said */
    uint32_t header_size, chunk_size, version, mode;
    uint32_t word_size;         /* 4 or 8: a run-time address's bytes (trace-format.h) */
    uint32_t header_hash;       /* of the header page as last sent (0: never) */
    uint64_t scan_off;          /* the next chunk header to read */
    uint32_t hole_scans;        /* scans that found a zero header at scan_off */
    uint64_t dropped_chunks, dropped_bytes;
    int drop_dirty;
    /* maps */
    uint64_t ino, mtime_ns;     /* of the copy last sent */
    uint64_t maps_pos;          /* bytes of the current copy queued (maps_fd open) */
    int maps_fd;
};

enum { C_LIVE, C_COMPLETE, C_PAIRS };

struct chunk {
    uint16_t file;
    uint8_t state, later;       /* later: chunks its thread claimed after it */
    uint8_t said;               /* CHUNK frames sent: 1 being written, 2 complete */
    uint8_t checked;            /* complete: what was sent live was compared once */
    uint32_t tid, size;
    uint32_t sent_end;          /* bytes sent from its start */
    uint32_t skip;              /* ... and the words of a record's payload after them */
    uint32_t hash;              /* of the bytes sent */
    uint32_t tail_hash;         /* of the TAIL bytes (or fewer) before sent_end */
    uint64_t off;
};

static struct file files[MAX_FILES];
static struct chunk chunks[MAX_CHUNKS];
static unsigned n_chunks;
static uint32_t next_id = 1;
static int files_full_said;
static uint64_t total_dropped_chunks, total_dropped_bytes;
static unsigned char piece[LITIFUT_FRAME_MAX] __attribute__((aligned(8)));

/* FNV-1a over 32-bit words (n: a multiple of 4): a change detector */
static uint32_t hash_words(uint32_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        h = (h ^ w) * 16777619u;
    }
    return h;
}

static long pread_all(int fd, void *buf, size_t n, uint64_t off)
{
    size_t got = 0;
    while (got < n) {
        long r = arch_pread64(fd, (char *)buf + got, n - got, off + got);
        if (r == -EINTR)
            continue;
        if (r < 0)
            return r;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (long)got;
}

/* litifut.<digits>[.<digits>].trace or .maps: the kind, and the pid */
static int name_kind(const char *s, uint32_t *pid)
{
    size_t n = str_len(s);
    if (n > LITIFUT_STREAM_NAME_MAX || !(s = str_after(s, "litifut.")))
        return F_FREE;
    uint64_t v = 0;
    int digits = 0;
    for (; *s >= '0' && *s <= '9'; s++, digits++)
        v = v * 10 + (uint64_t)(*s - '0');
    if (!digits || digits > 10 || v > 0x7fffffff)
        return F_FREE;
    *pid = (uint32_t)v;
    if (*s == '.' && s[1] >= '0' && s[1] <= '9') {
        for (s++, digits = 0; *s >= '0' && *s <= '9'; s++, digits++)
            ;
        if (digits > 9)
            return F_FREE;
    }
    if (str_eq(s, ".trace"))
        return F_TRACE;
    if (str_eq(s, ".maps"))
        return F_MAPS;
    return F_FREE;
}

static int process_gone(uint32_t pid)
{
    return SYS3(__NR_kill, pid, 0, 0) == -ESRCH;
}

static int thread_gone(uint32_t pid, uint32_t tid)
{
    return SYS3(__NR_tgkill, pid, tid, 0) == -ESRCH;
}

static void file_release(struct file *f)
{
    if (f->fd >= 0)
        sys_close(f->fd);
    if (f->maps_fd >= 0)
        sys_close(f->maps_fd);
    f->fd = f->maps_fd = -1;
    f->done = 1;
}

/* Reads DIR and follows the files not followed yet; forgets those
 * ended and no longer there.  Returns how many are new. */
static int scan_dir(void)
{
    static unsigned char buf[4096];
    int dir = sys_openat(AT_FDCWD, opt_dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
    if (dir < 0)
        die(dir_name, "cannot read the directory", dir);
    int added = 0;
    for (int i = 0; i < MAX_FILES; i++)
        files[i].seen = 0;
    for (;;) {
        long n = SYS3(__NR_getdents64, dir, buf, sizeof buf);
        if (n == -EINTR)
            continue;
        if (n < 0)
            die(dir_name, "cannot read the directory", n);
        if (n == 0)
            break;
        for (long pos = 0; pos + 19 < n;) {
            uint16_t reclen;
            memcpy(&reclen, buf + pos + 16, 2);
            if (!reclen)
                break;
            const char *name = (const char *)buf + pos + 19;
            pos += reclen;
            uint32_t pid;
            int kind = name_kind(name, &pid), i, free_slot = -1;
            if (kind == F_FREE)
                continue;
            for (i = 0; i < MAX_FILES; i++) {
                if (files[i].kind != F_FREE && str_eq(files[i].name, name))
                    break;
                if (files[i].kind == F_FREE && free_slot < 0)
                    free_slot = i;
            }
            if (i < MAX_FILES) {
                files[i].seen = 1;
                continue;
            }
            if (free_slot < 0) {
                if (!files_full_said++)
                    say(name, "not followed: too many files at once", 0);
                continue;
            }
            struct file *f = &files[free_slot];
            memset(f, 0, sizeof *f);
            f->kind = kind;
            f->pid = pid;
            f->fd = f->maps_fd = -1;
            f->seen = 1;
            f->id = next_id++;
            memcpy(f->name, name, str_len(name) + 1);
            added++;
        }
    }
    sys_close(dir);
    for (int i = 0; i < MAX_FILES; i++)
        if (files[i].kind != F_FREE && files[i].done && !files[i].seen)
            files[i].kind = F_FREE;
    return added;
}

static void refuse(struct file *f, const char *problem, long err)
{
    say(f->name, problem, err);
    unsigned k = 0;             /* (its chunks are followed no more) */
    for (unsigned i = 0; i < n_chunks; i++)
        if (&files[chunks[i].file] != f)
            chunks[k++] = chunks[i];
    n_chunks = k;
    f->n_chunks = 0;
    file_release(f);
}

/* (a thread-0 claim completes nothing: the process's chunks are
 * written by any thread, and two claims at once may leave an older
 * one still the one written into) */
static void add_chunk(struct file *f, const struct litifut_chunk_header *h, uint32_t size)
{
    if (h->tid != LITIFUT_PAIRS_TID && h->tid != 0)
        for (unsigned i = 0; i < n_chunks; i++) {
            struct chunk *c = &chunks[i];
            if (&files[c->file] == f && c->tid == h->tid && c->state == C_LIVE && ++c->later >= 2)
                c->state = C_COMPLETE;
        }
    struct chunk *c = &chunks[n_chunks++];
    memset(c, 0, sizeof *c);
    c->file = (uint16_t)(f - files);
    c->state = h->tid == LITIFUT_PAIRS_TID ? C_PAIRS : C_LIVE;
    c->tid = h->tid;
    c->size = size;
    c->off = f->scan_off;
    f->n_chunks++;
}

/* A trace's share of the chunk table: no one trace fills it for all. */
static unsigned chunk_share(void)
{
    unsigned traces = 0;
    for (int i = 0; i < MAX_FILES; i++)
        traces += files[i].kind == F_TRACE && !files[i].done;
    return MAX_CHUNKS / (traces ? traces : 1);
}

/* A valid chunk header at `off` (its size in *size), else 0. */
static int chunk_at(struct file *f, uint64_t off, struct litifut_chunk_header *h, uint32_t *size)
{
    if (off + sizeof *h > f->size || pread_all(f->fd, h, sizeof *h, off) != (long)sizeof *h ||
        h->magic != LITIFUT_CHUNK_MAGIC)
        return 0;
    uint32_t s = h->size ? h->size : f->version == 4 ? f->chunk_size : 0;
    if (s < LITIFUT_MIN_CHUNK || s > f->chunk_size || (s & (s - 1)) || off + s > f->size)
        return 0;
    *size = s;
    return 1;
}

/* A trace's header, once: checked, its geometry kept. */
static int trace_header(struct file *f)
{
    struct litifut_trace_header h;
    long n = pread_all(f->fd, &h, sizeof h, 0);
    if (n < (long)sizeof h || !h.magic[0])
        return 0;                           /* not written yet */
    if (memcmp(h.magic, LITIFUT_TRACE_MAGIC, 8) != 0 || (h.version < 4 || h.version > LITIFUT_TRACE_VERSION) ||
        (h.word_size != 4 && h.word_size != 8))
        return refuse(f, "not a litifut trace (or a version this agent does not know)", 0), 0;
    uint16_t one = 1;
    if (h.endian != (*(unsigned char *)&one ? LITIFUT_LITTLE_ENDIAN : LITIFUT_BIG_ENDIAN))
        return refuse(f, "not this machine's byte order", 0), 0;
    if (h.header_size < 4096 || h.header_size > LITIFUT_FRAME_MAX || h.header_size % 4096 ||
        h.chunk_size < 4096 || h.chunk_size > (64u << 20) || h.chunk_size % 4096)
        return refuse(f, "header or chunk size out of range", 0), 0;
    if (h.flags & LITIFUT_TRACE_RING)       /* (its slots are taken over: nothing completes) */
        return refuse(f, "a flight recorder's trace (LITIFUT_MODE=ring) is not streamed", 0), 0;
    f->header_size = h.header_size;
    f->chunk_size = h.chunk_size;
    f->version = h.version;
    f->mode = h.mode;
    f->word_size = h.word_size;
    f->scan_off = h.header_size;
    f->have_header = 1;
    return 1;
}

/* Finds the chunks claimed since the last look. */
static void scan_chunks(struct file *f)
{
    unsigned share = chunk_share();
    while (f->scan_off + sizeof(struct litifut_chunk_header) <= f->size) {
        if (n_chunks == MAX_CHUNKS || f->n_chunks >= share) {
            if (!f->full_said++)
                say(f->name, "too many chunks not sent yet: waiting", 0);
            return;
        }
        struct litifut_chunk_header h;
        uint32_t size;
        if (chunk_at(f, f->scan_off, &h, &size)) {
            add_chunk(f, &h, size);
            f->scan_off += size;
            f->hole_scans = 0;
            continue;
        }
        /* A header not written yet (the claim and the header's store
         * are apart: another thread's next chunk may be there first),
         * or a hole an earlier agent punched.  Skipped to the next
         * valid header at a 512-byte boundary once the process is
         * gone, or when it stays so for 3 looks (a claim takes
         * microseconds). */
        if (!f->gone && ++f->hole_scans < 3)
            return;
        uint64_t off = f->scan_off + LITIFUT_MIN_CHUNK;
        while (off + sizeof h <= f->size && !chunk_at(f, off, &h, &size))
            off += LITIFUT_MIN_CHUNK;
        if (off + sizeof h > f->size) {
            if (f->gone)
                f->scan_off = f->size;      /* nothing more */
            return;
        }
        f->scan_off = off;
    }
}

static int file_size(struct file *f, int fd)
{
    struct kstatx st;
    long r = sys_statx(fd, "", AT_EMPTY_PATH_, &st);
    if (r < 0)
        return refuse(f, "cannot stat", r), 0;
    if ((st.mode & 0170000) != 0100000)
        return refuse(f, "not a regular file", 0), 0;
    f->size = st.size;
    return 1;
}

static void look_at_trace(struct file *f)
{
    if (f->fd < 0) {
        int fd = sys_openat(AT_FDCWD, f->name, (opt_no_punch ? O_RDONLY : O_RDWR) |
                            O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
            return refuse(f, "cannot open", fd);
        f->fd = fd;
    }
    if (!f->gone && process_gone(f->pid))
        f->gone = 1;                    /* (before the last size: nothing comes after) */
    if (!file_size(f, f->fd))
        return;
    if (!f->have_header && !trace_header(f)) {
        if (f->gone && !f->done)
            refuse(f, "the process is gone and the file has no header", 0);
        return;
    }
    scan_chunks(f);
    if (f->gone) {
        f->gone_scanned = 1;
        for (unsigned i = 0; i < n_chunks; i++)
            if (&files[chunks[i].file] == f)
                chunks[i].state = C_COMPLETE;   /* (pairs too: sent a last time) */
        return;
    }
    /* a thread gone writes no more: its last chunks complete (a
     * long-lived process's short-lived threads would hold the table) */
    for (unsigned i = 0; i < n_chunks; i++) {
        struct chunk *c = &chunks[i];
        if (&files[c->file] != f || c->state != C_LIVE || c->tid == 0 ||
            !thread_gone(f->pid, c->tid))
            continue;
        for (unsigned k = i; k < n_chunks; k++)
            if (&files[chunks[k].file] == f && chunks[k].tid == c->tid && chunks[k].state == C_LIVE)
                chunks[k].state = C_COMPLETE;
    }
}

/* The maps copy: sent whole whenever it is another file (renamed over
 * it) or changed. */
static void look_at_maps(struct file *f)
{
    if (!f->gone && process_gone(f->pid))
        f->gone = 1;
    if (f->maps_fd >= 0)
        return;                         /* a copy is being sent */
    struct kstatx st;
    long r = sys_statx(AT_FDCWD, f->name, AT_SYMLINK_NOFOLLOW, &st);
    if (r < 0 || (st.mode & 0170000) != 0100000) {
        if (f->gone)
            f->gone_scanned = 1;        /* (removed: what was sent stays) */
        return;
    }
    uint64_t mtime = (uint64_t)st.mtime.sec * 1000000000u + st.mtime.nsec;
    if (st.ino != f->ino || mtime != f->mtime_ns || st.size != f->size_sent) {
        int fd = sys_openat(AT_FDCWD, f->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        if (fd >= 0) {
            struct file tmp = *f;
            if (!file_size(&tmp, fd)) {
                sys_close(fd);
                return;
            }
            f->maps_fd = fd;
            f->maps_pos = 0;
            f->size = tmp.size;
            f->ino = st.ino;
            f->mtime_ns = mtime;
        }
    }
    if (f->gone)
        f->gone_scanned = 1;
}

/* ---- sending ---- */

static int send_open(struct file *f)
{
    if (f->opened)
        return 1;
    size_t n = str_len(f->name);
    if (!room(n))
        return 0;
    frame(LITIFUT_FRAME_OPEN, f->id, 0, f->name, (uint32_t)n);
    f->opened = 1;
    return 1;
}

/* Where a chunk's data ends in the piece p (chunk offset `base` of the
 * piece, `len` bytes read): a pairs chunk's first empty entry; in a
 * thread's or the process's chunk, the first zero word where a record
 * would start.  Records are walked (the payload of a control record,
 * the target word of a call through a register may hold zero words);
 * *skip: payload words still to pass, carried from piece to piece.
 * word_size: the trace's (a tag 1 target's bytes; pairs of 8 are
 * struct litifut_pair64). */
static size_t data_end(const struct chunk *c, uint32_t word_size, const unsigned char *p,
                       size_t base, size_t len, uint32_t *skip)
{
    if (c->tid == LITIFUT_PAIRS_TID) {
        size_t e = sizeof(struct litifut_chunk_header);
        size_t step = word_size == 8 ? sizeof(struct litifut_pair64) : sizeof(struct litifut_pair);
        if (base > e)
            e += (base - e + step - 1) / step * step;
        for (; e - base + 4 <= len; e += step) {
            uint32_t w;
            memcpy(&w, p + (e - base), 4);
            if (!w)
                return e - base;
        }
        return len;
    }
    size_t i = base < 16 ? 16 - base : 0;
    if (*skip) {
        size_t words = (len - i) / 4;
        if (*skip >= words) {
            *skip -= (uint32_t)words;
            return len;
        }
        i += (size_t)*skip * 4;
        *skip = 0;
    }
    for (; i + 4 <= len; i += 4) {
        uint32_t w;
        memcpy(&w, p + i, 4);
        if (!w)
            return i;
        uint32_t more = LITIFUT_REC_TAG(w) == LITIFUT_REC_CALL_TARGET ? word_size / 4 :
                        (w & 0xffu) == LITIFUT_REC_CONTROL ? LITIFUT_REC_PAYLOAD(w) : 0;
        size_t words = (len - i - 4) / 4;
        if (more > words) {
            *skip = more - (uint32_t)words;
            return len;
        }
        i += (size_t)more * 4;
    }
    return len;
}

static void chunk_restart(struct chunk *c)
{
    c->sent_end = c->skip = 0;
    c->hash = c->tail_hash = HASH_INIT;
}

/* Was what of c was sent changed since (a store a signal interrupted)?
 * Reads it all: once per chunk (when it completes), and for the pairs
 * chunks (counted in place) at each look. */
static int sent_changed(const struct file *f, const struct chunk *c)
{
    uint32_t h = HASH_INIT, pos = 0;
    while (pos < c->sent_end) {
        uint32_t n = c->sent_end - pos < LITIFUT_FRAME_MAX ? c->sent_end - pos : LITIFUT_FRAME_MAX;
        if (pread_all(f->fd, piece, n, c->off + pos) != (long)n)
            return 1;
        h = hash_words(h, piece, n);
        pos += n;
    }
    return h != c->hash;
}

/* A CHUNK frame: c's data began to come (1) or is all sent (2). */
static int say_chunk(struct chunk *c, uint8_t said)
{
    unsigned char b[12];
    if (c->said >= said)
        return 1;
    if (!room(sizeof b))
        return 0;
    put_le(b, c->size, 4);
    put_le(b + 4, c->tid, 4);
    put_le(b + 8, said == 2 ? LITIFUT_CHUNK_COMPLETE : LITIFUT_CHUNK_BEGUN, 4);
    frame(LITIFUT_FRAME_CHUNK, files[c->file].id, c->off, b, sizeof b);
    c->said = said;
    return 1;
}

/* Sends what of chunk c is new: from where the last look's data ended
 * (the record walk goes on from there), after checking that the TAIL
 * bytes before that end are as they were sent; all of it again if they
 * changed, or (once, when c completes) if anything sent changed; a
 * pairs chunk whenever it changed.  Each look reads TAIL bytes and the
 * new data.  Returns 1 when its data is all sent, 0 if the connection
 * is full. */
static int send_chunk(struct chunk *c)
{
    struct file *f = &files[c->file];
    if (!send_open(f))
        return 0;
    if (!c->sent_end)
        chunk_restart(c);
    else if (c->tid == LITIFUT_PAIRS_TID || (c->state == C_COMPLETE && !c->checked)) {
        if (sent_changed(f, c))
            chunk_restart(c);
    }
    if (c->state == C_COMPLETE)
        c->checked = 1;
    while (c->sent_end < c->size) {
        uint32_t pos = c->sent_end, t0 = pos > TAIL ? pos - TAIL : 0;
        uint32_t n = c->size - t0 < LITIFUT_FRAME_MAX ? c->size - t0 : LITIFUT_FRAME_MAX;
        long got = pread_all(f->fd, piece, n, c->off + t0);
        if (got < (long)(pos - t0) + 4)
            break;
        if (pos > t0 && hash_words(HASH_INIT, piece, pos - t0) != c->tail_hash) {
            chunk_restart(c);
            continue;
        }
        const unsigned char *p = piece + (pos - t0);
        size_t len = ((size_t)got - (pos - t0)) & ~(size_t)3;
        uint32_t skip = c->skip;
        size_t e = data_end(c, f->word_size, p, pos, len, &skip);
        if (e == 0)
            break;
        if (!room(e))
            return 0;
        frame(LITIFUT_FRAME_DATA, f->id, c->off + pos, p, (uint32_t)e);
        c->hash = hash_words(c->hash, p, e);
        c->sent_end = pos + (uint32_t)e;
        c->skip = skip;
        uint32_t nt0 = c->sent_end > TAIL ? c->sent_end - TAIL : 0;
        c->tail_hash = hash_words(HASH_INIT, piece + (nt0 - t0), c->sent_end - nt0);
        if (e < len)
            break;
    }
    if (c->sent_end && !say_chunk(c, 1))
        return 0;
    return c->state == C_COMPLETE ? say_chunk(c, 2) : 1;
}

/* Does a chunk still followed lie in [lo, hi) of f? */
static int followed_in(const struct file *f, uint64_t lo, uint64_t hi)
{
    for (unsigned i = 0; i < n_chunks; i++)
        if (&files[chunks[i].file] == f && chunks[i].off < hi && chunks[i].off + chunks[i].size > lo)
            return 1;
    return 0;
}

/* The room of a chunk no thread can write any more goes back (c is
 * still in the table).  Chunks need not start at a page: the pages it
 * shares with its neighbours are punched too once no followed chunk
 * is in them (a full trace: every chunk before scan_off not in the
 * table is sent or dropped), else a page per chunk would stay. */
static void punch(struct chunk *c)
{
    struct file *f = &files[c->file];
    if (opt_no_punch || c->tid == LITIFUT_PAIRS_TID || f->punch_failed || f->fd < 0)
        return;
    uint64_t lo = c->off, hi = c->off + c->size, plo = lo & ~4095ull, phi = (hi + 4095) & ~4095ull;
    if (f->mode == LITIFUT_MODE_FULL) {
        if (plo >= f->header_size && !followed_in(f, plo, lo))
            lo = plo;
        if (phi <= f->scan_off && !followed_in(f, hi, phi))
            hi = phi;
    }
    long r = arch_fallocate_mode(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, lo, hi - lo);
    if (r < 0) {
        f->punch_failed = 1;
        say(f->name, "cannot free sent chunks (fallocate PUNCH_HOLE), they keep their room", r);
    }
}

static void remove_chunk(unsigned i)
{
    files[chunks[i].file].n_chunks--;
    memmove(&chunks[i], &chunks[i + 1], (n_chunks - i - 1) * sizeof chunks[0]);
    n_chunks--;
}

/* Over --backlog: the oldest complete chunks not begun are dropped. */
static void enforce_backlog(void)
{
    uint64_t backlog = 0;
    for (unsigned i = 0; i < n_chunks; i++)
        if (chunks[i].state == C_COMPLETE && !chunks[i].sent_end && chunks[i].tid + 1 > 1)
            backlog += chunks[i].size;      /* (the chunks that may be dropped) */
    for (unsigned i = 0; i < n_chunks && backlog > opt_backlog;) {
        struct chunk *c = &chunks[i];
        struct file *f = &files[c->file];
        /* (never the process's chunks, which hold the OBJECT records,
         * nor the pairs chunks: thread chunks hold only their thread's
         * records, whose CHUNK records show the gap to the reader) */
        if (c->state != C_COMPLETE || c->sent_end || c->tid == LITIFUT_PAIRS_TID || c->tid == 0) {
            i++;
            continue;
        }
        backlog -= c->size;
        f->dropped_chunks++;
        f->dropped_bytes += c->size;
        f->drop_dirty = 1;
        total_dropped_chunks++;
        total_dropped_bytes += c->size;
        punch(c);
        remove_chunk(i);
    }
}

static int send_header(struct file *f)
{
    if (!f->have_header || f->done)
        return 1;
    if (f->size != f->size_sent) {
        if (!send_open(f) || !room(0))
            return 0;
        frame(LITIFUT_FRAME_SIZE, f->id, f->size, NULL, 0);
        f->size_sent = f->size;
    }
    long n = pread_all(f->fd, piece, f->header_size, 0);
    if (n != (long)f->header_size)
        return 1;
    uint32_t h = hash_words(HASH_INIT, piece, (size_t)n) | 1;     /* (0: never sent) */
    if (h != f->header_hash) {
        if (!send_open(f) || !room((size_t)n))
            return 0;
        frame(LITIFUT_FRAME_DATA, f->id, 0, piece, (uint32_t)n);
        f->header_hash = h;
    }
    if (f->drop_dirty) {
        unsigned char b[8];
        if (!room(8))
            return 0;
        put_le(b, f->dropped_bytes, 8);
        frame(LITIFUT_FRAME_DROP, f->id, f->dropped_chunks, b, 8);
        f->drop_dirty = 0;
    }
    return 1;
}

static int send_maps(struct file *f)
{
    if (f->maps_fd < 0)
        return 1;
    if (!send_open(f))
        return 0;
    if (f->maps_pos == 0) {
        if (!room(0))
            return 0;
        frame(LITIFUT_FRAME_SIZE, f->id, f->size, NULL, 0);
    }
    while (f->maps_pos < f->size) {
        uint64_t left = f->size - f->maps_pos;
        uint32_t n = left < LITIFUT_FRAME_MAX ? (uint32_t)left : LITIFUT_FRAME_MAX;
        if (!room(n))
            return 0;
        long got = pread_all(f->maps_fd, piece, n, f->maps_pos);
        if (got <= 0)
            break;
        frame(LITIFUT_FRAME_DATA, f->id, f->maps_pos, piece, (uint32_t)got);
        f->maps_pos += (uint64_t)got;
    }
    f->size_sent = f->size;
    sys_close(f->maps_fd);
    f->maps_fd = -1;
    return 1;
}

/* A file whose process is gone and whose data is all sent ends. */
static void end_files(void)
{
    for (int i = 0; i < MAX_FILES; i++) {
        struct file *f = &files[i];
        if (f->kind == F_FREE || f->done || !f->gone_scanned || f->maps_fd >= 0 || f->drop_dirty)
            continue;
        unsigned k = 0;
        while (k < n_chunks && &files[chunks[k].file] != f)
            k++;
        if (k < n_chunks || (f->kind == F_TRACE && !f->have_header))
            continue;
        if (!f->opened || !room(0))
            continue;                   /* (never opened: nothing to end) */
        frame(LITIFUT_FRAME_END, f->id, f->size_sent, NULL, 0);
        file_release(f);
    }
}

/* Queues what there is to send.  `look`: a look at the files was just
 * made, so the chunks still being written are compared too. */
static void pump(int look)
{
    for (int i = 0; i < MAX_FILES; i++) {
        struct file *f = &files[i];
        if (f->kind == F_TRACE && !f->done && look && !send_header(f))
            return flush();
        if (f->kind == F_MAPS && !f->done && !send_maps(f))
            return flush();
    }
    if (look)
        enforce_backlog();
    /* the process's own chunks first: the OBJECT records arrive before
     * the calls that name their sites (--follow's windows need them) */
    for (unsigned i = 0; i < n_chunks && look; i++)
        if (chunks[i].tid == 0 && chunks[i].state != C_COMPLETE && !send_chunk(&chunks[i]))
            return flush();
    for (unsigned i = 0; i < n_chunks;) {
        struct chunk *c = &chunks[i];
        if (c->state != C_COMPLETE) {
            i++;
            continue;
        }
        if (!send_chunk(c))
            return flush();
        punch(c);
        remove_chunk(i);
    }
    for (unsigned i = 0; i < n_chunks && look; i++)
        if (chunks[i].state != C_COMPLETE && !send_chunk(&chunks[i]))
            return flush();
    end_files();
    flush();
}

static int look_at_files(void)
{
    int added = scan_dir();
    for (int i = 0; i < MAX_FILES; i++) {
        struct file *f = &files[i];
        if (f->kind == F_TRACE && !f->done)
            look_at_trace(f);
        else if (f->kind == F_MAPS && !f->done)
            look_at_maps(f);
    }
    return added;
}

static int all_done(void)
{
    for (int i = 0; i < MAX_FILES; i++)
        if (files[i].kind != F_FREE && !files[i].done)
            return 0;
    return out_len == 0;
}

/* ---- signals: blocked, and taken when the agent looks ---- */

static uint32_t sigs[ARCH_NSIG / 32];

/* Waits up to ms for SIGTERM or SIGINT; the signal, or 0. */
static int take_signal(uint32_t ms)
{
    struct ktimespec t = { (long)(ms / 1000), (long)(ms % 1000) * 1000000 };
    long r = arch_syscall6(__NR_rt_sigtimedwait, (long)sigs, 0, (long)&t, ARCH_NSIG / 8, 0, 0);
    return r > 0 ? (int)r : 0;
}

/* Until the socket takes more, or ms pass (a 64-bit kernel, AArch64,
 * has ppoll only). */
static void poll_out(uint32_t ms)
{
    struct pollfd p = { sock, POLLOUT, 0 };
#ifdef __NR_poll
    SYS3(__NR_poll, &p, 1, ms);
#else
    struct ktimespec t = { (long)(ms / 1000), (long)(ms % 1000) * 1000000 };
    arch_syscall6(__NR_ppoll, (long)&p, 1, (long)&t, 0, 0, 0);
#endif
}

static void wait_for(uint32_t ms)
{
    if (out_len) {
        poll_out(ms);
    } else if (take_signal(ms)) {
        /* taken: sent again to ourselves so that the loop sees it */
        SYS3(__NR_kill, SYS3(__NR_getpid, 0, 0, 0), SIGTERM, 0);
    }
}

static void connect_host(const char *addr)
{
    struct sockaddr_in sa;
    if (!parse_addr(addr, &sa))
        die(addr, "expected an IPv4 address and a port (such as 192.168.1.2:9000)", 0);
    host_name = addr;
    sock = (int)SYS3(__NR_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        die(addr, "cannot make a socket", sock);
    long r;
    do
        r = SYS3(__NR_connect, sock, &sa, sizeof sa);
    while (r == -EINTR);
    if (r < 0)
        die(addr, "cannot connect", r);
    memcpy(out, LITIFUT_STREAM_HELLO, LITIFUT_STREAM_HELLO_SIZE);
    out_len = LITIFUT_STREAM_HELLO_SIZE;
}

static int agent_main(int argc, char **argv)
{
    const char *pos[2];
    int n_pos = 0, ok;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (str_eq(a, "--help")) {
            sys_write(1, usage, sizeof usage - 1);
            return 0;
        } else if ((v = str_after(a, "--backlog="))) {
            opt_backlog = parse_size(v, (uint64_t)1 << 40, 1, &ok);
            if (!ok)
                die("--backlog", "expected a size in bytes (K, M, G)", 0);
        } else if ((v = str_after(a, "--interval="))) {
            opt_interval = (uint32_t)parse_size(v, 60000, 0, &ok);
            if (!ok || !opt_interval)
                die("--interval", "expected milliseconds from 1 to 60000", 0);
        } else if (str_eq(a, "--no-punch")) {
            opt_no_punch = 1;
        } else if (str_eq(a, "--exit-when-idle")) {
            opt_idle_exit = 1;
        } else if (a[0] == '-' && a[1]) {
            die(a, "unknown option (--help lists them)", 0);
        } else if (n_pos < 2) {
            pos[n_pos++] = a;
        } else {
            die(a, "one directory and one HOST:PORT only (--help)", 0);
        }
    }
    if (n_pos != 2)
        die(NULL, "expected DIR HOST:PORT (--help)", 0);
    dir_name = pos[0];
    int dfd = sys_openat(AT_FDCWD, dir_name, O_RDONLY | O_DIRECTORY);
    if (dfd < 0)
        die(dir_name, "cannot open the directory", dfd);
    /* the files are opened relative to DIR */
    long r = SYS3(__NR_fchdir, dfd, 0, 0);
    if (r < 0)
        die(dir_name, "cannot change into the directory", r);
    sys_close(dfd);
    opt_dir = ".";

    sigs[(SIGTERM - 1) / 32] |= 1u << ((SIGTERM - 1) % 32);
    sigs[(SIGINT - 1) / 32] |= 1u << ((SIGINT - 1) % 32);
    sigs[(SIGPIPE - 1) / 32] |= 1u << ((SIGPIPE - 1) % 32);
    arch_syscall6(__NR_rt_sigprocmask, SIG_BLOCK, (long)sigs, 0, ARCH_NSIG / 8, 0, 0);
    sigs[(SIGPIPE - 1) / 32] &= ~(1u << ((SIGPIPE - 1) % 32));

    connect_host(pos[1]);
    int seen_any = 0;
    uint64_t next_look = 0;
    for (;;) {
        int stop = take_signal(0);
        uint64_t now = now_ms();
        int look = stop || now >= next_look, added = 0;
        if (look) {
            added = look_at_files();
            seen_any |= added;
            next_look = now + opt_interval;
        }
        pump(look);
        if (stop) {
            /* what is complete is sent, within 10 s */
            for (uint64_t end = now_ms() + 10000; out_len && now_ms() < end;) {
                pump(0);
                if (out_len)
                    poll_out(100);
            }
            break;
        }
        if (opt_idle_exit && seen_any && look && !added && all_done())
            break;
        now = now_ms();
        wait_for(next_look > now ? (uint32_t)(next_look - now) : 0);
    }
    if (total_dropped_chunks) {
        msg_len = 0;
        put("litifut-agent: dropped ");
        put_u64(total_dropped_chunks);
        put(" chunks (");
        put_u64(total_dropped_bytes);
        put(" bytes): the link was slower than the traces\n");
        sys_write(2, msg, msg_len);
    }
    sys_close(sock);
    return 0;
}

__attribute__((noreturn, used)) void agent_entry(long *sp);

void agent_entry(long *sp)
{
    sys_exit(agent_main((int)sp[0], (char **)(sp + 1)));
}
