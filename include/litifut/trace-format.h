/*
 * The raw trace file, litifut.<pid>.trace, as the tracer writes it on
 * the target and the post-processor reads it on the host.  Every
 * integer is in the target's byte order; `endian` tells which.  One
 * file per process, whatever number of instrumented objects (the
 * executable, libraries linked at build time or loaded with dlopen)
 * it has.
 *
 *   offset 0            struct litifut_trace_header, padded to header_size
 *   header_size         chunk 0, then chunk 1 right after it, ...
 *
 * A chunk belongs to one thread, or with thread id 0 to the process
 * itself: its TIME and STATE records (recording turned on or off).  Threads claim chunks in order (i is a
 * global allocation order, and chunks lie in the file in that order),
 * so a thread's records are the concatenation of its chunks by
 * increasing i.  A chunk starts with struct litifut_chunk_header and
 * continues with 32-bit record words until a zero word or the chunk's
 * end.  Chunks differ in size (version 5): the header's `size` says,
 * LITIFUT_MIN_CHUNK times a power of 2, at most header.chunk_size (a
 * thread's chunks start small and double, so a short-lived thread
 * costs a few hundred bytes); version 4 chunks were all chunk_size
 * bytes (`size` 0).  The file is mapped shared
 * while the program runs: every record stored is in the page cache at
 * once, so a crash or SIGKILL loses nothing.
 *
 * Sites.  Every instrumented object gets, when it registers with the
 * process's tracer, a range of site ids [base, base + n_sites): site
 * id base + i is the object's DB site i.  Ranges are never reused
 * within one trace (not after dlclose either), so a site id names one
 * call site of one object for the whole trace.  The OBJECT record that
 * gives an object's range is in the process's own chunks (thread id 0;
 * an older tracer's: in any thread's chunks), before or
 * after calls that use it: readers collect all of them first.
 *
 * Time.  Each thread keeps a clock in *units* of 2^time_shift ticks of
 * the clock the header names (clock_hz ticks per second): a TIME record
 * sets it (both the clock's ticks and CLOCK_MONOTONIC ns at one
 * moment), every call or return record adds its 8-bit delta to it (the
 * units since the thread's previous event).  A delta that would not fit
 * is preceded by an ADVANCE word (24 bits) or a TIME record.  With clock LITIFUT_CLOCK_MARKS the
 * deltas are 0 and times are interpolated between the TIME records, one
 * every time_every record words.
 *
 * Record words (the low two bits are the tag):
 *   0                       no record (end of the chunk's data)
 *   tag 0  a call: bits 23..2 = site id + 1; bits 31..24 its time delta
 *   tag 1  a call through a register, as tag 0, and its runtime target
 *          follows: one word, or with header.word_size 8 two, low
 *          first (it goes into the thread's target cache)
 *   tag 2  a call through a register, as tag 0, whose target is the one
 *          in its cache entry (clock marks: that entry in bits 31..24,
 *          where other clocks have the time delta)
 *   tag 3  bits 7..2 zero: a control record: bits 31..24 type, bits
 *          23..8 number of payload words that follow
 *     LITIFUT_REC_TIME      4 words: the clock's ticks, low then high,
 *                           and CLOCK_MONOTONIC ns, low then high; with
 *                           clock marks 2 words: the ns only
 *     LITIFUT_REC_OBJECT    an instrumented object registered (or had
 *                           registered before this trace began: a fork
 *                           child's trace repeats every loaded object):
 *                           struct litifut_object_record, then its path
 *                           as mapped, NUL-terminated, zero-padded to a
 *                           whole word (payload: 13 words + the path;
 *                           with word_size 8 one more word, the high
 *                           half of load_bias, between the struct and
 *                           the path: 14 words + the path)
 *     LITIFUT_REC_UNLOAD    1 word: the base of an object being unloaded
 *                           (dlclose); its site ids stay valid for the
 *                           records before
 *     LITIFUT_REC_CACHE_RESET  no payload: every target cache entry is
 *                           empty again
 *     LITIFUT_REC_STATE     1 or 2 words: recording is on (bit 0 set) or
 *                           off from this moment on (the TIME record
 *                           before it), because of bits 15..8:
 *                           LITIFUT_STATE_*; then the calls not recorded
 *                           while it was off, since the trace began
 *                           (wraps at 2^32).  Only in the process's own
 *                           chunks
 *     LITIFUT_REC_BUDGET    3 words: LITIFUT_BUDGET=B/T was kept: B and T
 *                           in us, then the cost the tracer reckons a
 *                           recorded call word at, in units of 1/1024 ns
 *                           (calibrated at start).  Once, in the process's own chunks,
 *                           before any STATE record of the budget
 *     LITIFUT_REC_STOPPED   2 words: this thread records no more, from
 *                           the TIME record before it: why (a
 *                           LITIFUT_STOP_*) and the error number;
 *                           written into room each chunk keeps for it
 *     LITIFUT_REC_CHUNK     4 words and more, in every thread chunk of a
 *                           full trace, after its first TIME record: the
 *                           chunk's number in its thread (from 0), the
 *                           thread's record words in its earlier chunks
 *                           (low, high: what a ring overwrote or a stream
 *                           dropped shows as a gap), the thread's open
 *                           hooked calls (exact returns; 0 without), then
 *                           (rings only) the return addresses of the
 *                           innermost of them, outermost first, as many as
 *                           the payload has room for (each of word_size
 *                           bytes: two words, low first, on word_size 8)
 *     LITIFUT_REC_SITE_ADDR emulated traces (header.flags
 *                           LITIFUT_TRACE_EMULATED) only, in the process's
 *                           own chunks: 1 + word_size / 4 words: a site id,
 *                           then the run-time address of its call
 *                           instruction (ARM: with the Thumb bit), low word
 *                           first; the site id lies in an OBJECT record's
 *                           range (whose db_checksum is 0: the object has
 *                           no DB) and every call of it is a tag 1 or 2
 *                           record (its target is always given)
 *     LITIFUT_REC_SIGNAL    1 + word_size / 4 words: a signal was delivered
 *                           to this thread, its handler entered at the
 *                           thread's clock as it stands (an ADVANCE or TIME
 *                           record before it brings it there): bits 7..0
 *                           its number (0: not known), then the handler's
 *                           run-time address (low first).  The handler runs
 *                           inside it, as a call would; it ends with the
 *                           SIGNAL_END record, or (the handler left with
 *                           siglongjmp) with the RETURN record that closes
 *                           it as one frame
 *     LITIFUT_REC_SIGNAL_END no payload: the thread's innermost signal
 *                           handler returned, at its clock as it stands;
 *                           the calls still open inside it end with it
 *     LITIFUT_REC_FROZEN    3 words, in the process's own chunks of a
 *                           frozen trace (header.stopped
 *                           LITIFUT_STOP_SNAPSHOT), one per thread that
 *                           had a chunk: its thread id, that chunk's index
 *                           and the words the thread had written in it at
 *                           the freeze (its header's 4 included): records
 *                           at or after that word, and the thread's later
 *                           chunks, are not part of the trace (a hot path
 *                           under way, or a return, stored after the
 *                           freeze; the copy LITIFUT_COPY_TO made then
 *                           lacks them).  A thread without one: the trace
 *                           ends at header.stop_ns
 *     LITIFUT_REC_OWN_TIME  2 words, after a thread chunk's first TIME
 *                           and CHUNK records: the nanoseconds (64 bits,
 *                           low first, CLOCK_MONOTONIC) the thread spent
 *                           in the tracer getting this chunk (the file
 *                           grown, the chunk mapped, its pages faulted in:
 *                           where the kernel throttles a writer), ending
 *                           at that TIME record; no function ran
 *                           meanwhile, and the views count it in none
 *     LITIFUT_REC_ENTRY     1 + word_size / 4 words: a function of an
 *                           instrumented object entered by no traced
 *                           call, at the thread's clock as it stands (as
 *                           SIGNAL): bits 7..0 how (LITIFUT_ENTRY_*),
 *                           then the function's run-time address (low
 *                           first).  It runs as a call would, inside the
 *                           innermost open frame (none: the thread's
 *                           root), and ends with the ENTRY_END record, or
 *                           a RETURN record (left by a jump)
 *     LITIFUT_REC_ENTRY_END no payload: the thread's innermost entry
 *                           returned, at its clock as it stands; the
 *                           calls still open inside it end with it
 *     LITIFUT_REC_SKIPPED   3 words and more, in the process's own chunks,
 *                           once per object, when LITIFUT_EXCLUDE_CALLEE
 *                           was set at run time: the object's site id base,
 *                           the call sites it put back to plain calls
 *                           (never recorded from the object's first call
 *                           on), why it could not (LITIFUT_SKIP_*; 0: it
 *                           did), then the rules with the sites each took,
 *                           as "rule count" lines, NUL-terminated and
 *                           zero-padded to a whole word (at most
 *                           LITIFUT_SKIP_TEXT_MAX bytes)
 *     LITIFUT_REC_ARGS      1 word and more (LITIFUT_ARGS): what a call
 *                           was given, right after its call record (or
 *                           first in the thread's next chunk), or what it
 *                           gave back, right after its RETURN record, in
 *                           the same chunk: bits 7..0 which
 *                           (LITIFUT_ARGS_CALL, _RETURN), bits 15..8 how
 *                           many values; then each value: a word (bits
 *                           3..0 its kind, LITIFUT_VALUE_*; bit 4 a copy
 *                           cut short; bits 15..8 its position, 0 the
 *                           return value, N argument N; bits 31..16 the
 *                           bytes after the value's address: a string's
 *                           or a memory window's copy), then the value
 *                           (word_size / 4 words, low first: the integer
 *                           register, a pointer), then the copy's bytes,
 *                           zero-padded to a word.  A floating-point
 *                           register (LITIFUT_VALUE_FLOAT; position N:
 *                           the Nth floating-point argument) has value
 *                           words of 0, and its bits as the copy: 4
 *                           bytes (a float) or 8 (a double), as words
 *                           in the trace's byte order, low first
 *   tag 3  bits 7..2 = 1: a return (exact return mode): the thread's
 *          innermost open traced call returned; bits 31..24 its time
 *          delta, bits 23..8 zero
 *   tag 3  bits 7..2 = 2: the thread's clock advances by bits 31..8 (a
 *          delta too long for the next record, which follows with its
 *          own, usually 0)
 *
 * Modes (header.mode, LITIFUT_MODE).  The full trace (LITIFUT_MODE_FULL)
 * is the records above.  In the other two, calls are not records:
 * each distinct (site, target) pair the process called is one struct
 * litifut_pair, in chunks whose thread id is LITIFUT_PAIRS_TID (entries
 * from the chunk header on, up to a zero site_plus1 or the chunk's end),
 * written when the pair is first called, with that moment's
 * CLOCK_MONOTONIC ns (and a link of the tracer's own, which readers
 * ignore):
 *   LITIFUT_MODE_DEDUP   each pair once (count stays 0);
 *   LITIFUT_MODE_COUNT   and its calls, counted in place (the file is
 *                        mapped shared: the counts are current at any
 *                        moment, a crash or SIGKILL included).
 * With header.word_size 8 the entries are struct litifut_pair64.
 * The OBJECT records go to the process's own chunks (thread id 0),
 * with the STATE records, in every mode.
 *
 * Word size.  header.word_size is the target's address size (4: ILP32
 * ARM and MIPS; 8: LP64 AArch64).  Records stay 32-bit words whatever
 * it is (a site id is an index, not an address); only the fields that
 * hold run-time addresses grow: a tag 1 record's target, an OBJECT
 * record's load bias, a CHUNK record's return addresses and a pair's
 * target.  Readers take the size of each from word_size, never from
 * the arch, and a 32-bit trace has not one byte more than before.
 *
 * The target cache.  Each thread keeps the last target its tag 1
 * records gave per entry, and the reader replays it.  With clock marks
 * (every delta 0) the entry is a hash of the target
 * (LITIFUT_CACHE_ENTRY_OF_TARGET), named in a tag 2 record's bits
 * 31..24: any recent target is one word.  With a clock per event those
 * bits are the delta, and the entry is a hash of the call's site id
 * (LITIFUT_CACHE_ENTRY_OF_SITE): a site that calls the target it
 * called last is one word.  Every entry is empty at the start of each
 * chunk (so a chunk reads on its own) and after a CACHE_RESET (the
 * tracer writes one when a signal handler left the tracer with
 * siglongjmp: the cache may then hold a target whose record was never
 * committed).
 */
