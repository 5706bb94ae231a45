/*
 * What litifut-agent (agent/agent.c) needs of ARM beyond the tracer's
 * raw system call (tracer-arch.h): the system calls whose 64-bit
 * arguments EABI passes in an even register pair.
 */
#ifndef LITIFUT_ARCH_ARM_AGENT_ARCH_H
#define LITIFUT_ARCH_ARM_AGENT_ARCH_H
#include "tracer-arch.h"

static inline long arch_pread64(int fd, void *buf, unsigned long n, uint64_t off)
{
    return arch_syscall6(__NR_pread64, fd, (long)buf, (long)n, 0, (long)(uint32_t)off,
                         (long)(uint32_t)(off >> 32));
}

/* fallocate with a mode (FALLOC_FL_PUNCH_HOLE ...) */
static inline long arch_fallocate_mode(int fd, int mode, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, mode, (long)(uint32_t)off,
                         (long)(uint32_t)(off >> 32), (long)(uint32_t)len,
                         (long)(uint32_t)(len >> 32));
}
#endif
