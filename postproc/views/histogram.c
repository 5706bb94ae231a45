/*
 * The log-linear histogram of histogram.h: bucket arithmetic, counters
 * over a window of groups (one group: a power of two's 64 buckets)
 * that widens in value and in bytes per counter as needed, and
 * percentiles by nearest rank.
 */
#include <stdlib.h>
#include <string.h>
#include "postproc/views/histogram.h"
#include "lib/error.h"

size_t histogram_bucket(uint64_t value)
{
    if (value < HISTOGRAM_SUB)
        return (size_t)value;
    unsigned e = 63u - (unsigned)__builtin_clzll(value);      /* >= HISTOGRAM_SUB_BITS */
    unsigned shift = e - HISTOGRAM_SUB_BITS;
    size_t group = shift + 1;
    return group * HISTOGRAM_SUB + (size_t)((value >> shift) - HISTOGRAM_SUB);
}

uint64_t histogram_bucket_low(size_t bucket)
{
    size_t group = bucket / HISTOGRAM_SUB, sub = bucket % HISTOGRAM_SUB;
    if (group == 0)
        return sub;
    return (uint64_t)(HISTOGRAM_SUB + sub) << (group - 1);
}

uint64_t histogram_bucket_width(size_t bucket)
{
    size_t group = bucket / HISTOGRAM_SUB;
    return group == 0 ? 1 : (uint64_t)1 << (group - 1);
}

struct histogram *histogram_new(void)
{
    struct histogram *h = xcalloc(1, sizeof *h);
    h->min = UINT64_MAX;
    return h;
}

void histogram_free(struct histogram *h)
{
    if (h)
        free(h->counters);
    free(h);
}

/* --- counters of 1, 2, 4 or 8 bytes --- */

static uint64_t counter_get(const struct histogram *h, size_t i)
{
    switch (h->width) {
    case 1: return ((const uint8_t *)h->counters)[i];
    case 2: return ((const uint16_t *)h->counters)[i];
    case 4: return ((const uint32_t *)h->counters)[i];
    default: return ((const uint64_t *)h->counters)[i];
    }
}

static void counter_set(unsigned char *counters, unsigned width, size_t i, uint64_t n)
{
    switch (width) {
    case 1: ((uint8_t *)counters)[i] = (uint8_t)n; break;
    case 2: ((uint16_t *)counters)[i] = (uint16_t)n; break;
    case 4: ((uint32_t *)counters)[i] = (uint32_t)n; break;
    default: ((uint64_t *)counters)[i] = n; break;
    }
}

/* The counters moved into an array of groups [first, first + n) and
 * `width` bytes each (covering the old ones). */
static void relayout(struct histogram *h, unsigned first, unsigned n, unsigned width)
{
    unsigned char *c = xcalloc((size_t)n * HISTOGRAM_SUB, width);
    if (h->counters) {
        size_t old = (size_t)h->n_groups * HISTOGRAM_SUB;
        size_t at = (size_t)(h->first_group - first) * HISTOGRAM_SUB;
        for (size_t i = 0; i < old; i++)
            counter_set(c, width, at + i, counter_get(h, i));
        free(h->counters);
    }
    h->counters = c;
    h->first_group = (uint8_t)first;
    h->n_groups = (uint8_t)n;
    h->width = (uint8_t)width;
}

/* Counter i one up, unless it is full (then 0). */
static inline int counter_bump(struct histogram *h, size_t i)
{
    switch (h->width) {
    case 1: {
        uint8_t *c = (uint8_t *)h->counters + i;
        return *c == UINT8_MAX ? 0 : (++*c, 1);
    }
    case 2: {
        uint16_t *c = (uint16_t *)h->counters + i;
        return *c == UINT16_MAX ? 0 : (++*c, 1);
    }
    case 4: {
        uint32_t *c = (uint32_t *)h->counters + i;
        return *c == UINT32_MAX ? 0 : (++*c, 1);
    }
    default:
        ((uint64_t *)h->counters)[i]++;
        return 1;
    }
}

/* (the add's rare cases: a group outside the counters, a full counter) */
static void count_in_bucket_slow(struct histogram *h, size_t bucket)
{
    unsigned group = (unsigned)(bucket / HISTOGRAM_SUB);
    unsigned first = h->first_group, last = first + h->n_groups - 1u;
    if (group < first || group > last) {
        first = group < first ? group : first;
        last = group > last ? group : last;
        relayout(h, first, last - first + 1, h->width);
    }
    size_t i = bucket - (size_t)h->first_group * HISTOGRAM_SUB;
    if (!counter_bump(h, i)) {
        relayout(h, h->first_group, h->n_groups, h->width * 2u);   /* full: wider counters */
        counter_bump(h, i);
    }
}

