/* A map from 64-bit keys (an address, a pointer, a pair of 32-bit ids)
 * to 32-bit numbers: open addressing, at most half full. */
#ifndef LITIFUT_POSTPROC_U64MAP_H
#define LITIFUT_POSTPROC_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#define U64MAP_NONE UINT32_MAX      /* not a value: "no such key" */

struct u64map {
    uint64_t *keys;
    uint32_t *values;               /* U64MAP_NONE: a free slot */
    size_t n, mask;
};

void u64map_init(struct u64map *m);
void u64map_free(struct u64map *m);
/* Adds `key` (not in the map yet) with `value` (not U64MAP_NONE). */
void u64map_put(struct u64map *m, uint64_t key, uint32_t value);

static inline size_t u64map_hash(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return (size_t)k;
}

/* The value of `key`, or U64MAP_NONE. */
static inline uint32_t u64map_get(const struct u64map *m, uint64_t key)
{
    for (size_t b = u64map_hash(key) & m->mask; m->values[b] != U64MAP_NONE; b = (b + 1) & m->mask)
        if (m->keys[b] == key)
            return m->values[b];
    return U64MAP_NONE;
}

/* Two 32-bit ids as one key. */
static inline uint64_t u64map_pair(uint32_t a, uint32_t b)
{
    return (uint64_t)a << 32 | b;
}

#endif
