/*
 * cyg-ringbuf.c - the -finstrument-functions handler `make bench`
 * compares litifut with (tests/bench.sh): the minimal one a careful
 * user would write.  Every function entry and exit of code compiled
 * with -finstrument-functions calls it; it stores (function, call
 * site) into a per-thread ring buffer (cyg-ring.h), the entry with the
 * low bit of the function address clear, the exit with it set
 * (function addresses are even: ARM state, MIPS, AArch64).  Nothing
 * else: no locking, no output while the program runs (at exit one line
 * on stderr, "cyg-ringbuf: N records of 8 bytes", 16 on 64-bit
 * targets: cyg-ring.h).
 */
#include <stdint.h>

struct ring_entry { uintptr_t fn, site; };

#define RING_NAME "cyg-ringbuf"
#include "cyg-ring.h"

HANDLER void __cyg_profile_func_enter(void *fn, void *site)
{
    unsigned i = ring.next++ & (RING_ENTRIES - 1);
    ring.e[i].fn = (uintptr_t)fn;
    ring.e[i].site = (uintptr_t)site;
}

HANDLER void __cyg_profile_func_exit(void *fn, void *site)
{
    unsigned i = ring.next++ & (RING_ENTRIES - 1);
    ring.e[i].fn = (uintptr_t)fn | 1;
    ring.e[i].site = (uintptr_t)site;
}
