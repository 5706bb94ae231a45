/*
 * thumb.c (ARM only) - interworking: ARM code calls Thumb functions
 * directly (blx imm) and through pointers (blx reg with bit 0 set); the
 * Thumb functions call ARM code (Thumb blx imm) and Thumb code (bl),
 * also conditionally, inside IT blocks, and through pointers (16-bit
 * blx rM).  Exit status 0.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define THUMB __attribute__((target("thumb"), noinline))
#define ARMFN __attribute__((target("arm"), noinline))

static volatile unsigned acc;

ARMFN unsigned arm_leaf(unsigned x) { acc += x; return x * 3; }
THUMB unsigned thumb_leaf(unsigned x) { return x + 11; }
THUMB unsigned thumb_calls_arm(unsigned x) { return arm_leaf(x) + arm_leaf(x + 1); }
/* Calls inside IT blocks (gcc does not make them from C; Thumb-2 only,
 * armv5te's Thumb has no IT): r = x, + 11 if x is odd (bl to Thumb);
 * then r * 3 if bit 1 of r is set (the linker makes that bl a blx to
 * ARM code). */
THUMB unsigned thumb_it(unsigned x)
{
#if __ARM_ARCH_ISA_ALT >= 2
    register unsigned r0 __asm__("r0") = x;
    __asm__ volatile("tst   r0, #1\n\t"
                     "it    ne\n\t"
                     "blne  thumb_leaf\n\t"
                     "mov   r1, r0\n\t"
                     "tst   r0, #2\n\t"
                     "itt   ne\n\t"
                     "movne r4, r4\n\t"
                     "blne  arm_leaf\n\t"
                     : "+r"(r0) : : "r1", "r2", "r3", "r12", "lr", "cc", "memory");
    return r0;
#else
    unsigned r = x & 1 ? thumb_leaf(x) : x;
    return r & 2 ? arm_leaf(r) : r;
#endif
}

static unsigned (*volatile table[3])(unsigned) = { thumb_leaf, thumb_calls_arm, arm_leaf };
THUMB unsigned thumb_via_pointer(unsigned x) { return table[x % 3](x) + 1; }

ARMFN int main(void)
{
    unsigned h = 0;
    for (unsigned i = 0; i < 10; i++) {
        h += thumb_leaf(i);             /* blx imm */
        h += thumb_calls_arm(i);        /* blx imm, then Thumb -> ARM */
        h += table[i % 3](i);           /* blx reg, to Thumb or ARM */
        h += thumb_it(i) + thumb_via_pointer(i);
    }
    printf("h=%u acc=%u\n", h, acc);
    return 0;
}
