/*
 * The tracer's own memory, mapped aside (map_aside): where the
 * program's own mappings do not go, so that they lie where they lie
 * untraced.  Linux (and qemu-user) place a mapping without an address
 * below the last ones, top down: the tracer's trace windows, shadow
 * stacks and tables, mapped among them, would move every later
 * mapping of the program, and with musl, whose malloc takes its memory
 * by mmap, every heap address (a program that hashes addresses, Lua's
 * string cache, then makes other calls).  So the tracer asks for
 * addresses in a zone of its own, low in the address space, first fit
 * with MAP_FIXED_NOREPLACE (Linux 4.17; an older kernel takes the
 * address as a hint, and where it is taken, places the mapping as it
 * would have).  The zone is the arch's (tracer-arch.h: far from the
 * executable and its brk heap; a 32-bit non-PIE program's heap would
 * have to grow past 512 MB to meet it).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ASIDE_TRIES 64                      /* then anywhere */
#define ASIDE_ALIGN 0x10000ul               /* any page size up to 64 KB */

/* Where the next mapping is tried: after the last one (a hint: threads
 * and the tracer's other copies in the process may race for it, and
 * MAP_FIXED_NOREPLACE settles it). */
static uintptr_t aside_next = ARCH_ASIDE_START;

void *map_aside(unsigned long len, int prot, int flags, int fd, uint64_t off)
{
    unsigned long span = (len + ASIDE_ALIGN - 1) & ~(ASIDE_ALIGN - 1);
    uintptr_t at = __atomic_load_n(&aside_next, __ATOMIC_RELAXED);
    int wrapped = 0;
    for (int i = 0; i < ASIDE_TRIES && span; i++) {
        if (at < ARCH_ASIDE_START || at > ARCH_ASIDE_END - span) {
            if (wrapped || span > ARCH_ASIDE_END - ARCH_ASIDE_START)
                break;
            wrapped = 1;            /* from the start again: unmapped windows */
            at = ARCH_ASIDE_START;
        }
        void *m = sys_mmap((void *)at, len, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
        if (!sys_mmap_failed(m)) {
            if ((uintptr_t)m == at)
                __atomic_store_n(&aside_next, at + span, __ATOMIC_RELAXED);
            return m;               /* (elsewhere: an older kernel's choice) */
        }
        if ((long)m != -EEXIST)
            break;
        at += span;                 /* taken: the next place */
    }
    return sys_mmap(NULL, len, prot, flags, fd, off);
}
