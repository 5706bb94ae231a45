/*
 * LITIFUT_ARGS' values as text (args.h).  The words were checked by the
 * reader (postproc/reader/trace.c, args_record): each value's word, its
 * register, then the bytes of its copy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/views/args.h"
#include "lib/error.h"
#include "litifut/protos.h"
#include "litifut/trace-format.h"

/* The name of argument `pos` (from 1) of `callee` in the prototypes
 * ("pathname"), into name; 0 if none. */
static int arg_name(const char *callee, unsigned pos, char *name, size_t size)
{
    size_t lo = 0, hi = LITIFUT_N_PROTOS;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(litifut_protos[mid].name, callee);
        if (c == 0) {
            const char *s = litifut_protos[mid].arg_names;
            for (unsigned i = 1; i < pos && s; i++)
                s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL;
            size_t len = s ? strcspn(s, ",") : 0;
            if (!len || len >= size)
                return 0;
            memcpy(name, s, len);
            name[len] = 0;
            return 1;
        }
        if (c > 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

static size_t put_escaped(char *o, const unsigned char *b, uint32_t len)
{
    size_t k = 0;
    for (uint32_t i = 0; i < len; i++) {
        unsigned char c = b[i];
        if (c == '"' || c == '\\')
            o[k++] = '\\', o[k++] = (char)c;
        else if (c == '\n')
            o[k++] = '\\', o[k++] = 'n';
        else if (c == '\t')
            o[k++] = '\\', o[k++] = 't';
        else if (c < 0x20 || c >= 0x7f)
            k += (size_t)sprintf(o + k, "\\x%02x", c);
        else
            o[k++] = (char)c;
    }
    return k;
}

/* A float's (4 bytes) or a double's bits (low word first), in the
 * fewest digits that read back as the same value. */
static size_t put_float(char *o, const uint32_t *bits, uint32_t bytes)
{
    if (bytes == 4) {
        float f;
        memcpy(&f, bits, 4);
        int n = snprintf(o, 32, "%.6g", (double)f);
        if (strtof(o, NULL) != f)
            n = snprintf(o, 32, "%.9g", (double)f);
        return (size_t)n;
    }
    uint64_t u = bits[0] | (uint64_t)bits[1] << 32;
    double d;
    memcpy(&d, &u, 8);
    int n = snprintf(o, 32, "%.15g", d);
    if (strtod(o, NULL) != d)
        n = snprintf(o, 32, "%.17g", d);
    return (size_t)n;
}

size_t args_text(char *out, const uint32_t *w, uint32_t n, unsigned word_size, const char *callee,
                 int names)
{
    size_t k = 0;
    out[0] = 0;
    if (!w || !n)
        return 0;
    uint32_t count = (w[0] >> 8) & 0xffu, at = 1, aw = word_size / 4;
    for (uint32_t i = 0; i < count && at + 1 + aw <= n; i++) {
        uint32_t h = w[at], kind = h & 0xfu, pos = (h >> 8) & 0xffu, bytes = h >> 16;
        uint64_t v = w[at + 1] | (aw == 2 ? (uint64_t)w[at + 2] << 32 : 0);
        const unsigned char *copy = (const unsigned char *)(w + at + 1 + aw);
        at += 1 + aw + (bytes + 3) / 4;
        if (at > n)
            break;
        if (i)
            k += (size_t)sprintf(out + k, ", ");
        char name[64];
        if (names && pos && kind != LITIFUT_VALUE_FLOAT && callee &&
            arg_name(callee, pos, name, sizeof name))
            k += (size_t)sprintf(out + k, "%s=", name);
        int64_t sv = aw == 2 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
        switch (kind) {
        case LITIFUT_VALUE_INT:
            if (sv > -(1 << 20) && sv < 1 << 20)      /* (else an address, most likely) */
                k += (size_t)sprintf(out + k, "%" PRId64, sv);
            else
                k += (size_t)sprintf(out + k, "0x%" PRIx64, v);
            break;
        case LITIFUT_VALUE_STRING:
            out[k++] = '"';
            k += put_escaped(out + k, copy, bytes);
            out[k++] = '"';
            if (h & LITIFUT_VALUE_CUT)
                k += (size_t)sprintf(out + k, "...");
            break;
        case LITIFUT_VALUE_MEMORY:
            k += (size_t)sprintf(out + k, "0x%" PRIx64 " [", v);
            for (uint32_t j = 0; j < bytes; j++)
                k += (size_t)sprintf(out + k, j ? " %02x" : "%02x", copy[j]);
            k += (size_t)sprintf(out + k, "%s]", h & LITIFUT_VALUE_CUT ? " ..." : "");
            break;
        case LITIFUT_VALUE_FLOAT:
            k += put_float(out + k, (const uint32_t *)copy, bytes);
            break;
        default:                        /* LITIFUT_VALUE_UNREADABLE */
            k += (size_t)(v ? sprintf(out + k, "0x%" PRIx64 " (unreadable)", v)
                            : sprintf(out + k, "NULL"));
            break;
        }
    }
    out[k] = 0;
    return k;
}

const char *args_buf_text(struct args_buf *b, const uint32_t *w, uint32_t n, unsigned word_size,
                          const char *callee, int names)
{
    size_t need = args_text_max(n);
    if (need > b->cap) {
        b->cap = need;
        b->text = xrealloc(b->text, need);
    }
    args_text(b->text, w, n, word_size, callee, names);
    return b->text;
}

void args_buf_free(struct args_buf *b)
{
    free(b->text);
    b->text = NULL;
    b->cap = 0;
}
