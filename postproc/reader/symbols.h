/*
 * Naming runtime addresses: the instrumented objects' load biases (from
 * the trace) and the process's memory map (the saved /proc/PID/maps)
 * say which file an address belongs to, that file's ELF symbols and
 * PLT say which function.  Addresses are 64-bit numbers, run-time ones
 * of the trace's word size (a sum with a load bias wraps there:
 * trace_address_mask).
 */
#ifndef LITIFUT_POSTPROC_SYMBOLS_H
#define LITIFUT_POSTPROC_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include "lib/elfimage.h"

struct object;
struct program;

struct func_symbol {
    uint64_t addr, size;        /* link-time, without an instruction-set bit */
    const char *name;           /* "name" or "name@plt" */
    int rank;                   /* at one address the lowest rank names it (symbols.c) */
    /* a PLT entry: the function it stands for, and (once looked up,
     * see plt_import_object) the object that defines it */
    const char *import;         /* NULL if not a PLT entry of a named import */
    int import_looked_up;
    struct object *import_from;
    uint64_t veneer_to;         /* a linker's veneer: where it goes (link-time), else 0 */
};

/* One ELF file, opened on first use. */
struct path_options;
struct object {
    char *path;                 /* as the target named it */
    char *host_path;            /* where we found it here */
    int tried, ok, warned;
    int has_code;               /* mapped executable: a library to look names up in */
    /* why it could not be opened, if the caller is to say so; NULL if
     * the ELF reader said already (one line per problem) */
    const char *why_not;
    int missing;                /* why_not: no such file here */
    int rejected;               /* not the build traced: never used for names */
    const struct path_options *paths;   /* where it was looked for (buildid.c: again) */
    struct elf_image *debug;    /* --debug-dir: its separate debug file, whose symbols
                                   (and DWARF) img has taken (buildid.c) */
    /* program.c's: the instrumented objects loaded from this file */
    const struct program *program;  /* the first one whose file could be used */
    int load_failed;            /* the file could not be (said once) */
    struct elf_image img;
    struct func_symbol *syms;   /* sorted by address */
    size_t n_syms;
    char **owned_names;         /* the @plt names */
    size_t n_owned;
};

struct mapping {
    uint64_t start;
    uint64_t end;               /* exclusive */
    uint64_t offset;
    struct object *obj;         /* NULL for anonymous memory */
};

/* Where an instrumented object was loaded (one PT_LOAD segment), from
 * its OBJECT record: known even if the maps file lacks it (a library
 * unloaded before the process's end). */
struct object_range {
    uint64_t start, end;        /* runtime; end exclusive */
    uint64_t bias;              /* runtime - link-time */
    int unloaded;
    struct object *obj;
    size_t seq;                 /* order added */
    uint64_t max_end;           /* once sorted: the largest end up to this one */
};

/* Where the target's files are on this host. */
struct path_options {
    const char *sysroot;        /* prefix for absolute target paths */
    const char *binary_dir;     /* look here first, by file name */
    const char *debug_dir;      /* separate debug files by build-id (.build-id/xx/...) */
};

struct address_space {
    const struct path_options *paths;
    uint64_t addr_mask;         /* of a run-time address (trace_address_mask) */
    struct mapping *maps;
    size_t n_maps;
    struct object_range *ranges;    /* sorted (by unloaded, start) on first use */
    size_t n_ranges, n_live_ranges;
    int ranges_sorted;
    struct object **objects;    /* in the order the maps file names them */
    size_t n_objects, cap_objects;
    size_t *by_path;            /* hash of objects by path: indices, SIZE_MAX free */
    size_t n_by_path;
    struct object *main;        /* the process's program, if known */
};

/* For a trace whose header.word_size is `word_size`. */
void address_space_init(struct address_space *as, const struct path_options *paths,
                        unsigned word_size);
/* Loads a saved /proc/PID/maps; a missing file is not an error (the
 * program died before it was written): only the instrumented objects
 * are known.
 * A maps file that is not a regular file is one warning and ignored;
 * a line that is not a maps line (addresses, of the word size,
 * permissions, path) is skipped, with one warning for the file. */
int address_space_load_maps(struct address_space *as, const char *maps_path);
void address_space_free(struct address_space *as);

/* Adds an instrumented object, loaded with `bias`: each of its PT_LOAD
 * segments.  Its addresses are looked up before the maps file's, those
 * of objects not unloaded first. */
void address_space_add_object(struct address_space *as, struct object *o, uint64_t bias,
                              int unloaded);

/* The object for a target path (opened lazily). */
struct object *object_get(struct address_space *as, const char *path);
/* The object for a target path if there is one already, else NULL. */
struct object *object_find(const struct address_space *as, const char *path);
/* Opens it now; 0 if it could be read as ELF.  Else -1, with
 * o->why_not set if the caller is to say what is wrong (not found:
 * o->missing; not a regular file), NULL if the ELF reader has said it. */
int object_open(struct object *o);
/* object_open, and on failure one warning (once per object) that its
 * addresses stay unnamed.  For the libraries. */
int object_usable(struct object *o);

/* Where a runtime address is: the object, its link-time address.
 * Returns 0 if an instrumented object or a mapped file holds it. */
int resolve_address(struct address_space *as, uint64_t rt, struct object **obj,
                    uint64_t *link_addr);

/* The function around `addr` in `o`, and the offset into it; NULL if none. */
struct func_symbol *object_symbol(struct object *o, uint64_t addr, uint64_t *off);

/* For a PLT entry `f`: the object that defines the
 * function it stands for, found as the dynamic linker would look (the
 * program first, then the objects with code in the order the maps
 * file names them, then instrumented objects it lacks; the first
 * definition in a .dynsym wins); NULL if none defines it, or `f` is no
 * such entry.  Looked up once per entry. */
struct object *plt_import_object(struct address_space *as, struct func_symbol *f);
/* The object where the dynamic linker finds function `name`, searched
 * as above; NULL if none defines it. */
struct object *object_binding(struct address_space *as, const char *name);

#endif
