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
#include "postproc/reader/protos.h"
#include "lib/arch-read.h"
#include "lib/error.h"
#include "litifut/protos.h"
#include "litifut/trace-format.h"

/* Item `pos` (from 1) of the comma-separated `list` into name; 0 if
 * there is none or it is empty. */
static int list_item(const char *list, unsigned pos, char *name, size_t size)
{
    const char *s = list;
    for (unsigned i = 1; i < pos && s; i++)
        s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL;
    size_t len = s ? strcspn(s, ",") : 0;
    if (!len || len >= size)
        return 0;
    memcpy(name, s, len);
    name[len] = 0;
    return 1;
}

int args_names_of(const struct func *fn, struct args_names *an)
{
    if (fn->proto) {
        *an = (struct args_names){ fn->proto->names, fn->proto->fp_names, fn->proto->fp32_names,
                                   fn->proto->types };
        return 1;
    }
    const char *callee = fn->symbol ? fn->symbol : fn->bare;
    size_t lo = 0, hi = LITIFUT_N_PROTOS;
    while (callee && lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(litifut_protos[mid].name, callee);
        if (c == 0) {
            *an = (struct args_names){ litifut_protos[mid].arg_names, "", "",
                                       litifut_protos[mid].types };
            return 1;
        }
        if (c > 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}

/* open's flags: the access mode, then the flags as the target's kernel
 * spells them (its arch's table: lib/arch-read.h). */
static size_t put_open_flags(char *o, uint64_t v, unsigned trace_arch)
{
    static const char *const modes[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
    const struct arch_ops *a = arch_by_trace_arch(trace_arch);
    const struct arch_read_ops *rops = a ? arch_read_ops(a) : NULL;
    const struct open_flag *fl = rops && rops->open_flags ? rops->open_flags
                                                          : arch_generic_open_flags;
    uint32_t left = (uint32_t)v & ~3u;
    size_t k = (size_t)sprintf(o, "%s", modes[v & 3]);
    for (; fl->name; fl++)
        if (left & fl->bit) {
            k += (size_t)sprintf(o + k, "|%s", fl->name);
            left &= ~fl->bit;
        }
    if (left)
        k += (size_t)sprintf(o + k, "|0x%" PRIx32, left);
    return k;
}

/* An integer register as its type letter says (include/litifut/protos.h;
 * '?' or none: a small value in decimal, else in hex, an address most
 * likely). */
static size_t put_int(char *o, uint64_t v, unsigned aw, char type, unsigned arch)
{
    int64_t sv = aw == 2 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
    switch (type) {
    case 'i':
        return (size_t)sprintf(o, "%" PRId32, (int32_t)(uint32_t)v);
    case 'u':
        return (size_t)sprintf(o, "%" PRIu32, (uint32_t)v);
    case 'l':
        return (size_t)sprintf(o, "%" PRId64, sv);
    case 'z':
        return (size_t)sprintf(o, "%" PRIu64, aw == 2 ? v : (uint32_t)v);
    case 'c': {
        int c = (int)(int32_t)(uint32_t)v;
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
            return (size_t)sprintf(o, "'%c'", c);
        return (size_t)sprintf(o, "%d", c);
    }
    case 'p':
    case 's':
        return (size_t)(v ? sprintf(o, "0x%" PRIx64, v) : sprintf(o, "NULL"));
    case 'F':
        return put_open_flags(o, v, arch);
    case 'o':
        return (size_t)sprintf(o, "0%" PRIo32, (uint32_t)v);
    case 'x':
        return (size_t)sprintf(o, "0x%" PRIx32, (uint32_t)v);
    default:
        if (sv > -(1 << 20) && sv < 1 << 20)
            return (size_t)sprintf(o, "%" PRId64, sv);
        return (size_t)sprintf(o, "0x%" PRIx64, v);
    }
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

size_t args_text(char *out, const uint32_t *w, uint32_t n, unsigned word_size, unsigned arch,
                 const struct args_names *an)
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
        const char *list = !an || !pos ? NULL : kind != LITIFUT_VALUE_FLOAT ? an->names
                                              : bytes == 4 ? an->fp32_names : an->fp_names;
        if (list && list_item(list, pos, name, sizeof name))
            k += (size_t)sprintf(out + k, "%s=", name);
        char type = an && an->types && pos < strlen(an->types) ? an->types[pos] : '?';
        switch (kind) {
        case LITIFUT_VALUE_INT:
            k += put_int(out + k, v, aw, type, arch);
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

const char *args_buf_text(struct args_buf *b, const struct litifut_trace_header *h,
                          const uint32_t *w, uint32_t n, const struct func *fn, int names)
{
    size_t need = args_text_max(n);
    if (need > b->cap) {
        b->cap = need;
        b->text = xrealloc(b->text, need);
    }
    struct args_names an;
    args_text(b->text, w, n, h->word_size, h->arch,
              names && fn && args_names_of(fn, &an) ? &an : NULL);
    return b->text;
}

void args_buf_free(struct args_buf *b)
{
    free(b->text);
    b->text = NULL;
    b->cap = 0;
}
