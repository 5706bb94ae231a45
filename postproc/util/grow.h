/* Arrays that grow by doubling. */
#ifndef LITIFUT_POSTPROC_GROW_H
#define LITIFUT_POSTPROC_GROW_H

#include <stddef.h>
#include <string.h>
#include "lib/error.h"

/* `v` (n elements of `size` bytes used, *cap allocated) with room for
 * one more. */
static inline void *grow_for_one(void *v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return v;
    *cap = *cap * 2 + 64;
    return xrealloc(v, *cap * size);
}

/* `v` (*n elements of `size` bytes) with room for index `i`: doubled
 * from 256, the new elements' bytes set to `fill`. */
static inline void *grow_to_hold(void *v, size_t *n, size_t i, size_t size, int fill)
{
    if (i < *n)
        return v;
    size_t m = *n ? *n : 256;
    while (m <= i)
        m *= 2;
    v = xrealloc(v, m * size);
    memset((char *)v + *n * size, fill, (m - *n) * size);
    *n = m;
    return v;
}

#endif
