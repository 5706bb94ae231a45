/*
 * What readers of an instrumented object (the post-processor) need to
 * know about its architecture beyond struct arch_ops: how a rewritten
 * call reads, where a direct call goes, the PLT, how parameters are
 * passed and open(2)'s flags (for --auto-args).  Each
 * arch/<arch>/read-<arch>.c fills one struct arch_read_ops.
 */
#ifndef LITIFUT_ARCH_READ_H
#define LITIFUT_ARCH_READ_H

#include "lib/arch.h"
#include "lib/sites.h"

/* A PLT (or MIPS lazy-binding stub) entry and the function it stands
 * for; on AArch64 also ld's long-branch veneers, each standing for the
 * function it jumps to. */
struct plt_entry {
    uint64_t addr, size;
    char *name;                 /* "name@plt" ("name@veneer"); NULL for an IRELATIVE
                                   slot (a veneer to a nameless target): */
    uint64_t resolver;          /* then it is named after this function */
    uint64_t to;                /* a linker's veneer (a stub on the way to code of the
                                   same object: AArch64's long branch, ARM's Thumb-to-ARM
                                   one): where it goes (a callee there is that code's);
                                   0 for a PLT entry */
};

/* How the procedure call standard passes a function's parameters
 * (--auto-args' DWARF prototypes: postproc/reader/protos.c places each
 * in its register by these). */
enum call_fp {
    CALL_FP_IN_WORDS,           /* floats and doubles take argument words as integers do
                                   (soft-float ARM; MIPS o32, whose $f12/$f14 still take
                                   their words' places) */
    CALL_FP_OWN_BANK,           /* the Nth floating-point parameter in vN-1 (AArch64) */
    CALL_FP_VFP,                /* floats in s0-s15, doubles in d0-d7, a float back-filling
                                   a free s (ARM's hard-float ABI) */
};
struct call_abi {
    unsigned int_regs;          /* integer argument registers */
    enum call_fp fp;
    int pairs;                  /* an 8-byte integer or double takes an even pair of words */
    int struct_return_word;     /* a struct returned by value takes the first word (its
                                   hidden pointer; AArch64's is x8) */
};

/* open(2)'s flag bits as the arch's kernel has them, {NULL, 0}-ended. */
struct open_flag {
    const char *name;
    uint32_t bit;
};
/* The generic ones (asm-generic/fcntl.h: ARM's and AArch64's). */
extern const struct open_flag arch_generic_open_flags[];

struct arch_read_ops {
    /* 1 if `site` (as a scan of the rewritten `img` finds it) is a
     * rewritten call, with its entry k; a redirect to a thunk becomes
     * the original call's site again (address, kind, instruction). */
    int (*decode_redirect)(const struct elf_image *img, struct call_site *site,
                           const struct sled_set *sleds, unsigned *k);
    /* 1 if `site` is a call with a fixed target, and *target where it
     * goes (without an instruction-set bit); 0 for calls through a
     * register. */
    int (*call_target)(const struct call_site *site, uint64_t *target);
    /* The image's PLT entries and veneers (the names are allocated:
     * free them). */
    int (*plt_entries)(const struct elf_image *img, struct plt_entry **out, size_t *n);
    /* For the post-processor's scan for tail jumps (postproc/jumps.c):
     * the size of the instruction whose first bytes are `word` (as
     * struct arch_ops's classify gets them) if it is no jump, no call
     * and, on MIPS, does not name $t9; 0 if it must be decoded. */
    unsigned (*jump_skip)(unsigned isa, uint32_t word);
    /* For an arch without a disassembler (struct arch_ops' disasm_open
     * NULL), the same scan by bits: the size of the instruction at
     * `addr` (its first bytes `word`), *is_jump set and *target filled
     * if it is a direct jump without a link; 0 if it cannot be read. */
    unsigned (*decode_jump)(unsigned isa, uint64_t addr, uint32_t word, int *is_jump,
                            uint64_t *target);
    /* How `img`'s functions take their parameters. */
    void (*call_abi)(const struct elf_image *img, struct call_abi *abi);
    const struct open_flag *open_flags;
};

/* The read ops of `arch` (every arch has them). */
const struct arch_read_ops *arch_read_ops(const struct arch_ops *arch);

#endif
