/*
 * libbig.c - a shared library whose call sites are far from both ends
 * of its code: about 400 KB of straight-line code before and after the
 * functions that make calls (as tests/progs/bigtext.c does for a
 * program), so that on MIPS no sled copy is within bal range (+-128 KB)
 * of them and they go through the run-time bridge of the library's
 * 256 MB region.  Built twice, -DBIG=a and -DBIG=b (libbiga.so.1,
 * libbigb.so.1: two objects with far sites in one region, one bridge);
 * bigmain.c calls both.  The far functions make direct, recursive and
 * indirect calls, a call into libc and a call back into the program.
 * Deterministic.
 */
#include <stdio.h>

#include "../pad.h"

#ifndef BIG
#define BIG a
#endif
#define CAT_(x, y) x##_##y
#define CAT(x, y) CAT_(x, y)
#define NAME(x) CAT(x, BIG)

#define NOINLINE __attribute__((noinline))

/* about 400 KB each */
PAD_FUNCTION(NAME(big_pad_before))

NOINLINE static unsigned leaf(unsigned x) { return x * 2654435761u; }
NOINLINE static unsigned twice(unsigned x) { return leaf(x) ^ leaf(x + 1); }
static unsigned (*volatile indirect)(unsigned) = twice;
NOINLINE static unsigned rec(unsigned n) { return n ? rec(n - 1) + leaf(n) : 0; }

unsigned NAME(big_run)(unsigned (*cb)(unsigned), char *buf, int size)
{
    unsigned h = 0;
    for (unsigned i = 0; i < 20; i++)
        h += twice(i) + indirect(i) + rec(i % 5) + cb(i);
    snprintf(buf, (size_t)size, "%s:%08x", __func__, h);
    return h;
}

PAD_FUNCTION(NAME(big_pad_after))
