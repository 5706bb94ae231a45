/*
 * memset for the tracer's own code: GCC calls it to zero a large local
 * (a struct sigaction, say) even with -fno-builtin,
 * and the C library's must not be called (it may be traced, or not
 * there yet).  The tracer's build gives it the litifut_ prefix with its
 * other globals, so it never meets the program's.  Built with
 * -fno-tree-loop-distribute-patterns: this loop stays a loop.
 */
#include <stddef.h>
#include "tracer.h"

HIDDEN void *memset(void *s, int c, size_t n);
HIDDEN void *memset(void *s, int c, size_t n)
{
    volatile unsigned char *p = s;
    while (n--)
        *p++ = (unsigned char)c;
    return s;
}
