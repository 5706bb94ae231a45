/*
 * freeze: five threads making calls when the trace is frozen
 * (LITIFUT_SNAPSHOT_SIGNAL=SIGUSR2; tests/ring.sh).
 *
 *   freeze ROUNDS
 *
 * Five workers each make ROUNDS rounds of calls; once every worker has
 * made a quarter of its rounds, the main thread sends the process
 * SIGUSR2 and the workers go on to the end: the freeze comes while
 * every thread is making calls.  Prints the rounds made.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define WORKERS 5

static volatile unsigned sink;
static long rounds;
static volatile long done[WORKERS];

__attribute__((noinline)) static unsigned leaf(unsigned x) { sink += x; return x * 2654435761u; }
__attribute__((noinline)) static unsigned mid(unsigned x) { return leaf(x) ^ leaf(x + 1); }

static void *worker(void *arg)
{
    long id = (long)arg;
    for (long i = 0; i < rounds; i++) {
        mid((unsigned)(i + id));
        done[id] = i + 1;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 20000;
    pthread_t t[WORKERS];
    for (long i = 0; i < WORKERS; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (;;) {
        long least = rounds;
        for (int i = 0; i < WORKERS; i++)
            if (done[i] < least)
                least = done[i];
        if (least >= rounds / 4)
            break;
        usleep(1000);
    }
    kill(getpid(), SIGUSR2);
    long all = 0;
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(t[i], NULL);
        all += done[i];
    }
    printf("%ld rounds\n", all);
    return 0;
}
