/*
 * bigmain.c - the program of the far-call-site libraries (libbig.c,
 * built as libbiga.so.1 and libbigb.so.1): calls each one's big_run
 * with a callback, prints the results, exits with status 0 (1 if the
 * two libraries disagree: they run the same code).
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

unsigned big_run_a(unsigned (*cb)(unsigned), char *buf, int size);
unsigned big_run_b(unsigned (*cb)(unsigned), char *buf, int size);
void big_pad_before_a(void), big_pad_after_a(void), big_pad_before_b(void), big_pad_after_b(void);

NOINLINE static unsigned bump(unsigned x)           /* the libraries call back */
{
    return x + 1;
}

int main(int argc, char **argv)
{
    char a[64], b[64];
    (void)argv;
    if (argc > 5) {                         /* never: the padding is not run */
        big_pad_before_a();
        big_pad_after_a();
        big_pad_before_b();
        big_pad_after_b();
    }
    unsigned ha = big_run_a(bump, a, sizeof a), hb = big_run_b(bump, b, sizeof b);
    printf("%s\n%s\n", a, b);
    return ha != hb;
}
