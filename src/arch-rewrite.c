#include <stddef.h>
#include "src/arch-rewrite.h"

/* lib/arches.def: each arch's arch_ops and its rewrite ops */
#define ARCH(folder) extern const struct arch_ops arch_##folder; \
                     extern const struct arch_rewrite_ops arch_##folder##_rewrite;
#include "lib/arches.def"

static const struct {
    const struct arch_ops *arch;
    const struct arch_rewrite_ops *rewrite;
} rewrite_ops[] = {
#define ARCH(folder) { &arch_##folder, &arch_##folder##_rewrite },
#include "lib/arches.def"
};

const struct arch_rewrite_ops *arch_rewrite_ops(const struct arch_ops *arch)
{
    for (size_t i = 0; i < sizeof rewrite_ops / sizeof rewrite_ops[0]; i++)
        if (rewrite_ops[i].arch == arch)
            return rewrite_ops[i].rewrite;
    return NULL;
}
