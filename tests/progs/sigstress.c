/*
 * sigstress.c - signals at random points of the tracer: a second thread
 * sends SIGUSR1 to the main thread as fast as it can while main makes
 * 200000 traced calls; the handler makes traced calls too.  A handler
 * call that interrupts the tracer is executed but not recorded; main's
 * calls must all be recorded, in order, and nothing may hang.  Prints
 * the handler's real call count to stderr for the test to compare.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define CALLS 200000

static volatile unsigned acc;
static volatile sig_atomic_t handled, stop;
static pthread_t main_thread;

NOINLINE void main_marker(unsigned i) { acc += i; }
NOINLINE void handler_marker(unsigned i) { acc ^= i; }

static void on_signal(int sig)
{
    (void)sig;
    handler_marker(handled);
    handled++;
}

static void *pester(void *arg)
{
    (void)arg;
    while (!stop)
        pthread_kill(main_thread, SIGUSR1);
    return NULL;
}

int main(void)
{
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    main_thread = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, pester, NULL);
    for (unsigned i = 0; i < CALLS; i++)
        main_marker(i);
    stop = 1;
    pthread_join(t, NULL);
    printf("done: %u calls\n", CALLS);
    fprintf(stderr, "%d\n", (int)handled);
    return 0;
}
