/*
 * threads.c - pthreads for the call tracer: 4 worker threads each call
 * small helper functions 2000 times (plus a recursive helper every 100
 * iterations) and bump a mutex-protected shared counter.  Results are
 * printed only after all threads are joined, in thread-index order, so
 * the output is deterministic.  Exits with status 0.
 */
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define NTHREADS 4
#define ITERS 2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long shared_counter;

struct worker {
    int index;
    unsigned result;
    int recursions;
};

NOINLINE static unsigned mix(unsigned h, unsigned v) { return (h ^ v) * 16777619u; }
NOINLINE static unsigned square_mod(unsigned x) { return (x * x) % 10007u; }
NOINLINE static unsigned step(unsigned h, int i) { return mix(h, square_mod((unsigned)i)); }

NOINLINE static unsigned tri(unsigned n)        /* recursive: 0+1+...+n */
{
    return n == 0 ? 0 : n + tri(n - 1);
}

NOINLINE static void bump_shared(void)
{
    pthread_mutex_lock(&lock);
    shared_counter++;
    pthread_mutex_unlock(&lock);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    unsigned h = 2166136261u + (unsigned)w->index;
    for (int i = 0; i < ITERS; i++) {
        h = step(h, i + w->index);
        if (i % 100 == 0) {
            h += tri((unsigned)(8 + w->index));
            w->recursions++;
        }
        if (i % 4 == 0)
            bump_shared();
    }
    w->result = h;
    return NULL;
}

int main(void)
{
    pthread_t tids[NTHREADS];
    struct worker workers[NTHREADS];

    for (int i = 0; i < NTHREADS; i++) {
        workers[i].index = i;
        workers[i].result = 0;
        workers[i].recursions = 0;
        if (pthread_create(&tids[i], NULL, worker_main, &workers[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(tids[i], NULL);

    unsigned total = 0;
    for (int i = 0; i < NTHREADS; i++) {
        printf("thread %d: result=%08x recursions=%d\n",
               workers[i].index, workers[i].result, workers[i].recursions);
        total += workers[i].result;
    }
    printf("shared counter=%ld (expected %d)\n", shared_counter, NTHREADS * ITERS / 4);
    printf("total=%08x\n", total);
    return 0;
}
