/*
 * The call sites of a linked object, as every tool finds them: the
 * rewriter to redirect them, the post-processor to find the redirected
 * ones again.  find_call_sites() scans the arch's code ranges with
 * capstone and the arch's classify(); find_sleds() finds the sled
 * copies the calls are redirected to.
 */
#ifndef LITIFUT_SITES_H
#define LITIFUT_SITES_H

#include <stddef.h>
#include <stdint.h>
#include "lib/arch.h"

struct site_list {
    struct call_site *v;
    size_t n;
};

#define MAX_KINDS   16
#define MAX_SKIPPED 16

/* A call instruction the scan found and cannot redirect, and why. */
struct untraced_call {
    uint64_t addr;
    const char *why;
};

/* What a scan looked at and what it left alone, for the summary.
 * `untraced` is allocated: scan_stats_free(). */
struct scan_stats {
    uint64_t bytes_scanned;
    uint32_t sites_by_kind[MAX_KINDS];
    struct skipped { const char *what; uint32_t count; uint64_t bytes; } skipped[MAX_SKIPPED];
    unsigned n_skipped;
    struct untraced_call *untraced;
    size_t n_untraced, untraced_cap;
};
void stats_skip(struct scan_stats *st, const char *what, uint64_t bytes);
/* A call at addr that stays untraced: skipped as `why`, and listed. */
void stats_untraced(struct scan_stats *st, uint64_t addr, const char *why, uint64_t bytes);
void scan_stats_free(struct scan_stats *st);

/* Untraced calls per function (the image's symbol containing them;
 * NULL name: none), most first. */
struct untraced_function {
    const char *name;           /* the image's symbol name, or NULL */
    uint64_t addr;              /* the function's (or the call's, if none) */
    uint32_t count;
};
size_t untraced_by_function(const struct elf_image *img, const struct scan_stats *st,
                            struct untraced_function **out);

/* Address ranges the scan leaves alone (the rewriter's: the crt
 * objects and the tracer, src/linkmap.h fills them), each within one
 * output section (`section`, NULL: any), so that a non-allocated
 * section's offsets (.debug_* start at 0) are never taken for code
 * addresses. */
struct excluded_range {
    const char *section;
    uint64_t start, end;
    uint64_t section_addr;      /* where the map's link put `section` (0: addresses
                                 * as they are): a link whose section lies elsewhere
                                 * (after a thunk area) gets them moved with it */
};

/* r's addresses in the image's section s: 1 if r is one of s's. */
int excluded_range_at(const struct excluded_range *r, const struct elf_section *s,
                      uint64_t *start, uint64_t *end);

struct exclusions {
    struct excluded_range *v;
    size_t n;
};

/* The ranges that apply to the image's section `s` (NULL: none), sorted
 * and merged. */
void exclusions_for_section(const struct exclusions *ex, const struct elf_section *s,
                            struct code_range **out, size_t *n);

/* ARM and AArch64 ELF files mark code and data in a section with
 * mapping symbols, "$<letter>" optionally followed by ".<anything>":
 * the letter of such a name, or 0. */
char mapping_symbol_letter(const char *name);

/* An arch_ops.code_ranges for such an arch: what the mapping symbols
 * with a letter of `letters` mark is code, of the instruction set at
 * the same index in `isas`; "$d" marks data (skipped as data in code),
 * and so is anything before a section's first mapping symbol; the PLT
 * (.plt, .iplt) is never scanned.  In address order.  One error line
 * naming `arch_name` if the image has no symbol table. */
int mapped_code_ranges(const struct elf_image *img, const char *arch_name, const char *letters,
                       const unsigned *isas, struct code_range **out, size_t *n,
                       struct scan_stats *st);

/* A set of 32-bit addresses, for the arch scans: added to in any
 * order, sorted once (addr_set_sort) before it is searched. */
struct addr_set { uint32_t *v; size_t n, cap; };
void addr_set_add(struct addr_set *s, uint32_t a);
void addr_set_sort(struct addr_set *s);
/* Sorted: 1 if a is in it; the index of its first element >= a. */
int addr_set_has(const struct addr_set *s, uint32_t a);
size_t addr_set_lower_bound(const struct addr_set *s, uint32_t a);

