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

const struct open_flag arch_generic_open_flags[] = {
    { "O_CREAT", 0100 },       { "O_EXCL", 0200 },       { "O_NOCTTY", 0400 },
    { "O_TRUNC", 01000 },      { "O_APPEND", 02000 },    { "O_NONBLOCK", 04000 },
    { "O_DIRECTORY", 040000 }, { "O_NOFOLLOW", 0100000 }, { "O_CLOEXEC", 02000000 },
    { NULL, 0 },
};
