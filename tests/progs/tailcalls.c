/*
 * tailcalls.c - calls whose returns the inferred call stack must place
 * right (docs/DESIGN.md, "The call stack"), built with -O2 so that
 * `return g(x);` is a jump (a sibling call):
 *   - tail calls: jumper calls leaf, then jumps to worker, which calls;
 *     chain1 jumps (through chain2) to worker; one function jumps to
 *     another after a call into the C library (its frame on top);
 *   - a callback from the C library that calls: qsort's comparator;
 *   - a call into the C library, then a call from the caller's caller;
 *   - a recursion with two call sites (quicksort's shape);
 *   - a constructor that calls, before main (both called from outside
 *     every traced call: neither is inside the other).
 * Prints one line, exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile int acc;
static char text[64] = "tail calls leave no record";

NOINLINE int leaf(int x) { acc += x; return x + 1; }
NOINLINE int worker(int x) { leaf(x); leaf(x + 1); return acc + x; }
NOINLINE int jumper(int x) { leaf(x); return worker(x * 2); }
NOINLINE int chain2(int x) { acc ^= x; return worker(x + 1); }
NOINLINE int chain1(int x) { leaf(x); return chain2(x * 3); }
NOINLINE int after_libc(int x) { size_t n = strlen(text + (x & 7)); return worker((int)n); }
NOINLINE void uses_libc(int x) { char *p = malloc(16 + (size_t)x); p[0] = (char)x; acc += p[0]; free(p); }
NOINLINE void outer(int x) { uses_libc(x); leaf(x); }

__attribute__((constructor, noinline)) static void setup(void)
{
    leaf(5);
    acc += 1;                   /* (not a tail call) */
}

NOINLINE int compare(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    leaf(x & 1);
    return (x > y) - (x < y);
}

NOINLINE int partition(int *v, int lo, int hi)
{
    int p = v[hi], i = lo;
    for (int j = lo; j < hi; j++)
        if (v[j] < p) {
            int t = v[i]; v[i] = v[j]; v[j] = t;
            i++;
        }
    int t = v[i]; v[i] = v[hi]; v[hi] = t;
    return i;
}

NOINLINE void quick(int *v, int lo, int hi)
{
    if (lo >= hi)
        return;
    int p = partition(v, lo, hi);
    quick(v, lo, p - 1);
    quick(v, p + 1, hi);
    acc++;                      /* (not a tail call: two call sites) */
}

int main(void)
{
    int v[12], w[12];
    for (int i = 0; i < 12; i++)
        v[i] = w[i] = (i * 7919) % 23;
    int r = 0;
    for (int i = 0; i < 3; i++) {
        r += jumper(i);
        r += chain1(i);
        r += after_libc(i);
        outer(i);
    }
    qsort(v, 12, sizeof v[0], compare);
    quick(w, 0, 11);
    printf("tailcalls: %d %d %d %d\n", r & 0xff, v[0], w[11], memcmp(v, w, sizeof v) == 0);
    return 0;
}
