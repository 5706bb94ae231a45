/*
 * exitdeep: a process that ends inside nested calls (_exit from work):
 * their frames are still open when the trace ends (tests/postproc.sh:
 * the log says so, not a call that finished).  Exit status 3.
 */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) void work(void)
{
    fflush(stdout);
    _exit(3);
}

int main(void)
{
    printf("hi\n");
    work();
    return 0;
}