#ifndef LITIFUT_TRACE_FORMAT_H
#define LITIFUT_TRACE_FORMAT_H

/* What assembly may use comes first, as plain numbers. */
#define LITIFUT_REC_CALL        0
#define LITIFUT_REC_CALL_TARGET 1
#define LITIFUT_REC_CALL_CACHED 2
#define LITIFUT_REC_CONTROL     3
#define LITIFUT_REC_SITE_SHIFT  2       /* site id + 1 in bits 23..2: a word address apart */
#define LITIFUT_REC_DELTA_SHIFT 24      /* bits 31..24: the time delta of a call or return */
#define LITIFUT_REC_AUX_SHIFT   24      /* clock marks: bits 31..24 of tag 2, its cache entry */
#define LITIFUT_REC_DELTA_LIMIT 256     /* deltas are below this */
#define LITIFUT_REC_RETURN_WORD 7       /* tag 3, bits 7..2 = 1 */
#define LITIFUT_REC_ADVANCE     0xbu    /* tag 3, bits 7..2 = 2: bits 31..8 a longer delta */
#define LITIFUT_REC_ADVANCE_LIMIT (1u << 24)
#define LITIFUT_TARGET_CACHE    256     /* entries */
/* header.clock */
#define LITIFUT_CLOCK_MARKS     1       /* no clock per event: TIME marks, interpolated */
#define LITIFUT_CLOCK_MONOTONIC 2       /* clock_gettime(CLOCK_MONOTONIC) per event; ticks = ns */
#define LITIFUT_CLOCK_ARM_CNTVCT 3      /* ARMv7 generic timer, virtual count */
#define LITIFUT_CLOCK_MIPS_CC   4       /* MIPS rdhwr $2 (CC) */
#define LITIFUT_CLOCK_A64_CNTVCT 5      /* AArch64 generic timer, CNTVCT_EL0 */
#define LITIFUT_CLOCK_INSNS     6       /* litifut-emu: the thread's guest instructions (a
                                           TIME record's ns is the same count; clock_hz 10^9) */
