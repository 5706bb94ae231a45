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

/* lui at, hi; addiu at, at, lo; addu dst, ra, at (rewrite-mips.c):
 * the offset, or 0 with *ok = 0 if the words are not that. */
static uint32_t offset_of(const uint32_t *w, unsigned dst, int *ok)
{
    if ((w[0] & 0xffff0000u) != 0x3c010000u || (w[1] & 0xffff0000u) != 0x24210000u ||
        w[2] != (31u << 21 | 1u << 16 | dst << 11 | 0x21))
        *ok = 0;
    return (w[0] << 16) + (uint32_t)(int32_t)(int16_t)(w[1] & 0xffff);
}

/* A tail jump to its thunk (host-mips.h): the thunk's words as the
 * rewriter writes them, its way to the jump half's entry k, its ra this
 * jump's return address; the original jump its last word, its target
 * the word before. */
static int jump_redirect(const struct elf_image *img, struct call_site *site,
                         const struct sled_set *sleds, unsigned *k)
{
    uint32_t a = (uint32_t)site->addr, w[JUMP_THUNK_SIZE / 4];
    uint32_t t = is_j(site->insn) ? mips_jal_target(a, site->insn) : mips_branch_target(a, site->insn);
    uint32_t thunks = (uint32_t)sleds->thunks, thunks_size = (uint32_t)sleds->thunks_size;
    if (!sleds->jump || (t & 3) || t - thunks >= thunks_size ||
        thunks_size - (t - thunks) < JUMP_THUNK_SIZE)
        return 0;
    for (unsigned i = 0; i < JUMP_THUNK_SIZE / 4; i++)
        if (elf_read32(img, t + 4 * i, &w[i]))
            return 0;
    int ok = w[0] == 0x27bdfff8u && w[1] == 0xafbf0004u && w[2] == 0x04110001u &&
             w[10] == 0x03200008u && w[12] == 0x04110001u && w[17] == 0x8fbf0004u;
    uint32_t entry = t + 16 + offset_of(w + 4, 25, &ok), ra = t + 16 + offset_of(w + 7, 31, &ok);
    uint32_t f = t + JUMP_THUNK_TARGET + w[JUMP_THUNK_TARGET / 4], orig = w[JUMP_THUNK_ORIGINAL / 4];
    uint32_t d = entry - (uint32_t)sleds->jump;
    if (!ok || ra != a + RA_OFFSET || d >= SLED_ENTRIES * SLED_ENTRY_SIZE || d % SLED_ENTRY_SIZE)
        return 0;
    if (is_jr_t9(orig)) {
        site->kind = KIND_JR_GOT_JUMP;
        site->target = f;
    } else if ((is_j(orig) && mips_jal_target(a, orig) == f) ||
               (is_b(orig) && mips_branch_target(a, orig) == f)) {
        site->kind = is_j(orig) ? KIND_J_JUMP : KIND_B_JUMP;
    } else {
        return 0;
    }
    site->insn = orig;
    *k = d / SLED_ENTRY_SIZE;
    return 1;
}

/* A jump to the thunk of a tail jump through a register (host-mips.h):
 * its words as the rewriter writes them; the site keeps its place, its
 * instruction the original jr. */
static int reg_jump_redirect(const struct elf_image *img, struct call_site *site,
                             const struct sled_set *sleds, unsigned *k)
{
    uint32_t a = (uint32_t)site->addr, w[REGJUMP_SIZE / 4];
    uint32_t t = is_j(site->insn) ? mips_jal_target(a, site->insn) : mips_branch_target(a, site->insn);
    uint32_t thunks = (uint32_t)sleds->thunks, thunks_size = (uint32_t)sleds->thunks_size;
    if (!sleds->jump || (t & 3) || t - thunks >= thunks_size ||
        thunks_size - (t - thunks) < REGJUMP_SIZE)
        return 0;
    for (unsigned i = 0; i < REGJUMP_SIZE / 4; i++)
        if (elf_read32(img, t + 4 * i, &w[i]))
            return 0;
    uint32_t orig = w[13];
    int ok = is_jr(orig) && rs_of(orig) != 31 && w[0] == (rs_of(orig) << 21 | 3u << 11 | 0x25) &&
             w[1] == 0x27bdfff8u && w[2] == 0xafbf0004u && w[3] == 0x04110001u &&
             w[11] == 0x03200008u;
    uint32_t entry = t + 20 + offset_of(w + 5, 25, &ok), ra = t + 20 + offset_of(w + 8, 31, &ok);
    uint32_t d = entry - (uint32_t)sleds->jump;
    if (!ok || ra != a + RA_OFFSET || d >= SLED_ENTRIES * SLED_ENTRY_SIZE || d % SLED_ENTRY_SIZE)
        return 0;
    site->kind = KIND_JR_JUMP;
    site->insn = orig;
    *k = d / SLED_ENTRY_SIZE;
    return 1;
}

static int mips_decode_redirect(const struct elf_image *img, struct call_site *site,
                                const struct sled_set *sleds, unsigned *k)
{
    uint32_t addr = (uint32_t)site->addr, w = site->insn;
    if ((site->kind == KIND_J_JUMP || site->kind == KIND_B_JUMP) && reg_jump_redirect(img, site, sleds, k))
        return 1;
    if (site->kind == KIND_J_JUMP || site->kind == KIND_B_JUMP || site->kind == KIND_JR_GOT_JUMP)
        return jump_redirect(img, site, sleds, k);
    if (is_regimm_link(w))
        return sled_entry_of(sleds, mips_branch_target(addr, w), 0, k);
    if (is_jal(w))
        return sled_entry_of(sleds, mips_jal_target(addr, w), 1, k);
    return 0;
}

static int mips_call_target(const struct call_site *site, uint64_t *target)
{
    uint32_t addr = (uint32_t)site->addr, w = site->insn;   /* ELF32: arch_of_image */
    if (site->kind == KIND_JR_GOT_JUMP) {       /* (the callee its thunk names) */
        *target = site->target;
        return site->target != 0;
    }
    if (site->kind == KIND_J_JUMP || site->kind == KIND_B_JUMP) {
        *target = site->kind == KIND_J_JUMP ? mips_jal_target(addr, w) : mips_branch_target(addr, w);
        return 1;
    }
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

/* o32: four argument words (a0-a3), 8-byte values in an even pair; a
 * float or double in $f12/$f14 still takes its words' places */
static void mips_call_abi(const struct elf_image *img, struct call_abi *abi)
{
    (void)img;
    *abi = (struct call_abi){ 4, CALL_FP_IN_WORDS, 1, 1 };
}

/* MIPS's own (arch/mips/include/uapi/asm/fcntl.h) */
static const struct open_flag mips_open_flags[] = {
    { "O_CREAT", 0x100 },        { "O_EXCL", 0x400 },       { "O_NOCTTY", 0x800 },
    { "O_TRUNC", 0x200 },        { "O_APPEND", 0x8 },       { "O_NONBLOCK", 0x80 },
    { "O_DIRECTORY", 0x10000 },  { "O_NOFOLLOW", 0x20000 }, { "O_CLOEXEC", 0x80000 },
    { NULL, 0 },
};

const struct arch_read_ops arch_mips_read = {
    .decode_redirect = mips_decode_redirect,
    .call_target = mips_call_target,
    .plt_entries = mips_plt_entries,
    .jump_skip = mips_jump_skip,
    .call_abi = mips_call_abi,
    .open_flags = mips_open_flags,
};
