/*
 * callheavy.c - a call-heavy benchmark for `make bench`: recursion
 * (direct calls) and a dispatch table (indirect calls), about 300 000
 * calls in all, with very little work per call; `callheavy N` runs the
 * dispatch loop N times (the budget test's CPU-bound program).
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

NOINLINE static unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NOINLINE static unsigned op_add(unsigned a, unsigned b) { return a + b; }
NOINLINE static unsigned op_xor(unsigned a, unsigned b) { return a ^ b; }
NOINLINE static unsigned op_mul(unsigned a, unsigned b) { return a * b + 1; }
NOINLINE static unsigned op_rot(unsigned a, unsigned b) { return a << (b & 7) | a >> (32 - (b & 7)); }

static unsigned (*const ops[4])(unsigned, unsigned) = { op_add, op_xor, op_mul, op_rot };

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
    unsigned h = fib(24);                   /* 75 024 calls */
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned i = 0; i < 200000; i++)   /* 200 000 indirect calls */
            h = ops[i & 3](h, i);
    printf("%u\n", h);
    return 0;
}