#define LITIFUT_CLOCK_RV_TIME   7       /* RISC-V rdtime (the time CSR) */
#define LITIFUT_TRACE_RETURNS   1       /* header.flags: exact return records */
#define LITIFUT_TRACE_RING      2       /* header.flags: LITIFUT_MODE=ring (header.ring_size) */
#define LITIFUT_TRACE_EMULATED  4       /* header.flags: written by litifut-emu's plugin: its
                                           objects have no DB, SITE_ADDR records name their sites */
/* header.mode */
#define LITIFUT_MODE_FULL       0       /* every call, in order, with its time */
#define LITIFUT_MODE_DEDUP      1       /* each distinct (site, target) pair once */
#define LITIFUT_MODE_COUNT      2       /* each pair once, with its number of calls */
/* struct litifut_pair's words, for assembly */
#define LITIFUT_PAIR_TARGET     4
#define LITIFUT_PAIR_COUNT      8
#define LITIFUT_PAIR_NEXT       12
/* struct litifut_pair64's (header.word_size 8) */
#define LITIFUT_PAIR64_COUNT    4
#define LITIFUT_PAIR64_TARGET   8
#define LITIFUT_PAIR64_NEXT     16
#define LITIFUT_PAIR64_SIZE     32
/* ENTRY records' how (below), the ones assembly names */
#define LITIFUT_ENTRY_START     3       /* main, which the C library's start calls */
#define LITIFUT_ENTRY_INIT      4       /* a constructor (.init_array, .preinit_array) */
#define LITIFUT_ENTRY_FINI      5       /* a destructor (.fini_array) */

