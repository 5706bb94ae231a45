/*
 * What the host tools (rewriter, wrapper, post-processor) need to know
 * about a target architecture.  Each arch/<arch>/arch-<arch>.c fills
 * one struct arch_ops; common code never tests which arch it has.
 */
#ifndef LITIFUT_ARCH_H
#define LITIFUT_ARCH_H

#include <stdint.h>
#include <capstone/capstone.h>
#include "lib/elfimage.h"

/* One call instruction the rewriter redirects. */
struct call_site {
    uint32_t addr;      /* link-time address of the call instruction */
    uint32_t insn;      /* the original instruction word (what the DB holds) */
    uint8_t kind;       /* index into arch_ops.kind_names */
};

#define MAX_KINDS   8
#define MAX_SKIPPED 16

/* What a scan looked at and what it left alone, for the summary. */
struct scan_stats {
    uint64_t bytes_scanned;
    uint32_t sites_by_kind[MAX_KINDS];
    struct skipped { const char *what; uint32_t count; uint64_t bytes; } skipped[MAX_SKIPPED];
    unsigned n_skipped;
};
void stats_skip(struct scan_stats *st, const char *what, uint64_t bytes);

struct code_range { uint32_t start, end; };

/* A PLT (or MIPS lazy-binding stub) entry and the function it stands for. */
struct plt_entry {
    uint32_t addr, size;
    char *name;                 /* "name@plt"; NULL for an IRELATIVE slot: */
    uint32_t resolver;          /* then it is named after this function */
};

/* Where rewritten calls can go: the sled copies linked into the program
 * (link-time addresses), and on MIPS the run-time bridge. */
#define MAX_SLEDS 4
struct sled_set {
    uint32_t base[MAX_SLEDS];
    unsigned n;
    int fixed_address;          /* ET_EXEC: link-time addresses are run-time ones */
    uint32_t bridge;            /* offset of the bridge in a 256 MB region, or 0 */
};

/* An `ld -m` emulation and the GNU triple of its toolchain. */
struct ld_emulation { const char *name, *triple; };

struct arch_ops {
    const char *name;                   /* "arm" */
    int elf_machine;                    /* EM_ARM */
    uint32_t trace_arch;                /* LITIFUT_ARCH_* */
    const struct ld_emulation *ld_emulations;   /* NULL-terminated */
    const char *const *kind_names;      /* call kinds, for sites.tsv and summaries */
    unsigned n_kinds;
    unsigned ra_offset;                 /* return address - call address */
    unsigned db_page_shift;             /* log2 of the DB page size */
    unsigned sled_entry_size;           /* bytes per sled entry */
    unsigned sled_entries;              /* = page size / instruction size */
    uint32_t bridge_offset;             /* where a bridge would go (MIPS), else 0 */

    /* One error line and -1 if this arch cannot handle the image. */
    int (*check_image)(const struct elf_image *img);
    /* The image's code that may hold call sites, in address order;
     * what it leaves out (data, other instruction sets) goes to stats. */
    int (*code_ranges)(const struct elf_image *img, struct code_range **out,
                       size_t *n, struct scan_stats *st);
    int (*disasm_open)(const struct elf_image *img, csh *handle);
    /* 1 if `insn` is a call to rewrite (fills kind and insn); 0 if not
     * a call, or a call that cannot be rewritten (counted in st).
     * `next` is the following word (a delay slot), if has_next. */
    int (*classify)(const cs_insn *insn, uint32_t word, uint32_t next, int has_next,
                    struct call_site *site, struct scan_stats *st);
    /* The word that sends `site` to entry k of a sled it can reach
     * (*bridged set if that is the bridge); -1 with one error line if
     * none can be reached. */
    int (*encode_redirect)(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                           uint32_t *word, int *bridged);
    /* 1 if `word` at `addr` is a rewritten call, with its entry k. */
    int (*decode_redirect)(uint32_t addr, uint32_t word, const struct sled_set *sleds,
                           unsigned *k);
    /* 1 if `word` at `addr` is a call with a fixed target, and *target
     * where it goes (without an instruction-set bit); 0 for calls
     * through a register and for anything else. */
    int (*call_target)(uint32_t addr, uint32_t word, uint32_t *target);
    /* The image's PLT entries (the names are allocated: free them). */
    int (*plt_entries)(const struct elf_image *img, struct plt_entry **out, size_t *n);
    /* The triple whose tracer module fits an input object file (e.g.
     * its float ABI), given the toolchain's triple (NULL op: that one);
     * NULL with one error line if the object cannot be read. */
    const char *(*module_triple)(const char *object_path, const char *triple);
};

const struct arch_ops *arch_by_machine(int elf_machine);
const struct arch_ops *arch_by_name(const char *name);
/* The arch of an `ld -m` emulation or of a GNU triple (as in the
 * emulation table); *triple gets the emulation's triple.  NULL if none. */
const struct arch_ops *arch_by_emulation(const char *emulation, const char **triple);
const struct arch_ops *arch_by_triple(const char *triple);

#endif
