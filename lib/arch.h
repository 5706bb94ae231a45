/*
 * What every host tool (rewriter, wrapper, post-processor) needs to
 * know about a target architecture: its identity, its call kinds and
 * geometry, and how to find its call instructions.  Each
 * arch/<arch>/arch-<arch>.c fills one struct arch_ops; what only one
 * kind of tool needs has its own table, filled by a file of its own
 * per arch: struct arch_rewrite_ops (src/arch-rewrite.h, the rewriter)
 * and struct arch_read_ops (lib/arch-read.h, readers of rewritten
 * objects).  Common code never tests which arch it has.
 */
#ifndef LITIFUT_ARCH_H
#define LITIFUT_ARCH_H

#include <stdint.h>
#include <capstone/capstone.h>
#include "lib/elfimage.h"

/* One call instruction the rewriter redirects. */
struct call_site {
    uint64_t addr;      /* link-time address of the call instruction */
    uint32_t insn;      /* the original word the redirect replaces (sites.tsv) */
    uint8_t kind;       /* index into arch_ops.kinds */
    uint16_t insn2;     /* more original bytes, for kinds whose redirect replaces
                           something other than the call (arch/<arch>/host-<arch>.h) */
    uint64_t target;    /* a call through a register whose callee the link fixed
                           (MIPS: jalr $t9 after a GOT load, arch-mips.c): that
                           callee; 0 for every other call */
    uint32_t callee_sym;/* a call through a register loaded from the GOT slot of a
                           function of another object (MIPS: jalr $t9, arch-mips.c):
                           that symbol's index in the dynamic symbols + 1, for
                           LITIFUT_EXCLUDE_CALLEE (src/rules.c); 0 if not such */
};

/* A kind of call: its name (sites.tsv, summaries), where its return
 * address is, and where the word that redirects it starts, both
 * relative to the call instruction.  A Thumb 32-bit call is two
 * halfwords, read as one little-endian word (first halfword low). */
struct call_kind {
    const char *name;
    uint8_t ra_offset;          /* return address - call address */
    int8_t patch_offset;        /* redirected word - call address */
    uint8_t thunk_size;         /* bytes of its own thunk (litifut_thunks), or 0 */
    uint8_t jump;               /* a tail jump (a jump to a function's start): recorded
                                   as a call, but it has no return of its own (the
                                   callee returns for the jumper) */
};

/* The instruction sets an arch's code may be in (code_range.isa): its
 * main one, and another it mixes in (ARM: Thumb; MIPS: none). */
enum { ISA_MAIN, ISA_ALT, N_ISAS };

/* What a scan looked at and left alone, and what it found (lib/sites.h). */
struct scan_stats;
struct site_list;

struct code_range { uint64_t start, end; unsigned isa; };

/* An `ld -m` emulation and the GNU triple of its toolchain. */
struct ld_emulation { const char *name, *triple; };

/* The functions whose calls the wrapper links to the tracer's
 * __wrap_NAME (ld --wrap: wrapper/instrument.c) on every arch,
 * NULL-terminated: what may create a child that shares the caller's
 * memory and TLS (vfork, clone, static glibc's internal clone), what
 * returns twice (stub/returns.c), what reads return addresses
 * (backtrace) and what installs a signal handler (sigaction, signal and
 * kin: stub/events.c); an arch adds its own (struct arch_ops' wrapped).  The
 * post-processor names a call of __wrap_NAME as one of NAME. */
extern const char *const arch_common_wrapped[];
/* The functions of the C library that call the program's functions back
 * (a thread's start routine, a comparator, an exit handler), linked
 * through the tracer's __wrap_NAME (stub/entries.c) only where the C
 * library is a shared one: a static link's archives bring the C
 * library's code into the output, instrumented, its calls traced as any
 * (wrapper/instrument.c).  NULL-terminated. */
extern const char *const arch_entry_wrapped[];

struct exclusions;              /* lib/sites.h */

struct arch_ops {
    const char *name;                   /* "arm" */
    int elf_machine;                    /* EM_ARM */
    unsigned word_size;                 /* its objects' ELF class: 4 (ELF32) or 8 (ELF64) */
    uint32_t trace_arch;                /* LITIFUT_ARCH_* */
    const struct ld_emulation *ld_emulations;   /* NULL-terminated */
    const struct call_kind *kinds;      /* call kinds (struct call_site.kind) */
    unsigned n_kinds;
    unsigned insn_unit[N_ISAS];         /* bytes per instruction step; 0: no such ISA */
    unsigned db_page_shift;             /* log2 of the DB page size */
    unsigned sled_entry_size;           /* bytes per sled entry */
    unsigned sled_entries;              /* = page size / instruction size */
    uint32_t bridge_offset;             /* where a bridge would go (MIPS), else 0 */
    const char *const *signal_names;    /* the ABI's signals by number, 1 to 31, no "SIG" */
    /* The ABI's error numbers as the host's (a trace's stop reason):
     * 0 if the host has none of that meaning; NULL: Linux's generic
     * numbering, the host's. */
    uint32_t (*host_errno)(uint32_t target_errno);
    /* What of a code address (a symbol's value, a call's target) is the
     * address: the bits left are the instruction set's (ARM's Thumb
     * bit, MIPS's MIPS16/microMIPS mode bit).  arch_code_address().
     * (A 32-bit arch's ~1u keeps the upper half of a 64-bit number
     * clear: its addresses have none.) */
    uint64_t code_address_mask;
    /* The arch's counter clock (LITIFUT_CLOCK_*; 0: none), as the log's
     * head names it ("the ARM generic timer") and as --info's clock
     * value does ("counter (ARM CNTVCT)"). */
    uint8_t counter_clock;
    const char *counter_clock_name;
    const char *counter_clock_info;
    /* Code bytes between far sleds, at most, as the wrapper estimates
     * them before ld runs (wrapper/farsleds.c): the reach of the
     * shortest redirect; 0: the arch has no far sleds (MIPS). */
    uint32_t far_sled_spacing;
    /* The ELF relocation type of a word that holds a link-time address
     * moved by the load bias (R_ARM_RELATIVE, R_AARCH64_RELATIVE,
     * R_MIPS_REL32 without a symbol): the rewriter's (src/entries.c). */
    uint32_t reloc_relative;
    /* More functions whose calls the wrapper links to the tracer's
     * __wrap_NAME (ld --wrap) than every arch's (wrapper/instrument.c),
     * NULL-terminated; NULL: none.  AArch64: glibc's swapcontext calls
     * __setcontext at its own stack pointer (stub/returns.c). */
    const char *const *wrapped;

