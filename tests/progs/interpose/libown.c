/*
 * libown.c - a library that calls its own exported functions, for the
 * check that such calls stay calls through the GOT (tests/linking.sh,
 * linking_interpose_case): another object may define them first (here
 * preload.c, LD_PRELOADed), and the call must reach that definition.
 * own_hidden cannot be preempted: its call may go as a fixed one.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noipa))

NOINLINE int own_public(int x) { return x + 1; }
__attribute__((visibility("hidden"))) NOINLINE int own_hidden(int x) { return x * 3; }

NOINLINE int own_use(int x)
{
    return own_public(x) * 100 + own_hidden(x);
}
