/*
 * sigrecords TRACE: the raw events of a litifut trace, for
 * tests/sigevents.sh to check the SIGNAL and SIGNAL_END records with
 * (independent of litifut-postproc's reader).  One line per record, each
 * thread's in its order (chunks in file order; not for rings):
 *   TID C SITE          a call (tags 0, 1, 2), its site id
 *   TID R               a RETURN
 *   TID S SIG HANDLER   a SIGNAL: the signal's number, the handler's
 *                       run-time address (hex)
 *   TID E               a SIGNAL_END
 *   0 O BASE N BIAS     an OBJECT record: its site ids, its load bias (hex)
 * Other records are skipped.  Exit status 1, with one line on stderr, if
 * the file is not a trace this reads.  Built by the test with the host's
 * cc (nothing but include/litifut/trace-format.h).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "litifut/trace-format.h"

static int swap;

static uint32_t get32(const unsigned char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return swap ? __builtin_bswap32(w) : w;
}

static int bad(const char *what)
{
    fprintf(stderr, "sigrecords: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return bad("usage: sigrecords TRACE");
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return bad("cannot open the trace");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = size > 0 ? malloc((size_t)size) : NULL;
    if (!b || fread(b, 1, (size_t)size, f) != (size_t)size)
        return bad("cannot read the trace");
    fclose(f);
    struct litifut_trace_header h;
    if ((size_t)size < sizeof h)
        return bad("too short");
    memcpy(&h, b, sizeof h);
    if (memcmp(h.magic, LITIFUT_TRACE_MAGIC, 8) != 0)
        return bad("not a trace");
    uint16_t one = 1;
    int little = *(unsigned char *)&one == 1;
    swap = (h.endian == LITIFUT_LITTLE_ENDIAN) != little;
    uint32_t words = h.word_size / 4, off = get32(b + offsetof(struct litifut_trace_header, header_size));
    uint32_t largest = get32(b + offsetof(struct litifut_trace_header, chunk_size));
    if (words != 1 && words != 2)
        return bad("word size");
    while (off + 16 <= (uint64_t)size) {
        const unsigned char *c = b + off;
        uint32_t csize = get32(c + 12);
        if (get32(c) != LITIFUT_CHUNK_MAGIC)
            return bad("a chunk header is missing");
        if (!csize)
            csize = largest;            /* (version 4) */
        if (csize < 16 || off + (uint64_t)csize > (uint64_t)size)
            csize = (uint32_t)size - off;
        uint32_t tid = get32(c + 4);
        if (tid != LITIFUT_PAIRS_TID)
            for (uint32_t i = 16; i + 4 <= csize;) {
                uint32_t w = get32(c + i), n;
                if (!w)
                    break;
                i += 4;
                switch (LITIFUT_REC_TAG(w)) {
                case LITIFUT_REC_CALL_TARGET:
                    i += 4 * words;
                    /* fall through */
                case LITIFUT_REC_CALL:
                case LITIFUT_REC_CALL_CACHED:
                    printf("%" PRIu32 " C %" PRIu32 "\n", tid, LITIFUT_REC_SITE(w));
                    break;
                default:
                    if (LITIFUT_REC_IS_RETURN(w)) {
                        printf("%" PRIu32 " R\n", tid);
                        break;
                    }
                    if ((w & 0xfc) != 0)
                        break;          /* ADVANCE */
                    n = LITIFUT_REC_PAYLOAD(w);
                    if (i + 4 * n > csize)
                        return bad("a record runs past its chunk");
                    if (LITIFUT_REC_TYPE(w) == LITIFUT_REC_SIGNAL && n == 1 + words) {
                        uint64_t a = get32(c + i + 4);
                        if (words == 2)
                            a |= (uint64_t)get32(c + i + 8) << 32;
                        printf("%" PRIu32 " S %" PRIu32 " %" PRIx64 "\n", tid, get32(c + i) & 0xff, a);
                    } else if (LITIFUT_REC_TYPE(w) == LITIFUT_REC_SIGNAL_END && n == 0) {
                        printf("%" PRIu32 " E\n", tid);
                    } else if (LITIFUT_REC_TYPE(w) == LITIFUT_REC_OBJECT &&
                               n > LITIFUT_OBJECT_RECORD_WORDS) {
                        uint64_t bias = get32(c + i + 12);
                        if (words == 2)     /* (its high half after the struct) */
                            bias |= (uint64_t)get32(c + i + 4 * LITIFUT_OBJECT_RECORD_WORDS) << 32;
                        printf("0 O %" PRIu32 " %" PRIu32 " %" PRIx64 "\n", get32(c + i),
                               get32(c + i + 4), bias);
                    }
                    i += 4 * n;
                }
            }
        off += csize;
    }
    free(b);
    return 0;
}