#ifndef __ASSEMBLER__
#include <stdint.h>

#define LITIFUT_TRACE_MAGIC    "LITIFUT"    /* 8 bytes with the NUL */
#define LITIFUT_TRACE_VERSION  7u      /* 7: ARGS records (written only by a run with
                                          LITIFUT_ARGS, whose traces are 7; others 6);
                                          6: ENTRY records; readers also take 5, and 4:
                                          chunks all chunk_size */
#define LITIFUT_TRACE_VERSION_NO_ARGS 6u
#define LITIFUT_CHUNK_MAGIC    0x4b43544cu  /* "LTCK" read as a little-endian word */
#define LITIFUT_PAIRS_TID      0xffffffffu  /* a chunk of struct litifut_pair */
#define LITIFUT_MIN_CHUNK      512u         /* the smallest chunk (version 5) */

enum litifut_arch { LITIFUT_ARCH_ARM = 1, LITIFUT_ARCH_MIPS = 2, LITIFUT_ARCH_AARCH64 = 3,
                   LITIFUT_ARCH_RISCV64 = 4 };
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
#define LITIFUT_REC_DELTA(w)    ((w) >> LITIFUT_REC_DELTA_SHIFT)
#define LITIFUT_REC_IS_RETURN(w) (((w) & 0x00ffffffu) == LITIFUT_REC_RETURN_WORD)
#define LITIFUT_REC_IS_ADVANCE(w) (((w) & 0xffu) == LITIFUT_REC_ADVANCE)
#define LITIFUT_REC_TIME        1u
#define LITIFUT_REC_OBJECT      2u
#define LITIFUT_REC_UNLOAD      3u
#define LITIFUT_REC_CACHE_RESET 4u
#define LITIFUT_REC_STATE       5u
#define LITIFUT_REC_BUDGET      6u
#define LITIFUT_REC_STOPPED     7u
#define LITIFUT_REC_CHUNK       8u      /* a thread chunk's place in its thread's history */
#define LITIFUT_REC_SITE_ADDR   9u      /* emulated traces: a site id's run-time address */
#define LITIFUT_REC_SIGNAL      10u     /* a signal handler was entered (at the thread's clock) */
#define LITIFUT_REC_SIGNAL_END  11u     /* ... and returned */
#define LITIFUT_REC_FROZEN      12u     /* where a thread's records end in a frozen trace */
#define LITIFUT_REC_OWN_TIME    13u     /* the tracer's own time before the TIME record before */
#define LITIFUT_REC_ENTRY       14u     /* a function entered by no traced call */
#define LITIFUT_REC_ENTRY_END   15u     /* ... and returned */
#define LITIFUT_REC_SKIPPED     16u     /* LITIFUT_EXCLUDE_CALLEE at run time: an object's sites put back */
#define LITIFUT_SKIP_TEXT_MAX   512u    /* ... its text's bytes, with the NUL */
#define LITIFUT_REC_ARGS        17u     /* LITIFUT_ARGS: a call's arguments or return value */
#define LITIFUT_ARGS_CALL       1u      /* ARGS which: the arguments of the call before */
#define LITIFUT_ARGS_RETURN     2u      /* ... the return value of the call that returned */
#define LITIFUT_ARGS_MAX_VALUES 16u     /* values in one record, at most */
#define LITIFUT_ARGS_COPY_MAX   256u    /* bytes of a string or a memory window, at most */
#define LITIFUT_VALUE_INT       1u      /* an integer register */
#define LITIFUT_VALUE_STRING    2u      /* a pointer and the string there (no NUL) */
#define LITIFUT_VALUE_MEMORY    3u      /* a pointer and the bytes there */
#define LITIFUT_VALUE_UNREADABLE 4u     /* a pointer to no readable memory (string or window) */
#define LITIFUT_VALUE_FLOAT     5u      /* a floating-point register (a float or a double) */
#define LITIFUT_VALUE_CUT       0x10u   /* (flag) the copy stopped at its limit */
#define LITIFUT_SKIP_DONE       0u      /* SKIPPED's why: done */
#define LITIFUT_SKIP_NO_FILE    1u      /* ... the object's file could not be read */
#define LITIFUT_SKIP_NO_TABLE   2u      /* ... it has no call-site table (stripped, or linked by
                                           an older litifut), or a damaged one */
