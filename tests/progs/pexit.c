/*
 * pexit.c - threads that end inside nested calls: pthread_exit from 6
 * frames deep (glibc unwinds them, forcedly, with the libgcc_s it loads
 * for itself), and a thread cancelled in pause, two calls deep (once
 * it has said it is there: deterministic).  (No cleanup handler: on
 * MIPS glibc enters it as a call from libc, which the oracle's thread
 * matching does not follow.)  With exact returns every one of those
 * frames was hooked: the unwinder must step over the trampolines.  Prints what each
 * thread gave back; exit status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

NOINLINE static void leaf(int i) { sink += i; }

NOINLINE static void deep(int n)
{
    leaf(n);
    if (n == 0)
        pthread_exit((void *)7);
    deep(n - 1);
    leaf(n);
}

static void *exiter(void *arg)
{
    (void)arg;
    deep(5);
    return NULL;
}

static int ready[2];                /* the cancelled thread is in its wait */

NOINLINE static void wait_forever(void)
{
    int state;
    leaf(4);
    /* (write is a cancellation point too: the thread is cancelled in
     * pause, not in write, whenever the main thread is quick) */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &state);
    if (write(ready[1], "", 1) != 1)
        return;
    pthread_setcancelstate(state, NULL);
    for (;;)
        pause();                    /* (a cancellation point) */
}

static void *cancelled(void *arg)
{
    (void)arg;
    for (int i = 0; i < 5; i++)
        leaf(1);
    wait_forever();
    return NULL;
}

int main(void)
{
    pthread_t t;
    void *r;
    for (int i = 0; i < 3; i++) {
        pthread_create(&t, NULL, exiter, NULL);
        pthread_join(t, &r);
        printf("exit %ld\n", (long)r);
    }
    char c;
    if (pipe(ready) != 0)
        return 1;
    pthread_create(&t, NULL, cancelled, NULL);
    if (read(ready[0], &c, 1) != 1)
        return 1;
    pthread_cancel(t);
    pthread_join(t, &r);
    printf("cancelled %d\n", r == PTHREAD_CANCELED);
    leaf(2);
    return 0;
}
