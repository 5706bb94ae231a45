/*
 * ARM (EABI, ARM state, armv5te and later) pieces of the tracer
 * runtime.  Included by stub/tracer.c only; everything here runs in
 * the traced program and must not call libc.
 */
#ifndef LITIFUT_ARCH_ARM_TRACER_H
#define LITIFUT_ARCH_ARM_TRACER_H

#include <stdint.h>
#include <asm/unistd.h>
#include "litifut/trace-format.h"

/* The kernel's stack_t (sigaltstack). */
struct arch_stack {
    uintptr_t ss_sp;
    int ss_flags;
    unsigned long ss_size;
};

/* Signals in the kernel's sigset_t (rt_sigprocmask's size argument * 8). */
#define ARCH_NSIG          64

#define ARCH_ID            LITIFUT_ARCH_ARM

/* The registers saved by stub.S, in memory order. */
struct arch_frame {
    uint32_t r4_r11[8];
    uint32_t r0_r3[4];
    uint32_t r12;
    uint32_t lr;            /* the call's return address */
};

static inline uintptr_t arch_return_address(const struct arch_frame *f)
{
    return f->lr;
}

/* Which sled entry was entered: entry k is at litifut_sled + 8k and
 * calls the common code from its second word, so lr = entry + 8. */
extern const char litifut_sled[] __attribute__((visibility("hidden")));
static inline uint32_t arch_sled_index(uintptr_t sled_lr)
{
    return (uint32_t)(sled_lr - 8 - (uintptr_t)litifut_sled) / 8;
}

/* The DB holds each site's original instruction: bl<c> imm, blx imm
 * or blx<c> rM (M = 0..12; arch/arm/arch-arm.c classifies nothing
 * else as a call to rewrite). */
static inline int arch_insn_is_indirect(uint32_t insn)
{
    return (insn & 0x0ffffff0u) == 0x012fff30u;
}

/* calc_next_pc: where the original instruction, at the call site whose
 * return address the frame holds, would have gone.  Bit 0 set means
 * Thumb; `ldr pc` in stub.S honours it.  The immediate forms are
 * PC-relative, so the load bias is not needed. */
static inline uintptr_t arch_calc_next_pc(uint32_t insn, const struct arch_frame *f,
                                          uintptr_t bias)
{
    (void)bias;
    if (arch_insn_is_indirect(insn)) {
        unsigned reg = insn & 15u;
        if (reg < 4)
            return f->r0_r3[reg];
        return reg < 12 ? f->r4_r11[reg - 4] : f->r12;
    }
    uintptr_t pc = f->lr + 4;                   /* the call's address + 8 */
    uintptr_t target = pc + (uintptr_t)((int32_t)(insn << 8) >> 6);
    if ((insn >> 28) == 0xfu)                   /* blx imm: H bit, to Thumb */
        target += ((insn >> 23) & 2u) | 1u;
    return target;
}

/* The thread pointer through the kernel's user helper, which every ARM
 * Linux provides (armv5 has no TPIDRURO).  0 until the C library has
 * set up TLS (early in a static program's start-up). */
static inline uintptr_t arch_thread_pointer(void)
{
    register uintptr_t r0 __asm__("r0");
    __asm__ volatile("mvn r0, #0xf000\n\t"     /* 0xffff0fff */
                     "mov lr, pc\n\t"
                     "sub pc, r0, #31"          /* __kuser_get_tls at 0xffff0fe0 */
                     : "=r"(r0) : : "lr", "cc");
    return r0;
}

/* Offset of a local-exec TLS symbol from the thread pointer. */
#define ARCH_TPOFF(sym)                                            \
    ({ uintptr_t off_;                                             \
       __asm__("ldr %0, 1f\n\t"                                    \
               "b 2f\n"                                            \
               "1: .word " #sym "(tpoff)\n"                        \
               "2:" : "=r"(off_));                                 \
       off_; })

/* Offset of an initial-exec TLS symbol from the thread pointer (a
 * library's copy): the dynamic linker puts it in a GOT entry. */
#define ARCH_TPOFF_IE(sym)                                         \
    ({ uintptr_t off_;                                             \
       __asm__("ldr %0, 1f\n"                                      \
               "2: ldr %0, [pc, %0]\n\t"                           \
               "b 3f\n"                                            \
               "1: .word " #sym "(gottpoff) + (. - 2b - 8)\n"      \
               "3:" : "=r"(off_));                                 \
       off_; })

/* Compare-and-swap through __kuser_cmpxchg: atomic on every ARM Linux,
 * SMP or not, and restartable if a signal interrupts it. */
typedef int (*arch_kuser_cmpxchg_fn)(uint32_t oldval, uint32_t newval,
                                     volatile uint32_t *ptr);
static inline int arch_cmpxchg(volatile uint32_t *p, uint32_t oldval,
                               uint32_t newval)
{
    return ((arch_kuser_cmpxchg_fn)0xffff0fc0u)(oldval, newval, p) == 0;
}

static inline long arch_syscall6(long n, long a, long b, long c, long d,
                                 long e, long f)
{
    register long r0 __asm__("r0") = a;
    register long r1 __asm__("r1") = b;
    register long r2 __asm__("r2") = c;
    register long r3 __asm__("r3") = d;
    register long r4 __asm__("r4") = e;
    register long r5 __asm__("r5") = f;
    register long r7 __asm__("r7") = n;
    __asm__ volatile("svc #0"
                     : "+r"(r0)
                     : "r"(r1), "r"(r2), "r"(r3), "r"(r4), "r"(r5), "r"(r7)
                     : "memory");
    return r0;
}

/* EABI passes a 64-bit argument in an even register pair. */
static inline long arch_ftruncate64(int fd, uint64_t len)
{
    return arch_syscall6(__NR_ftruncate64, fd, 0, (long)(uint32_t)len,
                         (long)(uint32_t)(len >> 32), 0, 0);
}

/* Reserve disk blocks, so that storing into the shared mapping can
 * never hit a full disk (that would be SIGBUS in the traced program). */
static inline long arch_fallocate(int fd, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, 0, (long)(uint32_t)off,
                         (long)(uint32_t)(off >> 32), (long)(uint32_t)len,
                         (long)(uint32_t)(len >> 32));
}

#endif
