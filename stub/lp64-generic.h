/*
 * What the 64-bit asm-generic Linux ABIs (arm64, riscv64) share in the
 * tracer runtime beyond their own tracer-arch.h: compare-and-swap by
 * the compiler's builtins (inline, no libgcc call: AArch64's
 * -mno-outline-atomics, RISC-V's A extension), and the system calls
 * whose 64-bit arguments are one register each (no ftruncate64,
 * fstat64 nor mmap2: stub/sys.h and fileid.c take the plain calls
 * where __NR_mmap2 and __NR_fstat64 are missing).  Included by those
 * tracer-arch.h files after their arch_syscall6.
 */
#ifndef LITIFUT_LP64_GENERIC_H
#define LITIFUT_LP64_GENERIC_H

static inline int arch_cmpxchg(volatile uint32_t *p, uint32_t oldval, uint32_t newval)
{
    return __atomic_compare_exchange_n(p, &oldval, newval, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}
static inline int arch_cmpxchg_ptr(volatile uintptr_t *p, uintptr_t oldval, uintptr_t newval)
{
    return __atomic_compare_exchange_n(p, &oldval, newval, 0, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

static inline long arch_ftruncate64(int fd, uint64_t len)
{
    return arch_syscall6(__NR_ftruncate, fd, (long)len, 0, 0, 0, 0);
}

/* Reserve disk blocks, so that storing into the shared mapping can
 * never hit a full disk (that would be SIGBUS in the traced program). */
static inline long arch_fallocate(int fd, int mode, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, mode, (long)off, (long)len, 0, 0);
}

static inline long arch_pwrite64(int fd, const void *buf, unsigned long n, uint64_t off)
{
    return arch_syscall6(__NR_pwrite64, fd, (long)buf, (long)n, (long)off, 0, 0);
}

#endif
