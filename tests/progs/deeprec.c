/*
 * deeprec.c - a recursion 100000 calls deep (a thread's shadow stack
 * holds 65536 hooked calls before it grows), then a shallow one, and a
 * system call that fails (static MIPS glibc's __syscall_error reads the
 * pc with a bal: not a call to hook).  Prints both depths and the
 * error; exit status 0.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned sink;

NOINLINE static void leaf(unsigned i) { sink += i; }

NOINLINE static unsigned rec(unsigned n)
{
    leaf(n);
    if (!n)
        return 0;
    unsigned r = rec(n - 1) + 1;
    leaf(r);
    return r;
}

int main(void)
{
    printf("%u\n", rec(100000));
    printf("%u\n", rec(10));
    int r = unlink("/nonexistent/litifut-deeprec");
    printf("unlink %d errno %d\n", r, r ? errno : 0);
    return 0;
}
