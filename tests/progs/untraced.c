/*
 * untraced.c - calls the link cannot redirect, a known number of them,
 * for --info to count as the link does (tests/postproc.sh):
 *   ARM state: one "blx lr" (via_lr; a redirecting bl would overwrite
 *     lr before the call read it);
 *   Thumb-2 (armhf): also a 16-bit "blx rM" in an IT block (via_it),
 *     and plain calls through pointers from Thumb code, which the link
 *     rewrites with the instruction before them (traced: not counted);
 *   MIPS: a "jalr.hb" (via_hb);
 *   AArch64: a "blr x16" (via_x16; the sled entry puts its number in
 *     x16, so the call's own register would be lost);
 *   RISC-V: a c.jalr after an instruction that reads ra
 *     (via_ra_reader), which cannot move into a pair's thunk; and a
 *     "jalr t1" (via_t1), which the sled's third half traces (not
 *     counted).
 * Exit status 0.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int acc;

NOINLINE void target(void) { acc++; }
NOINLINE void other(void) { acc += 2; }
void (*volatile pointer)(void) = target;
static void (*volatile table[3])(void) = { target, other, target };

#if defined(__arm__)
__attribute__((target("arm"), noinline)) void via_lr(void (*fp)(void))
{
    __asm__ volatile("mov lr, %0\n\tblx lr" : : "r"(fp)
                     : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
}
#endif

#if defined(__arm__) && __ARM_ARCH_ISA_THUMB >= 2
__attribute__((target("thumb"), noinline)) void via_it(void (*fp)(void), int c)
{
    __asm__ volatile("cmp %1, #0\n\tit ne\n\tblxne %0" : : "r"(fp), "r"(c)
                     : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
}

/* (table[i % 3]: a 32-bit ldr.w with a shifted index before the blx) */
__attribute__((target("thumb"), noinline)) void via_pointers(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        table[i % 3]();
}
#endif

#if defined(__mips__)
NOINLINE void via_hb(void (*fp)(void))
{
    register void (*t9)(void) __asm__("$25") = fp;
    __asm__ volatile(".set push\n\t.set noreorder\n\tjalr.hb %0\n\tnop\n\t.set pop"
                     : "+r"(t9) :
                     : "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9", "$10", "$11",
                       "$12", "$13", "$14", "$15", "$24", "$31", "hi", "lo", "memory");
}
#endif

#if defined(__aarch64__)
NOINLINE void via_x16(void (*fp)(void))
{
    __asm__ volatile("mov x16, %0\n\tblr x16" : : "r"(fp)
                     : "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
                       "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x30", "cc", "memory");
}
#endif

#if defined(__riscv)
NOINLINE void via_t1(void (*fp)(void))
{
    __asm__ volatile("mv t1, %0\n\t.option push\n\t.option norvc\n\tjalr t1\n\t.option pop"
                     : : "r"(fp)
                     : "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3",
                       "t4", "t5", "t6", "ra", "memory");
}
NOINLINE void via_ra_reader(void (*fp)(void))
{
    __asm__ volatile("mv a0, ra\n\tc.jalr %0" : : "r"(fp)
                     : "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "t0", "t1", "t2", "t3",
                       "t4", "t5", "t6", "ra", "memory");
}
#endif

int main(void)
{
#if defined(__arm__)
    via_lr(pointer);
#endif
#if defined(__arm__) && __ARM_ARCH_ISA_THUMB >= 2
    via_it(pointer, 1);
    via_pointers(3);
#endif
#if defined(__mips__)
    via_hb(pointer);
#endif
#if defined(__aarch64__)
    via_x16(pointer);
#endif
#if defined(__riscv)
    via_t1(pointer);
    via_ra_reader(pointer);
#endif
    printf("untraced: %d\n", acc);
    return 0;
}
