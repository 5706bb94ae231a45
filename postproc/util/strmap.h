/* Strings numbered in the order first seen: a string's number, added
 * if new (the function table's keys, the summary's callees). */
#ifndef LITIFUT_POSTPROC_STRMAP_H
#define LITIFUT_POSTPROC_STRMAP_H

#include <stddef.h>

struct strmap {
    char **keys;                /* by number */
    size_t n, cap;
    size_t *buckets;            /* hash of keys: their numbers, SIZE_MAX free */
    size_t n_buckets;
};

/* The number of `key` (malloc'd: the map keeps it or frees it); *added
 * says whether it is new (then numbered n - 1). */
size_t strmap_intern(struct strmap *m, char *key, int *added);
void strmap_free(struct strmap *m);

#endif
