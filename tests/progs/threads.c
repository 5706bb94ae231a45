/*
 * threads.c - pthreads for the call tracer: 4 worker threads record
 * calls at the same time (small helpers 2000 times each, a recursive
 * helper every 100 iterations).
 *
 * The test compares a traced run with a separate oracle run, and in a
 * static program the C library's own calls are traced too, so the
 * program keeps libc's internal paths independent of thread timing:
 * all threads are created before any runs (they wait on a flag, with
 * no calls), none ever exits (an exiting thread changes what a later
 * pthread_create does), and no lock is shared (contention takes extra
 * calls in libc).  Workers publish results through their own slots and
 * then park; main prints in index order and exits.  Exit status 0.
 */
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define NTHREADS 4
#define ITERS 2000

struct worker {
    int index;
    unsigned result;
    int recursions;
    long bumps;
    volatile int done;
};

static volatile int go;

NOINLINE static unsigned mix(unsigned h, unsigned v) { return (h ^ v) * 16777619u; }
NOINLINE static unsigned square_mod(unsigned x) { return (x * x) % 10007u; }
NOINLINE static unsigned step(unsigned h, int i) { return mix(h, square_mod((unsigned)i)); }

NOINLINE static unsigned tri(unsigned n)        /* recursive: 0+1+...+n */
{
    return n == 0 ? 0 : n + tri(n - 1);
}

NOINLINE static void bump(struct worker *w)
{
    w->bumps++;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    while (!go)
        ;                                   /* start together, without calls */
    unsigned h = 2166136261u + (unsigned)w->index;
    for (int i = 0; i < ITERS; i++) {
        h = step(h, i + w->index);
        if (i % 100 == 0) {
            h += tri((unsigned)(8 + w->index));
            w->recursions++;
        }
        if (i % 4 == 0)
            bump(w);
    }
    w->result = h;
    w->done = 1;
    for (;;)
        ;                                   /* park: main's exit ends us */
    return NULL;
}

int main(void)
{
    static struct worker workers[NTHREADS];
    pthread_t tid;
    for (int i = 0; i < NTHREADS; i++) {
        workers[i].index = i;
        if (pthread_create(&tid, NULL, worker_main, &workers[i]) != 0) {
            puts("pthread_create failed");
            return 1;
        }
    }
    go = 1;
    unsigned total = 0;
    long bumps = 0;
    for (int i = 0; i < NTHREADS; i++) {
        while (!workers[i].done)
            ;
        printf("thread %d: result=%08x recursions=%d\n", i, workers[i].result,
               workers[i].recursions);
        total ^= workers[i].result;
        bumps += workers[i].bumps;
    }
    printf("bumps=%ld (expected %d)\n", bumps, NTHREADS * ITERS / 4);
    printf("total=%08x\n", total);
    return 0;
}
