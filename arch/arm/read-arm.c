/*
 * ARM for readers of an instrumented object: which calls go into the
 * sled (and to which entry), where a direct call goes, and the PLT
 * entries as GNU ld writes them.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include "arch/arm/host-arm.h"
#include "lib/arch-read.h"
#include "lib/error.h"

/* ARM is a 32-bit arch (word_size 4): the images it gets are ELF32
 * (arch_of_image), so their link-time addresses fit 32 bits, and this
 * file computes with them in 32 bits, wrapping as the CPU does. */
static int arm_call_target(const struct call_site *site, uint64_t *target)
{
    uint32_t w = site->insn, addr = (uint32_t)site->addr;   /* ELF32: arch_of_image */
    if (is_thumb_pair_kind(site->kind) || is_reg_jump_kind(site->kind))
        return 0;
    if (site->kind == KIND_T_B_JUMP) {
        *target = t_jump_target(addr, w);
        return 1;
    }
    if (site->kind == KIND_B_JUMP) {
        *target = addr + 8 + (uint32_t)branch_offset(w);
        return 1;
    }
    if (is_thumb_kind(site->kind)) {
        *target = t_call_target(addr, w);
        return 1;
    }
    if (is_bl(w)) {
        *target = addr + 8 + (uint32_t)branch_offset(w);
        return 1;
    }
    if (is_blx_imm(w)) {
        *target = addr + 8 + (uint32_t)branch_offset(w) + ((w >> 23) & 2);
        return 1;
    }
    return 0;
}

/* An entry of the tracer's sled or of a far sled (either half). */
static int sled_entry_of(uint32_t target, const struct sled_set *sleds, unsigned *k)
{
    for (unsigned i = 0; i < sleds->n; i++) {
        uint32_t d = target - (uint32_t)sleds->base[i];
        if (d < 2 * SLED_ENTRIES * SLED_ENTRY_SIZE && d % SLED_ENTRY_SIZE == 0) {
            *k = d / SLED_ENTRY_SIZE % SLED_ENTRIES;
            return 1;
        }
    }
    return 0;
}

/* A Thumb bl to a thunk (host-arm.h): its entry is 2 mod 4 after a
 * 16-bit instruction P, 0 mod 4 after a 32-bit one; the blx rM follows
 * P, and the thunk's ARM b gives the entry k. */
static int thunk_redirect(const struct elf_image *img, struct call_site *site,
                          const struct sled_set *sleds, unsigned *k)
{
    uint32_t to = t_call_target((uint32_t)site->addr, site->insn);
    int p32 = (to & 3) == 0;
    uint32_t thunk = to - (p32 ? 0 : THUNK_ENTRY), size = p32 ? THUNK32_SIZE : THUNK_SIZE;
    uint32_t bx_at = thunk + (p32 ? 8 : 4), b_at = thunk + (p32 ? THUNK32_BRANCH : THUNK_BRANCH);
    uint32_t p, bx, b, add;
    uint32_t thunks = (uint32_t)sleds->thunks, thunks_size = (uint32_t)sleds->thunks_size;
    if (thunk - thunks >= thunks_size || thunks_size - (thunk - thunks) < size || elf_read32(img, thunk, &p) ||
        elf_read32(img, bx_at, &bx) || elf_read32(img, b_at, &b) ||
        (b & 0xFF000000) != 0xEA000000 || (bx & 0xFFFF) != T_BX_PC || !is_t_blx_reg(bx >> 16) ||
        (p32 && (elf_read32(img, thunk + 4, &add) || add != T_ADD_LR_2)) ||
        !sled_entry_of(b_at + 8 + (uint32_t)branch_offset(b), sleds, k))
        return 0;
    if (p32) {
        site->addr += 4;                /* the blx */
        site->kind = KIND_T_BLX_PAIR32;
        site->insn = p;
        site->insn2 = (uint16_t)(bx >> 16);
    } else {
        site->addr += 2;
        site->kind = KIND_T_BLX_PAIR;
        site->insn = p >> 16 | (bx >> 16) << 16;
    }
    return 1;
}

