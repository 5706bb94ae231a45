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
    "setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp",    /* return twice (stub/returns.c); */
    "getcontext",                                       /* sigsetjmp: musl's name */
    "backtrace",                                        /* reads return addresses */
    /* install signal handlers: the tracer's entry records each delivery
     * (stub/events.c) */
    "sigaction", "signal", "bsd_signal", "ssignal", "sysv_signal", "__sysv_signal", "sigset",
    NULL
};

const char *const arch_entry_wrapped[] = {
    "pthread_create",                                   /* the start routine */
    "qsort", "qsort_r", "bsearch", "lfind", "lsearch",  /* comparators */
    "tsearch", "tfind", "tdelete", "twalk",             /* ... and a tree's visitor */
    "twalk_r", "tdestroy",                              /* (glibc's, with a closure; a freer) */
    "ftw", "nftw", "ftw64", "nftw64",                   /* a file tree's visitor */
    "scandir", "scandir64",                             /* a filter and a comparator */
    "thrd_create",                                      /* a C11 thread's start */
    "pthread_once", "dl_iterate_phdr",                  /* an init routine, a visitor */
    "__cxa_atexit", "on_exit",                          /* exit handlers (atexit: glibc's
                                                           calls __cxa_atexit) */
    "__libc_start_main", "__uClibc_main",               /* main (uClibc-ng's name) */
    NULL
};

const struct arch_triple arch_triples[] = {
#define TRIPLE(triple, folder, test_name, qemu, ldso, tracer_flags, musl) { triple, &arch_##folder },
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

const char *arch_row_triple(const char *triple)
{
    for (const struct arch_triple *t = arch_triples; t->triple; t++)
        if (strcmp(t->triple, triple) == 0)
            return t->triple;
    /* CPU[-VENDOR]-linux-ENV: the CPU and, on ARM, the float ABI decide */
    const char *dash = strchr(triple, '-'), *linux_part = strstr(triple, "-linux-");
    if (!dash || !linux_part)
        return NULL;
    size_t cpu_len = (size_t)(dash - triple);
    const char *env = linux_part + 7, *row = NULL;
    size_t env_len = strlen(env);
    if (cpu_len >= 3 && strncmp(triple, "arm", 3) == 0 &&
        (cpu_len < 5 || strncmp(dash - 2, "eb", 2) != 0))          /* not armeb */
        row = env_len >= 2 && strcmp(env + env_len - 2, "hf") == 0 ? "arm-linux-gnueabihf"
            : env_len >= 3 && strstr(env, "eabi") ? "arm-linux-gnueabi" : NULL;
    else if ((cpu_len == 6 && !strncmp(triple, "mipsel", 6)) ||
             (cpu_len == 8 && !strncmp(triple, "mips32el", 8)) ||
             (cpu_len == 13 && !strncmp(triple, "mipsisa32r2el", 13)))
        row = "mipsel-linux-gnu";
    else if ((cpu_len == 4 && !strncmp(triple, "mips", 4)) ||
             (cpu_len == 6 && !strncmp(triple, "mips32", 6)) ||
             (cpu_len == 11 && !strncmp(triple, "mipsisa32r2", 11)))
        row = "mips-linux-gnu";
    else if (cpu_len == 7 && !strncmp(triple, "aarch64", 7))
        row = "aarch64-linux-gnu";
    else if (cpu_len == 7 && !strncmp(triple, "riscv64", 7))
        row = "riscv64-linux-gnu";
    return row;
}

const struct arch_ops *arch_by_triple(const char *triple)
{
    const char *row = arch_row_triple(triple);
    for (const struct arch_triple *t = arch_triples; row && t->triple; t++)
        if (strcmp(t->triple, row) == 0)
            return t->arch;
    return NULL;
}
