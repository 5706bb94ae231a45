/*
 * The guest architectures litifut-emu's plugin reads, by QEMU's name
 * for them: one row per arch/<arch>/emu-<arch>.c table.
 */
#include <string.h>
#include "emu/emu-arch.h"

extern const struct emu_arch emu_arch_arm, emu_arch_mips, emu_arch_mipsel, emu_arch_aarch64,
    emu_arch_riscv64;

static const struct emu_arch *const emu_arches[] = {
    &emu_arch_arm, &emu_arch_mips, &emu_arch_mipsel, &emu_arch_aarch64, &emu_arch_riscv64,
};

const struct emu_arch *emu_arch_by_target(const char *target_name)
{
    for (size_t i = 0; i < sizeof emu_arches / sizeof emu_arches[0]; i++)
        if (target_name && !strcmp(emu_arches[i]->target_name, target_name))
            return emu_arches[i];
    return NULL;
}
