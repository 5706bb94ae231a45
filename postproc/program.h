/* The traced executable: its DB and the address of every call site. */
#ifndef LITIFUT_POSTPROC_PROGRAM_H
#define LITIFUT_POSTPROC_PROGRAM_H

#include "src/db.h"
#include "postproc/symbols.h"
#include "postproc/trace.h"

struct program {
    struct object *obj;
    const struct arch_ops *arch;
    struct db db;
    uint32_t *site_addr;        /* by DB index: link-time address of the call */
    uint32_t bias;              /* runtime - link-time */
};

/* Opens the executable the trace names (see struct path_options),
 * checks it is the build that was traced (architecture, byte order,
 * not stripped, its DB read and checked, the DB checksum the trace's),
 * and finds its call sites.  One error line and -1 if not; a header
 * site count other than the DB's is a warning (the DB is believed). */
int program_load(struct program *p, struct address_space *as, const struct trace_file *t);
void program_free(struct program *p);

/* The call's target: runtime address (without an instruction-set bit),
 * and, for direct calls, the link-time address in the executable.
 * c->site must be below the DB's n_sites (trace_read_records keeps no
 * other). */
uint32_t call_target(const struct program *p, const struct trace_call *c, int *direct,
                     uint32_t *link);

#endif
