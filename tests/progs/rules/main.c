/* The rules test's program (tests/rules.sh): main.o, and libparts.a's
 * a.o and b.o, each with calls of its own, direct and through a
 * pointer, so that every kind of rule has sites to remove. */
#include <stdio.h>
#include "parts.h"

static __attribute__((noinline)) int main_leaf(int x)
{
    return x * 3 + 1;
}

static __attribute__((noinline)) int main_twice(int x)
{
    return main_leaf(x) + main_leaf(x + 1);
}

int main(void)
{
    int (*volatile fp)(int) = main_leaf;
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += main_twice(i) + a_work(i) + b_work(i) + fp(i);
    printf("%d\n", s);
    return 0;
}
