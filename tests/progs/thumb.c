/*
 * thumb.c (ARM only) - interworking: ARM code calls Thumb functions
 * directly (blx imm) and through pointers (blx reg with bit 0 set); the
 * Thumb functions call ARM code (Thumb blx imm) and Thumb code (bl),
 * also conditionally, inside IT blocks, and through pointers (16-bit
 * blx rM).  On Thumb-2, the 16-bit blx rM of functions with computed
 * jumps GCC makes: a switch over a table of word offsets (its cases
 * before it: no tbb) and a sibling call through a register; in a
 * function that jumps through a table of its labels' addresses (glibc's
 * vfprintf); and after an instruction that reads lr.  Exit
 * status 0.
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

#if __ARM_ARCH_ISA_THUMB >= 2
/* GCC's forms, by hand: switch_words(x, f) is f(x + 5) for even x,
 * f(x + 7) for odd, its switch an adr, ldr.w, add, bx over a table of
 * words (target - table, Thumb bit set); sibling(x, f, g) is
 * g(f(x + 1) + 2), g by a jump after lr comes back from the stack
 * (sibling_late: the same, one instruction between).
 * Each has a 16-bit blx rM after an instruction that can move.
 * lr_scratch(x, fns) is fns[0](x) + fns[1](fns[0](x)), its blx rM after
 * an instruction that reads lr (GCC's scratch register), a 32-bit one
 * and a 16-bit one.  label_table(x, f) is switch_words' sum by a
 * computed goto: bx of a word from a table of its labels' addresses in
 * .data.rel.ro (relocated in a PIE), reached position-independently.
 * loaded_sibling(x, fns) is fns[1](x) for odd x, by a jump through the
 * pointer just loaded before anything is saved (a sibling call where
 * lr was never pushed), else fns[0](x + 1) + 2. */
