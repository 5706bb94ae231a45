/*
 * Percentiles of a stream of u64 values (one function's call
 * durations, in whatever unit the trace has: ns, ticks, instructions)
 * in bounded memory: a log-linear histogram, as HdrHistogram's.
 *
 * Buckets: values below 2^HISTOGRAM_SUB_BITS one each (exact); above,
 * each power of two [2^e, 2^(e+1)) split into 2^HISTOGRAM_SUB_BITS
 * buckets of equal width 2^(e - HISTOGRAM_SUB_BITS).  A percentile is
 * the nearest rank's (the smallest value with at least that share of
 * the values at or below it), given as the middle of its bucket, so
 * it is within half a bucket of the exact one: a relative error of at
 * most 2^-(HISTOGRAM_SUB_BITS + 1) = 1/128 (0.78%; "within 1%" in the
 * views).  The rank 1 and the last rank give min and max exactly, and
 * every answer lies within [min, max].  The first HISTOGRAM_EXACT
 * values are kept as they are (a function called a few times gets
 * exact percentiles, and no bucket array).
 *
 * Memory: the struct (72 bytes); past HISTOGRAM_EXACT values, one
 * counter per bucket over the powers of two the values span (64
 * buckets each), a counter one byte wide until a count needs more
 * (then 2, 4, 8): a function whose durations span 1 us to 1 ms (10
 * powers of two) takes 640 bytes while no bucket holds 256 values.
 * At most 59 x 64 buckets of 8 bytes (30 KB), for durations from 0 to
 * 2^64 - 1 with over 4 G of them in one bucket.
 *
 * Adding a value is a few instructions (a count of leading zeros, a
 * counter incremented); a value outside the counters' span moves them
 * into a wider array (at most 59 times).
 */
#ifndef LITIFUT_POSTPROC_HISTOGRAM_H
#define LITIFUT_POSTPROC_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define HISTOGRAM_SUB_BITS 6                    /* 64 buckets per power of two */
#define HISTOGRAM_SUB (1u << HISTOGRAM_SUB_BITS)
/* groups of HISTOGRAM_SUB buckets: the exact values below 2^6, then
 * one per power of two from 2^6 to 2^63 */
#define HISTOGRAM_GROUPS (64 - HISTOGRAM_SUB_BITS + 1)
#define HISTOGRAM_BUCKETS ((size_t)HISTOGRAM_GROUPS * HISTOGRAM_SUB)
#define HISTOGRAM_EXACT 4                       /* values kept as they are */
/* The views' wording of the error bound (2^-7 rounded up). */
#define HISTOGRAM_BOUND_TEXT "within 1%"

struct histogram {
    uint64_t count;                     /* values added */
    uint64_t min, max;                  /* (count > 0) */
    uint64_t exact[HISTOGRAM_EXACT];    /* the first values, while count <= HISTOGRAM_EXACT */
    unsigned char *counters;            /* NULL until count > HISTOGRAM_EXACT; then the
                                           buckets of groups [first_group, +n_groups) */
    uint8_t first_group, n_groups;
    uint8_t width;                      /* bytes per counter: 1, 2, 4 or 8 */
};

/* An empty histogram (histogram_free frees it). */
struct histogram *histogram_new(void);
void histogram_free(struct histogram *h);
void histogram_add(struct histogram *h, uint64_t value);

/* The value at the nearest rank of `per_10000` (5000: the median,
 * 9900: p99; 0 counts as 1) within the error bound above; 0 for an
 * empty histogram. */
uint64_t histogram_percentile(const struct histogram *h, unsigned per_10000);

/* The buckets: index of the bucket holding a value, a bucket's lowest
 * value and width (values low .. low + width - 1).  Exposed for the
 * unit tests and for views that draw the distribution. */
size_t histogram_bucket(uint64_t value);
uint64_t histogram_bucket_low(size_t bucket);
uint64_t histogram_bucket_width(size_t bucket);

/* Each nonempty bucket in order of value: *bucket starts at 0; fills
 * *low, *width, *count of the next one and returns 1, or 0 at the end.
 * Exact values (count <= HISTOGRAM_EXACT) come as buckets too. */
int histogram_next(const struct histogram *h, size_t *bucket, uint64_t *low, uint64_t *width,
                   uint64_t *count);

#endif
