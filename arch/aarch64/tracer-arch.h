/*
 * AArch64 (LP64, Linux) pieces of the tracer runtime.  Included by the
 * tracer's C files (stub/tracer.h); everything here runs in the traced
 * program and must not call libc.  Built with -mno-outline-atomics
 * (no libgcc call for a compare-and-swap) and -mgeneral-regs-only (the
 * slow path runs before the callee, whose arguments may be in v0-v7).
 */
#ifndef LITIFUT_ARCH_AARCH64_TRACER_H
#define LITIFUT_ARCH_AARCH64_TRACER_H

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

#define ARCH_ID            LITIFUT_ARCH_AARCH64

/* A function's address is its code's (no instruction-set bit). */
#define ARCH_CODE_ADDRESS(a) ((uintptr_t)(a))

/* The slow path's frame (stub.S, sled.h): x0..x30 as the call left
 * them (x16 holds 4k, x17 whatever the hot path left), then NZCV;
 * right below the stack pointer of the call. */
struct arch_frame {
    uint64_t x[31];
    uint64_t nzcv;
};
_Static_assert(sizeof(struct arch_frame) == FRAME_SIZE, "sled.h");

/* LITIFUT_ARGS (args.c): the integer arguments in registers (x0-x7),
 * and where the C return trampoline (stub.S) saved x0: below the stack
 * pointer the callee returned with. */
#define ARCH_INT_ARGS 8
static inline uintptr_t arch_frame_arg(const struct arch_frame *f, unsigned i)
{
    return f->x[i];
}
static inline uintptr_t arch_returned_value(uintptr_t sp_ret)
{
    return *(const uint64_t *)(sp_ret - 160);
}
/* The floating-point argument registers, v0-v7 (d0-d7 of them, and a
 * float in the low half of each; d0 the return value): read by
 * litifut_fp_registers (stub.S) where nothing has touched them since
 * the call (or the return): the tracer's C code is built with
 * -mgeneral-regs-only. */
#define ARCH_FP_ARGS 8
#define ARCH_FP_FLOATS 8             /* (s0-s7) */
void litifut_fp_registers(uint64_t d[8]);
static inline uint32_t arch_fp_float(const uint64_t d[8], unsigned i)
{
    return (uint32_t)d[i];
}

static inline uintptr_t arch_return_address(const struct arch_frame *f)
{
    return f->x[30];
}

/* Where the frame keeps it: the callee gets what is there. */
static inline uintptr_t *arch_return_address_slot(struct arch_frame *f)
{
    return (uintptr_t *)&f->x[30];
}

/* The register a DB site word below LITIFUT_DB_INDIRECT names
 * (SITE_REG_WORD, sled.h). */
static inline uintptr_t arch_frame_register(const struct arch_frame *f, uint32_t w)
{
    uint32_t i = SITE_WORD_REG(w);
    if (i == 16 || i == 17)
        i = 15;                         /* (a jump's thunk moved them there: host-aarch64.h) */
    return i < 31 ? f->x[i] : 0;
}

/* The hardware counter (LITIFUT_CLOCK=counter, and auto: arm64 Linux
 * always lets EL0 read CNTVCT_EL0, trapping and emulating it where an
 * erratum asks; AT_HWCAP's EVTSTRM says nothing about it, and is 0
 * under qemu-user).  64 bits at CNTFRQ_EL0 Hz: 19.2 to 54 MHz on
 * older cores, 1 GHz from Armv8.6, 62.5 MHz under qemu.  Units of
 * 2^shift ticks, the shift picked from the rate so that a unit is
 * about 16 ns or more and the 8-bit delta keeps reaching microseconds. */
#define ARCH_COUNTER_CLOCK  LITIFUT_CLOCK_A64_CNTVCT
#define ARCH_COUNTER_MASK   0xffffffffffffffffull
#define ARCH_HWCAP_COUNTER  0u              /* no bit: it must advance */
#define ARCH_COUNTER_AUTO   1

/* The zone the tracer maps its own memory in (stub/aside.c): low, far
 * from the program's mappings, which Linux places top down */
