/*
 * sigcount: N signal deliveries, each handler making a call (tests/emu.sh).
 *
 *   sigcount N h|i
 *
 * main raises SIGUSR1 N times; the handler calls tick() (with i,
 * SIGUSR1 is ignored: the same code runs, but no handler).  Under
 * litifut-emu (instruction clock) the <signal SIGUSR1> frames must hold
 * exactly the instructions the deliveries add (insncount's difference
 * between the two): no delivery's instructions lost from the clock.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int hits;

__attribute__((noinline)) void tick(void) { hits++; }

static void on_usr1(int sig)
{
    (void)sig;
    tick();
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 0;
    signal(SIGUSR1, argc > 2 && argv[2][0] == 'i' ? SIG_IGN : on_usr1);
    for (int i = 0; i < n; i++)
        raise(SIGUSR1);
    printf("%02d\n", hits);
    return 0;
}
