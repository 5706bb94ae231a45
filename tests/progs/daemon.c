/*
 * daemon.c - what daemons do at start-up: close every descriptor,
 * change to /, and open /dev/null (which takes the lowest free number,
 * most likely the one the trace file had).  Then 20000 traced calls;
 * the test runs it with small chunks, so the tracer claims many more
 * after this, and every call must still be recorded.  Exit status 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned acc;

NOINLINE void work_marker(unsigned i) { acc += i; }

int main(void)
{
    work_marker(0);                     /* the trace file is open by now */
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    if (chdir("/") != 0)
        return 1;
    int null = open("/dev/null", O_RDWR);
    for (unsigned i = 1; i < 20000; i++)
        work_marker(i);
    printf("done (fd %d)\n", null);
    return 0;
}
