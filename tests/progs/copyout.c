/* LITIFUT_COPY_TO's test program (tests/copyout.sh): some calls, then
 * the process ends as argv[1] says: "exit" (returns from main),
 * "thread-exit" (a second thread calls exit), "term" (SIGTERM to
 * itself, default action), "segv" (a fault, default action), "kill"
 * (SIGKILL to itself: no handler runs; tests/modes.sh). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __attribute__((noinline)) int work(int i)
{
    return i * 7 % 13;
}

static int calls(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += work(i);
    return s;
}

static void *exiting_thread(void *arg)
{
    (void)arg;
    printf("thread: %d\n", calls(500));
    fflush(stdout);
    exit(5);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "exit";
    printf("main: %d\n", calls(1000));
    fflush(stdout);
    if (strcmp(how, "thread-exit") == 0) {
        pthread_t t;
        pthread_create(&t, NULL, exiting_thread, NULL);
        pthread_join(t, NULL);
    } else if (strcmp(how, "term") == 0) {
        kill(getpid(), SIGTERM);
    } else if (strcmp(how, "kill") == 0) {
        kill(getpid(), SIGKILL);
    } else if (strcmp(how, "segv") == 0) {
        *(volatile int *)(uintptr_t)calls(0) = 1;
    }
    return 0;
}
