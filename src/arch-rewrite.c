#include <stddef.h>
#include "src/arch-rewrite.h"

extern const struct arch_ops arch_arm, arch_mips;
extern const struct arch_rewrite_ops arch_arm_rewrite, arch_mips_rewrite;

static const struct {
    const struct arch_ops *arch;
    const struct arch_rewrite_ops *rewrite;
} rewrite_ops[] = { { &arch_arm, &arch_arm_rewrite }, { &arch_mips, &arch_mips_rewrite } };

const struct arch_rewrite_ops *arch_rewrite_ops(const struct arch_ops *arch)
{
    for (size_t i = 0; i < sizeof rewrite_ops / sizeof rewrite_ops[0]; i++)
        if (rewrite_ops[i].arch == arch)
            return rewrite_ops[i].rewrite;
    return NULL;
}
