/*
 * The raw trace file, litifut.<pid>.trace, as the tracer writes it on
 * the target and the post-processor reads it on the host.  Every
 * integer is in the target's byte order; `endian` tells which.
 *
 *   offset 0            struct litifut_trace_header, padded to header_size
 *   header_size + i*chunk_size   chunk i
 *
 * A chunk belongs to one thread.  Threads claim chunks in order (i is a
 * global allocation order), so a thread's records are the
 * concatenation of its chunks by increasing i.  A chunk starts with
 * struct litifut_chunk_header and continues with 32-bit record words
 * until a zero word or the chunk's end.  The file is mapped shared
 * while the program runs: every record stored is in the page cache at
 * once, so a crash or SIGKILL loses nothing.
 *
 * Record words:
 *   0                       no record (end of the chunk's data)
 *   bit 31 clear            a call: bits 29..0 = site index + 1 (an
 *                           index into the DB's sites); if bit 30 is
 *                           set one more word follows: the runtime
 *                           target of an indirect call
 *   bit 31 set              control record: bits 23..16 type, bits
 *                           15..0 number of payload words that follow
 *     LITIFUT_REC_TIME      2 words: CLOCK_MONOTONIC ns, low then high
 */
#ifndef LITIFUT_TRACE_FORMAT_H
#define LITIFUT_TRACE_FORMAT_H

#include <stdint.h>

#define LITIFUT_TRACE_MAGIC    "LITIFUT"    /* 8 bytes with the NUL */
#define LITIFUT_TRACE_VERSION  1u
#define LITIFUT_CHUNK_MAGIC    0x4b43544cu  /* "LTCK" read as a little-endian word */

enum litifut_arch { LITIFUT_ARCH_ARM = 1, LITIFUT_ARCH_MIPS = 2 };
enum litifut_endian { LITIFUT_LITTLE_ENDIAN = 1, LITIFUT_BIG_ENDIAN = 2 };

#define LITIFUT_REC_CONTROL     0x80000000u
#define LITIFUT_REC_HAS_TARGET  0x40000000u
#define LITIFUT_REC_SITE_MASK   0x3fffffffu
#define LITIFUT_REC_TIME        1u
#define LITIFUT_REC_CONTROL_WORD(type, n) \
    (LITIFUT_REC_CONTROL | ((uint32_t)(type) << 16) | (uint32_t)(n))

#define LITIFUT_EXE_MAX 1024

struct litifut_trace_header {
    char     magic[8];          /* LITIFUT_TRACE_MAGIC */
    uint8_t  endian;            /* enum litifut_endian */
    uint8_t  arch;              /* enum litifut_arch */
    uint8_t  word_size;         /* 4 */
    uint8_t  build_id_size;     /* bytes used in build_id */
    uint32_t version;           /* LITIFUT_TRACE_VERSION */
    uint32_t header_size;       /* offset of chunk 0 */
    uint32_t chunk_size;        /* bytes per chunk, a multiple of 4096 */
    uint32_t pid;
    uint32_t time_every;        /* record words between two time marks */
    uint32_t db_checksum;       /* the executable's litifut_db_header.checksum */
    uint32_t db_sites;
    uint32_t load_bias;         /* runtime - link-time address of the executable */
    uint32_t reserved;
    uint64_t start_ns;          /* CLOCK_MONOTONIC when tracing started */
    uint8_t  build_id[32];      /* NT_GNU_BUILD_ID of the executable */
    char     exe[LITIFUT_EXE_MAX]; /* /proc/self/exe, NUL-terminated */
};

struct litifut_chunk_header {
    uint32_t magic;             /* LITIFUT_CHUNK_MAGIC */
    uint32_t tid;
    uint32_t index;             /* this chunk's number, for checking */
    uint32_t reserved;
};

#endif