#define LITIFUT_SKIP_OTHER_DB   3u      /* ... its table is not the loaded DB's (the file changed) */
#define LITIFUT_SKIP_NOT_WRITABLE 4u    /* ... its code could not be made writable */
#define LITIFUT_SKIP_SEGMENTS   5u      /* ... its call sites lie in more than one segment */
#define LITIFUT_SKIP_NO_RULES   6u      /* ... the @FILE of rules could not be read */
#define LITIFUT_ENTRY_THREAD    1u      /* ENTRY how: a thread's start routine (pthread_create) */
#define LITIFUT_ENTRY_CALLBACK  2u      /* ... a function the C library calls back: a comparator
                                           (qsort, bsearch), an exit handler */
/* An entry's name in the views: "(thread)", "(callback)", ... */
/* SITE_ADDR's id word: bit 31 set, a tail jump's site (the emulator's:
 * a jump, not a call, that entered another function's start) */
#define LITIFUT_SITE_ADDR_JUMP  0x80000000u
#define LITIFUT_ENTRY_NAMES { "entry", "thread", "callback", "start", "init", "fini" }
#define LITIFUT_ENTRY_KINDS 6u
#define LITIFUT_FROZEN_REC_WORDS 3u     /* ... its payload */
#define LITIFUT_CHUNK_REC_WORDS 4u      /* ... its payload before the open frames */
#define LITIFUT_STATE_AT_START  1u      /* LITIFUT_RECORD, LITIFUT_SIGNAL: the state at start */
#define LITIFUT_STATE_BY_SIGNAL 2u      /* LITIFUT_SIGNAL toggled it */
#define LITIFUT_STATE_BY_FUNCTION 3u    /* a call of LITIFUT_START_AT or LITIFUT_STOP_AT */
#define LITIFUT_STATE_BY_CONTROL 4u     /* the LITIFUT_CONTROL file */
#define LITIFUT_STATE_AT_END    5u      /* still off at exit: the calls not recorded */
#define LITIFUT_STATE_BY_BUDGET 6u      /* LITIFUT_BUDGET: the period's budget spent (off),
                                           a new period (on) */
