/*
 * symlinks.c - somebody plants symbolic links where the tracer writes:
 * litifut.<pid>.maps.tmp (the maps copy's temporary file) points at
 * `victim-maps`, litifut.<pid>.trace is moved away and replaced by a
 * link to `victim-trace`, and every descriptor is closed as a daemon
 * does, so the tracer must open the trace by its path again.  Then enough calls to need new chunks.  The tracer
 * must write through neither link: it stops tracing with one warning,
 * and the victims keep their contents.  Exit status 0.
 */
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned acc;

NOINLINE void work_marker(unsigned i) { acc += i; }

int main(void)
{
    char name[64], moved[64];
    int pid = getpid();                 /* a traced call: the trace is open */
    snprintf(name, sizeof name, "litifut.%d.maps.tmp", pid);
    if (symlink("victim-maps", name) != 0)
        return 1;
    snprintf(name, sizeof name, "litifut.%d.trace", pid);
    snprintf(moved, sizeof moved, "moved.%d.trace", pid);
    if (rename(name, moved) != 0 || symlink("victim-trace", name) != 0)
        return 1;
    for (int fd = 3; fd < 1024; fd++)
        close(fd);
    for (unsigned i = 0; i < 20000; i++)
        work_marker(i);
    printf("done\n");
    return 0;
}
