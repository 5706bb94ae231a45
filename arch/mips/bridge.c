/*
 * Run-time bridges for MIPS call sites that no sled copy is within bal
 * range of, in PIEs and shared libraries.  Such a site was rewritten to
 * `jal bridge + 16k` (rewrite-mips.c): jal keeps the top 4 bits of the
 * address of its delay slot, so it lands at offset `bridge`
 * (0x0e000000) of whatever 256 MB region the code was loaded into.
 *
 * One bridge per region serves every object (sled.S,
 * BRIDGE_TEMPLATE): code pages with the sled's entries, each half's
 * lane and dispatcher, and a table page after them, (lo, hi, fixed,
 * reg) per object, which the dispatcher searches by return address.
 * Each half's lane goes where its word says (lanes_update): while one
 * object has live entries in the table, straight to its code (5
 * instructions for a far call); with more, to the dispatcher (about
 * 20 more).  The process block
 * says which regions have a bridge; each object with far sites adds
 * itself to the table of every region its code spans, under the lock,
 * before any of its code runs:
 *   - an executable from .preinit_array, which glibc's dynamic linker
 *     runs after relocation and before any library's constructors (only
 *     the program's own IFUNC resolvers run earlier); musl runs no
 *     .preinit_array, so also from its first constructor (priority
 *     101): before anything of it but the C library's start code (the
 *     crt objects, not rewritten), and after the libraries'
 *     constructors (one that calls back into the program's far sites
 *     would find no bridge: none is known);
 *   - a library from its constructor (priority 101), before anything
 *     else of it runs, except its IFUNC resolvers and calls into it
 *     from constructors in a dependency cycle: those must not be far.
 * A table entry is filled before its lo (which makes it live) is
 * written; an unloaded library's entry is emptied (hi = lo), never
 * moved, so another thread's dispatcher never reads a torn entry.  If
 * the address is taken by something else the program stops with one
 * line (exit 127) instead of letting a call jump into it.
 */
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/db-format.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

extern const uint32_t litifut_bridge_template[] HIDDEN;
extern const uint32_t litifut_bridge_template_end[] HIDDEN;
extern const uint32_t litifut_bridge_template_lane0[] HIDDEN;
extern const uint32_t litifut_bridge_template_lane1[] HIDDEN;
extern const uint32_t litifut_bridge_template_dispatch0[] HIDDEN;
extern const uint32_t litifut_bridge_template_dispatch1[] HIDDEN;
extern const char litifut_mips_start_t9[] HIDDEN;

/* Where this object's entries send each half's calls: the `_t9` entry
 * point of the sled mode (sleds.c tells, bridges_retarget); the slow
 * path until then. */
static uint32_t bridge_to[2];

static uint32_t bridge_code(int half)
{
    return bridge_to[half] ? bridge_to[half] : (uint32_t)(uintptr_t)litifut_mips_start_t9;
}

static void die(const char *msg, uintptr_t addr)
{
    static const char hex[] = "0123456789abcdef";
    char buf[160], *p = buf;
    for (const char *m = "litifut: cannot map the call bridge at 0x"; *m; m++)
        *p++ = *m;
    for (int i = 0; i < 8; i++)
        *p++ = hex[(addr >> (28 - 4 * i)) & 15];
    *p++ = ':';
    *p++ = ' ';
    while (*msg && p < buf + sizeof buf - 1)
        *p++ = *msg++;
    *p++ = '\n';
    sys_write(2, buf, (unsigned long)(p - buf));
    arch_syscall6(__NR_exit_group, 127, 0, 0, 0, 0, 0);
}

/* A template symbol's place in the bridge at `at`. */
static uint32_t *in_bridge(uintptr_t at, const uint32_t *sym)
{
    return (uint32_t *)at + (sym - litifut_bridge_template);
}

/* The bridge at `at` (being written): each lane's `lui`/`lw` (its
 * second and third words) get the address of the half's word. */
static void lanes_link(uintptr_t at)
{
    const uint32_t *lane[2] = { litifut_bridge_template_lane0, litifut_bridge_template_lane1 };
    for (int half = 0; half < 2; half++) {
        uint32_t *w = in_bridge(at, lane[half]);
        uint32_t word = (uint32_t)at + BRIDGE_CODE + BRIDGE_LANE_WORDS + 4 * half;
        w[1] = (w[1] & 0xffff0000u) | (((word + 0x8000u) >> 16) & 0xffffu);
        w[2] = (w[2] & 0xffff0000u) | (word & 0xffffu);
    }
}

/* The lane words of the bridge at `at`: with one live entry in its
 * table, that object's code for each half; else the dispatchers.
 * Under the lock, after every change of the table; each word is
 * stored whole, so a call in another thread goes the old way or the
 * new, both right while the table holds both. */
static void lanes_update(uintptr_t at)
{
    uint32_t *t = (uint32_t *)(at + BRIDGE_CODE), *live = 0;
    int n = 0;
    for (uint32_t *e = t; e[0]; e += BRIDGE_ENTRY / 4)
        if (e[1] != e[0]) {
            live = e;
            n++;
        }
    volatile uint32_t *word = (volatile uint32_t *)(at + BRIDGE_CODE + BRIDGE_LANE_WORDS);
    word[0] = n == 1 ? live[2] : (uint32_t)(uintptr_t)in_bridge(at, litifut_bridge_template_dispatch0);
    word[1] = n == 1 ? live[3] : (uint32_t)(uintptr_t)in_bridge(at, litifut_bridge_template_dispatch1);
}