/* Where a tail jump may go (a jump to a function's first instruction
 * is a call that leaves no frame: the rewriter redirects it through a
 * thunk, docs/DESIGN.md "Tail jumps"), for the arch scans: the image's
 * function starts (STT_FUNC symbols, but a function's cold part,
 * "f.cold": still f), its PLT (.plt, .iplt), and its thunk area
 * (litifut_thunks: a rewritten jump goes there).  Link-time addresses
 * (below 4 GB: the DB's). */
struct tail_targets {
    struct addr_set starts;
    uint32_t plt_lo[2], plt_hi[2];
    uint32_t thunks_lo, thunks_hi;
    const struct function_index *functions;     /* the scan's, to find a jump's own function */
    /* addresses inside a function's code that allocated data names (a
     * table's neighbouring words, a RELA addend): a computed goto's
     * labels, whose jump through a register stays inside its function */
    struct addr_set inner;
    /* every place inside a function that a word of allocated data or a
     * RELA addend names, lone words too: where a jump through a table
     * of labels may land (a superset) */
    struct addr_set named;
};
void tail_targets_build(const struct elf_image *img, const struct arch_ops *arch,
                        const struct function_index *functions, struct tail_targets *tt);
void tail_targets_free(struct tail_targets *tt);
enum tail_jump { NOT_TAIL_JUMP, TAIL_JUMP, TAIL_JUMP_REWRITTEN };
/* What a direct jump at `site` to `target` (code addresses, no
 * instruction-set bit) is: a tail jump (to a function's start other
 * than its own, or to a PLT entry), one already rewritten (into the
 * thunk area), or neither (a branch within its function). */
enum tail_jump tail_jump_at(const struct tail_targets *tt, uint64_t site, uint64_t target);
/* Whether a jump through a register at `site` may be a tail jump: it
 * is in a function's code, not a linker's stub's (a veneer's bx ip is
 * its way on), and no data names a place inside that function (as a
 * computed goto's table does; a switch's table of offsets, which names
 * none, the arch scans tell by its idiom).  Its target is known only when it runs: the reader
 * takes a traced one as a call where it lands at a function's start
 * (postproc/reader/names.c). */
int register_jump_at(const struct tail_targets *tt, uint64_t site);

/* Every call instruction in the image's code outside `excluded` (NULL:
 * none), in address order.  Fills `st` with what was scanned and
 * skipped. */
int find_call_sites(const struct arch_ops *arch, const struct elf_image *img,
                    const struct exclusions *excluded, struct site_list *out,
                    struct scan_stats *st);
void site_list_free(struct site_list *l);

/* Where rewritten calls can go: the sled copies linked into the program
 * (link-time addresses: litifut_sled first, then MIPS's island or ARM's
 * far sleds in address order), and on MIPS the run-time bridge. */
#define MAX_SLEDS 1026          /* far sleds: one per 4 MB of 4 GB of code */
struct sled_set {
    uint64_t base[MAX_SLEDS];
    unsigned n;
    int fixed_address;          /* ET_EXEC: link-time addresses are run-time ones */
    uint32_t bridge;            /* offset of the bridge in a 256 MB region, or 0 */
    uint64_t thunks, thunks_size;   /* litifut_thunks: the sites' own thunks (or 0, 0) */
    uint64_t code_end;          /* the end of the other code: where the thunk area goes
                                   (the DB object puts it after it: image_code_end) */
    uint64_t jump;              /* litifut_sled_jump: the tail jumps' half (or 0) */
    int big_endian;             /* the image's byte order (thunks are code) */
};

/* The sled copies the tracer module put into `img` (litifut_sled, and
 * litifut_island_sled where the arch has islands; the far sleds the
 * wrapper linked in, local symbols litifut_far_sled), and the thunk area
 * the DB object has if any site needs a thunk. */
int find_sleds(const struct arch_ops *arch, const struct elf_image *img,
               struct sled_set *sleds);
/* The end of the image's code but the thunk area (the executable
 * sections', 4-aligned): where the thunk area starts at the latest (the
 * DB object, the link's last input, puts it after every other code
 * section; pass 1, which has none yet, stands in with this). */
uint64_t image_code_end(const struct elf_image *img);

#endif
