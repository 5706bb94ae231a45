/*
 * Text built in memory and written with one fwrite: what the per-call
 * views (the log, the calls TSV, Chrome JSON) use for their lines
 * instead of printf and fputc, which took most of their time (1 to 2 M
 * calls/s; now several times that).  A view builds its lines (or
 * events) in its outbuf, ends each with ob_line_done, which writes
 * when the buffer is nearly full, and calls ob_flush before it writes
 * to the FILE any other way, and at its end.
 * Pieces longer than the buffer flush what is built and go straight
 * out: any length fits.
 */
#ifndef LITIFUT_POSTPROC_OUTBUF_H
#define LITIFUT_POSTPROC_OUTBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OUTBUF_SIZE (256 * 1024)

struct outbuf {
    FILE *out;
    size_t n;
    char b[OUTBUF_SIZE];
};

/* (out NULL: a buffer for text kept in memory, which keeps its first
 * OUTBUF_SIZE bytes) */
static inline void ob_flush(struct outbuf *o)
{
    if (o->n && o->out)
        fwrite(o->b, 1, o->n, o->out);      /* (a full disk: the FILE's error, as for printf) */
    if (o->out)
        o->n = 0;
}

/* After a line: written once the buffer is nearly full. */
static inline void ob_line_done(struct outbuf *o)
{
    if (o->n > OUTBUF_SIZE - 4096)
        ob_flush(o);
}

/* Room for `need` (<= OUTBUF_SIZE / 2) more bytes: NULL if there is
 * none (a full memory buffer). */
static inline char *ob_room(struct outbuf *o, size_t need)
{
    if (OUTBUF_SIZE - o->n < need)
        ob_flush(o);
    return OUTBUF_SIZE - o->n < need ? NULL : o->b + o->n;
}

static inline void ob_mem(struct outbuf *o, const char *s, size_t len)
{
    if (len > OUTBUF_SIZE / 2) {
        ob_flush(o);
        if (o->out)
            fwrite(s, 1, len, o->out);
        return;
    }
    char *p = ob_room(o, len);
    if (p) {
        memcpy(p, s, len);
        o->n += len;
    }
}

static inline void ob_str(struct outbuf *o, const char *s)
{
    ob_mem(o, s, strlen(s));
}

static inline void ob_char(struct outbuf *o, char c)
{
    char *p = ob_room(o, 1);
    if (p) {
        *p = c;
        o->n++;
    }
}

/* A string from the target's files: control characters as '?' (report.h,
 * put_clean). */
static inline void ob_clean(struct outbuf *o, const char *s)
{
    for (; *s; s++)
        ob_char(o, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
}

static inline void ob_spaces(struct outbuf *o, size_t n)
{
    while (n) {
        size_t k = n < OUTBUF_SIZE / 2 ? n : OUTBUF_SIZE / 2;
        char *p = ob_room(o, k);
        if (!p)
            return;
        memset(p, ' ', k);
        o->n += k;
        n -= k;
    }
}

/* v in decimal, right-aligned in `width` (spaces), or zero-padded to
 * `digits` if `zeros`. */
/* The digits of w < 10^9 before t + i, two at a time (32-bit
 * arithmetic: the views print a time or two per call); at least
 * `digits` of them.  Returns the new i. */
static inline unsigned ob_digits32(char *t, unsigned i, uint32_t w, unsigned digits)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                                "25262728293031323334353637383940414243444546474849"
                                "50515253545556575859606162636465666768697071727374"
                                "75767778798081828384858687888990919293949596979899";
    unsigned end = i;
    while (w >= 100) {
        unsigned k = 2 * (w % 100);
        w /= 100;
        t[--i] = pairs[k + 1];
        t[--i] = pairs[k];
    }
    if (w >= 10) {
        t[--i] = pairs[2 * w + 1];
        t[--i] = pairs[2 * w];
    } else {
        t[--i] = (char)('0' + w);
    }
    while (end - i < digits)
        t[--i] = '0';
    return i;
}

static inline void ob_dec(struct outbuf *o, uint64_t v, unsigned width, int zeros)
{
    char t[32];
    unsigned i = sizeof t;
    if (v >= 1000000000) {                      /* low 9 digits, then the rest */
        i = ob_digits32(t, i, (uint32_t)(v % 1000000000), 9);
        v /= 1000000000;
        if (v >= 1000000000) {
            i = ob_digits32(t, i, (uint32_t)(v % 1000000000), 9);
            v /= 1000000000;
        }
    }
    i = ob_digits32(t, i, (uint32_t)v, 0);
    while (sizeof t - i < width && i > 0)
        t[--i] = zeros ? '0' : ' ';
    ob_mem(o, t + i, sizeof t - i);
}

static inline void ob_u64(struct outbuf *o, uint64_t v)
{
    ob_dec(o, v, 0, 0);
}

/* v in lower-case hex, at least `digits` digits (no prefix). */
static inline void ob_hex(struct outbuf *o, uint64_t v, unsigned digits)
{
    static const char x[] = "0123456789abcdef";
    char t[16];
    unsigned i = sizeof t;
    do {
        t[--i] = x[v & 15];
        v >>= 4;
    } while (v);
    while (sizeof t - i < digits && i > 0)
        t[--i] = '0';
    ob_mem(o, t + i, sizeof t - i);
}

#endif