#define ARCH_ASIDE_START    0x2000000000ul      /* 128 GB */
#define ARCH_ASIDE_END      0x6000000000ul
static inline uint64_t arch_counter(void)
{
    uint64_t c;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(c));
    return c;
}
static inline uint64_t arch_counter_hz(void)
{
    uint64_t hz;
    __asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz;
}
static inline uint32_t arch_counter_shift(void)
{
    uint64_t hz = arch_counter_hz();
    uint32_t s = 0;
    while (s < 16 && (1000000000ull << s) < 16 * hz)
        s++;
    return s;
}
#define ARCH_COUNTER_SHIFT  arch_counter_shift()

/* The thread pointer: 0 until the C library has set up TLS (early in
 * a static program's start-up). */
static inline uintptr_t arch_thread_pointer(void)
{
    uintptr_t tp;
    __asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
    return tp;
}

/* Offset of a local-exec TLS symbol from the thread pointer. */
#define ARCH_TPOFF(sym)                                            \
    ({ uintptr_t off_;                                             \
       __asm__("movz %0, #:tprel_g1:" #sym "\n\t"                  \
               "movk %0, #:tprel_g0_nc:" #sym : "=r"(off_));       \
       off_; })

/* Offset of an initial-exec TLS symbol from the thread pointer (a
 * library's copy): the dynamic linker puts it in a GOT entry. */
#define ARCH_TPOFF_IE(sym)                                         \
    ({ uintptr_t off_;                                             \
       __asm__("adrp %0, :gottprel:" #sym "\n\t"                   \
               "ldr %0, [%0, #:gottprel_lo12:" #sym "]" : "=r"(off_)); \
       off_; })

static inline long arch_syscall6(long n, long a, long b, long c, long d,
                                 long e, long f)
{
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    register long x8 __asm__("x8") = n;
    __asm__ volatile("svc #0"
                     : "+r"(x0)
                     : "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5), "r"(x8)
                     : "memory");
    return x0;
}

#include "lp64-generic.h"       /* (compare-and-swap, ftruncate, fallocate, pwrite64) */

/* After rewriting code (sleds.c): no system call; clean the data cache
 * to the point of unification, invalidate the instruction cache, over
 * the lines (CTR_EL0's sizes), as libgcc's __aarch64_sync_cache_range. */
static inline void arch_flush_icache(uintptr_t start, uintptr_t end)
{
    uint64_t ctr;
    __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
    uintptr_t dline = 4ul << (ctr >> 16 & 15), iline = 4ul << (ctr & 15);
    for (uintptr_t a = start & ~(dline - 1); a < end; a += dline)
        __asm__ volatile("dc cvau, %0" : : "r"(a) : "memory");
    __asm__ volatile("dsb ish" : : : "memory");
    for (uintptr_t a = start & ~(iline - 1); a < end; a += iline)
        __asm__ volatile("ic ivau, %0" : : "r"(a) : "memory");
    __asm__ volatile("dsb ish\n\tisb" : : : "memory");
}

/* glibc's swapcontext calls __setcontext with `bl` from the stack
 * pointer it was called with; the wrapper links that call to stub.S's
 * __wrap___setcontext (arch-aarch64.c's wrapped), which returns.c
 * knows by its address. */
#define ARCH_WRAPS_SETCONTEXT 1

/* The hot path's local-exec TLS: two adds of 12 bits reach 16 MB. */
#define ARCH_HOT_TPOFF_OK(off) ((off) < (1ul << 24))

/* The function an entry thunk (stub/entries.c) names: in x16. */
static inline uintptr_t arch_entry_function(const struct arch_frame *f)
{
    return f->x[16];
}

/* A tail jump through a register (a site word of its register's, with
 * LITIFUT_DB_JUMP_REG) goes on here: the jumper's return address
 * popped, then the jump through the register (stub.S, 16 bytes per register). */
extern const char litifut_a64_jump_cont[] __attribute__((visibility("hidden")));
static inline uintptr_t arch_jump_reg_continuation(uint32_t w)
{
    return (uintptr_t)litifut_a64_jump_cont + 4 * (w & ~(uint32_t)3);
}

/* A tail jump's thunk continuation (its site word's target, sled.h):
 * where the jump goes. */
static inline uintptr_t arch_jump_target(uintptr_t cont)
{
    uintptr_t word = cont - JUMP_THUNK_CONT + JUMP_THUNK_TARGET;
    return word + (uintptr_t)(intptr_t) * (const int32_t *)word;
}

#endif