static uint16_t half_at(const uint32_t *w, unsigned off)
{
    return (uint16_t)(w[off / 4] >> (off % 4 * 8));
}

/* A tail jump to its thunk (host-arm.h): the thunk's words as the
 * rewriter writes them, its b to the jump half's entry k, its word of
 * lr this jump's return address; the original jump is its target's
 * word's. */
static int jump_redirect(const struct elf_image *img, struct call_site *site,
                         const struct sled_set *sleds, unsigned *k)
{
    uint32_t addr = (uint32_t)site->addr, w = site->insn, v[JUMP_THUNK_SIZE / 4];
    int arm = site->kind == KIND_B_JUMP;
    uint32_t thunk = arm ? addr + 8 + (uint32_t)branch_offset(w) : t_jump_target(addr, w);
    uint32_t thunks = (uint32_t)sleds->thunks, thunks_size = (uint32_t)sleds->thunks_size;
    if (!sleds->jump || (thunk & 3) || thunk - thunks >= thunks_size ||
        thunks_size - (thunk - thunks) < JUMP_THUNK_SIZE)
        return 0;
    for (unsigned i = 0; i < JUMP_THUNK_SIZE / 4; i++)
        if (elf_read32(img, thunk + 4 * i, &v[i]))
            return 0;
    uint32_t b = v[JUMP_THUNK_BRANCH / 4], entry = thunk + JUMP_THUNK_BRANCH + 8 + (uint32_t)branch_offset(b);
    uint32_t f = thunk + JUMP_THUNK_TARGET + v[JUMP_THUNK_TARGET / 4], d = entry - (uint32_t)sleds->jump;
    uint32_t ra = v[JUMP_THUNK_RA / 4] + thunk + (arm ? 16 : 10);
    int words_ok = arm ? v[0] == A_PUSH_LR && v[1] == A_LDR_LR_PC4 && v[2] == A_ADD_LR_PC_LR &&
                             v[JUMP_THUNK_CONT / 4] == A_POP_LR && !(f & 3)
                       : half_at(v, 0) == T_PUSH_LR && (half_at(v, 2) | (uint32_t)half_at(v, 4) << 16) ==
                             T_LDR_LR_PC12 && half_at(v, 6) == T_ADD_LR_PC &&
                             half_at(v, 8) == T_BX_PC && v[JUMP_THUNK_CONT / 4] == T_POP_LR && (f & 1);
    if (!words_ok || (b & 0xFF000000) != 0xEA000000 || ra != addr + 4 ||
        d >= SLED_ENTRIES * SLED_ENTRY_SIZE || d % SLED_ENTRY_SIZE)
        return 0;
    uint32_t original = arm ? arm_b_encode(addr, w, f) : t_jump_encode(addr, w, f & ~1u);
    if (!original)
        return 0;
    *k = d / SLED_ENTRY_SIZE;
    site->insn = original;
    return 1;
}

/* A Thumb b.w to the thunk of a pair whose P reads lr (host-arm.h):
 * its words as the rewriter writes them, its ARM b giving k, its word
 * of lr the blx's return address. */
