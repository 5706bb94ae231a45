/*
 * litifut-recv: the host end of a stream (include/litifut/stream-format.h).
 * Accepts litifut-agent connections and writes what they send as the
 * ordinary trace and maps files in DIR, under the device's names, so
 * that every view of litifut-postproc reads them.
 *
 * Contract:
 * - The input is untrusted: every frame field is checked (type, id,
 *   name: litifut.<digits>[.<digits>].trace|.maps and nothing else,
 *   offset and size below 2^40, payload at most LITIFUT_FRAME_MAX); a
 *   malformed frame ends its connection with one line.  Files are
 *   created O_CREAT|O_EXCL|O_NOFOLLOW relative to DIR: never through a
 *   symbolic link, never over a file already there (that file is
 *   refused with one line, the connection's other files go on).
 * - A received trace's header says it was streamed (streamed = 1) and
 *   what the agent dropped (dropped_chunks, dropped_bytes), in the
 *   target's byte order; written again after every write of the
 *   header page (the agent re-sends it when it changes).
 * - Descriptors are bounded: a connection holds at most MAX_OPEN_CONN
 *   files open (more ends it with one line); out of descriptors, the
 *   listener is not polled for a second (one line), never spun on.
 * - --rate=BYTES_PER_S reads no faster than that (a slow link, for
 *   tests); --once exits when the first connection ends; --follow
 *   prints the log while it arrives (follow_*: below).
 * Errors: one line, `litifut-recv: WHAT: problem`; exit 1 for setup
 * errors, 0 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "lib/error.h"
#include "litifut/stream-format.h"
#include "litifut/trace-format.h"

extern char **environ;

#define MAX_CONNS       16
#define MAX_FILES_CONN  4096            /* files one connection may open */
#define MAX_OPEN_CONN   256             /* ... and hold open at once (the agent: 128) */
#define ACCEPT_PAUSE_NS 1000000000u     /* out of descriptors: the listener rests */
#define MAX_OFFSET      ((uint64_t)1 << 40)
#define FOLLOW_EVERY_NS 1000000000u     /* --follow: a trace's windows, one a second at most */

static const char usage[] =
    "usage: litifut-recv --listen=PORT [--bind=ADDR] [--once] [--follow] [--rate=BYTES_PER_S] DIR\n"
    "Receives litifut-agent streams and writes their traces and maps into DIR.\n"
    "  --listen=PORT   the TCP port (0: any free one; the port is said on stderr)\n"
    "  --bind=ADDR     the IPv4 address to listen on (default 127.0.0.1)\n"
    "  --once          exit when the first connection ends\n"
    "  --follow        print each trace's log (litifut-postproc) as it arrives\n"
    "  --rate=N        read at most N bytes per second (to test a slow link)\n";

struct rchunk {
    uint64_t off;
    uint32_t size, tid;
};

struct rfile {
    uint32_t id;
    int fd;                     /* -1: refused or ended */
    int is_trace;
    char name[LITIFUT_STREAM_NAME_MAX + 1];
    uint64_t dropped_chunks, dropped_bytes;
    int ended;                  /* 1: END came (or its connection ended), 2: and its log is done */
    /* --follow (follow_*) */
    int rfd;                    /* the file, read: kept until its last window (-1: none) */
    struct rchunk *proc;        /* the process's own chunks (thread id 0) so far */
    size_t n_proc;
    struct rchunk *ready;       /* thread chunks complete since the last window */
    size_t n_ready;
    unsigned char *objrecs;     /* OBJECT and UNLOAD records of earlier windows' thread chunks */
    size_t objrecs_len;
    uint64_t windows, next_ns;
    int no_live;                /* not a full trace (pairs): not shown live */
};

struct conn {
    int fd;
    char peer[64];
    unsigned char buf[LITIFUT_FRAME_HEADER + LITIFUT_FRAME_MAX];
    size_t have;
    int hello;
    struct rfile *files;
    size_t n_files;
};

static const char *dir_name;
static int dir_fd = -1;
static int opt_once, opt_follow;
static uint64_t opt_rate;
static struct conn *conns[MAX_CONNS];
static volatile sig_atomic_t stop_now;

