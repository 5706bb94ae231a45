/*
 * sigjump.c - signal handlers that leave with siglongjmp, abandoning
 * whatever they interrupted, the tracer included.  SIGALRM arrives
 * every 150 us (a real-time interval timer); the handler makes traced
 * calls, then jumps back to the loop of the thread it interrupted.  Two
 * threads loop over traced calls of worker_marker.  The tracer must
 * recover from each abandoned call (never stop recording, never hang
 * on a lock left held): every call that reached worker_marker must be
 * recorded.  A call the tracer had recorded but not yet passed on when
 * the jump came never reaches worker_marker, so the trace may hold at
 * most one extra call per jump.  Prints, per line:
 *   executed N      calls that reached worker_marker, both threads
 *   jumps N         siglongjmp's taken
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))
#define CALLS 150000

static __thread sigjmp_buf loop_env;
static __thread volatile int in_loop;
static __thread volatile unsigned long executed;
static volatile unsigned long jumps[2], total_executed[2];
static volatile unsigned acc;

NOINLINE void worker_marker(unsigned i) { acc += i; executed++; }
NOINLINE void handler_marker(unsigned i) { acc ^= i; }

static void on_alarm(int sig)
{
    (void)sig;
    for (unsigned i = 0; i < 3; i++)
        handler_marker(i);
    if (in_loop)
        siglongjmp(loop_env, 1);
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    volatile unsigned i = 0;
    if (sigsetjmp(loop_env, 1))
        jumps[id]++;
    in_loop = 1;
    while (i < CALLS) {
        worker_marker(i);
        i++;
    }
    in_loop = 0;
    total_executed[id] = executed;
    return NULL;
}

int main(void)
{
    struct sigaction sa = { .sa_handler = on_alarm };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval every = { { 0, 150 }, { 0, 150 } };
    setitimer(ITIMER_REAL, &every, NULL);
    pthread_t t;
    pthread_create(&t, NULL, worker, (void *)1L);
    worker((void *)0L);
    pthread_join(t, NULL);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &off, NULL);
    printf("executed %lu\njumps %lu\n", total_executed[0] + total_executed[1],
           jumps[0] + jumps[1]);
    return 0;
}
