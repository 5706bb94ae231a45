/*
 * AArch64 for readers of an instrumented object: which calls go into
 * the sled (and to which entry), where a direct call goes, and the
 * linker's stubs a call may go to first: the PLT entries (named after
 * the function whose GOT slot they jump through) and ld's long-branch
 * veneers (named after the function they reach, whatever ld named
 * them: "___veneer" for a static function).  (The DB itself is read
 * by lib/db.c, the same for every arch.)
 */
#include <stdlib.h>
#include <string.h>
#include "arch/aarch64/host-aarch64.h"
#include "lib/arch-read.h"
#include "lib/error.h"

#ifndef R_AARCH64_JUMP_SLOT
#define R_AARCH64_JUMP_SLOT 1026
#define R_AARCH64_IRELATIVE 1032
#endif

static int a64_call_target(const struct call_site *site, uint64_t *target)
{
    if (site->kind == KIND_B_JUMP || site->kind == KIND_BCOND_JUMP) {
        *target = a64_jump_target(site->addr, site->insn);
        return 1;
    }
    if (!a64_is_bl(site->insn))
        return 0;
    *target = site->addr + (uint64_t)a64_branch_offset(site->insn);
    return 1;
}

/* A tail jump to its thunk (host-aarch64.h): the thunk's words as the
 * rewriter writes them, its b to the jump half's entry k, its x30 this
 * jump's return address; the original jump is its target word's. */
static int jump_redirect(const struct elf_image *img, struct call_site *site,
                         const struct sled_set *sleds, unsigned *k)
{
    uint64_t thunk = a64_jump_target(site->addr, site->insn);
    uint32_t v[JUMP_THUNK_SIZE / 4];
    if (!sleds->jump || (thunk & 3) || thunk - sleds->thunks >= sleds->thunks_size ||
        sleds->thunks_size - (thunk - sleds->thunks) < JUMP_THUNK_SIZE)
        return 0;
    for (unsigned i = 0; i < JUMP_THUNK_SIZE / 4; i++)
        if (elf_read32(img, thunk + 4 * i, &v[i]))
            return 0;
    uint64_t ra = a64_adrp_page(thunk + 4, v[1]) + (uint64_t)a64_add_imm(v[2], 30, 30);
    uint64_t entry = a64_jump_target(thunk + JUMP_THUNK_BRANCH, v[JUMP_THUNK_BRANCH / 4]);
    uint64_t f = thunk + JUMP_THUNK_TARGET + (uint64_t)(int64_t)(int32_t)v[JUMP_THUNK_TARGET / 4];
    uint64_t d = entry - sleds->jump;
    if (v[0] != A64_PUSH_X30 || !a64_is_adrp(v[1], 30) || a64_add_imm(v[2], 30, 30) < 0 ||
        !a64_is_b(v[JUMP_THUNK_BRANCH / 4]) || v[JUMP_THUNK_CONT / 4] != A64_POP_X30 ||
        ra != site->addr + RA_OFFSET || d >= SLED_ENTRIES * SLED_ENTRY_SIZE || d % SLED_ENTRY_SIZE)
        return 0;
    uint32_t original = a64_jump_encode(site->addr, site->insn, f);
    if (!original)
        return 0;
    *k = (unsigned)(d / SLED_ENTRY_SIZE);
    site->insn = original;
    return 1;
}

/* A b to the thunk of a tail jump through a register (host-aarch64.h):
 * its words as the rewriter writes them, its key this place's; the site
 * becomes the original br. */
