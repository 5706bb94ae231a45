/*
 * What the assembly hot path (arch/<arch>/stub.S, sled.S) knows about
 * the tracer's C structures: offsets, as #defines so assembly can
 * include this, per data model: ILP32 (ARM, MIPS) and LP64 (AArch64,
 * __LP64__).  tracer.h checks every one against the C definitions
 * (static assertions), so the two cannot drift apart.
 */
#ifndef LITIFUT_STUB_LAYOUT_H
#define LITIFUT_STUB_LAYOUT_H

#include "litifut/trace-format.h"

#ifndef __LP64__

/* struct litifut_thread: the hot path reads busy, cur and lim, in this
 * order (ARM loads cur and lim with one ldmib), and the target cache. */
#define THREAD_BUSY       0
#define THREAD_CUR        4
#define THREAD_LIM        8
#define THREAD_TIME       12
#define THREAD_TIMESPEC   48
#define THREAD_SHADOW_TOP 56    /* then shadow_end: LITIFUT_RETURNS (tracer.h) */
#define THREAD_HEAD       120   /* the fields before the padding up to the cache */
#define THREAD_CACHE      128

/* struct tls_slot, this copy's thread-local words: the thread's state
 * (0 until the thread's first call through this copy), this copy's
 * record delta and page table base (see copy.c), and the record delta
 * with the tag of a cached call. */
#define TLS_THREAD        0
#define TLS_REC_DELTA     4
#define TLS_PAGES         8
#define TLS_REC_DELTA_REG 12    /* the record delta with tag 2 (MIPS's register half) */
#define TLS_SLOT_SIZE     16

/* struct copy: a library's TLS slot offset (0 until the copy is
 * ready; an executable's hot path uses local-exec TLS instead). */
#define COPY_TLS_OFFSET   4
#define COPY_PAGES        16    /* struct tls_slot's pages, for every thread */
#define COPY_PAIR_DELTA   20    /* modes dedup, count: &site's pair pointer - &site word */
#define COPY_PROC         24    /* the process block (stub/tracer.h) */

/* the modes' pair entry (struct litifut_pair) */
#define PAIR_TARGET       LITIFUT_PAIR_TARGET
#define PAIR_COUNT        LITIFUT_PAIR_COUNT
#define PAIR_NEXT         LITIFUT_PAIR_NEXT

#else   /* LP64: the same structures with 8-byte pointers */

#define THREAD_BUSY       0
#define THREAD_CUR        8
#define THREAD_LIM        16
#define THREAD_TIME       24
#define THREAD_SHIFT      28    /* counter_shift, beside time_last (one ldp) */
#define THREAD_TIMESPEC   96
#define THREAD_SHADOW_TOP 104   /* then shadow_end */
#define THREAD_HEAD       208
#define THREAD_CACHE      208   /* 8-byte entries */

#define TLS_THREAD        0
#define TLS_REC_DELTA     8
#define TLS_PAGES         16
#define TLS_REC_DELTA_REG 24
#define TLS_SLOT_SIZE     32

#define COPY_TLS_OFFSET   8
#define COPY_PAGES        24
#define COPY_PAIR_DELTA   32    /* &site's pair pointer - 2 * &site word (tracer.h) */
#define COPY_PROC         40

/* struct litifut_pair64 */
#define PAIR_TARGET       LITIFUT_PAIR64_TARGET
#define PAIR_COUNT        LITIFUT_PAIR64_COUNT
#define PAIR_NEXT         LITIFUT_PAIR64_NEXT

#endif

/* struct litifut_process: the calls the paused path counts */
#define PROCESS_UNRECORDED 20
#define PAUSED_POLL_BITS  10    /* every 2^10th paused call goes to the slow path */
#define COPY_READY_VALUE  1

#endif
