#include <string.h>
#include "lib/arch.h"

extern const struct arch_ops arch_arm, arch_mips;

static const struct arch_ops *const all_arches[] = { &arch_arm, &arch_mips };
#define N_ARCHES (sizeof all_arches / sizeof all_arches[0])

const struct arch_ops *arch_by_machine(int elf_machine)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        if (all_arches[i]->elf_machine == elf_machine)
            return all_arches[i];
    return NULL;
}

const struct arch_ops *arch_by_name(const char *name)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        if (strcmp(all_arches[i]->name, name) == 0)
            return all_arches[i];
    return NULL;
}

const struct arch_ops *arch_by_emulation(const char *emulation, const char **triple)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        for (const struct ld_emulation *e = all_arches[i]->ld_emulations; e->name; e++)
            if (strcmp(e->name, emulation) == 0) {
                *triple = e->triple;
                return all_arches[i];
            }
    return NULL;
}

const struct arch_ops *arch_by_triple(const char *triple)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        for (const struct ld_emulation *e = all_arches[i]->ld_emulations; e->name; e++)
            if (strcmp(e->triple, triple) == 0)
                return all_arches[i];
    return NULL;
}
