/*
 * nesting.c: calls that nest in the ways a call stack read from call
 * records gets wrong unless it follows the returns (tests/programs.sh
 * compares the tree the views draw with the oracle's; tests/tree.sh
 * checks every view against that tree):
 *   - recursion through another function and another call site: f
 *     calls g, g calls f, the inner f calls h from a site after f's call
 *     of g (the outer f's last call): h is the inner f's callee;
 *   - tail calls: a jumps to b, b calls a (so b's frames nest in a's);
 *   - a recursion with two call sites (quicksort), a qsort comparator
 *     that calls, a function called again after a deeper one of the
 *     same name returned.
 */
#include <stdio.h>
#include <stdlib.h>

volatile int sink;
#define NOINLINE __attribute__((noinline))

NOINLINE int h(int x) { sink++; return x + 1; }
int g(int x);
/* (the call of g first in the code: __builtin_expect keeps it on the
 * straight path, before the call of h) */
NOINLINE int f(int x)
{
    int r = 0;
    if (__builtin_expect(x != 0, 1))
        r = g(x);
    return r + h(x);
}
NOINLINE int g(int x) { return f(x - 1) * 2; }

NOINLINE int leaf(int n) { sink++; return n + 3; }
int b(int n);
NOINLINE int a(int n) { return b(n); }          /* a jump at -O2 */
NOINLINE int b(int n) { return n ? a(n - 1) * 2 : leaf(n) * 3; }

NOINLINE void swap(int *v, int i, int j) { int t = v[i]; v[i] = v[j]; v[j] = t; }
NOINLINE void quick(int *v, int lo, int hi)
{
    if (lo >= hi)
        return;
    int p = lo;
    for (int i = lo + 1; i <= hi; i++)
        if (v[i] < v[lo])
            swap(v, ++p, i);
    swap(v, lo, p);
    quick(v, lo, p - 1);
    quick(v, p + 1, hi);
}

NOINLINE int weigh(int x) { sink++; return x % 97; }
static int compare(const void *p, const void *q)
{
    return weigh(*(const int *)p) - weigh(*(const int *)q);
}

int main(int argc, char **argv)
{
    (void)argv;
    int v[64];
    for (int i = 0; i < 64; i++)
        v[i] = (i * 7919 + argc) % 1009;
    int r = f(argc) + f(argc + 2) + a(argc + 1) + a(argc + 4);
    quick(v, 0, 63);
    qsort(v, 16, sizeof v[0], compare);
    printf("%d %d %d %d\n", r, v[0], v[63], sink);
    return 0;
}
