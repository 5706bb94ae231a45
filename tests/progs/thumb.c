/*
 * thumb.c (ARM only) - interworking: ARM code calls Thumb functions
 * directly (blx imm, rewritten) and through pointers (blx reg with bit 0
 * set, rewritten); the Thumb functions call back into ARM code (their
 * calls are Thumb code: left alone and counted).  Exit status 0.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define THUMB __attribute__((target("thumb"), noinline))
#define ARMFN __attribute__((target("arm"), noinline))

static volatile unsigned acc;

ARMFN unsigned arm_leaf(unsigned x) { acc += x; return x * 3; }
THUMB unsigned thumb_leaf(unsigned x) { return x + 11; }
THUMB unsigned thumb_calls_arm(unsigned x) { return arm_leaf(x) + arm_leaf(x + 1); }

static unsigned (*volatile table[3])(unsigned) = { thumb_leaf, thumb_calls_arm, arm_leaf };

ARMFN int main(void)
{
    unsigned h = 0;
    for (unsigned i = 0; i < 10; i++) {
        h += thumb_leaf(i);             /* blx imm */
        h += thumb_calls_arm(i);        /* blx imm, then Thumb -> ARM */
        h += table[i % 3](i);           /* blx reg, to Thumb or ARM */
    }
    printf("h=%u acc=%u\n", h, acc);
    return 0;
}
