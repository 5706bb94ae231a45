/*
 * memplace: where the program's memory is (tests/runtime.sh, group
 * memory): the first allocations from the heap and a local of main's
 * frame.  A traced run must print what the same program prints with
 * tracing off: the tracer takes nothing from the program's heap and
 * leaves its stack where it was.  (Run with environments of the same
 * size: the environment's strings lie above main's frame.)
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void *get(size_t n) { return malloc(n); }

int main(void)
{
    int local = 0;
    void *a = get(16), *b = get(200), *c = get(24);
    printf("heap %p %p %p stack %p\n", a, b, c, (void *)&local);
    free(b);
    printf("again %p\n", get(100));
    return local;
}
