/*
 * bigtext.c - call sites far from both ends of the program's code:
 * about 400 KB of straight-line code before and after the functions
 * that make calls (one object file, one .text section), so that on
 * MIPS no sled copy is within bal range (+-128 KB) of them and the
 * rewriter must use its fallback (jal in fixed-address programs, the
 * run-time bridge in PIEs).  Exit status 0.
 */
#include <stdio.h>

#include "pad.h"

#define NOINLINE __attribute__((noinline))

/* about 400 KB each */
PAD_FUNCTION(pad_before)

NOINLINE static unsigned leaf(unsigned x) { return x * 2654435761u; }
NOINLINE static unsigned twice(unsigned x) { return leaf(x) ^ leaf(x + 1); }
static unsigned (*volatile indirect)(unsigned) = twice;
NOINLINE static unsigned rec(unsigned n) { return n ? rec(n - 1) + leaf(n) : 0; }

NOINLINE unsigned middle(void)
{
    unsigned h = 0;
    for (unsigned i = 0; i < 20; i++)
        h += twice(i) + indirect(i) + rec(i % 5);
    return h;
}

PAD_FUNCTION(pad_after)

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 5) {                         /* never: keeps the padding linked */
        pad_before();
        pad_after();
    }
    printf("middle=%08x\n", middle());
    return 0;
}
