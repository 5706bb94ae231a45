/*
 * MIPS o32 (mips32r2, either byte order) pieces of the tracer runtime.
 * Included by the tracer module's C files only; everything here runs in the traced program
 * and must not call libc.
 */
#ifndef LITIFUT_ARCH_MIPS_TRACER_H
#define LITIFUT_ARCH_MIPS_TRACER_H

#include <stdint.h>
#include <asm/unistd.h>
#include "litifut/trace-format.h"

/* The kernel's stack_t (sigaltstack): MIPS puts the size before the flags. */
struct arch_stack {
    uintptr_t ss_sp;
    unsigned long ss_size;
    int ss_flags;
};

/* Signals in the kernel's sigset_t (rt_sigprocmask's size argument * 8). */
#define ARCH_NSIG          128

#define ARCH_ID LITIFUT_ARCH_MIPS

/* The registers saved by the sled and the common code (arch/mips/sled.S),
 * by register number; zero, k0, k1 and sp are not saved. */
struct arch_frame {
    uint32_t r[32];
    uint32_t hi, lo;
};

static inline uintptr_t arch_return_address(const struct arch_frame *f)
{
    return f->r[31];
}

/* Sled copies (and the run-time bridge) are 2 KB aligned, 16 bytes an
 * entry; an entry links to the common code from its third word, so its
 * lr is entry + 16. */
static inline uint32_t arch_sled_index(uintptr_t sled_ra)
{
    return (uint32_t)((sled_ra - 16) & 2047u) >> 4;
}

/* The DB holds each site's original instruction: jal, jalr (linking to
 * ra) or one of the REGIMM branches that link (bal, bgezal, ...). */
static inline int arch_insn_is_indirect(uint32_t insn)
{
    return (insn >> 26) == 0 && (insn & 63u) == 9;
}

/* calc_next_pc.  jal is absolute within the 256 MB region of its delay
 * slot at link time, so it is computed in link-time addresses. */
static inline uintptr_t arch_calc_next_pc(uint32_t insn, const struct arch_frame *f,
                                          uintptr_t bias)
{
    uintptr_t delay_slot = f->r[31] - 4;
    if (arch_insn_is_indirect(insn))
        return f->r[(insn >> 21) & 31];
    if ((insn >> 26) == 3)
        return (((delay_slot - bias) & 0xf0000000u) | (insn & 0x03ffffffu) << 2) + bias;
    return delay_slot + (uintptr_t)((int32_t)(int16_t)(insn & 0xffff) * 4);
}

/* UserLocal, the TLS pointer (0 until libc has set up TLS).  $3 is what
 * kernels that emulate rdhwr expect. */
static inline uintptr_t arch_thread_pointer(void)
{
    register uintptr_t v1 __asm__("$3");
    __asm__ volatile(".set push\n\t.set mips32r2\n\trdhwr $3, $29\n\t.set pop" : "=r"(v1));
    return v1;
}

/* Offset of a local-exec TLS symbol from the thread pointer. */
#define ARCH_TPOFF(sym)                                            \
    ({ uintptr_t off_;                                             \
       __asm__("lui %0, %%tprel_hi(" #sym ")\n\t"                  \
               "addiu %0, %0, %%tprel_lo(" #sym ")" : "=r"(off_)); \
       off_; })

/* Offset of an initial-exec TLS symbol from the thread pointer (a
 * library's copy): the compiler loads it from the GOT. */
#define ARCH_TPOFF_IE(sym) ((uintptr_t)&(sym) - arch_thread_pointer())

static inline int arch_cmpxchg(volatile uint32_t *p, uint32_t oldval, uint32_t newval)
{
    return __sync_bool_compare_and_swap(p, oldval, newval);     /* ll/sc, inline */
}

/* o32: number in v0, arguments in a0-a3 and on the stack at 16 and 20;
 * a3 is set on error, with the errno in v0. */
static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
    register long r4 __asm__("$4") = a;
    register long r5 __asm__("$5") = b;
    register long r6 __asm__("$6") = c;
    register long r7 __asm__("$7") = d;
    register long r8 __asm__("$8") = e;
    register long r9 __asm__("$9") = f;
    register long r2 __asm__("$2") = n;
    __asm__ volatile(".set push\n\t.set noreorder\n\t"
                     "subu $sp, $sp, 32\n\t"
                     "sw $8, 16($sp)\n\t"
                     "sw $9, 20($sp)\n\t"
                     "syscall\n\t"
                     "addu $sp, $sp, 32\n\t"
                     ".set pop"
                     : "+r"(r2), "+r"(r7), "+r"(r8), "+r"(r9)
                     : "r"(r4), "r"(r5), "r"(r6)
                     : "memory", "$1", "$3", "$10", "$11", "$12", "$13", "$14", "$15",
                       "$24", "$25", "hi", "lo");
    return r7 ? -r2 : r2;
}

/* o32 passes a 64-bit argument in an aligned register pair (or stack
 * pair), halves in memory order. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARCH_U64_PAIR(x) (long)(uint32_t)((x) >> 32), (long)(uint32_t)(x)
#else
#define ARCH_U64_PAIR(x) (long)(uint32_t)(x), (long)(uint32_t)((x) >> 32)
#endif

static inline long arch_ftruncate64(int fd, uint64_t len)
{
    return arch_syscall6(__NR_ftruncate64, fd, 0, ARCH_U64_PAIR(len), 0, 0);
}

static inline long arch_fallocate(int fd, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, 0, ARCH_U64_PAIR(off), ARCH_U64_PAIR(len));
}

#endif
