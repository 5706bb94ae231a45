/*
 * LITIFUT_MODE dedup and count (trace-format.h "Modes"): each distinct
 * (site, target) pair the process calls is one struct litifut_pair
 * (litifut_pair64 with an 8-byte word: pair_entry) in the trace file, made on its first call; count mode adds one to its
 * count at every call.  The sleds' mode paths (arch/<arch>/) find a
 * site's pairs through this copy's array of pair pointers, one per
 * site, at &sites[i] * WORD_WORDS + pair_delta: the site's newest pair, linked to
 * the one before (`next`).  If one has the call's target, the call is
 * known (dedup: nothing to do; count: an atomic increment) and goes on;
 * else (the site's first call of that target) the slow path comes here:
 * the process's table of pairs, looked up without the lock, added to
 * under it, the new pair linked in front of the site's.  Exact: no pair
 * is made twice, none is missed; a site with many targets costs a
 * compare per target in its list.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/trace-format.h"

#define P (litifut_copy.proc)

static pair_entry **site_pairs;    /* this copy's, once made */

/* The mode's paths can run in this copy: its pair pointers, made once
 * the copy is registered (it then knows its process). */
void pairs_prepare(void)
{
    struct litifut_process *p = P;
    if (site_pairs || !p || litifut_copy.state != COPY_READY)
        return;
    uint32_t mode = tracefile_settings()->mode;
    uint32_t n = db_header()->n_sites;
    if ((mode != LITIFUT_MODE_DEDUP && mode != LITIFUT_MODE_COUNT) || !n)
        return;
    unsigned long size = ((unsigned long)n * sizeof *site_pairs + 4095) & ~4095ul;
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    if (!site_pairs) {
        pair_entry **m = map_aside(size, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (!sys_mmap_failed(m)) {
            p->no_pair.target = ~(uintptr_t)0;  /* (and site_plus1 0): no call's */
            for (uint32_t i = 0; i < n; i++)
                m[i] = &p->no_pair;
            for (uint32_t i = 0; i < p->n_objects; i++)
                if (p->objects[i].live && p->objects[i].rec.base == litifut_copy.base)
                    p->objects[i].site_pairs = m;   /* for a fork child to empty */
            site_pairs = m;
            litifut_copy.pair_delta = (uintptr_t)m - WORD_WORDS * (uintptr_t)db_sites();
        }
    }
    unlock(mask);
}

/* --- the process's table of pairs: open addressing, pointers into the
 * trace file; readers take no lock, so a table outgrown stays mapped --- */

static uint32_t pair_hash(uint32_t site, uintptr_t target)
{
    uint32_t h = site * 0x9e3779b1u ^ (uint32_t)target * 0x85ebca6bu;
    return h ^ h >> 15;
}

static pair_entry *pair_find(uint32_t site, uintptr_t target)
{
    const uintptr_t *table = P->pair_table;
    if (!table)
        return NULL;
    uint32_t mask = (uint32_t)table[0] - 1;
    for (uint32_t h = pair_hash(site, target) & mask;; h = (h + 1) & mask) {
        pair_entry *pr = (pair_entry *)table[1 + h];
        if (!pr)
            return NULL;
        if (pr->site_plus1 == site + 1 && pr->target == target)
            return pr;
    }
}

/* pr into `table`, which has room; the slot is published with a
 * compare-and-swap (a barrier: pr's fields are seen first). */
static void table_put(uintptr_t *table, pair_entry *pr)
{
    uint32_t mask = (uint32_t)table[0] - 1;
    uint32_t h = pair_hash(pr->site_plus1 - 1, pr->target) & mask;
    while (table[1 + h])
        h = (h + 1) & mask;
    cmpxchg_ptr(&table[1 + h], 0, (uintptr_t)pr);
}

/* Room in the table for one more (at most half full); under the lock. */
static int table_room(void)
{
    uintptr_t *old = P->pair_table;
    if (old && 2 * (P->n_pairs + 1) <= old[0])
        return 1;
    uint32_t cap = old ? 2 * (uint32_t)old[0] : 1024;
    unsigned long size = ((unsigned long)(cap + 1) * sizeof *old + 4095) & ~4095ul;
    uintptr_t *t = map_aside(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sys_mmap_failed(t))
        return 0;
    t[0] = cap;
    for (uint32_t i = 0; old && i < old[0]; i++)
        if (old[1 + i])
            table_put(t, (pair_entry *)old[1 + i]);
    P->pair_table = t;                  /* (published by table_put's barrier) */
    return 1;
}

/* pr in front of the site's list (`head`, this copy's pointer), unless
 * it is there: its fields are seen before the pointer (the
 * compare-and-swap's barrier).  Under the lock. */
static void site_link(pair_entry **head, pair_entry *pr)
{
    for (pair_entry *q = *head; q; q = (pair_entry *)(uintptr_t)q->next)
        if (q == pr)
            return;
    pr->next = (uintptr_t)(*head == &P->no_pair ? NULL : *head);
    cmpxchg_ptr((volatile uintptr_t *)head, (uintptr_t)*head, (uintptr_t)pr);
}

/* The pair's entry, written once: every field, then site_plus1 (until
 * then the entry reads as the chunk's end), linked at `head` (if not
 * NULL); NULL if the trace has no room (it is off) or no memory for the
 * table. */
static pair_entry *pair_make(uint32_t site, uintptr_t target, pair_entry **head)
{
    uint32_t mask[SIGSET_WORDS];
    pair_entry *pr = NULL;
    process_block_signals(mask);
    for (int tries = 0; tries < 4; tries++) {
        thread_events_objects();
        lock_signals_blocked();
        int room = P->pairs_cur && P->pairs_cur < P->pairs_end;
        pr = pair_find(site, target);
        if (!pr && room && table_room()) {
            pr = P->pairs_cur++;
            pr->target = target;
            pr->count = 0;
            pr->next = 0;
            uint64_t ns = sys_monotonic_ns();
            pr->ns_lo = (uint32_t)ns;
            pr->ns_hi = (uint32_t)(ns >> 32);
            __asm__ volatile("" ::: "memory");
            pr->site_plus1 = site + 1;
            table_put(P->pair_table, pr);
            P->n_pairs++;
        }
        if (pr && head)
            site_link(head, pr);
        unlock_signals_blocked();
        if (pr || room)
            break;                      /* (room but no table: no memory) */
        struct chunk c;
        if (!tracefile_new_chunk(LITIFUT_PAIRS_TID, ~0u, &c))  /* (the largest) */
            break;                      /* the trace is off */
        lock_signals_blocked();
        if (!P->pairs_cur || P->pairs_cur >= P->pairs_end) {
            unsigned long bytes = (unsigned long)(c.end - c.base) * 4 -
                                  sizeof(struct litifut_chunk_header);
            P->pairs_cur = (pair_entry *)(c.base + sizeof(struct litifut_chunk_header) / 4);
            P->pairs_end = P->pairs_cur + bytes / sizeof(pair_entry);
        }
        unlock_signals_blocked();
    }
    process_restore_signals(mask);
    return pr;
}

void pairs_call(uint32_t index, uint32_t site, uintptr_t target)
{
    if (!tracefile_start())
        return;
    if (!site_pairs)
        pairs_prepare();
    pair_entry **head = site_pairs ? &site_pairs[index] : NULL;
    pair_entry *pr = head ? *head : NULL;
    while (pr && pr->target != target)
        pr = (pair_entry *)(uintptr_t)pr->next;
    if (!pr || pr->site_plus1 != site + 1) {
        /* not in the site's list (a pair made before this copy had its
         * pointers, or another thread's, not linked yet): made or found,
         * linked under the lock, so that the mode's path knows it */
        pr = head ? NULL : pair_find(site, target);
        if (!pr && !(pr = pair_make(site, target, head)))
            return;
    }
    if (P->mode == LITIFUT_MODE_COUNT)
        count_up(&pr->count);
}

/* A fork child's pairs go to its own trace: none is known yet.  Under
 * the lock, the only thread. */
void pairs_after_fork_child(void)
{
    struct litifut_process *p = P;
    p->pairs_cur = p->pairs_end = NULL;     /* (the parent's file) */
    p->n_pairs = 0;
    uintptr_t *table = p->pair_table;
    for (uint32_t i = 0; table && i < table[0]; i++)
        table[1 + i] = 0;
    for (uint32_t i = 0; i < p->n_objects; i++) {
        pair_entry **sp = p->objects[i].site_pairs;
        for (uint32_t k = 0; sp && k < p->objects[i].rec.n_sites; k++)
            sp[k] = &p->no_pair;
    }
}
