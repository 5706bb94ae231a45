/*
 * fartext.c - call sites tens of MB from the tracer's sled, for the
 * far sleds (arch/{arm,aarch64}/far-sled.S): built once per part
 * (-DPART=1..3, and 0 for main) and linked with padding between the
 * parts (tests/progs/fartext-pad.S, data in .text: nothing to scan):
 * 12 MB on ARM, so that part 1's calls lie about 36 MB before the end
 * of the code, beyond ARM bl's reach (+-32 MB) and Thumb-2 blx's (+-16
 * MB); 45 MB on AArch64, about 135 MB, beyond bl's +-128 MB.  Each part
 * calls directly, through a pointer and recursively.  Prints one line
 * per part; exit status 0.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define CAT(a, b) a##b
#define NAME(a, b) CAT(a, b)

#if PART == 0
unsigned part1(void), part2(void), part3(void);

int main(void)
{
    printf("part1=%08x\n", part1());
    printf("part2=%08x\n", part2());
    printf("part3=%08x\n", part3());
    return 0;
}
#else
NOINLINE static unsigned leaf(unsigned x) { return x * 2654435761u + PART; }
NOINLINE static unsigned twice(unsigned x) { return leaf(x) ^ leaf(x + 1); }
static unsigned (*volatile indirect)(unsigned) = twice;
NOINLINE static unsigned rec(unsigned n) { return n ? rec(n - 1) + leaf(n) : 0; }

NOINLINE unsigned NAME(part, PART)(void)
{
    unsigned h = 0;
    for (unsigned i = 0; i < 10; i++)
        h += twice(i) + indirect(i) + rec(i % 4);
    return h;
}
#endif
