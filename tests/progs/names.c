/*
 * names.c - one function, one name in every view: calls of free
 * (glibc's free shares its address with its compatibility alias
 * cfree), and of vfork, _setjmp and setjmp, which the tracer wraps
 * (ld --wrap: the program's calls go to its __wrap_NAME, which goes on
 * to NAME).  Exit status 0.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
static volatile int acc;

NOINLINE void churn(int n)
{
    for (int i = 0; i < n; i++) {
        char *p = malloc(16 + i);
        p[0] = (char)i;
        acc += p[0];
        free(p);
    }
}

int main(void)
{
    churn(5);
    if (_setjmp(env) == 0)
        acc++;
    if (setjmp(env) == 0)
        acc++;
    pid_t pid = vfork();
    if (pid == 0)
        _exit(3);
    int status = 0;
    waitpid(pid, &status, 0);
    printf("child %d, acc %d\n", WEXITSTATUS(status), acc);
    return 0;
}
