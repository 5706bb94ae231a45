/*
 * libcalc.c - a C shared library for the call tracer (libcalc.so.1):
 *  - direct calls to static (noinline) helpers and a hidden function,
 *    and calls between its exported functions (through the PLT on ARM,
 *    the GOT on MIPS: they can be interposed);
 *  - a constructor that makes calls before main;
 *  - calc_map_reduce calls back into the executable through a function
 *    pointer;
 *  - calc_with_shapes calls into libshapes.so.1 (one library into
 *    another);
 *  - calc_thread_work is what each of the program's threads runs in a
 *    loop; it calls only this library (so, once the program has called
 *    it before starting the threads, every binding it needs is
 *    resolved: no thread's call targets depend on lazy binding timing).
 * Everything is deterministic.
 */
#include "shlib.h"

#define NOINLINE __attribute__((noinline))

int calc_init_total;

NOINLINE static int add(int a, int b) { return a + b; }
NOINLINE static int mul(int a, int b) { return a * b; }
NOINLINE static unsigned mix(unsigned h, unsigned v) { return (h ^ v) * 16777619u; }

__attribute__((visibility("hidden"))) NOINLINE int calc_hidden_twice(int x)
{
    return add(x, x);
}

NOINLINE static int fact(int n)                         /* recursive */
{
    return n <= 1 ? 1 : mul(n, fact(n - 1));
}

__attribute__((constructor)) static void calc_init(void)
{
    for (int i = 1; i <= 4; i++)
        calc_init_total = add(calc_init_total, fact(i));   /* 1+2+6+24 = 33 */
}

int calc_square(int x)
{
    return mul(x, x);
}

int calc_poly(int x)
{
    return add(add(calc_square(x), mul(3, x)), 7);
}

int calc_sum(const int *v, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s = add(s, v[i]);
    return s;
}

int calc_map_reduce(const int *v, int n, calc_fn fn, void *ctx)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s = add(s, fn(v[i], ctx));
    return calc_hidden_twice(s);
}

int calc_with_shapes(int n)
{
    return add(shapes_total_area(n), calc_poly(n));
}

unsigned calc_thread_work(int index, int iters)
{
    unsigned h = 2166136261u + (unsigned)index;
    for (int i = 0; i < iters; i++) {
        h = mix(h, (unsigned)add(i, index));
        if (i % 50 == 0)
            h = mix(h, (unsigned)calc_square(i + index));
        if (i % 200 == 0)
            h = mix(h, (unsigned)fact(5 + index % 3));
    }
    return h;
}
