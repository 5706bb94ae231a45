/*
 * forks.c - fork(): the child must trace into a file of its own (its
 * pid's), not into the parent's chunks it inherited.  Parent and child
 * each call a marker function a known number of times; the test counts
 * them per trace.  The parent waits for the child.  Exit status 0.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned acc;

NOINLINE void parent_marker(unsigned i) { acc += i; }
NOINLINE void child_marker(unsigned i) { acc ^= i; }
NOINLINE void before_fork(unsigned i) { acc += 2 * i; }

int main(void)
{
    for (unsigned i = 0; i < 10; i++)
        before_fork(i);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        for (unsigned i = 0; i < 300; i++)
            child_marker(i);
        printf("child done\n");
        return 0;
    }
    for (unsigned i = 0; i < 200; i++)
        parent_marker(i);
    int status;
    waitpid(pid, &status, 0);
    printf("parent done, child exit %d\n", WEXITSTATUS(status));
    return 0;
}
