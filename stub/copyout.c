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
 * only.  A ring (LITIFUT_MODE=ring) catches the same signals, to say in
 * its header that one ended it; LITIFUT_SNAPSHOT_SIGNAL freezes it.
 * The copying itself is tracefile.c's (a freeze copies at once, and
 * not again at exit).
 */
#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"

#define P (litifut_copy.proc)

/* Signals whose default action ends the process and that a handler may
 * catch (SIGKILL and SIGSTOP cannot be: after SIGKILL the local trace
 * is complete, but not copied). */
static const int fatal_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGPIPE,
    SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS,
};

void copyout_at_end(void)
{
    tracefile_snapshot(LITIFUT_SNAPSHOT_EXIT, 0);      /* (a ring's: why its records end) */
    /* (a frozen trace was copied when it froze: once is enough) */
    if (P->settings.copy_to[0] && P->stop_why != LITIFUT_STOP_SNAPSHOT)
        tracefile_copy_out();
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
    tracefile_snapshot(LITIFUT_SNAPSHOT_FATAL, (uint32_t)sig);    /* (copies it, if asked) */
    P->settings.copy_to[0] = 0;         /* once */
    unlock(mask);
    static const uint32_t dfl[8 + SIGSET_WORDS];
    arch_syscall6(__NR_rt_sigaction, sig, (long)dfl, 0, ARCH_NSIG / 8, 0, 0);
    arch_syscall6(__NR_tgkill, sys_getpid(), sys_gettid(), sig, 0, 0, 0);
}

/* LITIFUT_SNAPSHOT_SIGNAL: the ring frozen (and copied, if asked). */
static void on_snapshot_signal(int sig)
{
    tracefile_freeze(LITIFUT_SNAPSHOT_SIGNAL, (uint32_t)sig);
}

void copyout_catch_signals(void)
{
    const struct settings *st = tracefile_settings();
    if ((!st->copy_to[0] && !st->ring && !st->snapshot_signal) || !tracefile_start())
        return;                 /* (the trace starts now: a signal may come before a call) */
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    int first = P->trace == TRACE_ON && !P->copyout_signals;
    P->copyout_signals = 1;
    unlock(mask);
    if (!first)
        return;
    /* (through the C library's real sigaction, once it is initialised:
     * from a constructor; the program sees the default action still) */
    if (st->snapshot_signal)
        control_own_signal(st->snapshot_signal, on_snapshot_signal, 0, 0);
    if (!st->copy_to[0] && !st->ring)
        return;
    for (unsigned i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
        control_own_signal(fatal_signals[i], on_fatal_signal, 1, 1);
}
