/*
 * argscost.c - make bench's LITIFUT_ARGS table (tests/bench.sh
 * args_cost): `argscost N` makes N calls of add3 (three integers, one
 * returned) and N of name_len (a string, its length returned), from
 * main; neither calls anything, so each iteration is two traced
 * calls.  The bench takes the instructions of N = 0 from those of
 * N = 20000 (so the cost is the calls' alone), with LITIFUT_ARGS unset,
 * set to a rule that selects nothing, and selecting each.  Prints the
 * sum; exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noipa)) long add3(long a, long b, long c) { return a + b + c; }
__attribute__((noinline, noipa)) long name_len(const char *s)
{
    long n = 0;                         /* (no strlen: no call of its own) */
    while (s[n])
        n++;
    return n;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    static const char *const names[] = { "/etc/config", "/var/run/app.pid" };
    long s = 0;
    for (int i = 0; i < n; i++) {
        s += add3(i, 2, 3);
        s += name_len(names[i & 1]);
    }
    printf("%ld\n", s);
    return 0;
}
