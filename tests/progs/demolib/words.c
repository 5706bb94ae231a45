/*
 * libwords.so - the demo's shared library: sorting with qsort (its
 * comparison function is called back from libc), a recursive checksum,
 * and a walk that calls back into the program.  Built with LITIFUT=1
 * like the program, so its calls are in the same trace.
 */
#include <stdlib.h>
#include <string.h>
#include "words.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void words_sort(const char **v, size_t n)
{
    qsort(v, n, sizeof *v, by_name);
}

/* one recursive call per character */
static unsigned word_sum(const char *s)
{
    return *s ? (unsigned char)*s + 31u * word_sum(s + 1) : 0;
}

unsigned words_checksum(const char *const *v, size_t n)
{
    return n == 0 ? 0 : word_sum(v[0]) ^ words_checksum(v + 1, n - 1);
}

void words_each(const char *const *v, size_t n, void (*fn)(const char *, void *), void *arg)
{
    for (size_t i = 0; i < n; i++)
        fn(v[i], arg);
}
