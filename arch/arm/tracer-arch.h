/*
 * ARM (EABI, ARM state, armv5te and later) pieces of the tracer
 * runtime.  Included by the tracer's C files (stub/tracer.h); everything here runs in
 * the traced program and must not call libc.
 */
#ifndef LITIFUT_ARCH_ARM_TRACER_H
#define LITIFUT_ARCH_ARM_TRACER_H

#include <stdint.h>
#include <asm/unistd.h>
#include "litifut/trace-format.h"
#include "sled.h"

/* The kernel's stack_t (sigaltstack). */
struct arch_stack {
    uintptr_t ss_sp;
    int ss_flags;
    unsigned long ss_size;
};

/* Signals in the kernel's sigset_t (rt_sigprocmask's size argument * 8). */
#define ARCH_NSIG          64

#define ARCH_ID            LITIFUT_ARCH_ARM

/* A function's address without its instruction-set bit (Thumb: bit 0). */
#define ARCH_CODE_ADDRESS(a) ((uintptr_t)(a) & ~(uintptr_t)1)

/* The registers the sled entry pushes (sled.h), in memory order. */
struct arch_frame {
    uint32_t r[13];         /* r0..r12 */
    uint32_t lr;            /* the call's return address */
    uint32_t pc;            /* where stub.S jumps: the target */
};
_Static_assert(sizeof(struct arch_frame) == FRAME_SIZE, "sled.h");

/* LITIFUT_ARGS (args.c): the integer arguments in registers (r0-r3),
 * and where the C return trampoline (stub.S) saved r0 and r1: below
 * the stack pointer the callee returned with. */
#define ARCH_INT_ARGS 4
static inline uintptr_t arch_frame_arg(const struct arch_frame *f, unsigned i)
{
    return f->r[i];
}
static inline uintptr_t arch_returned_value(uintptr_t sp_ret)
{
    return *(const uint32_t *)(sp_ret - 32);
}
/* The hard-float ABI's floating-point argument registers, d0-d7
 * (floats in s0-s15, two to a d; d0 or s0 the return value): read by
 * litifut_fp_registers (stub.S) where nothing has touched them since
 * the call (or the return): the tracer's C code is built with
 * -mgeneral-regs-only.  The soft-float ABI passes them in r0-r3. */
#ifdef __ARM_PCS_VFP
#define ARCH_FP_ARGS 8
#define ARCH_FP_FLOATS 16            /* (s0-s15) */
void litifut_fp_registers(uint64_t d[8]);
static inline uint32_t arch_fp_float(const uint64_t d[8], unsigned i)
{
    return (uint32_t)(d[i / 2] >> (32 * (i % 2)));
}
#else
#define ARCH_FP_ARGS 0
#define ARCH_FP_FLOATS 0
#endif

static inline uintptr_t arch_return_address(const struct arch_frame *f)
{
    return f->lr;
}

/* The function an entry thunk (stub/entries.c) names: in ip. */
static inline uintptr_t arch_entry_function(const struct arch_frame *f)
{
    return f->r[12];
}

/* A tail jump's thunk continuation (its site word's target, sled.h):
 * where the jump goes. */
static inline uintptr_t arch_jump_target(uintptr_t cont)
{
    uintptr_t word = (cont & ~(uintptr_t)1) - JUMP_THUNK_CONT + JUMP_THUNK_TARGET;
    return word + (uintptr_t)(intptr_t) * (const int32_t *)word;
}

/* A tail jump through a register (a site word rM's, with
 * LITIFUT_DB_JUMP_REG) goes on here: the jumper's lr popped, then bx rM
 * (stub.S, 8 bytes per register). */
extern const char litifut_arm_jump_cont[] __attribute__((visibility("hidden")));
static inline uintptr_t arch_jump_reg_continuation(uint32_t w)
{
    return (uintptr_t)litifut_arm_jump_cont + 2 * (w & ~(uint32_t)3);
}

/* Where the frame keeps it: the callee gets what is there. */
static inline uint32_t *arch_return_address_slot(struct arch_frame *f)
{
    return &f->lr;
}

/* The register a DB site word below LITIFUT_DB_INDIRECT names: its
 * offset in the frame (sled.h). */
static inline uintptr_t arch_frame_register(const struct arch_frame *f, uint32_t w)
{
    uint32_t i = w / 4;
    return i < 13 ? f->r[i] : 0;
}

/* The hardware counter (LITIFUT_CLOCK=counter or auto): the ARMv7
 * generic timer's virtual count, 64 bits, CNTFRQ ticks per second.
 * User space may read it where the kernel allows; Linux's arch timer
 * driver does (unless an erratum makes it trap), and says the timer is
 * there with HWCAP_EVTSTRM.  A processor without it (ARMv5, ARM11,
 * Cortex-A8/A9) has no such bit.  The qemu-user here (7.2) traps it. */
#define ARCH_COUNTER_CLOCK  LITIFUT_CLOCK_ARM_CNTVCT
#define ARCH_COUNTER_SHIFT  0u
#define ARCH_COUNTER_MASK   0xffffffffffffffffull
#define ARCH_HWCAP_COUNTER  (1u << 21)      /* HWCAP_EVTSTRM */
#define ARCH_COUNTER_AUTO   1               /* the default where readable: a hot path reads it */

/* The zone the tracer maps its own memory in (stub/aside.c): low, far
 * from the program's mappings, which Linux places top down */
#define ARCH_ASIDE_START    0x20000000ul
#define ARCH_ASIDE_END      0x2e000000ul
static inline uint64_t arch_counter(void)
{
    uint32_t lo, hi;
    __asm__ volatile("mrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
    return (uint64_t)hi << 32 | lo;
}
static inline uint64_t arch_counter_hz(void)
{
    uint32_t hz;
    __asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(hz));
    return hz;
}

/* The thread pointer through the kernel's user helper, which every ARM
 * Linux provides (armv5 has no TPIDRURO).  0 until the C library has
 * set up TLS (early in a static program's start-up). */
static inline uintptr_t arch_thread_pointer(void)
{
#ifdef LITIFUT_ARM_V6K
    uintptr_t tp;
    __asm__ volatile("mrc p15, 0, %0, c13, c0, 3" : "=r"(tp));
    return tp;
#endif
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
static inline long arch_fallocate(int fd, int mode, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, mode, (long)(uint32_t)off,
                         (long)(uint32_t)(off >> 32), (long)(uint32_t)len,
                         (long)(uint32_t)(len >> 32));
}

static inline long arch_pwrite64(int fd, const void *buf, unsigned long n, uint64_t off)
{
    return arch_syscall6(__NR_pwrite64, fd, (long)buf, (long)n, 0, (long)(uint32_t)off,
                         (long)(uint32_t)(off >> 32));
}

/* After rewriting code (sleds.c): ARM's cacheflush system call. */
static inline void arch_flush_icache(uintptr_t start, uintptr_t end)
{
    arch_syscall6(0x0f0002, (long)start, (long)end, 0, 0, 0, 0);
}

/* The hot path reaches any local-exec TLS offset (a literal). */
#define ARCH_HOT_TPOFF_OK(off) ((void)(off), 1)

#endif
