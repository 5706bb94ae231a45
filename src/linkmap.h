/*
 * Input sections of a GNU ld link map (-Map), and the code ranges the
 * rewriter must leave alone: the C runtime's crt objects and the tracer.
 */
#ifndef LITIFUT_LINKMAP_H
#define LITIFUT_LINKMAP_H

#include <stddef.h>
#include <stdint.h>
#include "lib/arch.h"

struct map_input {
    char *output;       /* the output section it went to */
    char *section;
    char *file;         /* as ld prints it: path, or archive(member) */
    uint32_t addr, size;
};

struct link_map {
    struct map_input *v;
    size_t n;
};

int link_map_read(const char *path, struct link_map *map);
void link_map_free(struct link_map *map);

/* Address ranges, each within one output section (`section`, NULL:
 * any), so that a non-allocated section's offsets (.debug_* start at
 * 0) are never taken for code addresses. */
struct excluded_range {
    const char *section;
    uint32_t start, end;
};

struct exclusions {
    struct excluded_range *v;
    size_t n;
};

/* Ranges of every input section that comes from a crt object or from a
 * file named in `also` (NULL-terminated list of paths). */
void exclusions_from_map(const struct link_map *map, const char *const *also,
                         struct exclusions *ex);
void exclusions_add(struct exclusions *ex, const char *section, uint32_t start, uint32_t end);
/* The ranges that apply to output section `name`, sorted and merged. */
void exclusions_for_section(const struct exclusions *ex, const char *name,
                            struct code_range **out, size_t *n);
void exclusions_free(struct exclusions *ex);

#endif
