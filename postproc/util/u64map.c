#include <stdlib.h>
#include <string.h>
#include "postproc/util/u64map.h"
#include "lib/error.h"

static void alloc_slots(struct u64map *m, size_t n)
{
    m->mask = n - 1;
    m->n = 0;
    m->keys = xcalloc(n, sizeof *m->keys);
    m->values = xmalloc(n * sizeof *m->values);
    memset(m->values, 0xff, n * sizeof *m->values);     /* all U64MAP_NONE */
}

void u64map_init(struct u64map *m)
{
    alloc_slots(m, 256);
}

void u64map_free(struct u64map *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

void u64map_put(struct u64map *m, uint64_t key, uint32_t value)
{
    if ((m->n + 1) * 2 > m->mask + 1) {
        struct u64map old = *m;
        alloc_slots(m, 2 * (old.mask + 1));
        for (size_t b = 0; b <= old.mask; b++)
            if (old.values[b] != U64MAP_NONE)
                u64map_put(m, old.keys[b], old.values[b]);
        free(old.keys);
        free(old.values);
    }
    size_t b = u64map_hash(key) & m->mask;
    while (m->values[b] != U64MAP_NONE)
        b = (b + 1) & m->mask;
    m->keys[b] = key;
    m->values[b] = value;
    m->n++;
}