    /* One error line and -1 if this arch cannot handle the image. */
    int (*check_image)(const struct elf_image *img);
    /* The image's code that may hold call sites, in address order;
     * what it leaves out (data, other instruction sets) goes to stats,
     * but for what `ex` (NULL: none) excludes anyway (the tracer's, the
     * crt objects': find_call_sites counts it so). */
    int (*code_ranges)(const struct elf_image *img, const struct exclusions *ex,
                       struct code_range **out, size_t *n, struct scan_stats *st);
    int (*disasm_open)(const struct elf_image *img, unsigned isa, csh *handle);
    /* Optional (NULL: none): what a scan of `img` keeps from one
     * instruction to the next (classify's `state`), and a last look at
     * the sites found, which may turn some into untraced calls; it
     * frees the state. */
    void *(*scan_begin)(const struct elf_image *img);
    void (*scan_end)(void *state, const struct elf_image *img, struct site_list *sites,
                     struct scan_stats *st);
    /* 1 if `insn` (in instruction set `isa`; `word` its bytes, little-
     * endian: a Thumb 32-bit one is first halfword | second << 16) is a
     * call to rewrite (fills kind and insn); 0 if not a call, or a call
     * that cannot be rewritten (counted in st).  `next` is the
     * following word (a delay slot), if has_next. */
    int (*classify)(void *state, const cs_insn *insn, unsigned isa, uint32_t word,
                    uint32_t next, int has_next, struct call_site *site, struct scan_stats *st);
    /* Optional: classify without the disassembler, for the
     * instructions whose bits say all (most are no call and no branch:
     * a scan is then many times faster than capstone decodes).  Returns
     * the size of the instruction at `addr` (its first bytes `word`, as
     * classify gets them; `next`, has_next as for classify) if it did
     * what classify would (*found = classify's result, `site` filled if
     * 1); 0 if it must be disassembled and classified. */
    unsigned (*quick)(void *state, unsigned isa, uint64_t addr, uint32_t word, uint32_t next,
                      int has_next, struct call_site *site, int *found, struct scan_stats *st);
};

/* The target triples with a tracer module (lib/arches.def), in their
 * order, NULL-terminated; and their list as messages print it
 * ("arm-linux-gnueabi, arm-linux-gnueabihf, ..."). */
struct arch_triple { const char *triple; const struct arch_ops *arch; };
extern const struct arch_triple arch_triples[];
const char *arch_supported_triples(void);

const struct arch_ops *arch_by_machine(int elf_machine);
/* The arch of an image: its e_machine's, if the image has that arch's
 * word size (ELF class), else NULL.  An arch's code may take the
 * image's addresses to be of its word size. */
const struct arch_ops *arch_of_image(const struct elf_image *img);
const struct arch_ops *arch_by_name(const char *name);
/* The arch of an `ld -m` emulation (as in the emulation table; *triple
 * gets the emulation's triple) or of a GNU triple (arch_triples).  NULL
 * if none. */
const struct arch_ops *arch_by_emulation(const char *emulation, const char **triple);
const struct arch_ops *arch_by_triple(const char *triple);
/* The row of arch_triples a GNU triple belongs to: itself, or for
 * another vendor or C library (mipsel-openwrt-linux-musl,
 * arm-buildroot-linux-uclibcgnueabihf, armv7a-unknown-linux-musleabihf)
 * the row of its CPU and, on ARM, float ABI; NULL if none. */
const char *arch_row_triple(const char *triple);
/* The arch a trace header names (LITIFUT_ARCH_*), NULL if none. */
const struct arch_ops *arch_by_trace_arch(uint32_t trace_arch);
/* The arch whose counter clock is `clock` (LITIFUT_CLOCK_*), NULL if none. */
const struct arch_ops *arch_by_counter_clock(unsigned clock);
/* A code address without the instruction-set bits (code_address_mask). */
static inline uint64_t arch_code_address(const struct arch_ops *arch, uint64_t addr)
{
    return addr & arch->code_address_mask;
}
/* Most Linux ABIs' signal numbering (asm-generic/signal.h): an arch
 * whose kernel numbers them so names this table. */
extern const char *const arch_generic_signal_names[32];

#endif