static int pairb_redirect(const struct elf_image *img, struct call_site *site,
                          const struct sled_set *sleds, unsigned *k)
{
    uint32_t a = (uint32_t)site->addr, t = t_jump_target(a, site->insn), v[PAIRB32_SIZE / 4];
    uint32_t thunks = (uint32_t)sleds->thunks, thunks_size = (uint32_t)sleds->thunks_size;
    if ((t & 3) || t - thunks >= thunks_size || thunks_size - (t - thunks) < PAIRB_SIZE)
        return 0;
    for (unsigned i = 0; i < PAIRB32_SIZE / 4; i++)
        if (elf_read32(img, t + 4 * i, &v[i]))
            v[i] = 0;
    int p32;
    if ((half_at(v, 2) | (uint32_t)half_at(v, 4) << 16) == T_LDR_LR_PC12 &&
        half_at(v, 6) == T_ADD_LR_PC && half_at(v, 8) == T_BX_PC && is_t_blx_reg(half_at(v, PAIRB_BLX)))
        p32 = 0;
    else if (thunks_size - (t - thunks) >= PAIRB32_SIZE && v[1] == T_LDR_LR_PC12 &&
             half_at(v, 8) == T_ADD_LR_PC && half_at(v, 10) == T_NOP && half_at(v, 12) == T_BX_PC &&
             is_t_blx_reg(half_at(v, PAIRB32_BLX)))
        p32 = 1;
    else
        return 0;
    uint32_t b = v[(p32 ? PAIRB32_BRANCH : PAIRB_BRANCH) / 4];
    uint32_t ra = v[(p32 ? PAIRB32_RA : PAIRB_RA) / 4] + t + (p32 ? 12 : 10);
    uint32_t blx = a + (p32 ? 4 : 2);
    if ((b & 0xFF000000) != 0xEA000000 || ra != blx + 2 + 1 ||
        !sled_entry_of(t + (p32 ? PAIRB32_BRANCH : PAIRB_BRANCH) + 8 + (uint32_t)branch_offset(b),
                       sleds, k))
        return 0;
    site->addr = blx;
    if (p32) {
        site->kind = KIND_T_BLX_PAIRB32;
        site->insn = v[0];
        site->insn2 = half_at(v, PAIRB32_BLX);
    } else {
        site->kind = KIND_T_BLX_PAIRB;
        site->insn = half_at(v, 0) | (uint32_t)half_at(v, PAIRB_BLX) << 16;
    }
    return 1;
}

/* A jump (ARM b<c>, Thumb b.w) to the thunk of a tail jump through a
 * register (thunks.h): its words as the rewriter writes them, its ARM b
 * to the jump half's entry k, its key the bx's; the site becomes the
 * original bx (Thumb: after its P). */
static int reg_jump_redirect(const struct elf_image *img, struct call_site *site,
                             const struct sled_set *sleds, unsigned *k)
{
    uint32_t a = (uint32_t)site->addr, v[REGJUMP_SIZE / 4];
    int arm = site->kind == KIND_B_JUMP;
    uint32_t t = arm ? a + 8 + (uint32_t)branch_offset(site->insn) : t_jump_target(a, site->insn);
    uint32_t thunks = (uint32_t)sleds->thunks, thunks_size = (uint32_t)sleds->thunks_size;
    if (!sleds->jump || (t & 3) || t - thunks >= thunks_size ||
        thunks_size - (t - thunks) < REGJUMP_SIZE || (!arm && !is_t_b_w(site->insn)))
        return 0;
    for (unsigned i = 0; i < REGJUMP_SIZE / 4; i++)
        if (elf_read32(img, t + 4 * i, &v[i]))
            return 0;
    struct call_site r = *site;
    uint32_t b_off, key;
    if (arm) {
        uint32_t bx = v[REGJUMP_BX / 4];
        if (v[0] != A_PUSH_LR || v[1] != A_LDR_LR_PC4 || v[2] != A_ADD_LR_PC_LR ||
            !is_bx_reg(bx) || (bx & 15) > 12 || bx >> 28 != site->insn >> 28)
            return 0;
        r.kind = KIND_BX_JUMP;
        r.insn = bx;
        b_off = REGJUMP_BRANCH;
        key = v[REGJUMP_KEY / 4] + t + 16;
        if (key != a + RA_OFFSET)
            return 0;
    } else {
        uint16_t h[REGJUMP_SIZE / 2];
        for (unsigned i = 0; i < REGJUMP_SIZE / 2; i++)
            h[i] = half_at(v, 2 * i);
        unsigned p = regjump_t_thunk_p(h);
        if (!p)
            return 0;
        r.kind = p == 2 ? KIND_T_BX_JUMP : KIND_T_BX_JUMP32;
        r.addr = a + p;                         /* the bx */
        r.insn = p == 2 ? half_at(v, 0) | (uint32_t)half_at(v, REGJUMP_T_BX) << 16 : v[0];
        r.insn2 = p == 2 ? 0 : half_at(v, REGJUMP_T_BX);
        b_off = REGJUMP_T_BRANCH;
        key = v[REGJUMP_T_KEY / 4] + t + 10 + p;
    }
    uint32_t b = v[b_off / 4], entry = t + b_off + 8 + (uint32_t)branch_offset(b);
    uint32_t d = entry - (uint32_t)sleds->jump;
    if ((b & 0xFF000000) != 0xEA000000 || d >= SLED_ENTRIES * SLED_ENTRY_SIZE ||
        d % SLED_ENTRY_SIZE || (!arm && key != (uint32_t)r.addr + 2))
        return 0;
    *k = d / SLED_ENTRY_SIZE;
    *site = r;
    return 1;
}