static int reg_jump_redirect(const struct elf_image *img, struct call_site *site,
                             const struct sled_set *sleds, unsigned *k)
{
    uint64_t thunk = a64_jump_target(site->addr, site->insn);
    uint32_t v[REGJUMP_SIZE / 4];
    if (!sleds->jump || site->kind != KIND_B_JUMP || (thunk & 3) ||
        thunk - sleds->thunks >= sleds->thunks_size ||
        sleds->thunks_size - (thunk - sleds->thunks) < REGJUMP_SIZE)
        return 0;
    for (unsigned i = 0; i < REGJUMP_SIZE / 4; i++)
        if (elf_read32(img, thunk + 4 * i, &v[i]))
            return 0;
    uint32_t br = v[REGJUMP_BR / 4];
    unsigned rn = a64_rn(br);
    if (v[0] != (rn == 16 || rn == 17 ? A64_MOV_X15(rn) : A64_NOP) || v[1] != A64_PUSH_X30 ||
        !a64_is_adrp(v[2], 30) || a64_add_imm(v[3], 30, 30) < 0 || !a64_is_b(v[4]) ||
        !a64_is_br_any(br) || rn == 30)
        return 0;
    uint64_t key = a64_adrp_page(thunk + 8, v[2]) + (uint64_t)a64_add_imm(v[3], 30, 30);
    uint64_t d = a64_jump_target(thunk + 16, v[4]) - sleds->jump;
    if (key != site->addr + RA_OFFSET || d >= SLED_ENTRIES * SLED_ENTRY_SIZE || d % SLED_ENTRY_SIZE)
        return 0;
    *k = (unsigned)(d / SLED_ENTRY_SIZE);
    site->kind = KIND_BR_JUMP;
    site->insn = br;
    return 1;
}

/* A redirect is a bl into the sled (either half), or a tail jump to its
 * thunk (direct, or through a register). */
static int a64_decode_redirect(const struct elf_image *img, struct call_site *site,
                               const struct sled_set *sleds, unsigned *k)
{
    if (site->kind == KIND_B_JUMP && reg_jump_redirect(img, site, sleds, k))
        return 1;
    if (site->kind == KIND_B_JUMP || site->kind == KIND_BCOND_JUMP)
        return jump_redirect(img, site, sleds, k);
    uint64_t target;
    if (!a64_call_target(site, &target))
        return 0;
    for (unsigned i = 0; i < sleds->n; i++) {
        uint64_t d = target - sleds->base[i];
        if (d < 2 * SLED_ENTRIES * SLED_ENTRY_SIZE && d % SLED_ENTRY_SIZE == 0) {
            *k = (unsigned)(d / SLED_ENTRY_SIZE % SLED_ENTRIES);
            return 1;
        }
    }
    return 0;
}

/* The GOT slot of the PLT entry at `a` and the entry's end (after its
 * br); 0 if `a` starts none. */
static uint64_t plt_got_slot(const struct elf_image *img, uint64_t a, uint64_t *end)
{
    uint32_t w[5];
    uint64_t got;
    for (int i = 0; i < 5; i++)
        if (elf_read32(img, a + 4 * (uint64_t)i, &w[i]))
            w[i] = 0;
    unsigned size = a64_plt_entry(w, a, &got);
    *end = a + size;
    return size ? got : 0;
}

static void add_entry(struct plt_entry **out, size_t *n, struct plt_entry e)
{
    *out = xrealloc(*out, (*n + 1) * sizeof **out);
    (*out)[(*n)++] = e;
}

/* The name of the defined function at `addr`, or NULL. */
static const char *function_at(const struct elf_image *img, uint64_t addr)
{
    for (size_t i = 0; i < img->n_symbols; i++) {
        const struct elf_symbol *y = &img->symbols[i];
        if (y->type == STT_FUNC && y->shndx != SHN_UNDEF && y->value == addr && *y->name)
            return y->name;
    }
    return NULL;
}

/* An ld veneer at `a` (host-aarch64.h), listed as "<target>@veneer"
 * (resolver: the target, if it has no name). */
static int veneer_at(const struct elf_image *img, uint64_t a, struct plt_entry *e)
{
    uint32_t w[3];
    uint64_t target;
    if (elf_read32(img, a, &w[0]) || !a64_is_adrp(w[0], 16) ||
        elf_read32(img, a + 4, &w[1]) || elf_read32(img, a + 8, &w[2]) ||
        !a64_veneer(w, a, &target))
        return 0;
    const char *name = function_at(img, target);
    *e = (struct plt_entry){ a, 12, name ? xasprintf("%s@veneer", name) : NULL,
                             name ? 0 : target, target };
    return 1;
}

/* A static program's IRELATIVE relocations (its .rela.plt or .rela.iplt
 * names .symtab, not .dynsym: elf_dynamic_relocs() leaves them out),
 * appended to rel. */
