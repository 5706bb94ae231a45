/*
 * RISC-V for readers of an instrumented object: which calls go into
 * the sled (and to which entry), where a direct call goes, and the PLT
 * entries (named after the function whose GOT slot they jump through).
 * (The DB itself is read by lib/db.c, the same for every arch.)
 */
#include <stdlib.h>
#include <string.h>
#include "arch/riscv64/host-riscv64.h"
#include "lib/arch-read.h"
#include "lib/error.h"

#ifndef R_RISCV_JUMP_SLOT
#define R_RISCV_JUMP_SLOT 5
#endif
#ifndef R_RISCV_IRELATIVE
#define R_RISCV_IRELATIVE 58
#endif

/* A jal's target; an auipc + jalr pair's, which the scan found. */
static int rv_call_target(const struct call_site *site, uint64_t *target)
{
    if (site->kind == KIND_JAL && rv_is_jal(site->insn)) {
        *target = site->addr + (uint64_t)rv_jal_offset(site->insn);
        return 1;
    }
    if (site->kind == KIND_CALL && site->target) {
        *target = site->target;
        return 1;
    }
    return 0;
}

/* The halfword at `addr`; -1 if it is not in the file. */
static int read16(const struct elf_image *img, uint64_t addr, uint32_t *h)
{
    const unsigned char *p = elf_bytes_at(img, addr, 2);
    if (!p)
        return -1;
    *h = elf_get16(img, p);
    return 0;
}

/* The entry k of the register halves (sled.h: 1 and 2) that the jal at
 * `at` reaches. */
static int reg_entry(const struct elf_image *img, uint64_t at, const struct sled_set *sleds,
                     unsigned *k)
{
    uint32_t lo, hi;
    if (read16(img, at, &lo) || read16(img, at + 2, &hi))
        return 0;
    uint32_t j = lo | hi << 16;
    if (!rv_is_jal(j) || rv_rd(j) != 0)
        return 0;
    uint64_t to = at + (uint64_t)rv_jal_offset(j);
    for (unsigned i = 0; i < sleds->n; i++) {
        uint64_t d = to - sleds->base[i] - SLED_ENTRIES * SLED_ENTRY_SIZE;
        if (d < 2 * SLED_ENTRIES * SLED_ENTRY_SIZE && d % SLED_ENTRY_SIZE == 0) {
            *k = (unsigned)(d / SLED_ENTRY_SIZE % SLED_ENTRIES);
            return 1;
        }
    }
    return 0;
}

/* A jal ra at `site` to a c.jalr pair's thunk (host-riscv64.h), read
 * as the rewriter writes it: the site becomes the pair's c.jalr again. */
static int pair_redirect(const struct elf_image *img, struct call_site *site, uint64_t thunk,
                         const struct sled_set *sleds, unsigned *k)
{
    uint32_t p0, p1, cj, addi;
    if (thunk - sleds->thunks >= sleds->thunks_size ||
        sleds->thunks_size - (thunk - sleds->thunks) < PAIR_THUNK_SIZE || read16(img, thunk, &p0))
        return 0;
    if (rv_insn_size(p0) == 2) {
        if (!rv_c_movable(p0) || read16(img, thunk + 6, &cj) || !rv_is_c_jalr(cj) ||
            !reg_entry(img, thunk + 2, sleds, k))
            return 0;
        site->kind = KIND_CJALR_PAIR;
        site->insn = p0 | cj << 16;
        site->addr += 2;
        return 1;
    }
    if (sleds->thunks_size - (thunk - sleds->thunks) < PAIR32_THUNK_SIZE ||
        read16(img, thunk + 2, &p1) || read16(img, thunk + 4, &addi) ||
        read16(img, thunk + 10, &cj) || addi != RV_C_ADDI_RA_2 || !rv_is_c_jalr(cj) ||
        !rv_movable(p0 | p1 << 16) || !reg_entry(img, thunk + 6, sleds, k))
        return 0;
    site->kind = KIND_CJALR_PAIR32;
    site->insn = p0 | p1 << 16;
    site->insn2 = (uint16_t)cj;
    site->addr += 4;
    return 1;
}

/* A redirect is a jal ra into the sled (any half), or to a c.jalr
 * pair's thunk. */
