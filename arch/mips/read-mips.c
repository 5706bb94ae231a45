/*
 * MIPS o32 for readers of an instrumented object: which calls go into
 * a sled or the bridge (and to which entry), where a direct call goes,
 * and the PLT entries and lazy-binding stubs.
 */
#include <stdlib.h>
#include "arch/mips/host-mips.h"
#include "lib/arch-read.h"
#include "lib/error.h"

/* Entry k if `target` is in one of the sleds or in the bridge. */
static int sled_entry_of(const struct sled_set *sleds, uint32_t target, int via_jal, unsigned *k)
{
    for (unsigned i = 0; i < sleds->n; i++) {
        uint32_t d = target - (uint32_t)sleds->base[i];    /* ELF32: arch_of_image */
        if (d < SLED_BYTES && d % SLED_ENTRY_SIZE == 0) {
            *k = d / SLED_ENTRY_SIZE % SLED_ENTRIES;    /* either half */
            return 1;
        }
    }
    uint32_t off = (target & 0x0fffffffu) - sleds->bridge;
    if (via_jal && sleds->bridge && off < SLED_BYTES && off % SLED_ENTRY_SIZE == 0) {
        *k = off / SLED_ENTRY_SIZE % SLED_ENTRIES;
        return 1;
    }
    return 0;
}

static int mips_decode_redirect(const struct elf_image *img, struct call_site *site,
                                const struct sled_set *sleds, unsigned *k)
{
    (void)img;
    uint32_t addr = (uint32_t)site->addr, w = site->insn;
    if (is_regimm_link(w))
        return sled_entry_of(sleds, mips_branch_target(addr, w), 0, k);
    if (is_jal(w))
        return sled_entry_of(sleds, mips_jal_target(addr, w), 1, k);
    return 0;
}

static int mips_call_target(const struct call_site *site, uint64_t *target)
{
    uint32_t addr = (uint32_t)site->addr, w = site->insn;   /* ELF32: arch_of_image */
    if (is_regimm_link(w)) {
        *target = mips_branch_target(addr, w);
        return 1;
    }
    if (is_jal(w)) {
        *target = mips_jal_target(addr, w);
        return 1;
    }
    return 0;
}

/* The dynamic symbol of a function defined elsewhere holds the address
 * of its PLT entry or lazy-binding stub (.MIPS.stubs), if it has one. */
static int mips_plt_entries(const struct elf_image *img, struct plt_entry **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < img->n_dynsyms; i++) {
        const struct elf_symbol *y = &img->dynsyms[i];
        if (y->shndx != SHN_UNDEF || !y->value || y->type != STT_FUNC || !y->name[0])
            continue;
        *out = xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = (struct plt_entry){ y->value, 16, xasprintf("%s@plt", y->name), 0, 0 };
    }
    return 0;
}

/* Jumps, branches and calls (SPECIAL jr/jalr, REGIMM, j, jal, the
 * branches and their likely forms, the FPU's), and anything with $t9 in
 * a register field, are decoded; nothing else can matter. */
static unsigned mips_jump_skip(unsigned isa, uint32_t w)
{
    (void)isa;
    unsigned op = op_of(w);
    int branch = is_jump_or_branch(w) || op == 0x11 || op == 0x12;     /* (every FPU/COP2 word) */
    int t9 = rs_of(w) == 25 || rt_of(w) == 25 || rd_of(w) == 25;
    return branch || t9 ? 0 : 4;
}

const struct arch_read_ops arch_mips_read = {
    .decode_redirect = mips_decode_redirect,
    .call_target = mips_call_target,
    .plt_entries = mips_plt_entries,
    .jump_skip = mips_jump_skip,
};
