/* The traced process's instrumented objects (the program, libraries):
 * each one's DB and the address of every call site. */
#ifndef LITIFUT_POSTPROC_PROGRAM_H
#define LITIFUT_POSTPROC_PROGRAM_H

#include "lib/arch-read.h"
#include "lib/db.h"
#include "lib/sites.h"
#include "postproc/reader/symbols.h"
#include "postproc/reader/trace.h"

/* One instrumented object, as its OBJECT record names it. */
struct program {
    const struct trace_object *rec;
    struct object *obj;
    const struct arch_ops *arch;
    const struct arch_read_ops *read_ops;     /* arch_read_ops(arch) */
    struct db db;
    uint64_t *site_addr;        /* by DB index: link-time address of the call */
    uint8_t *jump;              /* by DB index: 1 for a tail jump's site (it has no
                                   return of its own); NULL if the object has none */
    uint64_t *jump_to;          /* ... and its link-time target (its site word names
                                   its thunk); NULL if not known (an emulated trace's:
                                   the record has it) */
    size_t n_untraced;          /* call instructions in its code not redirected */
    struct untraced_function *untraced_fn;     /* them per function, most first */
    size_t n_untraced_fn;
    uint64_t bias;              /* runtime - link-time */
    uint64_t addr_mask;         /* of a run-time address (trace_address_mask) */
    int is_main;                /* the main program (ET_EXEC, or has PT_INTERP) */
    int ok;                     /* loaded: the record is the file's */
    int owns_db;                /* db and site_addr are its own (else another's
                                   object from the same file) */
};

/* Every object of a trace: v[i] is t->objects[i]'s. */
struct program_set {
    struct program *v;
    size_t n;
    const struct program *main;     /* the main program if instrumented, else NULL */
};

/* Opens the file `rec` names (see struct path_options), checks it is
 * the build that was traced (architecture, byte order, not stripped,
 * its DB read and checked, the DB checksum and build-id the record's),
 * and finds its call sites.  One error line and -1 if not; a record
 * site count other than the DB's is a warning (the DB is believed). */
int program_load(struct program *p, struct address_space *as, const struct trace_file *t,
                 const struct trace_object *rec);
void program_free(struct program *p);

/* program_load for every object of `t` (a file opened once for all
 * the objects it is); the ones loaded are marked usable in `t`
 * (trace_read_records) and their addresses added to `as`.  Returns -1
 * if any could not be (one error line per file or build). */
int programs_load(struct program_set *ps, struct address_space *as, struct trace_file *t);
void programs_free(struct program_set *ps);

/* The call's target: runtime address (without an instruction-set bit),
 * and, for direct calls, the link-time address in the object.
 * c->site must be below the DB's n_sites (trace_read_records keeps no
 * other). */
uint64_t call_target(const struct program *p, const struct trace_call *c, int *direct,
                     uint64_t *link);

/* The code of an instrumented object that the link left alone (the
 * crt objects, the tracer), as the object records it (section
 * .litifut_other_code, src/db.c): *out gets n link-time ranges
 * (section NULL, start < end), malloc'd; 0 (and NULL) if it has none. */
size_t other_code_ranges(const struct elf_image *img, struct excluded_range **out);

#endif