unsigned switch_words(unsigned x, unsigned (*f)(unsigned));
unsigned sibling(unsigned x, unsigned (*f)(unsigned), unsigned (*g)(unsigned));
unsigned sibling_late(unsigned x, unsigned (*f)(unsigned), unsigned (*g)(unsigned));
__asm__(".pushsection .text\n"
        ".syntax unified\n"
        ".thumb\n"
        ".p2align 2\n"
        ".global switch_words\n"
        ".type switch_words, %function\n"
        ".thumb_func\n"
        "switch_words:\n"
        "    push    {r4, lr}\n"
        "    mov     r4, r1\n"
        "    b       3f\n"
        "1:  adds    r0, r0, #5\n"
        "    b       4f\n"
        "2:  adds    r0, r0, #7\n"
        "    b       4f\n"
        "3:  and     r3, r0, #1\n"
        "    adr     r2, 5f\n"
        "    ldr.w   r3, [r2, r3, lsl #2]\n"
        "    add     r2, r3\n"
        "    bx      r2\n"
        "    .p2align 2\n"
        "5:  .word   1b - 5b + 1\n"
        "    .word   2b - 5b + 1\n"
        "4:  mov     r1, r4\n"
        "    blx     r1\n"
        "    pop     {r4, pc}\n"
        ".size switch_words, . - switch_words\n"
        ".global sibling\n"
        ".type sibling, %function\n"
        ".thumb_func\n"
        "sibling:\n"
        "    push    {r4, r5, lr}\n"
        "    sub     sp, #4\n"
        "    mov     r4, r2\n"
        "    mov     r3, r1\n"
        "    adds    r0, r0, #1\n"
        "    blx     r3\n"
        "    adds    r0, r0, #2\n"
        "    mov     ip, r4\n"
        "    add     sp, #4\n"
        "    ldmia.w sp!, {r4, r5, lr}\n"
        "    bx      ip\n"
        ".size sibling, . - sibling\n"
        ".global sibling_late\n"
        ".type sibling_late, %function\n"
        ".thumb_func\n"
        "sibling_late:\n"
        "    push    {r4, r5, lr}\n"
        "    sub     sp, #4\n"
        "    mov     r4, r2\n"
        "    mov     r3, r1\n"
        "    adds    r0, r0, #1\n"
        "    blx     r3\n"
        "    adds    r0, r0, #2\n"
        "    mov     r3, r4\n"
        "    add     sp, #4\n"
        "    ldmia.w sp!, {r4, r5, lr}\n"
        "    mov     ip, r3\n"
        "    bx      ip\n"
        ".size sibling_late, . - sibling_late\n"
        ".global lr_scratch\n"
        ".type lr_scratch, %function\n"
        ".thumb_func\n"
        "lr_scratch:\n"
        "    push    {r4, r5, lr}\n"
        "    sub     sp, #4\n"
        "    mov     r5, r1\n"
        "    mov     lr, r1\n"
        "    ldr.w   r3, [lr, #0]\n"
        "    blx     r3\n"
        "    mov     r4, r0\n"
        "    ldr.w   lr, [r5, #4]\n"
        "    mov     r3, lr\n"
        "    blx     r3\n"
        "    add     r0, r4\n"
        "    add     sp, #4\n"
        "    pop     {r4, r5, pc}\n"
        ".size lr_scratch, . - lr_scratch\n"
        ".global loaded_sibling\n"
        ".type loaded_sibling, %function\n"
        ".thumb_func\n"
        "loaded_sibling:\n"
        "    lsls    r3, r0, #31\n"
        "    bpl     1f\n"
        "    ldr     r3, [r1, #4]\n"
        "    bx      r3\n"
        "1:  push    {r4, lr}\n"
        "    adds    r0, r0, #1\n"
        "    ldr     r3, [r1]\n"
        "    blx     r3\n"
        "    adds    r0, r0, #2\n"
        "    pop     {r4, pc}\n"
        ".size loaded_sibling, . - loaded_sibling\n"
        ".global label_table\n"
        ".type label_table, %function\n"
        ".thumb_func\n"
        "label_table:\n"
        "    push    {r4, lr}\n"
        "    mov     r4, r1\n"
        "    and     r3, r0, #1\n"
        "    ldr     r2, 6f\n"
        "7:  add     r2, pc\n"
        "    ldr.w   r2, [r2, r3, lsl #2]\n"
        "    orr.w   r2, r2, #1\n"
        "    bx      r2\n"
        "1:  adds    r0, r0, #5\n"
        "    b       4f\n"
        "2:  adds    r0, r0, #7\n"
        "4:  mov     r1, r4\n"
        "    blx     r1\n"
        "    pop     {r4, pc}\n"
        "    .p2align 2\n"
        "6:  .word   label_words - (7b + 4)\n"
        ".size label_table, . - label_table\n"
        ".pushsection .data.rel.ro, \"aw\"\n"
        "    .p2align 2\n"
        "label_words:\n"
        "    .word   1b\n"
        "    .word   2b\n"
        ".popsection\n"
        ".popsection\n");
unsigned label_table(unsigned x, unsigned (*f)(unsigned));
unsigned loaded_sibling(unsigned x, unsigned (*const *fns)(unsigned));
unsigned lr_scratch(unsigned x, unsigned (*const *fns)(unsigned));
static unsigned (*const scratch_fns[2])(unsigned) = { thumb_leaf, arm_leaf };
#define THUMB2_FORMS(i) (switch_words(i, thumb_leaf) + sibling(i, thumb_leaf, arm_leaf) + \
                         lr_scratch(i, scratch_fns) + label_table(i, thumb_leaf) + \
                         sibling_late(i, arm_leaf, thumb_leaf) + loaded_sibling(i, scratch_fns))
#else
#define THUMB2_FORMS(i) 0u
#endif

ARMFN int main(void)
{
    unsigned h = 0;
    for (unsigned i = 0; i < 10; i++) {
        h += thumb_leaf(i);             /* blx imm */
        h += thumb_calls_arm(i);        /* blx imm, then Thumb -> ARM */
        h += table[i % 3](i);           /* blx reg, to Thumb or ARM */
        h += thumb_it(i) + thumb_via_pointer(i);
        h += THUMB2_FORMS(i);
    }
    printf("h=%u acc=%u\n", h, acc);
    return 0;
}
