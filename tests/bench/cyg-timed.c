/*
 * cyg-timed.c - the timed -finstrument-functions handler `make bench`
 * compares litifut with (tests/bench.sh): what a user who wants the
 * time of every entry and exit writes, and the competitor the Targets
 * table measures litifut's default against.  Every function entry and
 * exit of code compiled with -finstrument-functions calls it; it reads
 * clock_gettime(CLOCK_MONOTONIC) and stores (function, call site,
 * seconds, nanoseconds) into a per-thread ring buffer (cyg-ring.h),
 * the exit with the top bit of the nanoseconds set (never set in a
 * time: below 10^9; the low bit of the function address, which
 * cyg-ringbuf.c uses, is the Thumb bit on armhf): 16 bytes a record
 * (24 on 64-bit targets: two 8-byte pointers), two records a call.
 * Nothing else: no locking (the ring is the thread's own), no output
 * while the program runs (at exit one line on stderr, "cyg-timed: N
 * records of 16 bytes": cyg-ring.h).
 *
 * clock_gettime is glibc's: through the vDSO where the kernel maps
 * one, else a system call (qemu-user 7.2 maps none for arm, mips or
 * aarch64: under the bench every record costs a system call, which the
 * bench counts apart).
 */
#define _POSIX_C_SOURCE 200809L         /* clock_gettime under -std=c11 */
#include <stdint.h>
#include <time.h>

struct ring_entry { uintptr_t fn, site; uint32_t sec, nsec; };

#define RING_NAME "cyg-timed"
#include "cyg-ring.h"

#define EXIT_BIT 0x80000000u

static inline __attribute__((always_inline)) void record(void *fn, void *site, uint32_t exit)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned i = ring.next++ & (RING_ENTRIES - 1);
    ring.e[i].fn = (uintptr_t)fn;
    ring.e[i].site = (uintptr_t)site;
    ring.e[i].sec = (uint32_t)ts.tv_sec;
    ring.e[i].nsec = (uint32_t)ts.tv_nsec | exit;
}

HANDLER void __cyg_profile_func_enter(void *fn, void *site)
{
    record(fn, site, 0);
}

HANDLER void __cyg_profile_func_exit(void *fn, void *site)
{
    record(fn, site, EXIT_BIT);
}