/* Why recording stopped for good (header.stopped, LITIFUT_REC_STOPPED) */
#define LITIFUT_STOP_EXTEND     1u      /* the trace file could not grow (errno: ENOSPC,
                                           EDQUOT, EFBIG for RLIMIT_FSIZE, ...) */
#define LITIFUT_STOP_MAP        2u      /* ... or its new chunk not be mapped */
#define LITIFUT_STOP_REPLACED   3u      /* the trace file was removed or replaced */
#define LITIFUT_STOP_SNAPSHOT   4u      /* a ring was frozen (header.snapshot says why) */
#define LITIFUT_STOP_SIZE       5u      /* the file reached LITIFUT_MAX_SIZE (max_size_kb) */
#define LITIFUT_STOP_TOTAL      6u      /* the run's traces reached LITIFUT_MAX_TOTAL
                                           (max_total_kb) */
/* Why a ring's records end (header.snapshot) */
#define LITIFUT_SNAPSHOT_EXIT   1u      /* the process exited */
#define LITIFUT_SNAPSHOT_FATAL  2u      /* a fatal signal (snapshot_arg) ended it */
#define LITIFUT_SNAPSHOT_SIGNAL 3u      /* LITIFUT_SNAPSHOT_SIGNAL (snapshot_arg) froze it */
#define LITIFUT_SNAPSHOT_CONTROL 4u     /* the LITIFUT_CONTROL file's word `snapshot` froze it */
#define LITIFUT_SNAPSHOT_FUNCTION 5u    /* a call of LITIFUT_SNAPSHOT_AT froze it */
#define LITIFUT_STATE_WORD(on, why) ((uint32_t)(on) | (uint32_t)(why) << 8)
#define LITIFUT_STATE_ON(w)     ((w) & 1u)
#define LITIFUT_STATE_WHY(w)    (((w) >> 8) & 0xffu)

