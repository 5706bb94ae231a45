/*
 * LITIFUT_BUDGET=B/T, a time budget as in DIME (seed 002): in each
 * period of T the tracer's own time may not exceed B; once it has,
 * recording pauses (the sleds go to the paused path: the "off" cost and
 * a count of the calls) until the next period begins.
 *
 * The tracer's time is reckoned, not clocked per call: a clock read
 * costs more than recording a call.  Each thread's refill (every
 * LITIFUT_TIME_EVERY record words, 256 with a clock per call) charges the words
 * recorded since its last refill at a cost per word calibrated at start
 * (litifut_calibrate runs a call's worth of the hot path's instructions
 * and memory accesses), and its own time, clocked (and a clock read's
 * calibrated cost: the part of its two reads outside that time).
 * Chunks are mapped with their pages populated, so that their page faults are refill
 * time, clocked too.  The budget is the process's: its threads' tracer
 * time together.  A pause starts at the refill that finds the budget
 * spent (the overshoot: at most one refill interval per thread) and
 * ends at the first paused-path poll of a period that has budget left
 * (every 2^PAUSED_POLL_BITS calls, or a slow-path call).  Pausing and
 * resuming (every sled rewritten) are tracer time too, clocked and
 * charged; what a period spends beyond B is owed, and paid off by the
 * periods after it, B each: so whatever B and T are, even B below what
 * one switch costs, the tracer's time stays within B per T on average
 * and the program goes on (a budget too small for the machine only
 * makes the pauses longer).  Each pause and resumption is a STATE
 * record (LITIFUT_STATE_BY_BUDGET) with the count of calls not
 * recorded; a BUDGET record says B, T and the cost.
 */
#include <stdint.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"
#include "litifut/trace-format.h"

#define P (litifut_copy.proc)

#define UNIT_SHIFT         4        /* spent time is counted in units of 16 ns */
#define CALIBRATE_ROUNDS   1024u    /* so that ns for them all is ns/1024 per round */
#define CALIBRATE_RUNS     3
#define SPENT_MAX          0x7fffffffu  /* units: 34 s of debt at most */

/* The cost of a recorded call word, in ns/1024: the fastest of a few
 * runs (the first translates or faults its code in; a run may be
 * interrupted).  (No division anywhere: the tracer has no libgcc.) */
static uint32_t calibrate_word_cost(void)
{
    uint32_t scratch[8] = { 0, 0, 0, 0, 0, 0, 1, 0 };
    scratch[0] = (uint32_t)(uintptr_t)scratch;
    uint64_t best = ~(uint64_t)0;
    for (int i = 0; i < CALIBRATE_RUNS; i++) {
        uint64_t t0 = sys_monotonic_ns();
        litifut_calibrate(CALIBRATE_ROUNDS, scratch);
        uint64_t d = sys_monotonic_ns() - t0;
        if (d < best)
            best = d;
    }
    return best > 0xffffffffu ? 0xffffffffu : (uint32_t)best;
}

/* A clock read's cost in ns: each refill's two reads add about one
 * read that falls outside the time between them. */
static uint32_t calibrate_clock_cost(void)
{
    uint64_t t0 = sys_monotonic_ns();
    for (int i = 0; i < 8; i++)
        sys_monotonic_ns();
    uint64_t d = (sys_monotonic_ns() - t0) >> 3;
    return d > 1000000 ? 1000000 : (uint32_t)d;
}

/* The BUDGET record, once per trace (a fork child's trace too: its
 * first refill or poll writes it). */
static void put_budget(void)
{
    const struct settings *st = &P->settings;
    uint32_t words = 4;
    if (!tracefile_events_room(words))
        return;
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    if (!P->budget_emitted && (uint32_t)(P->events_end - P->events_cur) >= words) {
        uint32_t *p = P->events_cur;
        *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_BUDGET, 3);
        *p++ = st->budget_us;
        *p++ = st->period_us;
        *p++ = P->word_cost;
        P->events_cur = p;
        P->budget_emitted = 1;
    }
    unlock(mask);
}

void budget_start(void)
{
    const struct settings *st = &P->settings;
    if (!st->budget_us)         /* (none with a LITIFUT_MODE but full: settings.c) */
        return;
    uint32_t cost = calibrate_word_cost(), clock_cost = calibrate_clock_cost();
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    P->word_cost = cost;
    P->clock_cost = clock_cost;
    P->period_ns = (uint64_t)st->period_us * 1000;
    P->period_end = sys_monotonic_ns() + P->period_ns;
    P->spent = 0;
    /* (below 2^32: B < T <= 60 s) */
    P->budget_units = (uint32_t)((uint64_t)st->budget_us * 1000 >> UNIT_SHIFT);
    unlock(mask);
    put_budget();
}

/* Adds `ns` of tracer time to this period's; returns the total. */
static uint32_t charge(uint64_t ns)
{
    uint64_t units = ns >> UNIT_SHIFT;
    uint32_t add = units > SPENT_MAX ? SPENT_MAX : (uint32_t)units, n;
    do
        n = P->spent;
    while (!arch_cmpxchg(&P->spent, n, n + add > SPENT_MAX ? SPENT_MAX : n + add));
    return n + add > SPENT_MAX ? SPENT_MAX : n + add;
}

/* Recording paused or resumed by the budget: the switch (every copy's
 * sleds rewritten, their caches flushed) is tracer time too, clocked
 * and charged, so that however small B is next to what a switch costs
 * on this machine, the tracer stays within B per T on average. */
static void budget_switch(int on)
{
    uint64_t t0 = sys_monotonic_ns();
    recording_set(on, LITIFUT_STATE_BY_BUDGET);
    charge(sys_monotonic_ns() - t0 + P->clock_cost);
}

/* The periods that have passed by `now` pay off what was spent beyond
 * the budget (B each; what a period leaves unspent is not saved up),
 * and recording resumes once this period has budget left.  Lock-free
 * reads of period_end may see it half-written: then this takes the
 * lock for nothing, or looks again at the next refill or poll. */
static void budget_period(uint64_t now)
{
    if (now < P->period_end)
        return;
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    int resume = 0;
    if (now >= P->period_end) {
        uint64_t periods = udiv64(now - P->period_end, P->period_ns) + 1;
        P->period_end += periods * P->period_ns;
        uint64_t paid = periods * P->budget_units;
        uint32_t n;
        do
            n = P->spent;
        while (!arch_cmpxchg(&P->spent, n, n > paid ? n - (uint32_t)paid : 0));
        resume = P->budget_paused && P->spent < P->budget_units;
    }
    unlock(mask);
    if (resume)
        budget_switch(1);
}

uint64_t budget_refill_start(const struct litifut_thread *t, uint32_t *words)
{
    const struct litifut_process *p = P;
    *words = t->budget_from && t->budget_from >= t->chunk && t->budget_from <= t->cur
             ? (uint32_t)(t->cur - t->budget_from) : 0;
    return p && p->budget_units ? sys_monotonic_ns() : 0;
}

void budget_refill_end(struct litifut_thread *t, uint32_t words, uint64_t start)
{
    if (!P->budget_emitted)
        put_budget();
    uint64_t now = sys_monotonic_ns();
    budget_period(now);
    uint32_t spent = charge(((uint64_t)words * P->word_cost >> 10) + (now - start) +
                            P->clock_cost);
    t->budget_from = t->cur;
    if (spent >= P->budget_units && !P->budget_paused && !P->recording_off)
        budget_switch(0);
}

void budget_poll(void)
{
    if (P->budget_units && !P->budget_emitted)
        put_budget();
    if (P->budget_paused)
        budget_period(sys_monotonic_ns());
}
