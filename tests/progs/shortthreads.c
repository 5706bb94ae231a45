/*
 * shortthreads.c - many short-lived threads: THREADS threads, at most 8
 * alive at once, each making CALLS calls of one marker.  The trace must
 * hold every call, and its size must grow with the calls made, not
 * with a whole chunk per thread.  Exit status 0.  SECONDS: it then
 * waits that long (its threads gone, it lives on) and says "slept".
 *
 *   shortthreads THREADS CALLS [SECONDS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned acc;
static int calls;

NOINLINE void thread_marker(unsigned i) { acc += i; }

static void *run(void *arg)
{
    (void)arg;
    for (int i = 0; i < calls; i++)
        thread_marker((unsigned)i);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int threads = atoi(argv[1]);
    calls = atoi(argv[2]);
    pthread_t t[8];
    for (int i = 0; i < threads; i += 8) {
        int n = threads - i < 8 ? threads - i : 8;
        for (int k = 0; k < n; k++)
            if (pthread_create(&t[k], NULL, run, NULL) != 0)
                return 1;
        for (int k = 0; k < n; k++)
            pthread_join(t[k], NULL);
    }
    printf("%d threads of %d calls\n", threads, calls);
    fflush(stdout);
    if (argc > 3) {
        sleep((unsigned)atoi(argv[3]));
        printf("slept\n");
    }
    return 0;
}
