/*
 * frozenfork.c - a fork child of a frozen trace (tests/ring.sh).  Run
 * with LITIFUT_RECORD=off, LITIFUT_SIGNAL=SIGUSR1,
 * LITIFUT_SNAPSHOT_SIGNAL=SIGUSR2 and LITIFUT_COPY_TO: the parent
 * freezes its trace (SIGUSR2 to itself) and forks; the child starts a
 * trace of its own (its recording is off), turns recording on (SIGUSR1
 * to itself), calls child_marker 100 times and exits; the parent waits.
 * The child's trace is not frozen: it is copied when the child exits.
 * Exit status 0.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned acc;

__attribute__((noinline)) void child_marker(unsigned i) { acc += i; }

int main(void)
{
    raise(SIGUSR2);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        raise(SIGUSR1);
        for (unsigned i = 0; i < 100; i++)
            child_marker(i);
        printf("child %u\n", acc);
        return 0;
    }
    int status;
    waitpid(pid, &status, 0);
    printf("parent: child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
