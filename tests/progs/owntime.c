/*
 * owntime.c - a program that times its own functions, for the check
 * that litifut's default trace tells the truth (tests/owntime.sh).
 *
 * Each measured function reads CLOCK_MONOTONIC (clock_gettime, a
 * library call as programs make it) at its entry and at its exit, and
 * keeps per function: calls, total (a recursion counted once, at its
 * outermost frame, as --profile counts it) and self (its time less its
 * measured callees' time).  At the end it prints, per function,
 *
 *   owntime NAME CALLS TOTAL_NS SELF_NS
 *
 * The shapes that fooled inferred returns and interpolated times:
 *   - after_last: a loop after its last call (inferred returns charge
 *     it to the last callee);
 *   - rec: recursion, work before and after the recursive call;
 *   - sleepy: a sleep (nanosleep, a callee: its time is not sleepy's
 *     self), then a short loop;
 *   - tick: many short calls through a function pointer;
 *   - a second thread running alongside the main one.
 * Work is a count of loop rounds, not a time: qemu's speed does not
 * matter, both clocks see the same run.
 *
 * Built with -DOWNTIME_LIB the functions and owntime_run() only (a
 * shared library's code); with -DOWNTIME_MAIN only main(), which calls
 * owntime_run() in that library.  Exit status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noipa))

int owntime_run(void);

#ifndef OWNTIME_MAIN
enum { WORK, AFTER_LAST, REC, SLEEPY, TICK, SIDE, NFUNCS };
static const char *const names[NFUNCS] = {
    "work", "after_last", "rec", "sleepy", "tick", "side",
};

struct tally { long calls; long long total, self; int active; };
struct frame { long long start, callees; struct frame *up; };

static __thread struct tally mine[NFUNCS];      /* this thread's */
static __thread struct frame *top;
static struct tally all[NFUNCS];
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#define BEGIN(f) \
    struct frame fr = { 0, 0, top }; \
    top = &fr; \
    mine[f].active++; \
    fr.start = now_ns()
#define END(f) do { \
    long long d = now_ns() - fr.start; \
    top = fr.up; \
    if (top) top->callees += d; \
    mine[f].calls++; \
    mine[f].self += d - fr.callees; \
    if (--mine[f].active == 0) mine[f].total += d; \
} while (0)

static volatile unsigned sink;

static void spin(unsigned rounds)  /* inlined: a loop, no call */
{
    unsigned x = sink;
    for (unsigned i = 0; i < rounds; i++)
        x = x * 1103515245u + 12345u;
    sink = x;
}

static NOINLINE void work(unsigned rounds)
{
    BEGIN(WORK);
    spin(rounds);
    END(WORK);
}

static NOINLINE void after_last(unsigned rounds)
{
    BEGIN(AFTER_LAST);
    work(rounds / 4);
    work(rounds / 4);
    spin(2 * rounds);           /* after its last call */
    END(AFTER_LAST);
}

static NOINLINE void rec(int depth, unsigned rounds)
{
    BEGIN(REC);
    spin(rounds);
    if (depth > 0)
        rec(depth - 1, rounds);
    spin(rounds / 2);
    END(REC);
}

static NOINLINE void sleepy(void)
{
    BEGIN(SLEEPY);
    struct timespec ts = { 0, 30 * 1000000 };
    long long slept = now_ns();
    nanosleep(&ts, NULL);       /* a callee: not sleepy's self */
    fr.callees += now_ns() - slept;
    spin(200000);
    END(SLEEPY);
}

static NOINLINE void tick(unsigned rounds)
{
    BEGIN(TICK);
    spin(rounds);
    END(TICK);
}
static void (*volatile tick_ptr)(unsigned) = tick;

static NOINLINE void side(void)
{
    BEGIN(SIDE);
    for (int i = 0; i < 3; i++)
        after_last(4000000);
    rec(5, 600000);
    spin(3000000);
    END(SIDE);
}

static void merge(void)
{
    pthread_mutex_lock(&all_lock);
    for (int f = 0; f < NFUNCS; f++) {
        all[f].calls += mine[f].calls;
        all[f].total += mine[f].total;
        all[f].self += mine[f].self;
    }
    pthread_mutex_unlock(&all_lock);
}

static void *side_thread(void *arg)
{
    (void)arg;
    side();
    merge();
    return NULL;
}

int owntime_run(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, side_thread, NULL) != 0)
        return 1;
    for (int i = 0; i < 4; i++)
        after_last(3000000);
    rec(7, 500000);
    sleepy();
    for (int i = 0; i < 200; i++)
        tick_ptr(40000);
    work(5000000);
    pthread_join(t, NULL);
    merge();
    for (int f = 0; f < NFUNCS; f++)
        printf("owntime %s %ld %lld %lld\n", names[f], all[f].calls, all[f].total, all[f].self);
    return 0;
}
#endif

#ifndef OWNTIME_LIB
int main(void)
{
    return owntime_run();
}
#endif
