#include <stddef.h>
#include "lib/arch-read.h"

/* lib/arches.def: each arch's arch_ops and its read ops */
#define ARCH(folder) extern const struct arch_ops arch_##folder; \
                     extern const struct arch_read_ops arch_##folder##_read;
#include "lib/arches.def"

static const struct {
    const struct arch_ops *arch;
    const struct arch_read_ops *read;
} read_ops[] = {
#define ARCH(folder) { &arch_##folder, &arch_##folder##_read },
#include "lib/arches.def"
};

const struct arch_read_ops *arch_read_ops(const struct arch_ops *arch)
{
    for (size_t i = 0; i < sizeof read_ops / sizeof read_ops[0]; i++)
        if (read_ops[i].arch == arch)
            return read_ops[i].read;
    return NULL;
}