/* A redirect is an ARM bl or a Thumb blx into the sled (either half),
 * a Thumb bl to a thunk, or a Thumb b.w or an ARM b to a thunk: a tail
 * jump's (direct or through a register), or a pair's whose P reads lr. */
static int arm_decode_redirect(const struct elf_image *img, struct call_site *site,
                               const struct sled_set *sleds, unsigned *k)
{
    uint64_t target;
    if (site->kind == KIND_T_B_JUMP && is_t_b_w(site->insn) && sleds->thunks) {
        struct call_site pair = *site;
        if (pairb_redirect(img, &pair, sleds, k)) {
            *site = pair;
            return 1;
        }
    }
    if (is_jump_kind(site->kind) && sleds->thunks && reg_jump_redirect(img, site, sleds, k))
        return 1;
    if (is_jump_kind(site->kind))
        return jump_redirect(img, site, sleds, k);
    if (site->kind == KIND_T_BL && sleds->thunks)
        return thunk_redirect(img, site, sleds, k);
    int ok = is_thumb_kind(site->kind) ? is_t_blx_imm(site->insn) : is_bl(site->insn);
    return ok && arm_call_target(site, &target) && sled_entry_of((uint32_t)target, sleds, k);
}

/* rotated 8-bit immediate of a data-processing instruction */
static uint32_t dp_imm(uint32_t w)
{
    uint32_t imm = w & 0xFF, rot = ((w >> 8) & 15) * 2;
    return rot ? imm >> rot | imm << (32 - rot) : imm;
}

/* The PLT entry's name: the symbol of the relocation of its GOT slot. */
static void add_plt_entry(struct plt_entry **out, size_t *n, uint32_t addr, uint32_t size,
                          uint32_t got, const struct elf_image *img,
                          const struct elf_dynreloc *rel, size_t n_rel)
{
    for (size_t j = 0; j < n_rel; j++) {
        if (rel[j].offset != got)
            continue;
        uint32_t resolver;
        struct plt_entry e = { addr, size, NULL, (uint32_t)rel[j].addend, 0 };  /* ELF32 */
        if (rel[j].sym_name && *rel[j].sym_name)
            e.name = xasprintf("%s@plt", rel[j].sym_name);
        else if (!e.resolver && !elf_read32(img, got, &resolver))
            e.resolver = resolver;              /* REL: the slot holds the resolver */
        *out = xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = e;
        return;
    }
}

/* ld's Thumb-to-ARM stubs (a Thumb b.w to ARM code goes there), its
 * symbol "__<target>_from_thumb": bx pc; b.n (or nop), then ARM code:
 * b target; ldr ip, [pc]; add pc, ip, pc; .word target - (stub + 16);
 * or ldr pc, [pc, #-4]; .word target.  Its target, or 0. */
static uint32_t thumb_stub_target(const struct elf_image *img, uint32_t a)
{
    uint32_t w[4];
    for (int i = 0; i < 4; i++)
        if (elf_read32(img, a + 4 * (uint32_t)i, &w[i]))
            return 0;
    if ((w[0] & 0xFFFF) != T_BX_PC)
        return 0;
    if ((w[1] & 0xFF000000) == 0xEA000000)
        return a + 4 + 8 + (uint32_t)branch_offset(w[1]);
    if (w[1] == 0xE59FC000 && w[2] == 0xE08CF00F)
        return a + 16 + w[3];
    if (w[1] == 0xE51FF004)
        return w[2];
    return 0;
}

