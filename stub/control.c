/*
 * Recording on and off while the program runs: LITIFUT_SIGNAL=SIG
 * toggles it, LITIFUT_RECORD=off starts with it off.  Off, every copy's
 * sleds go to the "off" code (the cost of finding the target) and the
 * slow path records nothing; on, back to the hot path the copy chose.
 * Each change is a STATE record, after a TIME record, in the process's
 * own chunks (thread id 0; trace-format.h), so the reader knows the
 * windows.
 */
#include <stdint.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/trace-format.h"

#define P (litifut_copy.proc)

extern int sigaction(int, const struct sigaction *, struct sigaction *);

#define STATE_MARK_WORDS (TIME_MARK_WORDS + 2)

/* Room for a mark in the process's chunk; a new chunk if not.  With
 * every signal blocked and the lock not held (opening the trace and
 * claiming a chunk take it); two threads claiming at once waste one
 * chunk, nothing else. */
static int events_room(void)
{
    if (!tracefile_start())
        return 0;               /* (a fork child's trace starts here, if not yet) */
    lock_signals_blocked();
    int room = P->events_cur && (uint32_t)(P->events_end - P->events_cur) >= STATE_MARK_WORDS;
    unlock_signals_blocked();
    if (room)
        return 1;
    struct chunk c;
    if (!tracefile_new_chunk(0, &c))
        return 0;
    lock_signals_blocked();
    if (!P->events_cur || (uint32_t)(P->events_end - P->events_cur) < STATE_MARK_WORDS) {
        P->events_cur = c.base + sizeof(struct litifut_chunk_header) / 4;
        P->events_end = c.end;
    }
    unlock_signals_blocked();
    return 1;
}

/* A TIME and a STATE record: the process records (or not) from now on,
 * because of `why`.  Under the lock, with room made. */
static void put_state(uint32_t why)
{
    uint32_t units;
    uint32_t *p = put_time_record(P->events_cur, &units);
    *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_STATE, 1);
    *p++ = LITIFUT_STATE_WORD(!P->recording_off, why);
    P->events_cur = p;
}

/* Every live copy's sleds as `on` says.  Under the lock. */
static void set_sleds(int on)
{
    for (uint32_t i = 0; i < P->n_objects; i++)
        if (P->objects[i].live && P->objects[i].set_recording)
            P->objects[i].set_recording(on);
}

/* Recording on or off, with its mark.  With every signal blocked. */
static void set_recording(int on, uint32_t why)
{
    if (!events_room())
        return;
    lock_signals_blocked();
    P->recording_off = !on;
    set_sleds(on);
    if ((uint32_t)(P->events_end - P->events_cur) >= STATE_MARK_WORDS)
        put_state(why);
    unlock_signals_blocked();
}

static void on_toggle_signal(int sig)
{
    (void)sig;
    uint32_t saved[SIGSET_WORDS];
    process_block_signals(saved);
    set_recording(P->recording_off, LITIFUT_STATE_BY_SIGNAL);
    process_restore_signals(saved);
}

void control_start(void)
{
    const struct settings *st = tracefile_settings();
    if ((!st->toggle_signal && !st->record_off) || !tracefile_start())
        return;
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    int first = !P->control_started;
    P->control_started = 1;
    unlock(mask);
    if (!first)
        return;
    process_block_signals(mask);
    set_recording(!st->record_off, LITIFUT_STATE_AT_START);
    process_restore_signals(mask);
    if (st->toggle_signal) {
        /* SA_RESTART: the program's system calls go on as if no signal came */
        struct sigaction sa = { .sa_handler = on_toggle_signal, .sa_flags = SA_RESTART };
        sigaction(st->toggle_signal, &sa, 0);
    }
}
