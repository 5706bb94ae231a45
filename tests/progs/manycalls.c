/*
 * manycalls: more calls than the HTML report's timeline shows, in two
 * processes (tests/report.sh).  The parent's outer() calls leaf() 30000
 * times, a fork child's outer() 100 times: the timeline keeps the
 * frames that start first, of both processes, so outer's and main's
 * bars are there (ended at the cut).  Prints the parent's sum.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int sink;
__attribute__((noinline)) void leaf(int i) { sink += i; }
__attribute__((noinline)) void outer(int n)
{
    for (int i = 0; i < n; i++)
        leaf(i);
}

int main(void)
{
    pid_t child = fork();
    if (child == 0) {
        outer(100);
        return 0;
    }
    outer(30000);
    waitpid(child, NULL, 0);
    printf("%d\n", sink);
    return 0;
}