static void on_signal(int sig)
{
    (void)sig;
    stop_now = 1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t get_le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* litifut.<digits>[.<digits>].trace or .maps: 1 trace, 2 maps, 0 not */
static int name_kind(const unsigned char *s, size_t n)
{
    static const char prefix[] = "litifut.";
    size_t i = sizeof prefix - 1, d;
    if (n > LITIFUT_STREAM_NAME_MAX || n < i || memcmp(s, prefix, i) != 0)
        return 0;
    for (d = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
        ;
    if (!d || d > 10)
        return 0;
    if (i + 1 < n && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
        for (i++, d = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
            ;
        if (d > 9)
            return 0;
    }
    if (n - i == 6 && memcmp(s + i, ".trace", 6) == 0)
        return 1;
    if (n - i == 5 && memcmp(s + i, ".maps", 5) == 0)
        return 2;
    return 0;
}

/* ---- a received trace's header: streamed, dropped (target order) ---- */

static void put_target(unsigned char *p, uint64_t v, int n, int big)
{
    for (int i = 0; i < n; i++)
        p[big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static void mark_header(struct rfile *f)
{
    unsigned char head[9];
    if (!f->is_trace || f->fd < 0 || pread(f->fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        memcmp(head, LITIFUT_TRACE_MAGIC, 8) != 0)
        return;                         /* no header yet: when it comes */
    int big = head[8] == LITIFUT_BIG_ENDIAN;
    unsigned char w[24];
    size_t at = offsetof(struct litifut_trace_header, streamed);
    _Static_assert(offsetof(struct litifut_trace_header, dropped_chunks) ==
                   offsetof(struct litifut_trace_header, streamed) + 8 &&
                   offsetof(struct litifut_trace_header, dropped_bytes) ==
                   offsetof(struct litifut_trace_header, streamed) + 16, "the stream fields' layout");
    put_target(w, 1, 4, big);
    put_target(w + 4, 0, 4, big);
    put_target(w + 8, f->dropped_chunks, 8, big);
    put_target(w + 16, f->dropped_bytes, 8, big);
    if (pwrite(f->fd, w, sizeof w, (off_t)at) != (ssize_t)sizeof w)
        warning("%s/%s: cannot write the header's stream fields: %s", dir_name, f->name,
                strerror(errno));
}

/* ---- --follow: the log as it arrives, a window at a time ----
 * The agent says when a chunk is complete (CHUNK frames): every byte
 * of it arrived and none will change.  Once a second (at most) per
 * trace, the thread chunks that became complete since its last window
 * make the next window: a trace file in a private temporary directory
 * (mkdtemp, in TMPDIR or /tmp) holding the received header page, every
 * process chunk (thread id 0: TIME, STATE and, with newer tracers, the
 * OBJECT records) received so far, the OBJECT and UNLOAD records of
 * the thread chunks of earlier windows (copied into chunks of thread
 * 0 of their own: a thread writes them into its chunks), and those new
 * chunks (each reads on its own: it starts with a TIME record and an
 * empty target cache), numbered again in file order; beside it,
 * <name>.maps links to the received maps.  litifut-postproc
 * --format=log makes its log (one job at a time, the loop goes on
 * meanwhile: reception first), printed without its '#' head lines
 * after one line naming the trace and the window.  Each chunk is in one
 * window, so each call is printed once (in the window of its record);
 * frames open across a window's edges are cut there (their durations
 * too), and a frame of an earlier window that makes calls is a
 * "(untraced) -> F" frame, not a call.  A refresh costs the new chunks
 * and the process's own (small) ones.  When a trace ends, its last
 * window is printed: the exact log is litifut-postproc's on DIR. */

static char *postproc_path;
static pid_t follow_pid;
static int follow_conn, follow_idx;    /* the file of the job (c->files moves) */
static int follow_out = -1, follow_said;
static uint64_t follow_window_chunks;
static char follow_dir[PATH_MAX];

static void find_postproc(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            char *p = xasprintf("%s/litifut-postproc", self);
            if (access(p, X_OK) == 0) {
                postproc_path = p;
                return;
            }
            free(p);
        }
    }
    postproc_path = xstrdup("litifut-postproc");
}

/* A trace of pairs (LITIFUT_MODE=dedup or count) is not shown live. */
static void no_live(struct rfile *f)
{
    if (!f->no_live)
        printf("# live: %s: not a full trace (LITIFUT_MODE=dedup or count): not shown live\n",
               f->name);
    fflush(stdout);
    f->no_live = 1;
    free(f->ready);
    f->ready = NULL;
    f->n_ready = 0;
}

/* A CHUNK frame's news (for --follow); 0 if malformed. */
static int follow_chunk(struct rfile *f, uint64_t off, const unsigned char *payload)
{
    struct rchunk c = { off, (uint32_t)get_le(payload, 4), (uint32_t)get_le(payload + 4, 4) };
    uint32_t state = (uint32_t)get_le(payload + 8, 4);
    if (c.size < LITIFUT_MIN_CHUNK || c.size > (64u << 20) || state > LITIFUT_CHUNK_COMPLETE)
        return 0;
    if (!opt_follow || !f->is_trace)
        return 1;
    if (c.tid == 0) {
        for (size_t i = 0; i < f->n_proc; i++)
            if (f->proc[i].off == off)
                return 1;
        f->proc = xrealloc(f->proc, (f->n_proc + 1) * sizeof *f->proc);
        f->proc[f->n_proc++] = c;
    } else if (c.tid == LITIFUT_PAIRS_TID) {
        no_live(f);
    } else if (state == LITIFUT_CHUNK_COMPLETE && !f->no_live) {
        f->ready = xrealloc(f->ready, (f->n_ready + 1) * sizeof *f->ready);
        f->ready[f->n_ready++] = c;
    }
    return 1;
}

static int by_offset(const void *a, const void *b)
{
    const struct rchunk *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static uint32_t target_word(const unsigned char *p, int big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Keeps the OBJECT and UNLOAD records of a thread chunk (its bytes). */
static void keep_objects(struct rfile *f, const unsigned char *b, size_t size, int big)
{
    for (size_t i = sizeof(struct litifut_chunk_header); i + 4 <= size;) {
        uint32_t w = target_word(b + i, big);
        if (!w)
            break;
        size_t more = LITIFUT_REC_TAG(w) == LITIFUT_REC_CALL_TARGET ? 1 :
                      (w & 0xffu) == LITIFUT_REC_CONTROL ? LITIFUT_REC_PAYLOAD(w) : 0;
        size_t n = 4 + 4 * more;
        if (i + n > size)
            break;
        if ((w & 0xffu) == LITIFUT_REC_CONTROL && (LITIFUT_REC_TYPE(w) == LITIFUT_REC_OBJECT ||
                                                   LITIFUT_REC_TYPE(w) == LITIFUT_REC_UNLOAD)) {
            f->objrecs = xrealloc(f->objrecs, f->objrecs_len + n);
            memcpy(f->objrecs + f->objrecs_len, b + i, n);
            f->objrecs_len += n;
        }
        i += n;
    }
}

/* Writes a chunk into the window's file: its header's index is
 * `index` (file order again, the chunks between left out). */
static int put_chunk(int fd, uint64_t *at, unsigned char *b, uint32_t size, uint32_t index, int big)
{
    for (int i = 0; i < 4; i++)
        b[8 + i] = (unsigned char)(index >> (big ? 24 - 8 * i : 8 * i));
    if (pwrite(fd, b, size, (off_t)*at) != (ssize_t)size)
        return 0;
    *at += size;
    return 1;
}

/* The window's trace file (path): 0 and a line if it cannot be made. */
static int follow_window_file(struct rfile *f, const char *path, struct rchunk *win, size_t n_win)
{
    struct litifut_trace_header h;
    if (pread(f->rfd, &h, sizeof h, 0) != (ssize_t)sizeof h)
        return 0;
    int big = h.endian == LITIFUT_BIG_ENDIAN;
    uint32_t header_size = target_word((unsigned char *)&h.header_size, big);
    uint32_t chunk_size = target_word((unsigned char *)&h.chunk_size, big);
    uint32_t version = target_word((unsigned char *)&h.version, big);
    if (h.mode != LITIFUT_MODE_FULL)
        return no_live(f), 0;
    if (header_size < sizeof h || header_size > LITIFUT_FRAME_MAX || chunk_size < 4096 ||
        chunk_size > (64u << 20) || (chunk_size & (chunk_size - 1)))
        return 0;                           /* (a chunk's size is a power of 2: below) */
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    unsigned char *b = xmalloc(chunk_size > header_size ? chunk_size : header_size);
    uint64_t at = 0;
    uint32_t index = 0;
    int ok = pread(f->rfd, b, header_size, 0) == (ssize_t)header_size &&
             pwrite(fd, b, header_size, 0) == (ssize_t)header_size;
    at = header_size;
    /* the OBJECT and UNLOAD records of earlier windows: chunks of thread 0 */
    for (size_t i = 0; ok && i < f->objrecs_len;) {
        size_t used = sizeof(struct litifut_chunk_header);
        while (i < f->objrecs_len) {
            uint32_t w = target_word(f->objrecs + i, big);
            size_t n = 4 + 4 * (size_t)LITIFUT_REC_PAYLOAD(w);
            if (used + n > chunk_size)
                break;
            used += n;
            i += n;
        }
        if (used == sizeof(struct litifut_chunk_header))
            break;                          /* (a record bigger than a chunk: none is) */
        uint32_t size = version == 4 ? chunk_size : LITIFUT_MIN_CHUNK;
        while (size < used)
            size *= 2;
        if (size > chunk_size)
            break;                          /* (used fits chunk_size, a power of 2: never) */
        memset(b, 0, size);
        memcpy(b + sizeof(struct litifut_chunk_header), f->objrecs + i - (used - 16), used - 16);
        uint32_t head[4] = { LITIFUT_CHUNK_MAGIC, 0, 0, version == 4 ? 0 : size };
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < 4; j++)
                b[4 * k + j] = (unsigned char)(head[k] >> (big ? 24 - 8 * j : 8 * j));
        ok = put_chunk(fd, &at, b, size, index++, big);
    }
    /* the process's chunks and the window's, in file order */
    size_t n_all = f->n_proc + n_win;
    struct rchunk *all = xmalloc((n_all + 1) * sizeof *all);
    memcpy(all, f->proc, f->n_proc * sizeof *all);
    memcpy(all + f->n_proc, win, n_win * sizeof *all);
    qsort(all, n_all, sizeof *all, by_offset);
    for (size_t i = 0; ok && i < n_all; i++) {
        if (all[i].size > chunk_size)
            continue;
        ssize_t got = pread(f->rfd, b, all[i].size, (off_t)all[i].off);
        if (got < (ssize_t)sizeof(struct litifut_chunk_header) ||
            target_word(b, big) != LITIFUT_CHUNK_MAGIC)
            continue;
        memset(b + got, 0, all[i].size - (size_t)got);
        if (all[i].tid)
            keep_objects(f, b, all[i].size, big);   /* (for the later windows) */
        ok = put_chunk(fd, &at, b, all[i].size, index++, big);
    }
    free(all);
    free(b);
    close(fd);
    return ok;
}

static void follow_cleanup(void)
{
    static const char *const names[] = { "log", "err", "t.trace", "t.maps" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *p = xasprintf("%s/%s", follow_dir, names[i]);
        unlink(p);
        free(p);
    }
    rmdir(follow_dir);
    follow_dir[0] = 0;
}

/* Starts the job of f's next window (its new complete chunks). */
static void follow_start(int k, struct rfile *f)
{
    struct rchunk *win = f->ready;
    size_t n_win = f->n_ready;
    f->ready = NULL;
    f->n_ready = 0;
    f->next_ns = now_ns() + FOLLOW_EVERY_NS;
    const char *tmpdir = getenv("TMPDIR");
    snprintf(follow_dir, sizeof follow_dir, "%s/litifut-recv.XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(follow_dir)) {
        warning("%s: cannot make a temporary directory: %s (--follow shows nothing)", follow_dir,
                strerror(errno));
        free(win);
        opt_follow = 0;
        return;
    }
    char *trace = xasprintf("%s/t.trace", follow_dir), *out = xasprintf("%s/log", follow_dir);
    char *maps = xasprintf("%s/t.maps", follow_dir);
    char *rmaps = xasprintf("%.*s.maps", (int)(strlen(f->name) - 6), f->name);
    int made = follow_window_file(f, trace, win, n_win);
    free(win);
    char real[PATH_MAX];
    if (made && realpath(dir_name, real)) {
        char *target = xasprintf("%s/%s", real, rmaps);
        if (symlink(target, maps) != 0)
            made = 0;
        free(target);
    }
    free(rmaps);
    free(maps);
    int fd = made ? open(out, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    if (fd < 0) {
        free(trace);
        free(out);
        follow_cleanup();
        return;
    }
    char *argv[] = { postproc_path, (char *)"--format=log", trace, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    char *err_path = xasprintf("%s/err", follow_dir);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
                                     0600);
    free(err_path);
    int err = posix_spawnp(&follow_pid, postproc_path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(trace);
    free(out);
    if (err) {
        /* once: no log will be shown, the files are still received */
        warning("%s: cannot run: %s (--follow shows nothing)", postproc_path, strerror(err));
        close(fd);
        follow_cleanup();
        follow_pid = 0;
        opt_follow = 0;
        return;
    }
    follow_out = fd;
    follow_conn = k;
    follow_idx = (int)(f - conns[k]->files);
    follow_window_chunks = n_win;
}

/* Prints the window's log just made, but for its '#' head lines. */
static void follow_print(struct rfile *f, int fd)
{
    FILE *in = fdopen(fd, "r");
    if (!in) {
        close(fd);
        return;
    }
    rewind(in);
    if (!follow_said++)
        printf("# live: times of calls open across a window's edge are cut; the final log is "
               "exact (litifut-postproc DIR)\n");
    printf("# live: %s: window %" PRIu64 ", %" PRIu64 " chunk%s%s\n", f->name, ++f->windows,
           follow_window_chunks, follow_window_chunks == 1 ? "" : "s",
           f->ended && !f->n_ready ? " (the last)" : "");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, in)) > 0)
        if (line[0] != '#')
            fwrite(line, 1, (size_t)n, stdout);
    free(line);
    fflush(stdout);
    fclose(in);
}

/* What the window's job said on stderr (its warnings: a window cut
 * from a trace may lack what a line needs), a few lines, marked. */
static void follow_say_errors(void)
{
    char *path = xasprintf("%s/err", follow_dir);
    FILE *in = fopen(path, "r");
    free(path);
    if (!in)
        return;
    char *line = NULL;
    size_t cap = 0;
    for (int n = 0; n < 3 && getline(&line, &cap, in) > 0; n++)
        printf("# live: %s", line);
    free(line);
    fclose(in);
    fflush(stdout);
}

static void follow_free(struct rfile *f)
{
    free(f->proc);
    free(f->ready);
    free(f->objrecs);
    f->proc = f->ready = NULL;
    f->objrecs = NULL;
    f->n_proc = f->n_ready = f->objrecs_len = 0;
    if (f->rfd >= 0)
        close(f->rfd);
    f->rfd = -1;
}

/* Whether f's maps file has arrived (whole: the agent sends it at
 * once): the post-processor needs it to know the objects. */
static int maps_arrived(const struct rfile *f)
{
    char *maps = xasprintf("%.*s.maps", (int)(strlen(f->name) - 6), f->name);
    struct stat st;
    int ok = fstatat(dir_fd, maps, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
             st.st_size > 0;
    free(maps);
    return ok;
}

/* Is the window's job done?  Then print; start the next one if due
 * (an ended trace's at once) and its maps are there. */
static void follow_poll(void)
{
    if (!opt_follow)
        return;
    if (follow_pid) {
        int st;
        if (waitpid(follow_pid, &st, WNOHANG) == 0)
            return;
        follow_pid = 0;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            printf("# live: %s: litifut-postproc could not read this window (%s)\n",
                   conns[follow_conn]->files[follow_idx].name,
                   WIFEXITED(st) ? "it failed" : "it was killed");
        follow_print(&conns[follow_conn]->files[follow_idx], follow_out);
        follow_out = -1;
        follow_say_errors();
        follow_cleanup();
    }
    uint64_t now = now_ns();
    for (int k = 0; k < MAX_CONNS; k++)
        for (size_t i = 0; conns[k] && i < conns[k]->n_files; i++) {
            struct rfile *f = &conns[k]->files[i];
            if (!f->is_trace || f->ended == 2)
                continue;
            if (f->n_ready && !f->no_live && (f->ended || now >= f->next_ns) &&
                (maps_arrived(f) || f->ended))
                return follow_start(k, f);
            if (f->ended) {
                f->ended = 2;           /* (its last window printed) */
                follow_free(f);
            }
        }
}

/* Waits for the log jobs still to come (at exit). */
static void follow_finish(void)
{
    while (opt_follow) {
        follow_poll();
        if (!follow_pid)
            break;
        usleep(10000);
    }
}

/* ---- frames ---- */

static struct rfile *find_file(struct conn *c, uint32_t id)
{
    for (size_t i = 0; i < c->n_files; i++)
        if (c->files[i].id == id)
            return &c->files[i];
    return NULL;
}

/* One frame; 0 if the connection must end (one line said why). */
static int handle_frame(struct conn *c, const unsigned char *h, const unsigned char *payload)
{
    uint32_t type = (uint32_t)get_le(h, 4), id = (uint32_t)get_le(h + 4, 4);
    uint64_t a = get_le(h + 8, 8);
    uint32_t len = (uint32_t)get_le(h + 16, 4);
    struct rfile *f = find_file(c, id);
    if (type == LITIFUT_FRAME_OPEN) {
        if (f || !id || c->n_files == MAX_FILES_CONN) {
            warning("%s: file id %" PRIu32 " used twice, or too many files: connection closed",
                    c->peer, id);
            return 0;
        }
        size_t open = 0;
        for (size_t i = 0; i < c->n_files; i++)
            open += c->files[i].fd >= 0 || c->files[i].rfd >= 0;
        if (open >= MAX_OPEN_CONN) {
            warning("%s: more than %d files open at once: connection closed", c->peer,
                    MAX_OPEN_CONN);
            return 0;
        }
        int kind = name_kind(payload, len);
        if (!kind) {
            warning("%s: a file name that is not litifut.<pid>.trace or .maps: connection closed",
                    c->peer);
            return 0;
        }
        c->files = xrealloc(c->files, (c->n_files + 1) * sizeof *c->files);
        f = &c->files[c->n_files++];
        memset(f, 0, sizeof *f);
        f->id = id;
        f->is_trace = kind == 1;
        memcpy(f->name, payload, len);
        f->name[len] = 0;
        f->rfd = -1;
        f->fd = openat(dir_fd, f->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (f->fd >= 0 && opt_follow && f->is_trace)
            f->rfd = fcntl(f->fd, F_DUPFD_CLOEXEC, 3);
        if (f->fd < 0) {
            warning("%s/%s: %s: not received", dir_name, f->name,
                    errno == EEXIST ? "already there" : strerror(errno));
            f->ended = 2;
        }
        return 1;
    }
    if (!f) {
        warning("%s: a frame for a file not opened: connection closed", c->peer);
        return 0;
    }
    if ((type == LITIFUT_FRAME_DROP && len != 8) || (type == LITIFUT_FRAME_CHUNK && len != 12)) {
        warning("%s: a malformed %s frame: connection closed", c->peer,
                type == LITIFUT_FRAME_DROP ? "DROP" : "CHUNK");
        return 0;
    }
    if (a > MAX_OFFSET || a + len > MAX_OFFSET) {
        warning("%s: %s: offset or size out of range: connection closed", c->peer, f->name);
        return 0;
    }
    if (f->fd < 0)
        return 1;                       /* refused: its frames go nowhere */
    int err = 0;
    switch (type) {
    case LITIFUT_FRAME_DATA:
        if (pwrite(f->fd, payload, len, (off_t)a) != (ssize_t)len)
            err = errno ? errno : ENOSPC;
        else if (a < sizeof(struct litifut_trace_header))
            mark_header(f);
        break;
    case LITIFUT_FRAME_SIZE:
    case LITIFUT_FRAME_END:
        if (len || ftruncate(f->fd, (off_t)a) != 0)
            err = len ? EINVAL : errno;
        mark_header(f);
        if (!err && type == LITIFUT_FRAME_END) {
            close(f->fd);
            f->fd = -1;
            f->ended = 1;
        }
        break;
    case LITIFUT_FRAME_DROP:
        f->dropped_chunks = a;
        f->dropped_bytes = get_le(payload, 8);
        mark_header(f);
        break;
    case LITIFUT_FRAME_CHUNK:
        if (!follow_chunk(f, a, payload)) {
            warning("%s: %s: a malformed CHUNK frame: connection closed", c->peer, f->name);
            return 0;
        }
        break;
    default:
        warning("%s: an unknown frame type %" PRIu32 ": connection closed", c->peer, type);
        return 0;
    }
    if (err) {
        warning("%s/%s: cannot write: %s: the rest of it is not received", dir_name, f->name,
                strerror(err));
        close(f->fd);
        f->fd = -1;
        f->ended = 2;
        follow_free(f);
    }
    return 1;
}

static void conn_close(int k)
{
    struct conn *c = conns[k];
    size_t open = 0;
    for (size_t i = 0; i < c->n_files; i++)
        if (c->files[i].fd >= 0) {
            open++;
            close(c->files[i].fd);
            c->files[i].fd = -1;
            c->files[i].ended = 1;      /* (--follow: its log, as it is) */
        }
    if (open)
        warning("%s: the connection ended before %zu file%s did (they are kept as they are)",
                c->peer, open, open == 1 ? "" : "s");
    close(c->fd);
    /* --follow: the ended files' logs are printed first (their names are here) */
    for (;;) {
        follow_finish();
        int left = 0;
        for (size_t i = 0; opt_follow && i < c->n_files; i++)
            left |= c->files[i].is_trace && c->files[i].ended == 1;
        if (!left)
            break;
        follow_poll();
    }
    for (size_t i = 0; i < c->n_files; i++)
        follow_free(&c->files[i]);
    free(c->files);
    free(c);
    conns[k] = NULL;
}

/* Reads what the connection has, at most `budget` bytes; 0 if it ended. */
static int conn_read(struct conn *c, size_t budget, size_t *used)
{
    size_t room = sizeof c->buf - c->have;
    if (room > budget)
        room = budget;
    ssize_t n = read(c->fd, c->buf + c->have, room);
    if (n < 0)
        return errno == EAGAIN || errno == EINTR;
    if (n == 0)
        return 0;
    *used += (size_t)n;
    c->have += (size_t)n;
    size_t at = 0;
    if (!c->hello) {
        if (c->have < LITIFUT_STREAM_HELLO_SIZE)
            return 1;
        if (memcmp(c->buf, LITIFUT_STREAM_HELLO, LITIFUT_STREAM_HELLO_SIZE) != 0) {
            warning("%s: not a litifut-agent stream: connection closed", c->peer);
            return 0;
        }
        c->hello = 1;
        at = LITIFUT_STREAM_HELLO_SIZE;
    }
    while (c->have - at >= LITIFUT_FRAME_HEADER) {
        uint32_t len = (uint32_t)get_le(c->buf + at + 16, 4);
        if (len > LITIFUT_FRAME_MAX) {
            warning("%s: a frame of %" PRIu32 " bytes (at most %u): connection closed", c->peer,
                    len, LITIFUT_FRAME_MAX);
            return 0;
        }
        if (c->have - at < LITIFUT_FRAME_HEADER + len)
            break;
        if (!handle_frame(c, c->buf + at, c->buf + at + LITIFUT_FRAME_HEADER))
            return 0;
        at += LITIFUT_FRAME_HEADER + len;
    }
    memmove(c->buf, c->buf + at, c->have - at);
    c->have -= at;
    return 1;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (!*s || *s == '-' || *end || errno || x > max)
        return 0;
    *v = x;
    return 1;
}

int main(int argc, char **argv)
{
    set_program_name("litifut-recv");
    const char *bind_addr = "127.0.0.1";
    uint64_t port = 0;
    int have_port = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strncmp(a, "--listen=", 9)) {
            if (!parse_u64(a + 9, 65535, &port))
                return error("--listen: expected a port number (0 to 65535)"), 1;
            have_port = 1;
        } else if (!strncmp(a, "--bind=", 7)) {
            bind_addr = a + 7;
        } else if (!strcmp(a, "--once")) {
            opt_once = 1;
        } else if (!strcmp(a, "--follow")) {
            opt_follow = 1;
        } else if (!strncmp(a, "--rate=", 7)) {
            if (!parse_u64(a + 7, (uint64_t)1 << 40, &opt_rate) || !opt_rate)
                return error("--rate: expected bytes per second (1 or more)"), 1;
        } else if (a[0] == '-' && a[1]) {
            return error("%s: unknown option (--help lists them)", a), 1;
        } else if (!dir_name) {
            dir_name = a;
        } else {
            return error("%s: one directory only (--help)", a), 1;
        }
    }
    if (!have_port || !dir_name)
        return error("expected --listen=PORT and DIR (--help)"), 1;
    dir_fd = open(dir_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return error("%s: %s", dir_name, strerror(errno)), 1;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
        return error("--bind: %s: expected an IPv4 address", bind_addr), 1;
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1;
    if (ls < 0)
        return error("socket: %s", strerror(errno)), 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 8) != 0)
        return error("%s:%" PRIu64 ": cannot listen: %s", bind_addr, port, strerror(errno)), 1;
    socklen_t sl = sizeof sa;
    getsockname(ls, (struct sockaddr *)&sa, &sl);
    fprintf(stderr, "litifut-recv: listening on %s:%u\n", bind_addr, ntohs(sa.sin_port));
    if (opt_follow)
        find_postproc();
    struct sigaction act = { .sa_handler = on_signal };
    sigaction(SIGTERM, &act, NULL);
    sigaction(SIGINT, &act, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;               /* (every descriptor allowed: 16 agents of 256 files) */
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    /* --rate: a bucket of bytes that fills at the rate (at most a second's worth) */
    double tokens = 0;
    uint64_t last_ns = now_ns();
    int served = 0, pause_said = 0;
    uint64_t accept_after = 0;      /* (out of descriptors: the listener rests until then) */
    while (!stop_now) {
        struct pollfd p[MAX_CONNS + 1];
        int idx[MAX_CONNS + 1], n = 0;
        if (!(opt_once && served) && now_ns() >= accept_after) {
            p[n] = (struct pollfd){ ls, POLLIN, 0 };
            idx[n++] = -1;
        }
        int timeout = opt_follow ? 100 : 1000;
        if (opt_rate) {
            uint64_t t = now_ns();
            tokens += (double)opt_rate * (double)(t - last_ns) / 1e9;
            if (tokens > (double)opt_rate)
                tokens = (double)opt_rate;
            last_ns = t;
            if (tokens < 1)
                timeout = 10;
        }
        for (int k = 0; k < MAX_CONNS; k++)
            if (conns[k] && (!opt_rate || tokens >= 1)) {
                p[n] = (struct pollfd){ conns[k]->fd, POLLIN, 0 };
                idx[n++] = k;
            }
        if (poll(p, (nfds_t)n, timeout) < 0 && errno != EINTR)
            return error("poll: %s", strerror(errno)), 1;
        for (int i = 0; i < n; i++) {
            if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if (idx[i] < 0) {
                struct sockaddr_in peer;
                socklen_t pl = sizeof peer;
                int fd = accept4(ls, (struct sockaddr *)&peer, &pl, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                               errno == ENOMEM)) {
                    /* the connection waits in the backlog; polling the
                     * listener now would return at once, again and again */
                    if (!pause_said++)
                        warning("cannot accept a connection: %s: trying again every second",
                                strerror(errno));
                    accept_after = now_ns() + ACCEPT_PAUSE_NS;
                }
                if (fd < 0)
                    continue;
                pause_said = 0;
                int k = 0;
                while (k < MAX_CONNS && conns[k])
                    k++;
                if (k == MAX_CONNS) {
                    warning("too many agents at once: a connection refused");
                    close(fd);
                    continue;
                }
                conns[k] = xcalloc(1, sizeof *conns[k]);
                conns[k]->fd = fd;
                char ip[INET_ADDRSTRLEN] = "?";
                inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof ip);
                snprintf(conns[k]->peer, sizeof conns[k]->peer, "%s:%u", ip, ntohs(peer.sin_port));
                served = 1;
                continue;
            }
            size_t used = 0, budget = sizeof conns[idx[i]]->buf;
            if (opt_rate && tokens < (double)budget)
                budget = (size_t)tokens;
            int alive = conn_read(conns[idx[i]], budget, &used);
            tokens -= (double)used;
            if (!alive)
                conn_close(idx[i]);
        }
        follow_poll();
        if (opt_once && served) {
            int any = 0;
            for (int k = 0; k < MAX_CONNS; k++)
                any |= conns[k] != NULL;
            if (!any)
                break;
        }
    }
    for (int k = 0; k < MAX_CONNS; k++)
        if (conns[k])
            conn_close(k);
    follow_finish();
    return 0;
}
