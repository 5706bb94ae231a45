/* Arrays that grow by doubling. */
#ifndef LITIFUT_POSTPROC_GROW_H
#define LITIFUT_POSTPROC_GROW_H

#include <stddef.h>
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

#endif
