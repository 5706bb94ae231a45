/*
 * sigtimer.c - signal handlers the tracer records as SIGNAL events
 * (tests/sigevents.sh): SIGALRM from setitimer(ITIMER_REAL) runs
 *   1. a handler installed with sigaction, SA_SIGINFO | SA_RESTART;
 *   2. one installed with signal();
 *   3. one with SA_ONSTACK, on a sigaltstack;
 *   4. one that leaves with siglongjmp;
 * and SIGUSR1/SIGUSR2 (raise) a handler with SA_RESETHAND and one from
 * sysv_signal.  Each handler calls a traced function of its own
 * (in_info, in_plain, in_stack, in_jump, in_once, in_sysv) while main
 * keeps calling main_work.  SIGALRM is blocked but inside sigsuspend,
 * called from the traced function wait_in: every delivery interrupts a
 * traced call (never the tracer itself, which would leave it out of the
 * trace), and each phase has exactly its N deliveries.  What the program
 * asks back with sigaction
 * (its handler, its flags, its mask) is printed: a traced run must print
 * exactly what an untraced one does.  stderr gets the number of
 * deliveries per handler ("deliveries NAME N", and the total) for the
 * test to compare with the trace.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))
#define PHASE 8                 /* deliveries to wait for, per handler */
#define JUMPS 5

static volatile unsigned acc;
static volatile sig_atomic_t n_info, n_plain, n_stack, n_jump, n_once, n_sysv;
static volatile sig_atomic_t info_ok = 1, stack_ok = 1;
static char *alt_lo, *alt_hi;
static sigjmp_buf env;
static sigset_t open_mask;      /* the mask inside sigsuspend: SIGALRM deliverable */

NOINLINE void main_work(unsigned i) { acc += i; }
NOINLINE void in_info(unsigned i) { acc ^= i; }
NOINLINE void in_plain(unsigned i) { acc ^= i * 3; }
NOINLINE void in_stack(unsigned i) { acc ^= i * 5; }
NOINLINE void in_jump(unsigned i) { acc ^= i * 7; }
NOINLINE void in_once(unsigned i) { acc ^= i * 11; }
NOINLINE void in_sysv(unsigned i) { acc ^= i * 13; }
/* a traced frame that the signal interrupts */
NOINLINE void wait_in(unsigned i)
{
    main_work(i);
    sigsuspend(&open_mask);
}

static void h_info(int sig, siginfo_t *info, void *uc)
{
    if (sig != SIGALRM || !info || info->si_signo != SIGALRM || !uc)
        info_ok = 0;
    in_info((unsigned)n_info);
    n_info++;
}

static void h_plain(int sig)
{
    in_plain((unsigned)sig);
    n_plain++;
}

static void h_stack(int sig)
{
    char here;
    if (&here < alt_lo || &here >= alt_hi)
        stack_ok = 0;
    in_stack((unsigned)sig);
    n_stack++;
}

static void h_jump(int sig)
{
    in_jump((unsigned)sig);
    n_jump++;
    siglongjmp(env, 1);
}

static void h_once(int sig)
{
    in_once((unsigned)sig);
    n_once++;
}

static void h_sysv(int sig)
{
    in_sysv((unsigned)sig);
    n_sysv++;
}

#ifndef __GLIBC__
/* (musl has no sysv_signal: what glibc's does, by sigaction) */
static void sysv_signal(int sig, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(sig, &sa, NULL);
}
#endif

static void timer(long us, long interval_us)
{
    struct itimerval it = { { 0, interval_us }, { 0, us } };
    if (setitimer(ITIMER_REAL, &it, NULL) != 0) {
        perror("setitimer");
        exit(2);
    }
}

/* Traced work until *count reaches n (one delivery per wait), then
 * the timer stopped. */
static void run_until(volatile sig_atomic_t *count, int n)
{
    timer(2000, 2000);
    for (unsigned i = 0; *count < n; i++)
        wait_in(i);
    timer(0, 0);
}

