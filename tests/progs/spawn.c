/*
 * spawn.c - children that share the parent's memory: vfork, and
 * posix_spawn (which static glibc runs through clone(CLONE_VM |
 * CLONE_VFORK) and its own traced code).  The children's calls must
 * not land in the parent's trace; the parent's calls before and after
 * must all be recorded.  The vfork child calls child_marker, then
 * _exit.  The spawned child runs /bin/sh (under qemu-user that is the
 * host's shell: what matters is the child's traced code before exec).
 */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

extern char **environ;
static volatile unsigned acc;

NOINLINE void parent_marker(unsigned i) { acc += i; }
NOINLINE void child_marker(unsigned i) { acc ^= i; }

int main(void)
{
    int status;
    for (unsigned round = 0; round < 3; round++) {
        for (unsigned i = 0; i < 100; i++)
            parent_marker(i);
        pid_t pid = vfork();
        if (pid == 0) {
            for (unsigned i = 0; i < 300; i++)
                child_marker(i);
            _exit(7);
        }
        for (unsigned i = 0; i < 100; i++)
            parent_marker(i);
        waitpid(pid, &status, 0);
        printf("vfork child exit %d\n", WEXITSTATUS(status));
    }
    char *child_argv[] = { "sh", "-c", "exit 3", NULL };
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, child_argv, environ) != 0)
        return 1;
    for (unsigned i = 0; i < 100; i++)
        parent_marker(i);
    waitpid(pid, &status, 0);
    printf("spawned child exit %d\n", WEXITSTATUS(status));
    return 0;
}