/* The Thumb-to-ARM stubs, as veneers (struct plt_entry.to). */
static void add_thumb_stubs(const struct elf_image *img, struct plt_entry **out, size_t *n)
{
    for (size_t i = 0; i < img->n_symbols; i++) {
        const struct elf_symbol *y = &img->symbols[i];
        size_t len = strlen(y->name);
        uint32_t to;
        if (y->type != STT_FUNC || y->shndx == SHN_UNDEF || len <= 11 ||
            strcmp(y->name + len - 11, "_from_thumb") != 0 ||
            !(to = thumb_stub_target(img, (uint32_t)y->value & ~1u)))
            continue;
        *out = xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = (struct plt_entry){ y->value & ~1u, y->size ? y->size : 16,
                                             xasprintf("%s@veneer", y->name), 0, to };
    }
}

/* PLT entries as GNU ld writes them (short and long forms):
 *   add ip, pc, #X ; [add ip, ip, #Y ...] ; ldr pc, [ip, #Z]!
 * The GOT slot is entry + 8 + X + Y... + Z. */
static int arm_plt_entries(const struct elf_image *img, struct plt_entry **out, size_t *n)
{
    struct elf_dynreloc *rel;
    size_t n_rel;
    *out = NULL;
    *n = 0;
    elf_dynamic_relocs(img, &rel, &n_rel);
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (strcmp(s->name, ".plt") != 0 && strcmp(s->name, ".iplt") != 0)
            continue;
        uint32_t s_end = (uint32_t)(s->addr + s->size);
        for (uint32_t a = (uint32_t)s->addr; a + 8 <= s_end; a += 4) {
            uint32_t w;
            if (elf_read32(img, a, &w) || (w & 0xFFFFF000) != 0xE28FC000)
                continue;
            uint32_t got = a + 8 + dp_imm(w), b = a + 4;
            while (b + 4 <= s_end && !elf_read32(img, b, &w) &&
                   (w & 0xFFFFF000) == 0xE28CC000) {
                got += dp_imm(w);
                b += 4;
            }
            if (b + 4 > s->addr + s->size || elf_read32(img, b, &w) ||
                (w & 0xFFFFF000) != 0xE5BCF000)
                continue;
            got += w & 0xFFF;
            /* the entry's way in from Thumb code, before it: bx pc;
             * b.n (a Thumb b.w, a tail jump, goes there) */
            uint32_t stub = 0;
            if (a >= s->addr + 4 && !elf_read32(img, a - 4, &stub) && stub == 0xE7FD4778)
                add_plt_entry(out, n, a - 4, 4, got, img, rel, n_rel);
            add_plt_entry(out, n, a, b + 4 - a, got, img, rel, n_rel);
            a = b;
        }
    }
    free(rel);
    add_thumb_stubs(img, out, n);
    return 0;
}

/* Only b (ARM: b<c>, bl, blx imm; Thumb: b<c>, b, and the 32-bit
 * branch and control space) can be a tail jump: the rest is skipped. */
static unsigned arm_jump_skip(unsigned isa, uint32_t w)
{
    if (isa != ISA_THUMB)
        return (w & 0x0E000000) == 0x0A000000 ? 0 : 4;
    uint32_t hw = w & 0xFFFF;
    if ((hw >> 11) >= 0x1D)                             /* 32-bit */
        return (hw >> 11) == 0x1E && (w & 0x80000000u) ? 0 : 4;
    return (hw & 0xF000) == 0xD000 || (hw & 0xF800) == 0xE000 ? 0 : 2;
}

/* AAPCS: r0-r3, 64-bit values in an even pair; the hard-float variant
 * (EF_ARM_ABI_FLOAT_HARD) takes floats and doubles in VFP registers */
static void arm_call_abi(const struct elf_image *img, struct call_abi *abi)
{
    *abi = (struct call_abi){ 4, (img->e_flags & EF_ARM_ABI_FLOAT_HARD) ? CALL_FP_VFP
                                                                        : CALL_FP_IN_WORDS, 1, 1 };
}

const struct arch_read_ops arch_arm_read = {
    .decode_redirect = arm_decode_redirect,
    .call_target = arm_call_target,
    .plt_entries = arm_plt_entries,
    .jump_skip = arm_jump_skip,
    .call_abi = arm_call_abi,
    .open_flags = arch_generic_open_flags,
};
