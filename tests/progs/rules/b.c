#include "parts.h"

static __attribute__((noinline)) int b_helper(int x)
{
    return x - 2;
}

int b_work(int x)
{
    int (*volatile fp)(int) = a_work;
    return b_helper(x) + fp(x & 1);
}
