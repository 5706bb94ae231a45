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

const struct arch_ops *arch_by_trace_arch(uint32_t trace_arch)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        if (all_arches[i]->trace_arch == trace_arch)
            return all_arches[i];
    return NULL;
}

const char *const arch_generic_signal_names[32] = {
    NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV",
    "USR2", "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU",
    "URG", "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
};

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
