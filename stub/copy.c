/*
 * This copy of the tracer, in the object it is linked into: its
 * registration with the process, the page table its hot path uses, and
 * where its sleds send calls (arch/<arch>/sleds.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

/*
 * The hot path wants, per page, the address of its first site word; the
 * DB (read-only) holds its offset from sites[0].  So a copy of the page
 * table with addresses (words) is made, once per process, by the first call
 * through this copy (two threads may race to it: one copy wins).
 * litifut_copy.pages then points at entry 0 of page number 0 (run
 * time), so the hot path indexes it with return address >> page_shift.
 * 0 if it cannot be made (no memory; on MIPS, an executable whose TLS
 * block is too large for the hot path's 16-bit offsets).
 */
static int hot_path_prepare(void)
{
    if (litifut_copy.pages)
        return 1;
#ifndef LITIFUT_SHARED
    if (!ARCH_HOT_TPOFF_OK(SLOT_OFFSET())) {
        static const char msg[] = "litifut: the program's thread-local storage is too "
                                  "large for the tracer's TLS slot; not traced\n";
        sys_write(2, msg, sizeof msg - 1);
        return 0;
    }
#endif
    const struct litifut_db_header *h = db_header();
    unsigned long size = ((unsigned long)h->n_pages * sizeof(uintptr_t) + 4095) & ~4095ul;
    uintptr_t *m = size ? map_aside(size, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                        : (uintptr_t *)(uintptr_t)4096;  /* no sites: never read */
    if (sys_mmap_failed(m))
        return 0;
    uintptr_t sites = (uintptr_t)db_sites();
    for (uint32_t i = 0; i < h->n_pages; i++)
        m[i] = sites + db_pages()[i];
    uint32_t first_page = h->first_page + (uint32_t)(object_load_bias() >> h->page_shift);
    uintptr_t pages = (uintptr_t)m - sizeof(uintptr_t) * (uintptr_t)first_page;
    if (!cmpxchg_ptr(&litifut_copy.pages, 0, pages) && size)
        sys_munmap(m, size);
    return 1;
}

/* Why skip.c could not put this object's calls back (LITIFUT_SKIP_*). */
static const char *const skip_problem[] = {
    [LITIFUT_SKIP_NO_FILE] = ": cannot read the object's file",
    [LITIFUT_SKIP_NO_TABLE] = ": no call-site table (stripped, or linked by an older litifut)",
    [LITIFUT_SKIP_OTHER_DB] = ": the file is not the object loaded (changed since)",
    [LITIFUT_SKIP_NOT_WRITABLE] = ": its code cannot be made writable",
    [LITIFUT_SKIP_SEGMENTS] = ": its call sites lie in more than one segment",
    [LITIFUT_SKIP_NO_RULES] = ": cannot read its @FILE",
};

/* LITIFUT_EXCLUDE_CALLEE at run time: once the copy is registered, its
 * calls of those functions go back to plain calls (skip.c), and its
 * object entry says so in the trace.  Then LITIFUT_ARGS: its selected
 * calls routed to the args entry (args.c).  Once per copy; not while
 * this thread holds the lock (a later call does it). */
static void skip_start(void)
{
    static int done;
    static struct skip_result r;        /* (under the lock) */
    uint32_t mask[SIGSET_WORDS];
    if (done || litifut_copy.state != COPY_READY || !lock_unless_mine(mask))
        return;
    unlock(mask);
    const struct settings *st = tracefile_settings();
    if ((!st->exclude_callee[0] && !st->args[0]) || st->off || st->bad) {
        done = 1;
        return;
    }
    if (!lock_unless_mine(mask))
        return;
    if (!done) {
        done = 1;
        struct litifut_process *p = litifut_copy.proc;
        const char *path = 0;
        for (uint32_t i = 0; i < p->n_objects; i++)
            if (p->objects[i].rec.base == litifut_copy.base && p->objects[i].live)
                path = p->objects[i].path;
        if (st->exclude_callee[0]) {
            uint8_t *bits;
            skip_callees(path, st->exclude_callee, &r, &bits);
            litifut_copy.skipped = bits;
            object_set_skipped(&r);
            if (r.status && r.status < sizeof skip_problem / sizeof skip_problem[0])
                say("LITIFUT_EXCLUDE_CALLEE not applied in", path && path[0] ? path : "an object",
                    0, skip_problem[r.status]);
        }
        if (st->args[0])
            args_start(path, st->args);
    }
    unlock(mask);
}

/* Registers this copy's object if it is not yet (its first call, or
 * its constructor): the hot path's page table, then the process's
 * entry.  1: the copy is READY. */
int copy_start(void)
{
    if (litifut_copy.state == COPY_NEW) {
        if (!hot_path_prepare())
            litifut_copy.state = COPY_OFF;
        else
            copy_register();
    }
    skip_start();
    return litifut_copy.state == COPY_READY;
}

/* From this copy's constructor, once TLS and the C library are set up:
 * its sleds go to the hot path, or while the process records nothing
 * (or this copy cannot), to the code that only finds the target. */
/* Where calls go while recording: the mode's path (pairs.c), or the
 * hot path that reads the process's clock.  p's settings are read. */
static enum sleds_mode hot_path(const struct litifut_process *p)
{
    uint32_t mode = p->settings.mode;
    if (mode == LITIFUT_MODE_DEDUP || mode == LITIFUT_MODE_COUNT)
        return !litifut_copy.pair_delta ? SLEDS_START
               : mode == LITIFUT_MODE_DEDUP ? SLEDS_DEDUP : SLEDS_COUNT;
    uint32_t clock = tracefile_clock();
    if (p->settings.returns)        /* every call hooked (returns.c) */
        return clock == LITIFUT_CLOCK_MARKS ? SLEDS_ON_RET
               : clock == LITIFUT_CLOCK_MONOTONIC ? SLEDS_ON_RET_CLOCK : SLEDS_ON_RET_COUNTER;
    return clock == LITIFUT_CLOCK_MARKS ? SLEDS_ON
           : clock == LITIFUT_CLOCK_MONOTONIC ? SLEDS_ON_CLOCK : SLEDS_ON_COUNTER;
}

/* The sleds' mode: "off" if the process records nothing at all; the
 * paused path (off, counting) while recording is off; else the hot
 * path. */
static enum sleds_mode sleds_mode(int tracing, int recording)
{
    if (!tracing)
        return SLEDS_OFF;
    if (!recording)
        return SLEDS_PAUSED;
    return hot_path(litifut_copy.proc);
}

/* Recording on or off (control.c, under the lock, so the process
 * block is read directly): the hot path again, or the paused path, if
 * this copy is ready and the process traces; the "off" code for good
 * once the trace has stopped (tracefile.c), so that a failed trace
 * costs what LITIFUT_TRACE=0 does. */
/* Whether the slow path must see every call: a function trigger
 * (control.c) that can fire with recording `on` or off.  Under the
 * lock. */
static int watching(const struct litifut_process *p, int on)
{
    for (uint32_t i = 0; i < p->n_triggers; i++)
        if (p->triggers[i].stop == (uint32_t)on || (on && p->triggers[i].stop == TRIGGER_SNAPSHOT))
            return 1;
    return 0;
}

void copy_set_recording(int on)
{
    const struct litifut_process *p = litifut_copy.proc;
    if (!litifut_copy.pages || !litifut_copy.ctor_done)
        return;                     /* (its constructor will choose: copy_sleds_ready) */
    if (p->trace == TRACE_OFF) {
        arch_sleds_select(SLEDS_OFF);
        return;
    }
    if (p->trace != TRACE_ON)
        return;
    arch_sleds_select(watching(p, on) ? SLEDS_START : on ? hot_path(p) : SLEDS_PAUSED);
}

void copy_sleds_ready(void)
{
    int on = copy_start() && !tracefile_disabled();
    if (!litifut_copy.pages)
        return;                     /* the slow path it is */
    struct litifut_process *p = litifut_copy.proc;
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    int watch = watching(p, !p->recording_off);
    unlock(mask);
    enum sleds_mode mode = watch ? SLEDS_START : sleds_mode(on, !p->recording_off);
    if (mode == SLEDS_START)
        return;                     /* every call hooked: the slow path does it */
    if (!arch_sleds_select(mode)) {
        static const char msg[] = "litifut: cannot make the tracer's sled writable "
                                  "(mprotect); every call takes the slow path\n";
        sys_write(2, msg, sizeof msg - 1);
    }
}

