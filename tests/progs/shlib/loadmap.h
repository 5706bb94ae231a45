/*
 * loadmap.h - write_loadmap(PATH): writes where every loaded object is,
 * one line each: "<file name> <load bias> <lowest> <end>" (hex; the
 * span of its PT_LOAD segments at run time; the program is "prog").
 * The test compares the oracle's run with the traced one through it:
 * the tracer maps its trace file as it runs, so an object loaded with
 * dlopen after tracing began may land elsewhere in the traced run than
 * in the oracle's (tests/lib.sh, check_traced_objects).
 */
#ifndef LOADMAP_H
#define LOADMAP_H

#include <link.h>
#include <stdio.h>
#include <string.h>

static int loadmap_object(struct dl_phdr_info *info, size_t size, void *data)
{
    FILE *f = data;
    const char *name = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "prog";
    const char *slash = strrchr(name, '/');
    unsigned long lo = ~0ul, hi = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi)
            hi = ph->p_vaddr + ph->p_memsz;
    }
    if (hi)
        fprintf(f, "%s %lx %lx %lx\n", slash ? slash + 1 : name, (unsigned long)info->dlpi_addr,
                (unsigned long)info->dlpi_addr + lo, (unsigned long)info->dlpi_addr + hi);
    return 0;
}

static inline int write_loadmap(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    dl_iterate_phdr(loadmap_object, f);
    return fclose(f);
}

#endif
