/*
 * cyg-ringbuf.c - the -finstrument-functions handler `make bench`
 * compares litifut with (tests/bench.sh): the minimal one a careful
 * user would write.  Every function entry and exit of code compiled
 * with -finstrument-functions calls it; it stores (function, call
 * site) into a per-thread ring buffer, the entry with the low bit of
 * the function address clear, the exit with it set (function
 * addresses are even: ARM state, MIPS).  Nothing else: no locking, no
 * output.  The functions are hidden, so a shared library that links its
 * own copy calls it directly, not through the PLT.  The buffer is
 * local-exec TLS in an executable; built -fPIC -DRING_IN_LIBRARY for a
 * shared library, initial-exec (loaded at start-up): never
 * __tls_get_addr.
 */
#include <stdint.h>

#define RING_ENTRIES 4096       /* a power of two */

#ifdef RING_IN_LIBRARY
#define RING_TLS_MODEL "initial-exec"
#else
#define RING_TLS_MODEL "local-exec"
#endif

struct ring_entry { uintptr_t fn, site; };

static __thread struct {
    unsigned next;
    struct ring_entry e[RING_ENTRIES];
} ring __attribute__((tls_model(RING_TLS_MODEL)));

#define HANDLER __attribute__((no_instrument_function, visibility("hidden")))

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
