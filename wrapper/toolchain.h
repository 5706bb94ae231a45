/* Finding the real linker, the target compiler and the tracer module. */
#ifndef LITIFUT_TOOLCHAIN_H
#define LITIFUT_TOOLCHAIN_H

#include "lib/arch.h"
#include "wrapper/libsearch.h"
#include "wrapper/linkargs.h"
#include "wrapper/process.h"

struct toolchain {
    char *real_ld;              /* path of the linker we stand in for */
    int installed;              /* ... which is NAME.litifut-real beside us (--install) */
    char *triple;               /* e.g. arm-linux-gnueabi, mipsel-openwrt-linux-musl, or NULL */
    char *module_triple;        /* its row (lib/arches.def): lib/litifut/<module_triple>/ */
    enum c_library c_library;   /* the link's (wrapper/libsearch.h): the module's headers */
    const struct arch_ops *arch;
    struct argv_builder cc;     /* target compiler and its -m options */
    char *tracer_object;        /* lib/litifut/<triple>/tracer.o (tracer-shared.o: -shared;
                                   tracer-musl.o: musl's headers) */
    char *island_object;        /* lib/litifut/<triple>/island.o, or NULL */
    char *far_sled_object;      /* lib/litifut/<triple>/far-sled.o (ARM), or NULL */
    char *placeholder_db;       /* lib/litifut/<triple>/db0.o, or NULL */
};

/* The real linker: $LITIFUT_REAL_LD, else <triple>-ld from PATH (never
 * this program), with the triple taken from our own name, from the gcc
 * driver that runs us ($COLLECT_GCC), or from the -m emulation. */
int find_real_linker(struct toolchain *tc, const char *argv0, const struct link_args *la);

/* The rest, needed only to instrument: the architecture and the
 * tracer module (by the input files that are ELF relocatable objects,
 * by content: never by name), the compiler for the DB ($LITIFUT_CC,
 * else $COLLECT_GCC with the -m options of $COLLECT_GCC_OPTIONS, else
 * <triple>-gcc).  -1 with one error line (an object for a machine
 * without a tracer: "cannot instrument for aarch64 ..."). */
int find_instrumenting_tools(struct toolchain *tc, const struct link_args *la);
/* Where the tracer modules of a (row) triple are: $LITIFUT_LIBDIR/TRIPLE, or
 * lib/litifut/TRIPLE beside this program's folder (allocated). */
char *tracer_module_dir(const char *triple);

void toolchain_free(struct toolchain *tc);

#endif