/* (called per traced call: the common case in a few instructions) */
static inline void count_in_bucket(struct histogram *h, size_t bucket)
{
    size_t i = bucket - (size_t)h->first_group * HISTOGRAM_SUB;   /* (wraps if below) */
    if (i >= (size_t)h->n_groups * HISTOGRAM_SUB || !counter_bump(h, i))
        count_in_bucket_slow(h, bucket);
}

/* Past HISTOGRAM_EXACT values: the exact ones into counters of one
 * byte spanning their groups. */
static void start_counting(struct histogram *h)
{
    unsigned first = (unsigned)(histogram_bucket(h->min) / HISTOGRAM_SUB);
    unsigned last = (unsigned)(histogram_bucket(h->max) / HISTOGRAM_SUB);
    relayout(h, first, last - first + 1, 1);
    for (size_t i = 0; i < HISTOGRAM_EXACT; i++)
        count_in_bucket(h, histogram_bucket(h->exact[i]));
}

void histogram_add(struct histogram *h, uint64_t value)
{
    h->count++;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
    if (h->counters) {
        count_in_bucket(h, histogram_bucket(value));
    } else if (h->count <= HISTOGRAM_EXACT) {
        h->exact[h->count - 1] = value;
    } else {
        start_counting(h);
        count_in_bucket(h, histogram_bucket(value));
    }
}

/* --- percentiles --- */

/* ceil(count * per_10000 / 10000) in [1, count], without overflow. */
static uint64_t nearest_rank(uint64_t count, unsigned per_10000)
{
    uint64_t rank = count / 10000 * per_10000 + ((count % 10000) * per_10000 + 9999) / 10000;
    return rank < 1 ? 1 : rank > count ? count : rank;
}

uint64_t histogram_percentile(const struct histogram *h, unsigned per_10000)
{
    if (!h->count)
        return 0;
    uint64_t rank = nearest_rank(h->count, per_10000);
    if (rank == 1)
        return h->min;
    if (rank == h->count)
        return h->max;
    if (!h->counters) {                         /* a few values: sorted */
        uint64_t v[HISTOGRAM_EXACT];
        size_t n = (size_t)h->count;
        memcpy(v, h->exact, n * sizeof *v);
        for (size_t i = 1; i < n; i++)
            for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
                uint64_t t = v[j];
                v[j] = v[j - 1];
                v[j - 1] = t;
            }
        return v[rank - 1];
    }
    size_t n = (size_t)h->n_groups * HISTOGRAM_SUB, base = (size_t)h->first_group * HISTOGRAM_SUB;
    uint64_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        seen += counter_get(h, i);
        if (seen >= rank) {
            /* the bucket's middle: within half its width of any value in it */
            uint64_t v = histogram_bucket_low(base + i) + histogram_bucket_width(base + i) / 2;
            return v < h->min ? h->min : v > h->max ? h->max : v;
        }
    }
    return h->max;                              /* (not reached: the counts add up to count) */
}

int histogram_next(const struct histogram *h, size_t *bucket, uint64_t *low, uint64_t *width,
                   uint64_t *count)
{
    size_t b = *bucket;
    if (!h->counters) {
        size_t next = HISTOGRAM_BUCKETS;
        for (size_t i = 0; i < h->count; i++) {
            size_t k = histogram_bucket(h->exact[i]);
            if (k >= b && k < next)
                next = k;
        }
        if (next == HISTOGRAM_BUCKETS)
            return 0;
        *count = 0;
        for (size_t i = 0; i < h->count; i++)
            *count += histogram_bucket(h->exact[i]) == next;
        b = next;
    } else {
        size_t base = (size_t)h->first_group * HISTOGRAM_SUB;
        size_t end = base + (size_t)h->n_groups * HISTOGRAM_SUB;
        if (b < base)
            b = base;
        while (b < end && !counter_get(h, b - base))
            b++;
        if (b >= end)
            return 0;
        *count = counter_get(h, b - base);
    }
    *low = histogram_bucket_low(b);
    *width = histogram_bucket_width(b);
    *bucket = b + 1;
    return 1;
}
