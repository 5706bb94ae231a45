/* Recording on and off by signal (tests/onoff.sh): 100 calls of
 * a_marker, SIGUSR2 to itself, 200 of b_marker (in two threads), SIGUSR2
 * again, 300 of c_marker.  With LITIFUT_SIGNAL=SIGUSR2 the b calls are
 * not recorded; with LITIFUT_RECORD=off as well, only they are.  (No
 * handler of its own: the tracer's takes SIGUSR2, as it would a `kill
 * -USR2` from outside; a plain run ends there.) */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

static volatile int sink;

static __attribute__((noinline)) void a_marker(int i) { sink += i; }
static __attribute__((noinline)) void b_marker(int i) { sink ^= i; }
static __attribute__((noinline)) void c_marker(int i) { sink -= 2 * i; }

static void *b_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        b_marker(i);
    return NULL;
}

int main(void)
{
    for (int i = 0; i < 100; i++)
        a_marker(i);
    raise(SIGUSR2);
    pthread_t t;
    pthread_create(&t, NULL, b_thread, NULL);
    for (int i = 0; i < 100; i++)
        b_marker(i);
    pthread_join(t, NULL);
    raise(SIGUSR2);
    for (int i = 0; i < 300; i++)
        c_marker(i);
    printf("sink %d\n", sink);
    return 0;
}
