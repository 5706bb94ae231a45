/*
 * RISC-V (RV64GC, LP64D, Linux) pieces of the tracer runtime.  Included
 * by the tracer's C files (stub/tracer.h); everything here runs in the
 * traced program and must not call libc.  Built with -mno-relax (the
 * tracer's code keeps its size whatever the link: no gp-relative or
 * compressed forms chosen by distance), and its C code uses no
 * floating-point register (GCC has no -mgeneral-regs-only here;
 * tests/rvscan.sh checks the built modules): the slow path runs before
 * the callee, whose arguments may be in fa0-fa7, and the C return
 * trampoline after it, whose caller takes fa0/fa1.
 */
#ifndef LITIFUT_ARCH_RISCV64_TRACER_H
#define LITIFUT_ARCH_RISCV64_TRACER_H

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

#define ARCH_ID            LITIFUT_ARCH_RISCV64

/* A function's address is its code's (no instruction-set bit). */
#define ARCH_CODE_ADDRESS(a) ((uintptr_t)(a))

/* The slow path's frame (stub.S, sled.h): x1..x31 as the call left
 * them (t1 = x6 holds 4k), x[0] 4k, x[2] sp at the call; right below
 * the stack pointer of the call. */
struct arch_frame {
    uint64_t x[32];
};
_Static_assert(sizeof(struct arch_frame) == FRAME_SIZE, "sled.h");

/* LITIFUT_ARGS (args.c): the integer arguments in registers (a0-a7 =
 * x10-x17), and where the C return trampoline (stub.S) saved a0: below
 * the stack pointer the callee returned with. */
#define ARCH_INT_ARGS 8
static inline uintptr_t arch_frame_arg(const struct arch_frame *f, unsigned i)
{
    return f->x[10 + i];
}
static inline uintptr_t arch_returned_value(uintptr_t sp_ret)
{
    return *(const uint64_t *)(sp_ret - 128 + 56);      /* (stub.S: a0's slot) */
}
/* The floating-point argument registers, fa0-fa7 (a float is the low
 * half of its register, NaN-boxed; fa0 the return value): read by
 * litifut_fp_registers (stub.S) where nothing has touched them since
 * the call (or the return). */
#define ARCH_FP_ARGS 8
#define ARCH_FP_FLOATS 8
void litifut_fp_registers(uint64_t d[8]);
static inline uint32_t arch_fp_float(const uint64_t d[8], unsigned i)
{
    return (uint32_t)d[i];
}

static inline uintptr_t arch_return_address(const struct arch_frame *f)
{
    return f->x[1];
}

/* Where the frame keeps it: the callee gets what is there. */
static inline uintptr_t *arch_return_address_slot(struct arch_frame *f)
{
    return (uintptr_t *)&f->x[1];
}

/* The register a DB site word below LITIFUT_DB_INDIRECT names
 * (SITE_REG_WORD, sled.h). */
static inline uintptr_t arch_frame_register(const struct arch_frame *f, uint32_t w)
{
    uint32_t i = SITE_WORD_REG(w);
    return i > 0 && i < 32 ? f->x[i] : 0;
}

/* The time counter (rdtime: Linux lets user space read it; under
 * qemu-user it is the host's).  Its rate (the platform's timebase) is
 * not told to user space: measured against CLOCK_MONOTONIC
 * (tracefile_measure_counter).  Not chosen by auto yet: without an
 * assembly hot path every call goes through the slow path, whose
 * CLOCK_MONOTONIC time is exact. */
#define ARCH_COUNTER_CLOCK  LITIFUT_CLOCK_RV_TIME
#define ARCH_COUNTER_MASK   0xffffffffffffffffull
#define ARCH_HWCAP_COUNTER  0u              /* no bit: it must advance */
#define ARCH_COUNTER_AUTO   0
#define ARCH_COUNTER_SHIFT  0

/* The zone the tracer maps its own memory in (stub/aside.c): low, far
 * from the program's mappings, which Linux places top down (Sv39: 256
 * GB of user space, a PIE at two thirds of it, about 170 GB) */
#define ARCH_ASIDE_START    0x1000000000ul      /* 64 GB */
#define ARCH_ASIDE_END      0x2000000000ul
static inline uint64_t arch_counter(void)
{
    uint64_t c;
    __asm__ volatile("rdtime %0" : "=r"(c));
    return c;
}
static inline uint64_t arch_counter_hz(void)
{
    return 0;                               /* (measured) */
}

/* The thread pointer: 0 until the C library has set up TLS (early in
 * a static program's start-up). */
static inline uintptr_t arch_thread_pointer(void)
{
    uintptr_t tp;
    __asm__ volatile("mv %0, tp" : "=r"(tp));
    return tp;
}

/* Offset of a local-exec TLS symbol from the thread pointer. */
#define ARCH_TPOFF(sym)                                            \
    ({ uintptr_t off_;                                             \
       __asm__("lui %0, %%tprel_hi(" #sym ")\n\t"                  \
               "addi %0, %0, %%tprel_lo(" #sym ")" : "=r"(off_));  \
       off_; })

/* Offset of an initial-exec TLS symbol from the thread pointer (a
 * library's copy): the dynamic linker puts it in a GOT entry. */
#define ARCH_TPOFF_IE(sym)                                         \
    ({ uintptr_t off_;                                             \
       __asm__("la.tls.ie %0, " #sym : "=r"(off_));                \
       off_; })

static inline long arch_syscall6(long n, long a, long b, long c, long d,
                                 long e, long f)
{
    register long a0 __asm__("a0") = a;
    register long a1 __asm__("a1") = b;
    register long a2 __asm__("a2") = c;
    register long a3 __asm__("a3") = d;
    register long a4 __asm__("a4") = e;
    register long a5 __asm__("a5") = f;
    register long a7 __asm__("a7") = n;
    __asm__ volatile("ecall"
                     : "+r"(a0)
                     : "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a7)
                     : "memory");
    return a0;
}

#include "lp64-generic.h"       /* (compare-and-swap, ftruncate, fallocate, pwrite64) */

/* After rewriting code (sleds.c): fence.i orders only this hart's
 * fetches; Linux's riscv_flush_icache (flags 0: every thread's harts)
 * makes the new code visible to all, as libgcc's __clear_cache. */
#ifndef __NR_riscv_flush_icache
#define __NR_riscv_flush_icache 259
#endif
static inline void arch_flush_icache(uintptr_t start, uintptr_t end)
{
    arch_syscall6(__NR_riscv_flush_icache, (long)start, (long)end, 0, 0, 0, 0);
}

/* The hot path's local-exec TLS (none yet: every offset is fine). */
#define ARCH_HOT_TPOFF_OK(off) ((off) < (1ul << 31))

/* The function an entry thunk (stub/entries.c) names: in t1
 * (host-riscv64.h). */
static inline uintptr_t arch_entry_function(const struct arch_frame *f)
{
    return f->x[SLED_REG];
}

/* Tail jumps are not rewritten on RISC-V yet: no site word names one. */
static inline uintptr_t arch_jump_reg_continuation(uint32_t w)
{
    (void)w;
    return 0;
}
static inline uintptr_t arch_jump_target(uintptr_t cont)
{
    return cont;
}

#endif
