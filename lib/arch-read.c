#include <stddef.h>
#include "lib/arch-read.h"

extern const struct arch_ops arch_arm, arch_mips;
extern const struct arch_read_ops arch_arm_read, arch_mips_read;

static const struct {
    const struct arch_ops *arch;
    const struct arch_read_ops *read;
} read_ops[] = { { &arch_arm, &arch_arm_read }, { &arch_mips, &arch_mips_read } };

const struct arch_read_ops *arch_read_ops(const struct arch_ops *arch)
{
    for (size_t i = 0; i < sizeof read_ops / sizeof read_ops[0]; i++)
        if (read_ops[i].arch == arch)
            return read_ops[i].read;
    return NULL;
}
