/*
 * sigfork.c - signals at a fork child's start (tests/ring.sh).  Run with
 * LITIFUT_RECORD=off, LITIFUT_SIGNAL=SIGUSR1 and
 * LITIFUT_SNAPSHOT_SIGNAL=SIGUSR2: each of CHILDREN children starts a
 * trace of its own (its recording is off: a STATE record) while the
 * parent sends it SIGUSR2 until it has exited; the tracer's snapshot
 * handler must never wait for the lock its own thread holds (a child
 * that did would spin for ever).  Exit status 0 once every child has
 * exited.
 *
 *   sigfork CHILDREN
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned acc;

__attribute__((noinline)) void child_marker(unsigned i) { acc += i; }

int main(int argc, char **argv)
{
    int children = argc > 1 ? atoi(argv[1]) : 100;
    for (int k = 0; k < children; k++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            for (unsigned i = 0; i < 100; i++)
                child_marker(i);
            _exit(0);
        }
        int status;
        pid_t got;
        while ((got = waitpid(pid, &status, WNOHANG)) == 0)
            kill(pid, SIGUSR2);
        if (got != pid || !WIFEXITED(status) || WEXITSTATUS(status))
            return 1;
    }
    printf("%d children\n", children);
    return 0;
}
