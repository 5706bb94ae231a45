/*
 * ringrun: a long run for the flight recorder (tests/ring.sh).
 *
 *   ringrun ROUNDS MODE
 *
 * The main thread and three workers each make ROUNDS rounds of calls
 * (a short recursion, calls through a table of functions), so a run
 * makes far more calls than a small ring holds.  MODE says how the run
 * ends once the workers are joined: exit (status 0), segv (a NULL
 * store: SIGSEGV), snapshot (a call of snapshot_here() halfway through
 * the main thread's rounds, then on to the end; $RINGRUN_CONTROL: see
 * there), spin (a loop without
 * calls after the rounds, until SIGUSR1 (then exit) or for ever: the
 * test kills it; its calls are exit's).  Deterministic per thread.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned sink;
static volatile sig_atomic_t spin_over;

static void on_usr1(int sig)
{
    (void)sig;
    spin_over = 1;
}

__attribute__((noinline)) static unsigned leaf(unsigned x) { return x * 2654435761u; }
__attribute__((noinline)) static unsigned odd(unsigned x) { return leaf(x) ^ 1; }
__attribute__((noinline)) static unsigned even(unsigned x) { return leaf(x + 7); }
__attribute__((noinline)) static unsigned deep(unsigned n, unsigned x)
{
    return n ? deep(n - 1, x + n) + leaf(x) : leaf(x);
}

static unsigned (*const table[])(unsigned) = { odd, even, leaf };

/* Mode snapshot's halfway call (LITIFUT_SNAPSHOT_AT's function), which
 * also writes `snapshot` into the file $RINGRUN_CONTROL names (a
 * LITIFUT_CONTROL file), if set. */
__attribute__((noinline)) void snapshot_here(unsigned round)
{
    const char *control = getenv("RINGRUN_CONTROL");
    FILE *f = control ? fopen(control, "w") : NULL;
    if (f) {
        fputs("snapshot\n", f);
        fclose(f);
    }
    sink = round;
}

static long rounds;

/* A round's calls depend on the thread's running value: no period
 * that a stretch of the trace could match at the wrong place. */
__attribute__((noinline)) static unsigned round_of(unsigned v)
{
    v = v * 1103515245u + 12345u;
    v += deep((v >> 8) % 5, v);
    for (unsigned k = 0; k < 3; k++)
        v += table[(v >> 16) % 3](v);
    return v;
}

static void *worker(void *arg)
{
    unsigned v = (unsigned)(uintptr_t)arg;
    for (long r = 0; r < rounds; r++)
        v = round_of(v);
    sink = v;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ringrun ROUNDS exit|segv|snapshot|spin\n");
        return 2;
    }
    rounds = atol(argv[1]);
    const char *mode = argv[2];
    int spin = strcmp(mode, "spin") == 0;       /* (every mode makes the same calls) */
    signal(SIGUSR1, on_usr1);       /* (in every mode: the same calls) */
    pthread_t t[3];
    for (uintptr_t i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    unsigned v = 100;
    for (long r = 0; r < rounds; r++) {
        v = round_of(v);
        if (r == rounds / 2 && strcmp(mode, "snapshot") == 0)
            snapshot_here((unsigned)r);
    }
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    printf("ringrun %s %ld rounds: %u\n", mode, rounds, v);
    fflush(stdout);
    while (spin && !spin_over)
        sink++;
    if (strcmp(mode, "segv") == 0)
        *(volatile int *)(uintptr_t)(sink & 0xffcu) = 0;   /* no page there */
    return 0;
}
