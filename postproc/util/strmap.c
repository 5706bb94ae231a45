#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/util/grow.h"
#include "postproc/util/strmap.h"
#include "lib/error.h"

static size_t str_hash(const char *s)
{
    size_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static void rehash(struct strmap *m)
{
    m->n_buckets = m->n_buckets ? m->n_buckets * 2 : 1024;
    free(m->buckets);
    m->buckets = xmalloc(m->n_buckets * sizeof *m->buckets);
    for (size_t i = 0; i < m->n_buckets; i++)
        m->buckets[i] = SIZE_MAX;
    for (size_t i = 0; i < m->n; i++) {
        size_t b = str_hash(m->keys[i]) & (m->n_buckets - 1);
        while (m->buckets[b] != SIZE_MAX)
            b = (b + 1) & (m->n_buckets - 1);
        m->buckets[b] = i;
    }
}

size_t strmap_intern(struct strmap *m, char *key, int *added)
{
    if (m->n * 2 >= m->n_buckets)
        rehash(m);
    size_t b = str_hash(key) & (m->n_buckets - 1);
    for (; m->buckets[b] != SIZE_MAX; b = (b + 1) & (m->n_buckets - 1))
        if (strcmp(m->keys[m->buckets[b]], key) == 0) {
            free(key);
            *added = 0;
            return m->buckets[b];
        }
    m->keys = grow_for_one(m->keys, m->n, &m->cap, sizeof *m->keys);
    m->keys[m->n] = key;
    m->buckets[b] = m->n;
    *added = 1;
    return m->n++;
}

void strmap_free(struct strmap *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->buckets);
    memset(m, 0, sizeof *m);
}