static int rv_decode_redirect(const struct elf_image *img, struct call_site *site,
                              const struct sled_set *sleds, unsigned *k)
{
    uint64_t target;
    if (site->kind != KIND_JAL || !rv_call_target(site, &target))
        return 0;
    if (sleds->thunks_size && target - sleds->thunks < sleds->thunks_size)
        return pair_redirect(img, site, target, sleds, k);
    for (unsigned i = 0; i < sleds->n; i++) {
        uint64_t d = target - sleds->base[i];
        if (d < SLED_HALVES * SLED_ENTRIES * SLED_ENTRY_SIZE && d % SLED_ENTRY_SIZE == 0) {
            *k = (unsigned)(d / SLED_ENTRY_SIZE % SLED_ENTRIES);
            return 1;
        }
    }
    return 0;
}

static void add_entry(struct plt_entry **out, size_t *n, struct plt_entry e)
{
    *out = xrealloc(*out, (*n + 1) * sizeof **out);
    (*out)[(*n)++] = e;
}

/* The PLT entries (.plt), each named after its GOT slot's relocation
 * (JUMP_SLOT: "name@plt"; IRELATIVE: by its resolver). */
static int rv_plt_entries(const struct elf_image *img, struct plt_entry **out, size_t *n)
{
    struct elf_dynreloc *rel;
    size_t n_rel;
    *out = NULL;
    *n = 0;
    elf_dynamic_relocs(img, &rel, &n_rel);
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if ((s->flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
            s->type != SHT_PROGBITS || strcmp(s->name, ".plt") != 0)
            continue;
        uint64_t s_end = s->addr + s->size;
        for (uint64_t a = s->addr; a + 16 <= s_end; a += 4) {
            uint32_t w[4];
            uint64_t slot;
            int ok = 1;
            for (int i = 0; i < 4 && ok; i++)
                ok = elf_read32(img, a + 4 * (uint64_t)i, &w[i]) == 0;
            if (!ok || !rv_plt_entry(w, a, &slot))
                continue;
            for (size_t j = 0; j < n_rel; j++) {
                if (rel[j].offset != slot ||
                    (rel[j].type != R_RISCV_JUMP_SLOT && rel[j].type != R_RISCV_IRELATIVE))
                    continue;
                struct plt_entry e = { a, 16, NULL, 0, 0 };
                if (rel[j].sym_name && *rel[j].sym_name)
                    e.name = xasprintf("%s@plt", rel[j].sym_name);
                else
                    e.resolver = rel[j].addend;     /* RELA: the addend is the resolver */
                add_entry(out, n, e);
                break;
            }
            a += 12;
        }
    }
    free(rel);
    return 0;
}

/* Only jal, jalr, the conditional branches and their compressed forms
 * (c.j, c.jr, c.jalr, c.beqz, c.bnez) can be a tail jump or a call:
 * every other instruction is skipped by its size. */
static unsigned rv_jump_skip(unsigned isa, uint32_t w)
{
    (void)isa;
    unsigned size = rv_insn_size(w);
    if (size == 2 ? rv_is_c_j(w) || rv_is_c_jr(w) || rv_is_c_jalr(w) || rv_is_c_branch(w)
                  : size == 4 && (rv_is_jal(w) || rv_is_jalr(w) || rv_is_branch(w)))
        return 0;
    return size;
}

/* Direct jumps by their bits: j (jal zero) and c.j. */
static unsigned rv_decode_jump(unsigned isa, uint64_t addr, uint32_t w, int *is_jump,
                               uint64_t *target)
{
    (void)isa;
    unsigned size = rv_insn_size(w);
    *is_jump = 0;
    if (size == 2 && rv_is_c_j(w)) {
        *is_jump = 1;
        *target = addr + (uint64_t)rv_c_j_offset(w);
    } else if (size == 4 && rv_is_jal(w) && rv_rd(w) == 0) {
        *is_jump = 1;
        *target = addr + (uint64_t)rv_jal_offset(w);
    }
    return size;
}

/* LP64D: a0-a7, fa0-fa7 apart; a struct returned by value through a
 * pointer in a0 */
static void rv_call_abi(const struct elf_image *img, struct call_abi *abi)
{
    (void)img;
    *abi = (struct call_abi){ 8, CALL_FP_OWN_BANK, 0, 1 };
}

const struct arch_read_ops arch_riscv64_read = {
    .decode_redirect = rv_decode_redirect,
    .call_target = rv_call_target,
    .plt_entries = rv_plt_entries,
    .jump_skip = rv_jump_skip,
    .decode_jump = rv_decode_jump,
    .call_abi = rv_call_abi,
    .open_flags = arch_generic_open_flags,
};
