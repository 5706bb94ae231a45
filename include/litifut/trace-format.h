/*
 * The raw trace file, litifut.<pid>.trace, as the tracer writes it on
 * the target and the post-processor reads it on the host.  Every
 * integer is in the target's byte order; `endian` tells which.  One
 * file per process, whatever number of instrumented objects (the
 * executable, libraries linked at build time or loaded with dlopen)
 * it has.
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
 * Sites.  Every instrumented object gets, when it registers with the
 * process's tracer, a range of site ids [base, base + n_sites): site
 * id base + i is the object's DB site i.  Ranges are never reused
 * within one trace (not after dlclose either), so a site id names one
 * call site of one object for the whole trace.  The OBJECT record that
 * gives an object's range may be in any thread's chunks, before or
 * after calls that use it: readers collect all of them first.
 *
 * Record words (the low two bits are the tag):
 *   0                       no record (end of the chunk's data)
 *   tag 0  a call: bits 23..2 = site id + 1; bits 31..24 are 0 (kept for
 *          a per-call time delta)
 *   tag 1  a call through a register, as tag 0, and one more word
 *          follows: its runtime target
 *   tag 2  a call through a register, bits 23..2 as tag 0, whose target
 *          is the thread's target cache entry in bits 31..24
 *   tag 3  control record: bits 31..24 type, bits 23..8 number of
 *          payload words that follow, bits 7..2 zero
 *     LITIFUT_REC_TIME      2 words: CLOCK_MONOTONIC ns, low then high
 *     LITIFUT_REC_OBJECT    an instrumented object registered (or had
 *                           registered before this trace began: a fork
 *                           child's trace repeats every loaded object):
 *                           struct litifut_object_record, then its path
 *                           as mapped, NUL-terminated, zero-padded to a
 *                           whole word (payload: 13 words + the path)
 *     LITIFUT_REC_UNLOAD    1 word: the base of an object being unloaded
 *                           (dlclose); its site ids stay valid for the
 *                           records before
 *     LITIFUT_REC_CACHE_RESET  no payload: every target cache entry is
 *                           empty again
 *
 * The target cache.  Each thread keeps the last targets its tag 1
 * records gave, target t in entry LITIFUT_CACHE_ENTRY(t) (a hash of t);
 * a call whose target is there is recorded as tag 2 with that entry,
 * one word, and the reader replays the cache.  Every entry is empty at the start of each chunk (so a chunk
 * reads on its own) and after a CACHE_RESET (the tracer writes one when
 * a signal handler left the tracer with siglongjmp: the cache may then
 * hold a target whose record was never committed).
 */
#ifndef LITIFUT_TRACE_FORMAT_H
#define LITIFUT_TRACE_FORMAT_H

/* What assembly may use comes first, as plain numbers. */
#define LITIFUT_REC_CALL        0
#define LITIFUT_REC_CALL_TARGET 1
#define LITIFUT_REC_CALL_CACHED 2
#define LITIFUT_REC_CONTROL     3
#define LITIFUT_REC_SITE_SHIFT  2       /* site id + 1 in bits 23..2: a word address apart */
#define LITIFUT_REC_AUX_SHIFT   24      /* bits 31..24: the cache entry of a tag 2 record */
#define LITIFUT_TARGET_CACHE    256     /* entries */

#ifndef __ASSEMBLER__
#include <stdint.h>

#define LITIFUT_TRACE_MAGIC    "LITIFUT"    /* 8 bytes with the NUL */
#define LITIFUT_TRACE_VERSION  3u
#define LITIFUT_CHUNK_MAGIC    0x4b43544cu  /* "LTCK" read as a little-endian word */

enum litifut_arch { LITIFUT_ARCH_ARM = 1, LITIFUT_ARCH_MIPS = 2 };
enum litifut_endian { LITIFUT_LITTLE_ENDIAN = 1, LITIFUT_BIG_ENDIAN = 2 };

#define LITIFUT_REC_TAG(w)      ((w) & 3u)
#define LITIFUT_SITE_ID_LIMIT   ((1u << 22) - 1)    /* site ids are below this */
#define LITIFUT_REC_SITE(w)     ((((w) & 0x00ffffffu) >> LITIFUT_REC_SITE_SHIFT) - 1)  /* of a call */
#define LITIFUT_REC_CALL_WORD(site, tag) \
    ((((uint32_t)(site) + 1) << LITIFUT_REC_SITE_SHIFT) | (tag))
#define LITIFUT_REC_TYPE(w)     ((w) >> 24)
#define LITIFUT_REC_PAYLOAD(w)  (((w) >> 8) & 0xffffu)
#define LITIFUT_REC_CONTROL_WORD(type, n) \
    (((uint32_t)(type) << 24) | ((uint32_t)(n) << 8) | LITIFUT_REC_CONTROL)
#define LITIFUT_REC_TIME        1u
#define LITIFUT_REC_OBJECT      2u
#define LITIFUT_REC_UNLOAD      3u
#define LITIFUT_REC_CACHE_RESET 4u

#define LITIFUT_CACHE_ENTRY(target) (((uint32_t)(target) >> 2) & (LITIFUT_TARGET_CACHE - 1))
#define LITIFUT_REC_CACHE_ENTRY(w)  ((w) >> LITIFUT_REC_AUX_SHIFT)

#define LITIFUT_EXE_MAX 1024

struct litifut_trace_header {
    char     magic[8];          /* LITIFUT_TRACE_MAGIC */
    uint8_t  endian;            /* enum litifut_endian */
    uint8_t  arch;              /* enum litifut_arch */
    uint8_t  word_size;         /* 4 */
    uint8_t  reserved0;
    uint32_t version;           /* LITIFUT_TRACE_VERSION */
    uint32_t header_size;       /* offset of chunk 0 */
    uint32_t chunk_size;        /* bytes per chunk, a multiple of 4096 */
    uint32_t pid;
    uint32_t time_every;        /* record words between two time marks */
    uint64_t start_ns;          /* CLOCK_MONOTONIC when tracing started */
    char     exe[LITIFUT_EXE_MAX]; /* the process's program, NUL-terminated
                                      (/proc/self/exe; for people only) */
};

/* Payload of LITIFUT_REC_OBJECT, before the path. */
#define LITIFUT_BUILD_ID_MAX    32
#define LITIFUT_OBJECT_PATH_MAX 1024    /* with the NUL */
struct litifut_object_record {
    uint32_t base;              /* site id of the object's DB site 0 */
    uint32_t n_sites;           /* its DB's n_sites */
    uint32_t db_checksum;       /* its litifut_db_header.checksum */
    uint32_t load_bias;         /* runtime - link-time address of the object */
    uint32_t build_id_size;     /* bytes used in build_id */
    uint8_t  build_id[LITIFUT_BUILD_ID_MAX]; /* its NT_GNU_BUILD_ID */
};
#define LITIFUT_OBJECT_RECORD_WORDS (sizeof(struct litifut_object_record) / 4)

struct litifut_chunk_header {
    uint32_t magic;             /* LITIFUT_CHUNK_MAGIC */
    uint32_t tid;
    uint32_t index;             /* this chunk's number, for checking */
    uint32_t reserved;
};

#endif /* __ASSEMBLER__ */
#endif
