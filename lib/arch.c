#include <stdio.h>
#include <string.h>
#include "lib/arch.h"

/* lib/arches.def: the architectures and the triples */
#define ARCH(folder) extern const struct arch_ops arch_##folder;
#include "lib/arches.def"

static const struct arch_ops *const all_arches[] = {
#define ARCH(folder) &arch_##folder,
#include "lib/arches.def"
};
#define N_ARCHES (sizeof all_arches / sizeof all_arches[0])

const char *const arch_common_wrapped[] = {
    "vfork", "clone", "__clone_internal",               /* spawn: share memory and TLS */
    "setjmp", "_setjmp", "__sigsetjmp", "getcontext",   /* return twice (stub/returns.c) */
    "backtrace",                                        /* reads return addresses */
    /* install signal handlers: the tracer's entry records each delivery
     * (stub/events.c) */
    "sigaction", "signal", "bsd_signal", "ssignal", "sysv_signal", "__sysv_signal", "sigset",
    NULL
};

const struct arch_triple arch_triples[] = {
#define TRIPLE(triple, folder, test_name, qemu, ldso, tracer_flags) { triple, &arch_##folder },
#include "lib/arches.def"
    { NULL, NULL },
};

const char *arch_supported_triples(void)
{
    static char list[256];
    if (!list[0])
        for (const struct arch_triple *t = arch_triples; t->triple; t++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     t == arch_triples ? "" : ", ", t->triple);
    return list;
}

const struct arch_ops *arch_by_machine(int elf_machine)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        if (all_arches[i]->elf_machine == elf_machine)
            return all_arches[i];
    return NULL;
}

const struct arch_ops *arch_of_image(const struct elf_image *img)
{
    const struct arch_ops *arch = arch_by_machine(img->machine);
    return arch && arch->word_size == img->word_size ? arch : NULL;
}

const struct arch_ops *arch_by_trace_arch(uint32_t trace_arch)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        if (all_arches[i]->trace_arch == trace_arch)
            return all_arches[i];
    return NULL;
}

const struct arch_ops *arch_by_counter_clock(unsigned clock)
{
    for (size_t i = 0; i < N_ARCHES; i++)
        if (all_arches[i]->counter_clock && all_arches[i]->counter_clock == clock)
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
    for (const struct arch_triple *t = arch_triples; t->triple; t++)
        if (strcmp(t->triple, triple) == 0)
            return t->arch;
    return NULL;
}
