/* Recording on and off (tests/onoff.sh): 100 calls of a_marker,
 * SIGUSR2 to itself, 200 of b_marker (in two threads), SIGUSR2 again,
 * 300 of c_marker.  With LITIFUT_SIGNAL=SIGUSR2 the b calls are not
 * recorded; with LITIFUT_RECORD=off as well, only they are.  (No
 * handler of its own: the tracer's takes SIGUSR2, as it would a `kill
 * -USR2` from outside; a plain run ends there.)  With the argument
 * "functions", boot_start() and boot_done() take the signals' places,
 * for LITIFUT_START_AT and LITIFUT_STOP_AT.  With "control FILE": it
 * writes "on" to FILE, makes 20000 calls of b_marker, writes "off",
 * 100000 of c_marker: for LITIFUT_CONTROL=FILE, which the tracer polls
 * (while off every 4096 calls, while on every 64 time marks). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static void say_to(const char *path, const char *what)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(what, f);
        fclose(f);
    }
}

static volatile int sink;

static __attribute__((noinline)) void a_marker(int i) { sink += i; }
static __attribute__((noinline)) void b_marker(int i) { sink ^= i; }
static __attribute__((noinline)) void c_marker(int i) { sink -= 2 * i; }

static __attribute__((noinline)) void boot_start(void) { sink++; }
static __attribute__((noinline)) void boot_done(void) { sink--; }

static void *b_thread(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++)
        b_marker(i);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "control") == 0) {
        for (int i = 0; i < 100; i++)
            a_marker(i);
        say_to(argv[2], "on\n");
        for (int i = 0; i < 20000; i++)
            b_marker(i);
        say_to(argv[2], "off\n");
        for (int i = 0; i < 100000; i++)
            c_marker(i);
        printf("sink %d\n", sink);
        return 0;
    }
    int functions = argc > 1 && strcmp(argv[1], "functions") == 0;
    for (int i = 0; i < 100; i++)
        a_marker(i);
    if (functions)
        boot_start();
    else
        raise(SIGUSR2);
    pthread_t t;
    pthread_create(&t, NULL, b_thread, NULL);
    for (int i = 0; i < 100; i++)
        b_marker(i);
    pthread_join(t, NULL);
    if (functions)
        boot_done();
    else
        raise(SIGUSR2);
    for (int i = 0; i < 300; i++)
        c_marker(i);
    printf("sink %d\n", sink);
    return 0;
}