/* The bridge of `region`, mapped (and noted in the process block) if
 * it is the first.  Under the lock. */
static uint32_t *bridge_table(struct litifut_process *p, uintptr_t region)
{
    uintptr_t at = region << 28 | db_header()->bridge;
    uint32_t *table = (uint32_t *)(at + BRIDGE_CODE);
    if (p->bridges & (1u << region))
        return table;
    void *m = sys_mmap((void *)at, BRIDGE_CODE + BRIDGE_TABLE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (sys_mmap_failed(m) || (uintptr_t)m != at)
        die("the address is taken", at);
    uint32_t *w = m;
    const uint32_t *t = litifut_bridge_template;
    for (long i = 0; i < litifut_bridge_template_end - litifut_bridge_template; i++)
        w[i] = t[i];
    lanes_link(at);
    lanes_update(at);
    arch_flush_icache((uintptr_t)m, (uintptr_t)m + BRIDGE_CODE);
    if (arch_syscall6(__NR_mprotect, (long)m, BRIDGE_CODE, PROT_READ | PROT_EXEC, 0, 0, 0))
        die("mprotect failed", at);
    p->bridges |= 1u << region;
    return table;
}

/* This object's code, at run time: the pages its DB covers (by
 * return address). */
static void object_code(uintptr_t *lo, uintptr_t *hi)
{
    const struct litifut_db_header *db = db_header();
    uintptr_t bias = object_load_bias();
    *lo = ((uintptr_t)db->first_page << db->page_shift) + bias;
    *hi = ((uintptr_t)(db->first_page + db->n_pages) << db->page_shift) + bias;
}

static void bridges_join(void)
{
    static int joined;
    if (joined || !db_header()->bridge || !db_header()->n_sites)
        return;
    joined = 1;
    copy_start();
    struct litifut_process *p = litifut_copy.proc;
    if (!p)
        die("no process block", 0);
    uintptr_t lo, hi;
    object_code(&lo, &hi);
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    /* jal's region is its delay slot's: site + 4 = return address - 4 */
    for (uintptr_t region = (lo - 4) >> 28; region <= (hi - 4) >> 28; region++) {
        uint32_t *e = bridge_table(p, region);
        uint32_t *end = e + (BRIDGE_TABLE - BRIDGE_ENTRY) / 4;  /* the last entry stays 0 */
        while (e < end && e[0])
            e += BRIDGE_ENTRY / 4;
        if (e >= end)
            die("its table is full", region << 28 | db_header()->bridge);
        e[1] = (uint32_t)hi;
        e[2] = bridge_code(0);
        e[3] = bridge_code(1);
        __sync_synchronize();
        e[0] = (uint32_t)lo;
        __sync_synchronize();
        lanes_update(region << 28 | db_header()->bridge);
    }
    unlock(mask);
}

/* This object's live entries in every bridge of its regions: `leave`
 * empties them (hi = lo), else they go to bridge_code() (the sled mode
 * changed).  Under the lock: taken here unless the caller
 * holds it (a recording switch, control.c: taking it again would wait
 * for ever). */
static void bridges_update(int leave)
{
    struct litifut_process *p = litifut_copy.proc;
    if (!db_header()->bridge || !p)
        return;
    uintptr_t lo, hi;
    object_code(&lo, &hi);
    uint32_t mask[SIGSET_WORDS];
    int took = lock_unless_mine(mask);
    for (uintptr_t region = (lo - 4) >> 28; region <= (hi - 4) >> 28; region++) {
        if (!(p->bridges & (1u << region)))
            continue;
        uintptr_t at = region << 28 | db_header()->bridge;
        uint32_t *e = (uint32_t *)(at + BRIDGE_CODE);
        for (; e[0]; e += BRIDGE_ENTRY / 4) {
            if (e[0] != lo || e[1] == e[0])
                continue;
            if (leave) {
                e[1] = e[0];
            } else {
                e[2] = bridge_code(0);
                e[3] = bridge_code(1);
            }
        }
        __sync_synchronize();
        lanes_update(at);
    }
    if (took)
        unlock(mask);
}

void bridges_retarget(uint32_t fixed, uint32_t reg)
{
    bridge_to[0] = fixed;
    bridge_to[1] = reg;
    bridges_update(0);
}

#ifdef LITIFUT_SHARED
/* At dlclose (and exit): this library's entries are emptied. */
__attribute__((destructor(101))) static void bridges_leave(void)
{
    bridges_update(1);
}

__attribute__((constructor(101))) static void bridges_at_start(void)
{
    bridges_join();
}
#else
__attribute__((section(".preinit_array"), used))
static void (*const litifut_preinit)(void) = bridges_join;

__attribute__((constructor(101))) static void bridges_at_start(void)
{
    bridges_join();             /* (musl: see above) */
}
#endif
