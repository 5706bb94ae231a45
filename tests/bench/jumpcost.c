/*
 * jumpcost.c - make bench's tail jump table (tests/bench.sh jump_cost):
 * `jumpcost N MODE` runs N iterations of one form, each a call from
 * main and then, by MODE, 0: a call (call_only calls leaf), 1: a tail
 * jump to leaf (direct_tail), 2: a tail jump through a register
 * (via_reg jumps to o->f).  The bench takes the instructions of N = 0
 * from those of N = 20000, so the per-iteration cost is the loop's
 * alone.  Prints the sum; exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>

struct ops { int (*f)(int); };

__attribute__((noinline)) int leaf(int x) { return x + 1; }
__attribute__((noinline)) int via_reg(struct ops *o, int x) { return o->f(x); }
__attribute__((noinline)) int direct_tail(int x) { return leaf(x ^ 3); }
__attribute__((noinline)) int call_only(int x) { return leaf(x) * 3; }

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 0, mode = argc > 2 ? atoi(argv[2]) : 0;
    struct ops o = { leaf };
    struct ops *volatile vo = &o;
    int s = 0;
    for (int i = 0; i < n; i++)
        s += mode == 0 ? call_only(i) : mode == 1 ? direct_tail(i) : via_reg(vo, i);
    printf("%d\n", s);
    return 0;
}