/* What the program asks back for sig, printed. */
static void show(const char *what, int sig)
{
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) {
        perror("sigaction");
        exit(2);
    }
    const char *h = old.sa_handler == SIG_DFL ? "SIG_DFL" : old.sa_handler == SIG_IGN ? "SIG_IGN"
                    : (void *)old.sa_sigaction == (void *)h_info ? "h_info"
                    : old.sa_handler == h_plain ? "h_plain" : old.sa_handler == h_stack ? "h_stack"
                    : old.sa_handler == h_jump ? "h_jump" : old.sa_handler == h_once ? "h_once"
                    : old.sa_handler == h_sysv ? "h_sysv" : "another";
    printf("%s: %s flags 0x%x mask USR1 %d USR2 %d\n", what, h, (unsigned)old.sa_flags,
           sigismember(&old.sa_mask, SIGUSR1), sigismember(&old.sa_mask, SIGUSR2));
}

int main(void)
{
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    sigprocmask(SIG_BLOCK, &alrm, &open_mask);
    sigdelset(&open_mask, SIGALRM);
    show("SIGALRM at start", SIGALRM);

    /* 1. SA_SIGINFO | SA_RESTART, SIGUSR1 in the mask */
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = h_info;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    if (sigaction(SIGALRM, &sa, &old) != 0)
        return 2;
    printf("old at install: %s\n", old.sa_handler == SIG_DFL ? "SIG_DFL" : "another");
    show("SIGALRM h_info", SIGALRM);
    run_until(&n_info, PHASE);
    printf("h_info: at least %d deliveries, siginfo %s\n", PHASE, info_ok ? "right" : "WRONG");

    /* 2. signal(): it answers the handler it replaced */
    void (*prev)(int) = signal(SIGALRM, h_plain);
    printf("signal() replaced %s\n", (void *)prev == (void *)h_info ? "h_info" : "another");
    show("SIGALRM h_plain", SIGALRM);
    run_until(&n_plain, PHASE);
    printf("h_plain: at least %d deliveries\n", PHASE);

    /* 3. SA_ONSTACK on an alternate stack */
    static char alt[64 * 1024];
    stack_t ss = { .ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0 };
    alt_lo = alt;
    alt_hi = alt + sizeof alt;
    if (sigaltstack(&ss, NULL) != 0)
        return 2;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h_stack;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK | SA_RESTART;
    if (sigaction(SIGALRM, &sa, &old) != 0)
        return 2;
    printf("sigaction replaced %s flags 0x%x\n", old.sa_handler == h_plain ? "h_plain" : "another",
           (unsigned)old.sa_flags);
    show("SIGALRM h_stack", SIGALRM);
    run_until(&n_stack, PHASE);
    printf("h_stack: at least %d deliveries, %s the alternate stack\n", PHASE,
           stack_ok ? "all on" : "NOT all on");

    /* 4. siglongjmp out of the handler, JUMPS times */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h_jump;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGALRM, &sa, NULL);
    show("SIGALRM h_jump", SIGALRM);
    volatile int jumps = 0;
    if (sigsetjmp(env, 1))
        jumps++;
    if (jumps < JUMPS) {
        timer(2000, 0);
        for (unsigned i = 0;; i++)
            wait_in(i);
    }
    timer(0, 0);
    printf("h_jump: %d jumps\n", (int)jumps);

    /* 5. SA_RESETHAND: the default again after one delivery */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = h_once;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigaction(SIGUSR1, &sa, NULL);
    show("SIGUSR1 h_once", SIGUSR1);
    raise(SIGUSR1);
    show("SIGUSR1 after one", SIGUSR1);

    /* 6. sysv_signal: SA_RESETHAND | SA_NODEFER */
    sysv_signal(SIGUSR2, h_sysv);
    show("SIGUSR2 h_sysv", SIGUSR2);
    raise(SIGUSR2);
    show("SIGUSR2 after one", SIGUSR2);
    signal(SIGALRM, SIG_IGN);
    show("SIGALRM ignored", SIGALRM);

    main_work(0);
    printf("done\n");
    fprintf(stderr, "deliveries h_info %d\ndeliveries h_plain %d\ndeliveries h_stack %d\n"
            "deliveries h_jump %d\ndeliveries h_once %d\ndeliveries h_sysv %d\n"
            "deliveries total %d\n", (int)n_info, (int)n_plain, (int)n_stack, (int)n_jump,
            (int)n_once, (int)n_sysv,
            (int)(n_info + n_plain + n_stack + n_jump + n_once + n_sysv));
    return 0;
}
