/* String and number helpers for the tracer module, which cannot use
 * libc's (nor libgcc's). */
#ifndef LITIFUT_STUB_TEXT_H
#define LITIFUT_STUB_TEXT_H

#include <stddef.h>
#include <stdint.h>

static inline size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static inline int str_eq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* s without `prefix`, or NULL if s does not start with it. */
static inline const char *str_after(const char *s, const char *prefix)
{
    while (*prefix)
        if (*s++ != *prefix++)
            return NULL;
    return s;
}

/* Copies s to dst (stopping before end), NUL-terminates; returns the NUL. */
static inline char *str_put(char *dst, char *end, const char *s)
{
    while (*s && dst < end - 1)
        *dst++ = *s++;
    *dst = 0;
    return dst;
}

static inline char *str_put_uint(char *dst, char *end, uint32_t v)
{
    char tmp[12];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n && dst < end - 1)
        *dst++ = tmp[--n];
    *dst = 0;
    return dst;
}

static inline uint32_t str_to_uint(const char *s)
{
    uint32_t v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (uint32_t)(*s++ - '0');
    return v;
}

/* Reads lowercase hex at *p, advancing *p past it. */
static inline uintptr_t str_parse_hex(const char **p)
{
    uintptr_t v = 0;
    for (;; (*p)++) {
        char c = **p;
        if (c >= '0' && c <= '9')
            v = v * 16 + (uintptr_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v * 16 + (uintptr_t)(c - 'a' + 10);
        else
            return v;
    }
}

/* n / d by shifts: the tracer links after libgcc, so it has no 64-bit
 * (or, on ARMv5, any) division. */
static inline uint64_t udiv64(uint64_t n, uint64_t d)
{
    uint64_t q = 0, r = 0;
    for (int i = 63; i >= 0; i--) {
        r = r << 1 | (n >> i & 1);
        if (r >= d) {
            r -= d;
            q |= 1ull << i;
        }
    }
    return q;
}

#endif
