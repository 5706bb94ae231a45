/*
 * Input sections of a GNU ld link map (-Map), and the code ranges the
 * rewriter must leave alone (struct exclusions, lib/sites.h): the C
 * runtime's crt objects and the tracer.
 */
#ifndef LITIFUT_LINKMAP_H
#define LITIFUT_LINKMAP_H

#include <stddef.h>
#include <stdint.h>
#include "lib/sites.h"

struct map_input {
    char *output;       /* the output section it went to */
    char *section;
    char *file;         /* as ld prints it: path, or archive(member) */
    uint32_t addr, size;
    uint32_t output_addr;   /* where the output section starts */
};

struct link_map {
    struct map_input *v;
    size_t n;
};

int link_map_read(const char *path, struct link_map *map);
void link_map_free(struct link_map *map);

/* Ranges of every input section that comes from a crt object or from a
 * file named in `also` (NULL-terminated list of paths). */
void exclusions_from_map(const struct link_map *map, const char *const *also,
                         struct exclusions *ex);
void exclusions_add(struct exclusions *ex, const char *section, uint32_t start, uint32_t end);
void exclusions_free(struct exclusions *ex);

/* 1 for the toolchain's start-up objects: crt1.o, Scrt1.o, crti.o,
 * crtn.o, crtbegin*.o, crtend*.o, ... (by file name) */
int is_crt_object(const char *file);
/* Whether `file` (as the link map names it) is a member of GCC's unwinder. */
int is_unwinder_object(const char *file);

#endif
