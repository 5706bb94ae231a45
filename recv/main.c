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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "lib/error.h"
#include "litifut/stream-format.h"
#include "litifut/trace-format.h"

extern char **environ;

#define MAX_CONNS       16
#define MAX_FILES_CONN  4096            /* files one connection may open */
#define MAX_OFFSET      ((uint64_t)1 << 40)
#define FOLLOW_HOLD     1000            /* log lines held back while a file streams (a cut
                                           trace closes its open frames: one line each) */

static const char usage[] =
    "usage: litifut-recv --listen=PORT [--bind=ADDR] [--once] [--follow] [--rate=BYTES_PER_S] DIR\n"
    "Receives litifut-agent streams and writes their traces and maps into DIR.\n"
    "  --listen=PORT   the TCP port (0: any free one; the port is said on stderr)\n"
    "  --bind=ADDR     the IPv4 address to listen on (default 127.0.0.1)\n"
    "  --once          exit when the first connection ends\n"
    "  --follow        print each trace's log (litifut-postproc) as it arrives\n"
    "  --rate=N        read at most N bytes per second (to test a slow link)\n";

struct rfile {
    uint32_t id;
    int fd;                     /* -1: refused or ended */
    int is_trace;
    char name[LITIFUT_STREAM_NAME_MAX + 1];
    uint64_t dropped_chunks, dropped_bytes;
    /* --follow */
    int dirty;                  /* data arrived since the log was last made */
    int ended, live_broken;
    uint64_t printed;           /* bytes of the log printed after its head lines */
    uint64_t printed_hash;
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

/* ---- --follow: the log as it arrives ----
 * The log view merges every thread by time, and a thread's records
 * arrive in its chunks' order, all threads within about one agent
 * interval of each other.  So the log of what has arrived is, but for
 * its last lines (calls whose return or next event has not come), the
 * start of the final log.  Once a second (at most), for each trace with
 * new data, litifut-postproc makes the log of that trace; the lines
 * after those already printed are printed, but for the last
 * FOLLOW_HOLD.  That the lines already printed are still the new log's
 * start is checked (a hash of them); when they are not (a thread's data
 * came late: a slow link, dropped chunks), live printing of that trace
 * stops with one line, and its whole log is printed when it ends.  When
 * a trace ends, the rest of its log is printed. */

static char *postproc_path;
static pid_t follow_pid;
static int follow_conn, follow_idx;    /* the file of the job (c->files moves) */
static int follow_out = -1, follow_final;
static char follow_tmp[PATH_MAX];
static uint64_t follow_next_ns;

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

static uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static void follow_start(int k, struct rfile *f, int final)
{
    const char *tmpdir = getenv("TMPDIR");
    snprintf(follow_tmp, sizeof follow_tmp, "%s/litifut-recv.XXXXXX",
             tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(follow_tmp);
    if (fd < 0) {
        warning("%s: cannot make a temporary file: %s", follow_tmp, strerror(errno));
        return;
    }
    char *path = xasprintf("%s/%s", dir_name, f->name);
    char *argv[] = { postproc_path, (char *)"--format=log", path, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd, 1);
    if (!final)     /* (a trace cut short warns: not now) */
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    int err = posix_spawnp(&follow_pid, postproc_path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(path);
    if (err) {
        /* once: no log will be shown, the files are still received */
        warning("%s: cannot run: %s (--follow shows nothing)", postproc_path, strerror(err));
        close(fd);
        unlink(follow_tmp);
        follow_pid = 0;
        opt_follow = 0;
        return;
    }
    follow_out = fd;
    follow_conn = k;
    follow_idx = (int)(f - conns[k]->files);
    follow_final = final;
    f->dirty = 0;
}

/* Prints the new lines of the log just made (all but the last
 * FOLLOW_HOLD unless it is the final one). */
static void follow_print(struct rfile *f, int fd, int final)
{
    FILE *in = fdopen(fd, "r");
    if (!in) {
        close(fd);
        return;
    }
    rewind(in);
    /* where the held-back lines start */
    uint64_t line_at[FOLLOW_HOLD + 1] = { 0 }, pos = 0, lines = 0, head = 0;
    int c, at_line = 1, in_head = 1;
    while ((c = getc(in)) != EOF) {
        if (at_line && c != '#')
            in_head = 0;
        at_line = c == '\n';
        pos++;
        if (c == '\n')
            line_at[lines++ % (FOLLOW_HOLD + 1)] = pos;
        if (in_head && at_line)
            head = pos;
    }
    /* The head lines (calls so far) change until the end: printed then,
     * before the rest; live, the lines after them. */
    if (final) {
        unsigned char hb[4096];
        rewind(in);
        for (uint64_t left = head; left;) {
            size_t n = fread(hb, 1, left < sizeof hb ? (size_t)left : sizeof hb, in);
            if (!n)
                break;
            fwrite(hb, 1, n, stdout);
            left -= n;
        }
    }
    uint64_t upto = pos;
    if (!final)
        upto = lines > FOLLOW_HOLD ? line_at[(lines - FOLLOW_HOLD - 1) % (FOLLOW_HOLD + 1)] : 0;
    if (upto < head)
        upto = head;
    fseek(in, (long)head, SEEK_SET);
    unsigned char b[65536];
    uint64_t h = 0xcbf29ce484222325ull, done = head;
    uint64_t shown = head + f->printed;     /* (printed: bytes after the head) */
    int same = shown <= pos;
    while (same && done < shown) {
        size_t n = fread(b, 1, shown - done < sizeof b ? (size_t)(shown - done) : sizeof b, in);
        if (!n)
            break;
        h = hash_bytes(h, b, n);
        done += n;
    }
    if (!same || done != shown || h != f->printed_hash) {
        if (!f->live_broken)
            printf("# litifut-recv: %s: the log changed before what was shown (a thread's records "
                   "came late): %s\n", f->name, final ? "here it is whole" : "it is printed whole "
                   "when the trace ends");
        f->live_broken = 1;
        if (!final) {
            fclose(in);
            fflush(stdout);
            return;
        }
        fseek(in, (long)head, SEEK_SET);
        done = head;
        h = 0xcbf29ce484222325ull;
    } else if (f->live_broken && !final) {
        fclose(in);
        return;
    }
    while (done < upto) {
        size_t n = fread(b, 1, upto - done < sizeof b ? (size_t)(upto - done) : sizeof b, in);
        if (!n)
            break;
        fwrite(b, 1, n, stdout);
        h = hash_bytes(h, b, n);
        done += n;
    }
    f->printed = done - head;
    f->printed_hash = h;
    fflush(stdout);
    fclose(in);
}

/* Is the log job done?  Then print; start the next one if due. */
static void follow_poll(void)
{
    if (!opt_follow)
        return;
    if (follow_pid) {
        int st;
        if (waitpid(follow_pid, &st, WNOHANG) == 0)
            return;
        follow_pid = 0;
        struct rfile *f = &conns[follow_conn]->files[follow_idx];
        follow_print(f, follow_out, follow_final);
        unlink(follow_tmp);
        follow_out = -1;
        if (follow_final)
            f->ended = 2;               /* printed */
    }
    /* a trace that ended first, then one with new data, once a second */
    for (int k = 0; k < MAX_CONNS; k++)
        for (size_t i = 0; conns[k] && i < conns[k]->n_files; i++) {
            struct rfile *f = &conns[k]->files[i];
            if (f->is_trace && f->ended == 1)
                return follow_start(k, f, 1);
        }
    if (now_ns() < follow_next_ns)
        return;
    for (int k = 0; k < MAX_CONNS; k++)
        for (size_t i = 0; conns[k] && i < conns[k]->n_files; i++) {
            struct rfile *f = &conns[k]->files[i];
            if (f->is_trace && !f->ended && f->dirty && !f->live_broken && f->fd >= 0) {
                follow_next_ns = now_ns() + 1000000000u;
                return follow_start(k, f, 0);
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
        f->fd = openat(dir_fd, f->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
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
    if (type == LITIFUT_FRAME_DROP && len != 8) {
        warning("%s: a malformed DROP frame: connection closed", c->peer);
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
        f->dirty = 1;
        break;
    case LITIFUT_FRAME_SIZE:
    case LITIFUT_FRAME_END:
        if (len || ftruncate(f->fd, (off_t)a) != 0)
            err = len ? EINVAL : errno;
        mark_header(f);
        f->dirty = 1;
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

    /* --rate: a bucket of bytes that fills at the rate (at most a second's worth) */
    double tokens = 0;
    uint64_t last_ns = now_ns();
    int served = 0;
    while (!stop_now) {
        struct pollfd p[MAX_CONNS + 1];
        int idx[MAX_CONNS + 1], n = 0;
        if (!(opt_once && served)) {
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
                if (fd < 0)
                    continue;
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
