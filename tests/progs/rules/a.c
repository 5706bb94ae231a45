#include <string.h>
#include "parts.h"

static __attribute__((noinline)) int a_helper(int x)
{
    return x + 7;
}

int a_work(int x)
{
    char buf[16] = "abc";
    return a_helper(x) + a_helper(x * 2) + (int)strlen(buf);
}
