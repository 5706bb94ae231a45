/*
 * The few system calls the tracer makes, issued directly (no libc):
 * the tracer runs before libc is initialised in static programs, inside
 * signal handlers, and must never call code that is itself traced.
 * Each returns the kernel's result: >= 0, or -errno.
 */
#ifndef LITIFUT_STUB_SYS_H
#define LITIFUT_STUB_SYS_H

#include <stdint.h>
#include <fcntl.h>
#include <time.h>
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include "tracer-arch.h"

#ifndef O_LARGEFILE
#define O_LARGEFILE 0
#endif

#define SYS0(n)             arch_syscall6(n, 0, 0, 0, 0, 0, 0)
#define SYS3(n, a, b, c)    arch_syscall6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)

static inline int sys_open(const char *path, int flags, int mode)
{
    return (int)arch_syscall6(__NR_openat, AT_FDCWD, (long)path,
                              flags | O_LARGEFILE, mode, 0, 0);
}

static inline long sys_read(int fd, void *buf, unsigned long n)
{
    return SYS3(__NR_read, fd, buf, n);
}

static inline long sys_write(int fd, const void *buf, unsigned long n)
{
    return SYS3(__NR_write, fd, buf, n);
}

static inline int sys_close(int fd)
{
    return (int)SYS3(__NR_close, fd, 0, 0);
}

/* mmap2 takes the offset in 4096-byte units on ARM and MIPS o32; a
 * 64-bit kernel (AArch64) has only mmap, with the offset in bytes. */
static inline void *sys_mmap(void *addr, unsigned long len, int prot,
                             int flags, int fd, uint64_t off)
{
#ifdef __NR_mmap2
    return (void *)arch_syscall6(__NR_mmap2, (long)addr, (long)len, prot,
                                 flags, fd, (long)(off >> 12));
#else
    return (void *)arch_syscall6(__NR_mmap, (long)addr, (long)len, prot,
                                 flags, fd, (long)off);
#endif
}

static inline int sys_mmap_failed(void *p)
{
    return (unsigned long)p > -4096ul;
}

static inline void *sys_mremap(void *addr, unsigned long len, unsigned long new_len, int flags)
{
    return (void *)arch_syscall6(__NR_mremap, (long)addr, (long)len, (long)new_len, flags, 0, 0);
}

static inline int sys_munmap(void *addr, unsigned long len)
{
    return (int)SYS3(__NR_munmap, addr, len, 0);
}

static inline int sys_getpid(void) { return (int)SYS0(__NR_getpid); }
static inline int sys_gettid(void) { return (int)SYS0(__NR_gettid); }
static inline void sys_sched_yield(void) { SYS0(__NR_sched_yield); }

static inline long sys_readlink(const char *path, char *buf, unsigned long n)
{
    return arch_syscall6(__NR_readlinkat, AT_FDCWD, (long)path, (long)buf,
                         (long)n, 0, 0);
}

/* (riscv64 has renameat2 only: flags 0 is renameat) */
static inline int sys_rename(const char *from, const char *to)
{
#ifdef __NR_renameat
    return (int)arch_syscall6(__NR_renameat, AT_FDCWD, (long)from,
                              AT_FDCWD, (long)to, 0, 0);
#else
    return (int)arch_syscall6(__NR_renameat2, AT_FDCWD, (long)from,
                              AT_FDCWD, (long)to, 0, 0);
#endif
}

static inline int sys_unlink(const char *path)
{
    return (int)SYS3(__NR_unlinkat, AT_FDCWD, path, 0);
}

static inline int sys_openat(int dirfd, const char *path, int flags)
{
    return (int)arch_syscall6(__NR_openat, dirfd, (long)path, flags | O_LARGEFILE, 0, 0, 0);
}

static inline int sys_mkdirat(int dirfd, const char *path, int mode)
{
    return (int)SYS3(__NR_mkdirat, dirfd, path, mode);
}

static inline int sys_sigaltstack(const struct arch_stack *ss, struct arch_stack *old)
{
    return (int)SYS3(__NR_sigaltstack, ss, old, 0);
}

/* rt_sigprocmask with the kernel's sigset size (ARCH_NSIG / 8 bytes). */
static inline int sys_sigprocmask(int how, const uint32_t *set, uint32_t *old)
{
    return (int)arch_syscall6(__NR_rt_sigprocmask, how, (long)set, (long)old,
                              ARCH_NSIG / 8, 0, 0);
}

static inline int sys_sigpending(uint32_t *set)
{
    return (int)SYS3(__NR_rt_sigpending, set, ARCH_NSIG / 8, 0);
}

/* Takes signal `sig` if it is pending (for this thread or the process),
 * without waiting; it must be blocked. */
static inline void sys_sigtake(int sig)
{
    uint32_t set[ARCH_NSIG / 32] = { 0 };
    struct { long sec, nsec; } zero = { 0, 0 };
    set[(sig - 1) / 32] = 1u << ((sig - 1) % 32);
    arch_syscall6(__NR_rt_sigtimedwait, (long)set, 0, (long)&zero, ARCH_NSIG / 8, 0, 0);
}

/* Growing a file of the tracer's is never a signal the program would
 * not get: past RLIMIT_FSIZE the kernel sends SIGXFSZ, which ends the
 * process.  Whether SIGXFSZ is pending before a file operation, and
 * after it (it failed with err) taking back one it raised.  The callers
 * have every signal blocked, so it is still pending then. */
static inline int xfsz_pending(void)
{
    uint32_t set[ARCH_NSIG / 32];
    return sys_sigpending(set) == 0 && (set[(SIGXFSZ - 1) / 32] >> ((SIGXFSZ - 1) % 32) & 1);
}

static inline void xfsz_undo(long err, int was_pending)
{
    if (err == -EFBIG && !was_pending && xfsz_pending())
        sys_sigtake(SIGXFSZ);
}

/* The soft RLIMIT_FSIZE in bytes (~0: none). */
static inline uint64_t sys_file_size_limit(void)
{
    struct { uint64_t cur, max; } lim;
    if (arch_syscall6(__NR_prlimit64, 0, 1 /* RLIMIT_FSIZE */, 0, (long)&lim, 0, 0) != 0)
        return ~(uint64_t)0;
    return lim.cur;
}

/* CLOCK_MONOTONIC in nanoseconds; 0 if the clock is unavailable. */
static inline uint64_t sys_monotonic_ns(void)
{
    struct { long sec, nsec; } ts;      /* the 32-bit kernel timespec */
    if (SYS3(__NR_clock_gettime, CLOCK_MONOTONIC, &ts, 0) != 0)
        return 0;
    return (uint64_t)(unsigned long)ts.sec * 1000000000u + (unsigned long)ts.nsec;
}

/* CLOCK_REALTIME's whole seconds; 0 if the clock is unavailable. */
static inline uint32_t sys_realtime_s(void)
{
    struct { long sec, nsec; } ts;
    if (SYS3(__NR_clock_gettime, CLOCK_REALTIME, &ts, 0) != 0)
        return 0;
    return (uint32_t)ts.sec;
}

#endif
