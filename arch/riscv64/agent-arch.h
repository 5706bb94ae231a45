/*
 * What litifut-agent (agent/agent.c) needs of RISC-V beyond the
 * tracer's raw system call (tracer-arch.h): 64-bit arguments are one
 * register each.
 */
#ifndef LITIFUT_ARCH_RISCV64_AGENT_ARCH_H
#define LITIFUT_ARCH_RISCV64_AGENT_ARCH_H
#include "tracer-arch.h"

static inline long arch_pread64(int fd, void *buf, unsigned long n, uint64_t off)
{
    return arch_syscall6(__NR_pread64, fd, (long)buf, (long)n, (long)off, 0, 0);
}

/* fallocate with a mode (FALLOC_FL_PUNCH_HOLE ...) */
static inline long arch_fallocate_mode(int fd, int mode, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, mode, (long)off, (long)len, 0, 0);
}
#endif
