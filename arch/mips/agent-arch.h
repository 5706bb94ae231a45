/*
 * What litifut-agent (agent/agent.c) needs of MIPS beyond the tracer's
 * raw system call (tracer-arch.h): the system calls whose 64-bit
 * arguments o32 passes in an aligned register pair (ARCH_U64_PAIR).
 */
#ifndef LITIFUT_ARCH_MIPS_AGENT_ARCH_H
#define LITIFUT_ARCH_MIPS_AGENT_ARCH_H
#include "tracer-arch.h"

static inline long arch_pread64(int fd, void *buf, unsigned long n, uint64_t off)
{
    return arch_syscall6(__NR_pread64, fd, (long)buf, (long)n, 0, ARCH_U64_PAIR(off));
}

/* fallocate with a mode (FALLOC_FL_PUNCH_HOLE ...) */
static inline long arch_fallocate_mode(int fd, int mode, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, mode, ARCH_U64_PAIR(off), ARCH_U64_PAIR(len));
}
#endif