#define LITIFUT_CACHE_ENTRY_OF_SITE(w) (((w) >> LITIFUT_REC_SITE_SHIFT) & (LITIFUT_TARGET_CACHE - 1))
#define LITIFUT_CACHE_ENTRY_OF_TARGET(t) (((uint32_t)(t) >> 2) & (LITIFUT_TARGET_CACHE - 1))
#define LITIFUT_REC_CACHE_ENTRY(w) ((w) >> LITIFUT_REC_AUX_SHIFT)   /* clock marks, tag 2 */

#define LITIFUT_EXE_MAX 1024

struct litifut_trace_header {
    char     magic[8];          /* LITIFUT_TRACE_MAGIC */
    uint8_t  endian;            /* enum litifut_endian */
    uint8_t  arch;              /* enum litifut_arch */
    uint8_t  word_size;         /* 4 or 8: bytes of a run-time address */
    uint8_t  reserved0;
    uint32_t version;           /* LITIFUT_TRACE_VERSION */
    uint32_t header_size;       /* offset of chunk 0 */
    uint32_t chunk_size;        /* the largest chunk's bytes, a multiple of 4096 */
    uint32_t pid;
    uint32_t time_every;        /* record words between two time marks (clock MARKS) */
    uint64_t start_ns;          /* CLOCK_MONOTONIC when tracing started */
    uint8_t  clock;             /* LITIFUT_CLOCK_*: where event times come from */
    uint8_t  time_shift;        /* a time delta counts 2^time_shift ticks */
    uint8_t  flags;             /* LITIFUT_TRACE_RETURNS */
    uint8_t  mode;              /* LITIFUT_MODE_* */
    uint32_t reserved2;
    uint64_t clock_hz;          /* ticks per second; 0: unknown (from the TIME records) */
    char     exe[LITIFUT_EXE_MAX]; /* the process's program, NUL-terminated
                                      (/proc/self/exe; for people only) */
    /* A fork child's trace: where its history branched off its
     * parent's, so that a reader with the parent's trace can start the
     * child's call stacks from the frames live at the fork (they were
     * 0 before this field existed: not known). */
    uint32_t parent_pid;        /* the parent process (0: not a fork child) */
    uint32_t parent_tid;        /* its thread that forked (0: it had no records) */
    uint32_t parent_chunk;      /* that thread's chunk (its index) at the fork */
    uint32_t parent_words;      /* ... and the words of that chunk written before
                                   the fork, its header included */
    /* Recording stopped for good before the process ended (the first
     * time: each thread that stops also writes a STOPPED record). */
    uint32_t stopped;           /* 0, or LITIFUT_STOP_* */
    uint32_t stop_errno;        /* the error (ENOSPC, ...), 0 if none */
    uint64_t stop_ns;           /* CLOCK_MONOTONIC then */
    /* Exact returns: frames whose return came after their RETURN record
     * had closed them early (a stack switch, such as swapcontext, made
     * them look gone; 0 in traces made before this field existed). */
    uint32_t returns_resumed;
    /* LITIFUT_MODE=ring (flags LITIFUT_TRACE_RING): a flight recorder.
     * Thread chunks are recycled, oldest claimed first, once the ring's
     * bytes are in use; the file keeps the most recent records of each
     * thread (at least its current chunk).  Each thread chunk starts
     * with a CHUNK record that places it in its thread's history. */
    uint32_t ring_size;         /* the ring's bytes (0: not a ring) */
    uint32_t snapshot;          /* LITIFUT_SNAPSHOT_*: why the records end (0: not said) */
    uint32_t snapshot_arg;      /* ... the signal's number, or 0 */
    uint64_t snapshot_ns;       /* CLOCK_MONOTONIC then */
    uint64_t overwritten_chunks;/* ring: thread chunks recycled */
    uint64_t overwritten_bytes; /* ... the bytes they had */
    /* Written by the host receiver of a stream (litifut-recv), never by
     * the tracer (0 there): what the device's agent did not send. */
    uint32_t streamed;          /* 1: this file was received from litifut-agent */
    uint32_t reserved4;
    uint64_t dropped_chunks;    /* chunks the agent dropped (the link was too slow) */
    uint64_t dropped_bytes;     /* ... their bytes */
    /* Signal deliveries the trace lacks (0 in traces made before this
     * field existed): a handler that interrupted the tracer at work for
     * its thread (a hot path, the slow path, a chunk switch, which hold
     * the thread's place in its chunk) runs, and its calls, unrecorded. */
    uint32_t signals_unrecorded;
    /* What one reading of the event clock cost, in ns, measured as the
     * trace began (the best of 3 rounds of 16 reads): where no counter
     * can be read, a system call per event, the largest part of the
     * tracer's own time per call.  0: not measured (clock marks, the
     * emulator, traces made before this field existed). */
    uint32_t clock_read_ns;
    /* LITIFUT_MAX_SIZE: the file's cap in KB (0: none, or a trace made
     * before this field existed).  Reaching it stops recording for good
     * (stopped LITIFUT_STOP_SIZE); the records before stay whole. */
    uint32_t max_size_kb;
    /* The parent process when the trace started (getppid; 0 in traces
     * made before this field existed): with parent_pid (a fork child's)
     * and the same pid's earlier trace (an exec), the process tree. */
    uint32_t ppid;
    /* LITIFUT_MAX_TOTAL: the cap in KB of all the traces of the run (those
     * under the same directory, LITIFUT_DIR up to its first pattern, which
     * keeps the count in LITIFUT_TOTAL_FILE); 0: none. */
    uint32_t max_total_kb;
};
/* The count LITIFUT_MAX_TOTAL's processes share: a 4096-byte file whose
 * first word is LITIFUT_TOTAL_MAGIC, the second the 512-byte units of
 * trace file claimed so far, the third the processes that made no trace
 * since the cap was reached (in the byte order of the device). */
