/*
 * Naming runtime addresses: the process's memory map (the saved
 * /proc/PID/maps) says which file an address belongs to, that file's
 * ELF symbols and PLT say which function.
 */
#ifndef LITIFUT_POSTPROC_SYMBOLS_H
#define LITIFUT_POSTPROC_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include "elfimage.h"

struct func_symbol {
    uint32_t addr, size;
    const char *name;           /* "name" or "name@plt" */
    int rank;                   /* at one address the lowest rank names it */
};

/* One ELF file, opened on first use. */
struct object {
    char *path;                 /* as the target named it */
    char *host_path;            /* where we found it here */
    int tried, ok, warned;
    struct elf_image img;
    struct func_symbol *syms;   /* sorted by address */
    size_t n_syms;
    char **owned_names;         /* the @plt names */
    size_t n_owned;
};

struct mapping {
    uint32_t start, end;
    uint64_t offset;
    struct object *obj;         /* NULL for anonymous memory */
};

/* Where the target's files are on this host. */
struct path_options {
    const char *sysroot;        /* prefix for absolute target paths */
    const char *binary_dir;     /* look here first, by file name */
};

struct address_space {
    const struct path_options *paths;
    struct mapping *maps;
    size_t n_maps;
    struct object **objects;
    size_t n_objects;
};

void address_space_init(struct address_space *as, const struct path_options *paths);
/* Loads a saved /proc/PID/maps; a missing file is not an error (the
 * program died before it was written): only the executable is known. */
int address_space_load_maps(struct address_space *as, const char *maps_path);
void address_space_free(struct address_space *as);

/* The object for a target path (opened lazily). */
struct object *object_get(struct address_space *as, const char *path);
/* Opens it now; 0 if it could be read as ELF. */
int object_open(struct object *o);

/* Where a runtime address is: the object, its link-time address.
 * Returns 0 if a mapped file holds it. */
int resolve_address(struct address_space *as, uint32_t rt, struct object **obj,
                    uint32_t *link_addr);

/* The function around `addr` in `o`, and the offset into it; NULL if none. */
const struct func_symbol *object_symbol(struct object *o, uint32_t addr, uint32_t *off);

#endif
