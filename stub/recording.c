/*
 * The recording switch: the process records, or not, from now on, for
 * a reason (LITIFUT_STATE_*): the user's state (signal, control file,
 * function triggers, the state at start: control.c) or the budget's
 * pause (budget.c), which flip it; it records while neither is off.
 * Every change rewrites every copy's sleds (objects_set_recording) and
 * leaves a TIME and a STATE record in the process's own chunks (thread
 * id 0; trace-format.h: tracefile_events_room), where the BUDGET and
 * the object records of the modes and of a ring go too.
 */
#include <stdint.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/trace-format.h"

#define P (litifut_copy.proc)

#define STATE_MARK_WORDS (TIME_MARK_WORDS + 3)

/* A TIME and a STATE record: the process records (or not) from now on,
 * because of `why`.  Under the lock; nothing if there is no room (no
 * trace, or another thread took it: then the mark is lost, not the
 * state). */
static void put_state(uint32_t why)
{
    if (!P->events_cur || (uint32_t)(P->events_end - P->events_cur) < STATE_MARK_WORDS)
        return;
    uint32_t units;
    uint32_t *p = put_time_record(P->events_cur, &units, NULL);
    *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_STATE, 2);
    *p++ = LITIFUT_STATE_WORD(!P->recording_off, why);
    *p++ = P->unrecorded;
    P->events_cur = p;
}

/* Recording on or off for `why`, with its mark: the user's state, or
 * the budget's pause; the process records while neither is off.  A
 * budget change that changes nothing leaves no mark.  With every
 * signal blocked. */
static void set_recording(int on, uint32_t why)
{
    if (!tracefile_events_room(STATE_MARK_WORDS))
        return;
    lock_signals_blocked();
    if (why == LITIFUT_STATE_BY_BUDGET)
        P->budget_paused = !on;
    else
        P->user_off = !on;
    uint32_t off = P->user_off || P->budget_paused;
    if (off != P->recording_off || why != LITIFUT_STATE_BY_BUDGET) {
        if (!off && P->recording_off)
            pool_mark_due();    /* (before the sleds: the next record marks the time) */
        if (off != P->recording_off)
            P->recording_changes++;     /* (a signal handler running now ends unrecorded) */
        P->recording_off = off;
        objects_set_recording(!off);
        put_state(why);
    }
    unlock_signals_blocked();
}

void recording_set(int on, uint32_t why)
{
    uint32_t saved[SIGSET_WORDS];
    process_block_signals(saved);
    set_recording(on, why);
    process_restore_signals(saved);
}

void recording_put_state(uint32_t why)
{
    put_state(why);
}

/* A fork child whose recording is off: its STATE record, at its
 * trace's start. */
void recording_mark_start(void)
{
    uint32_t saved[SIGSET_WORDS];
    process_block_signals(saved);
    if (tracefile_events_room(STATE_MARK_WORDS)) {
        lock_signals_blocked();
        put_state(LITIFUT_STATE_AT_START);
        unlock_signals_blocked();
    }
    process_restore_signals(saved);
}