static void add_static_irelative(const struct elf_image *img, struct elf_dynreloc **rel,
                                 size_t *n)
{
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (s->type != SHT_RELA || !(s->flags & SHF_ALLOC) || s->link >= img->n_sections ||
            img->sections[s->link].type == SHT_DYNSYM || s->offset > img->size ||
            img->size - s->offset < s->size)
            continue;
        for (uint64_t at = 0; at + 24 <= s->size; at += 24) {
            const unsigned char *p = img->data + s->offset + at;
            uint64_t f[3];
            for (int i = 0; i < 3; i++)
                f[i] = elf_get32(img, p + 8 * i) | (uint64_t)elf_get32(img, p + 8 * i + 4) << 32;
            if ((uint32_t)f[1] != R_AARCH64_IRELATIVE)
                continue;
            *rel = xrealloc(*rel, (*n + 1) * sizeof **rel);
            (*rel)[(*n)++] = (struct elf_dynreloc){ .offset = f[0], .type = R_AARCH64_IRELATIVE,
                                                    .addend = f[2] };
        }
    }
}

/* The PLT entries (.plt, .iplt), each named after its GOT slot's
 * relocation (JUMP_SLOT: "name@plt"; IRELATIVE: by its resolver); a
 * `bti c` before an entry (-z force-bti) is its start.  Then the
 * veneers, found by their code in every other executable section (ld
 * puts them between input sections, with $x mapping symbols). */
static int a64_plt_entries(const struct elf_image *img, struct plt_entry **out, size_t *n)
{
    struct elf_dynreloc *rel;
    size_t n_rel;
    *out = NULL;
    *n = 0;
    elf_dynamic_relocs(img, &rel, &n_rel);
    add_static_irelative(img, &rel, &n_rel);
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if ((s->flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR) ||
            s->type != SHT_PROGBITS)
            continue;
        int plt = strcmp(s->name, ".plt") == 0 || strcmp(s->name, ".iplt") == 0;
        uint64_t s_end = s->addr + s->size;
        for (uint64_t a = s->addr; a + 12 <= s_end; a += 4) {
            struct plt_entry e;
            if (!plt) {
                if (veneer_at(img, a, &e)) {
                    add_entry(out, n, e);
                    a += 8;
                }
                continue;
            }
            uint64_t end, got = plt_got_slot(img, a, &end);
            if (!got || end > s_end)
                continue;
            uint32_t before;
            uint64_t start = a > s->addr && !elf_read32(img, a - 4, &before) &&
                             before == A64_BTI_C ? a - 4 : a;
            for (size_t j = 0; j < n_rel; j++) {
                if (rel[j].offset != got ||
                    (rel[j].type != R_AARCH64_JUMP_SLOT && rel[j].type != R_AARCH64_IRELATIVE))
                    continue;
                e = (struct plt_entry){ start, end - start, NULL, 0, 0 };
                if (rel[j].sym_name && *rel[j].sym_name)
                    e.name = xasprintf("%s@plt", rel[j].sym_name);
                else
                    e.resolver = rel[j].addend;     /* RELA: the addend is the resolver */
                add_entry(out, n, e);
                break;
            }
            a = end - 4;
        }
    }
    free(rel);
    return 0;
}

/* Only the branches (b, bl, b.cond, cbz, cbnz, tbz, tbnz, and br, blr,
 * ret and their authenticating forms) can be a tail jump or a call:
 * every other instruction is skipped. */
static unsigned a64_jump_skip(unsigned isa, uint32_t w)
{
    (void)isa;
    if ((w & 0x7c000000u) == 0x14000000u ||     /* b, bl */
        (w & 0x7e000000u) == 0x34000000u ||     /* cbz, cbnz */
        (w & 0x7e000000u) == 0x36000000u ||     /* tbz, tbnz */
        (w & 0xff000010u) == 0x54000000u ||     /* b.cond */
        (w & 0xfe000000u) == 0xd6000000u)       /* branches to a register */
        return 0;
    return 4;
}

/* AAPCS64: x0-x7, v0-v7 apart; a struct returned by value through x8 */
static void a64_call_abi(const struct elf_image *img, struct call_abi *abi)
{
    (void)img;
    *abi = (struct call_abi){ 8, CALL_FP_OWN_BANK, 0, 0 };
}

const struct arch_read_ops arch_aarch64_read = {
    .decode_redirect = a64_decode_redirect,
    .call_target = a64_call_target,
    .plt_entries = a64_plt_entries,
    .jump_skip = a64_jump_skip,
    .call_abi = a64_call_abi,
    .open_flags = arch_generic_open_flags,
};
