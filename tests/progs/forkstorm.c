/*
 * forkstorm.c - fork() from several threads at once, and from signal
 * handlers: every child must trace into a file of its own, the parent's
 * trace must hold only its own calls, nothing may hang.
 *
 *   forkstorm THREADS FORKS [signal]
 *
 * THREADS threads each fork FORKS times; each child calls child_work()
 * CHILD_CALLS times and exits with _exit(0) after a traced call; each
 * parent thread calls parent_wait() once per child it reaped.  With
 * "signal", every thread also arms a timer whose SIGALRM handler forks
 * (a child that calls child_work() likewise), so forks land in the
 * middle of the tracer's work.  (The threads block SIGALRM around their
 * own fork() and main never unblocks it: glibc's fork is not
 * async-signal-safe when a handler interrupts another fork or malloc in
 * the same thread, traced or not.)  Exit status 0 when every child
 * exited 0; stdout says how many children ran.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define CHILD_CALLS 20

static volatile unsigned acc;
static int forks_per_thread;
static volatile sig_atomic_t handler_forks;

NOINLINE void child_work(unsigned i) { acc += i; }
NOINLINE void parent_wait(unsigned i) { acc ^= i; }
NOINLINE void thread_work(unsigned i) { acc += 3 * i; }

static NOINLINE void child_main(void)
{
    for (unsigned i = 0; i < CHILD_CALLS; i++)
        child_work(i);
    _exit(0);
}

#define HANDLER_FORKS 40          /* at most: a fork under qemu takes milliseconds */

static void on_alarm(int sig)
{
    (void)sig;
    if (handler_forks >= HANDLER_FORKS)
        return;
    int saved = errno;
    pid_t pid = fork();
    if (pid == 0)
        child_main();
    if (pid > 0)
        handler_forks++;
    errno = saved;
}

static int bad;

static void *forker(void *arg)
{
    (void)arg;
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    for (int i = 0; i < forks_per_thread; i++) {
        pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
        for (unsigned k = 0; k < 50; k++)
            thread_work(k);
        pthread_sigmask(SIG_BLOCK, &alarm, NULL);
        pid_t pid = fork();
        if (pid == 0)
            child_main();
        if (pid < 0) {
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
            continue;
        }
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
        parent_wait((unsigned)i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int threads = atoi(argv[1]);
    forks_per_thread = atoi(argv[2]);
    int with_signal = argc > 3 && strcmp(argv[3], "signal") == 0;
    if (threads < 1 || threads > 64)
        return 2;
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alarm, NULL);      /* (the threads inherit it) */
    if (with_signal) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_alarm;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
        setitimer(ITIMER_REAL, &it, NULL);
    }
    pthread_t tids[64];
    for (int i = 0; i < threads; i++)
        pthread_create(&tids[i], NULL, forker, NULL);
    for (int i = 0; i < threads; i++)
        pthread_join(tids[i], NULL);
    if (with_signal) {
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_REAL, &off, NULL);
    }
    /* the handler's children: reap whatever is left */
    int status, reaped = 0;
    pid_t pid;
    while ((pid = wait(&status)) > 0 || (pid < 0 && errno == EINTR))
        if (pid > 0) {
            reaped++;
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                bad++;
        }
    printf("%d children, %d from handlers, %d bad\n", threads * forks_per_thread + reaped,
           (int)handler_forks, bad);
    return bad != 0;
}