#define LITIFUT_TOTAL_FILE  "litifut.total"
#define LITIFUT_TOTAL_MAGIC 0x4c54544fu  /* "LTTO" */

_Static_assert(__builtin_offsetof(struct litifut_trace_header, snapshot_ns) == 1128 &&
               __builtin_offsetof(struct litifut_trace_header, dropped_bytes) == 1168,
               "the same offsets on 32- and 64-bit hosts");

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

/* A (site, target) pair of the modes dedup and count. */
struct litifut_pair {
    uint32_t site_plus1;        /* site id + 1 (0: the chunk's entries end) */
    uint32_t target;            /* its runtime target (ARM: with the Thumb bit) */
    uint32_t count;             /* LITIFUT_MODE_COUNT: its calls (wraps at 2^32) */
    uint32_t next;              /* the tracer's own: the run-time address of the
                                   same site's previous pair (0: none); readers ignore it */
    uint32_t ns_lo, ns_hi;      /* CLOCK_MONOTONIC ns at its first call */
};
_Static_assert(sizeof(struct litifut_pair) == 24, "6 words");

/* The same with header.word_size 8: site_plus1 still first. */
struct litifut_pair64 {
    uint32_t site_plus1;        /* site id + 1 (0: the chunk's entries end) */
    uint32_t count;             /* LITIFUT_MODE_COUNT: its calls (wraps at 2^32) */
    uint64_t target;            /* its runtime target */
    uint64_t next;              /* the tracer's own (struct litifut_pair's) */
    uint32_t ns_lo, ns_hi;      /* CLOCK_MONOTONIC ns at its first call */
};
_Static_assert(sizeof(struct litifut_pair64) == LITIFUT_PAIR64_SIZE &&
               __builtin_offsetof(struct litifut_pair64, count) == LITIFUT_PAIR64_COUNT &&
               __builtin_offsetof(struct litifut_pair64, target) == LITIFUT_PAIR64_TARGET &&
               __builtin_offsetof(struct litifut_pair64, next) == LITIFUT_PAIR64_NEXT,
               "8 words, the same on every host");

struct litifut_chunk_header {
    uint32_t magic;             /* LITIFUT_CHUNK_MAGIC */
    uint32_t tid;
    uint32_t index;             /* this chunk's number, for checking */
    uint32_t size;              /* its bytes (version 4: 0, chunk_size) */
};

#endif /* __ASSEMBLER__ */
#endif
