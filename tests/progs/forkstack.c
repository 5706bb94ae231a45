/*
 * forkstack.c - a fork from inside a call stack: main -> run -> spawn
 * -> fork.  The child's calls come from the frames it inherited: spawn
 * (child_work), then run (after_spawn) once spawn has returned, then
 * main (finish, _exit).  The parent does the same with parent_work and
 * waits for the child.  Exit status 0.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned acc;

NOINLINE void leaf(unsigned i) { acc += i; }
NOINLINE void child_work(void) { for (unsigned i = 0; i < 3; i++) leaf(i); }
NOINLINE void parent_work(void) { for (unsigned i = 0; i < 2; i++) leaf(i); }
NOINLINE void after_spawn(pid_t pid) { leaf(pid == 0); acc += 2; }
NOINLINE void finish(void) { leaf(3); acc += 3; }

NOINLINE pid_t spawn(void)
{
    leaf(1);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        child_work();
    else
        parent_work();
    acc += 1;
    return pid;
}

NOINLINE pid_t run(void)
{
    leaf(0);
    pid_t pid = spawn();
    after_spawn(pid);
    acc += 1;
    return pid;
}

int main(void)
{
    pid_t pid = run();
    finish();
    if (pid == 0)
        _exit(0);
    int status = 1;
    waitpid(pid, &status, 0);
    printf("child exit %d\n", WEXITSTATUS(status));
    return 0;
}
