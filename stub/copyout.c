/*
 * LITIFUT_COPY_TO=DIR: the trace and the maps copied to DIR (a USB
 * stick's mount point, say) when the process stops: at exit, after the
 * last instrumented object's destructor (events.c), and on a fatal
 * signal the tracer may catch (one whose action was the default when
 * the first copy started: the program's own handlers are left alone).
 * Each file goes to DIR/.NAME.tmp first, is synced, then renamed to
 * DIR/NAME and the directory synced: DIR never holds a half-written
 * file under the final name.  Any failure (DIR missing or full) is one
 * line on stderr; the local files stay as they are, complete.  The copy
 * is the trace as it was then: calls after the last destructor (a
 * static program's C library finishing exit) are in the local trace
 * only.
 */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"

#define P (litifut_copy.proc)

/* The C library's: the tracer's signal handlers are installed once the
 * library is initialised (from a constructor). */
extern int sigaction(int, const struct sigaction *, struct sigaction *);

/* Signals whose default action ends the process and that a handler may
 * catch (SIGKILL and SIGSTOP cannot be: after SIGKILL the local trace
 * is complete, but not copied). */
static const int fatal_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGPIPE,
    SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS,
};

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
static void copy_out(void)
{
    const char *dir = P->settings.copy_to;
    if (!dir[0] || P->trace != TRACE_ON)
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

void copyout_at_end(void)
{
    if (P->settings.copy_to[0])
        copy_out();
}

/* The handler: the copy, then the signal again with its default action
 * (it is blocked until this handler returns; a fault happens again).
 * System calls only after the copy: a static program's C library is
 * traced, and its calls now would be missing from the copy.  The
 * kernel's sigaction is all zeros for SIG_DFL with no flags and an
 * empty mask, whatever the architecture's field order. */
static void on_fatal_signal(int sig)
{
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    copy_out();
    P->settings.copy_to[0] = 0;         /* once */
    unlock(mask);
    static const uint32_t dfl[8 + SIGSET_WORDS];
    arch_syscall6(__NR_rt_sigaction, sig, (long)dfl, 0, ARCH_NSIG / 8, 0, 0);
    arch_syscall6(__NR_tgkill, sys_getpid(), sys_gettid(), sig, 0, 0, 0);
}

void copyout_catch_signals(void)
{
    if (!tracefile_settings()->copy_to[0] || !tracefile_start())
        return;                 /* (the trace starts now: a signal may come before a call) */
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    int first = P->trace == TRACE_ON && P->settings.copy_to[0] && !P->copyout_signals;
    P->copyout_signals = 1;
    unlock(mask);
    if (!first)
        return;
    for (unsigned i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old, sa = { .sa_handler = on_fatal_signal };
        if (sigaction(fatal_signals[i], 0, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(fatal_signals[i], &sa, 0);
    }
}
