/*
 * callmix.c - many calls of an everyday shape, for `make bench`'s
 * post-processor measurement (tests/bench.sh): per iteration 10 calls,
 * nested up to three deep, direct, through a function table (rotating
 * targets) and into the C library (PLT).  Argument: iterations
 * (default 1000).  Prints a checksum; exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noipa))

static char text[] = "the quick brown fox";

NOINLINE static unsigned add(unsigned a, unsigned b) { return a + b; }
NOINLINE static unsigned mul(unsigned a, unsigned b) { return a * b + 1; }
NOINLINE static unsigned op_xor(unsigned a, unsigned b) { return a ^ b; }
NOINLINE static unsigned op_rot(unsigned a, unsigned b) { return a << (b & 7) | a >> (32 - (b & 7)); }
NOINLINE static unsigned op_sub(unsigned a, unsigned b) { return a - b; }

static unsigned (*const ops[3])(unsigned, unsigned) = { op_xor, op_rot, op_sub };

/* 3 calls: itself, add, mul */
NOINLINE static unsigned mix(unsigned x)
{
    unsigned h = add(x, 7);
    return mul(h, 3) ^ h;
}

/* 10 calls: itself, mix (3), a table entry, strlen, mix (3), add */
NOINLINE static unsigned step(unsigned i)
{
    unsigned h = mix(i);
    h = ops[i % 3](h, i);
    h += (unsigned)strlen(text + (i & 7));
    h = mix(h);
    return add(h, i) ^ 1;               /* not a tail call (a jump: untraced) */
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    unsigned sum = 0;
    for (unsigned long i = 0; i < n; i++)
        sum += step((unsigned)i);
    printf("%u\n", sum);
    return 0;
}
