/*
 * ARM for the rewriter and the wrapper: a call becomes a bl<c> to its
 * entry of the sled (arch/arm/stub.S); the input objects' float ABI
 * picks the tracer module.
 */
#include <inttypes.h>
#include <string.h>
#include "arch/arm/host-arm.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"
#include "litifut/db-format.h"

/* Thumb: blx (into ARM state) to the sled entry; its condition, in an
 * IT block, stays the IT block's. */
/* ARM is a 32-bit arch (word_size 4): its images are ELF32
 * (arch_of_image), their addresses fit 32 bits and are computed with in
 * 32 bits here (sites.tsv and messages print them as before). */
static int thumb_encode_redirect(const struct call_site *site, uint32_t entry, uint32_t *word)
{
    uint32_t addr = (uint32_t)site->addr;
    int64_t off = (int64_t)entry - (int64_t)((addr + 4) & ~3u);
    if (off < -(INT64_C(1) << 24) || off >= (INT64_C(1) << 24) || (off & 3))
        return error("Thumb call at 0x%08" PRIx32 ": the nearest tracer sled, at 0x%08" PRIx32
                     ", is out of blx range (+-16 MB)", addr, entry);
    uint32_t u = (uint32_t)off, s = off < 0;
    uint32_t j1 = (~(u >> 23) ^ s) & 1, j2 = (~(u >> 22) ^ s) & 1;
    uint32_t hw1 = 0xF000 | s << 10 | (u >> 12 & 0x3FF);
    uint32_t hw2 = 0xC000 | j1 << 13 | j2 << 11 | (u >> 1 & 0x7FE);
    *word = hw1 | hw2 << 16;
    return 0;
}

static int64_t distance(uint32_t from, uint32_t to)
{
    int64_t d = (int64_t)to - (int64_t)from;
    return d < 0 ? -d : d;
}

/* Entry k of the sled a call goes to: the tracer's own (base[0]) if it
 * is in reach, else the nearest far sled (far-sled.S, 3 instructions
 * more per call); a thunk's branch, from the thunk area beside the
 * tracer's sled, always the tracer's own. */
static uint32_t sled_entry(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                           int from_thunk)
{
    unsigned half = site->kind == KIND_BLX_REG || is_pair_kind(site->kind);    /* sled.h */
    uint32_t base = (uint32_t)sleds->base[0], addr = (uint32_t)site->addr;
    int64_t reach = is_thumb_kind(site->kind) ? THUMB1_REACH : ARM_REACH - 2 * SLED_ENTRIES * SLED_ENTRY_SIZE;
    if (!from_thunk && distance(addr, base) >= reach)
        for (unsigned i = 1; i < sleds->n; i++)
            if (distance(addr, (uint32_t)sleds->base[i]) < distance(addr, base))
                base = (uint32_t)sleds->base[i];
    return base + SLED_ENTRY_SIZE * (k + half * SLED_ENTRIES);
}

/* bl<c> to entry k of its sled, keeping the call's condition; a
 * Thumb call: blx to it; a 16-bit blx rM and the instruction before it:
 * bl to their thunk. */
static int arm_encode_redirect(const struct call_site *site, unsigned k,
                               const struct sled_set *sleds, uint64_t thunk64, uint32_t *word,
                               int *bridged)
{
    uint32_t addr = (uint32_t)site->addr, thunk = (uint32_t)thunk64;
    *bridged = 0;
    if (is_jump_kind(site->kind)) {         /* the same jump, to its thunk */
        *word = site->kind == KIND_B_JUMP ? arm_b_encode(addr, site->insn, thunk)
                                          : t_jump_encode(addr, site->insn, thunk);
        if (!*word)
            return error("tail jump at 0x%08" PRIx32 ": its thunk at 0x%08" PRIx32
                         " is out of its reach", addr, thunk);
        return 0;
    }
    if (is_reg_jump_kind(site->kind)) {     /* b<c> (ARM), b.w over P (Thumb), to its thunk */
        int p32 = site->kind == KIND_T_BX_JUMP32;
        *word = site->kind == KIND_BX_JUMP
                    ? arm_b_encode(addr, (site->insn & 0xF0000000u) | 0x0A000000u, thunk)
                    : t_jump_encode(addr - (p32 ? 4 : 2), 0x9000F000u, thunk);
        if (!*word)
            return error("tail jump at 0x%08" PRIx32 ": its thunk at 0x%08" PRIx32
                         " is out of its reach", addr, thunk);
        return 0;
    }
    uint32_t entry = sled_entry(site, k, sleds, 0);
    if (site->kind == KIND_T_BLX_PAIRB || site->kind == KIND_T_BLX_PAIRB32) {
        /* b.w (no link: P reads lr) over P, to the thunk's start */
        int p32 = site->kind == KIND_T_BLX_PAIRB32;
        if (!(*word = t_jump_encode(addr - (p32 ? 4 : 2), 0x9000F000u, thunk)))
            return error("Thumb call at 0x%08" PRIx32 ": its thunk at 0x%08" PRIx32
                         " is out of b.w range (+-16 MB)", addr, thunk);
        return 0;
    }
    if (site->kind == KIND_T_BLX_PAIR || site->kind == KIND_T_BLX_PAIR32) {
        int p32 = site->kind == KIND_T_BLX_PAIR32;
        if (!(*word = t_bl_encode(addr - (p32 ? 4 : 2), thunk + (p32 ? 0 : THUNK_ENTRY))))
            return error("Thumb call at 0x%08" PRIx32 ": its thunk at 0x%08" PRIx32
                         " is out of bl range (+-16 MB)", addr, thunk);
        return 0;
    }
    if (is_thumb_kind(site->kind))
        return thumb_encode_redirect(site, entry, word);
    int64_t off = (int64_t)entry - ((int64_t)addr + 8);
    if (off < -(INT64_C(1) << 25) || off >= (INT64_C(1) << 25))
        return error("call at 0x%08" PRIx32 ": the nearest tracer sled, at 0x%08" PRIx32
                     ", is out of bl range (+-32 MB)", addr, entry);
    uint32_t cond = site->kind == KIND_BLX_IMM ? 0xE : site->insn >> 28;
    *word = cond << 28 | 0x0B000000 | ((uint32_t)(off >> 2) & 0xFFFFFF);
    return 0;
}

/* The thunk of a 16-bit blx rM and the instruction P before it (the
 * layout: host-arm.h). */
static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

/* Where a tail jump goes (its instruction's target; Thumb: bit 0 set). */
static uint32_t jump_target(const struct call_site *site)
{
    uint32_t addr = (uint32_t)site->addr;
    return site->kind == KIND_B_JUMP ? addr + 8 + (uint32_t)branch_offset(site->insn)
                                     : t_jump_target(addr, site->insn) | 1;
}

/* A tail jump's thunk (host-arm.h), to entry k of the jump half. */
static int jump_thunk(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                      uint32_t thunk, uint8_t *bytes)
{
    uint32_t addr = (uint32_t)site->addr, f = jump_target(site);
    uint32_t entry = (uint32_t)sleds->jump + SLED_ENTRY_SIZE * k;
    uint32_t b = arm_b_encode(thunk + JUMP_THUNK_BRANCH, 0xE0000000u, entry), cont;
    if (!sleds->jump || !b || (thunk & 3))
        return error("thunk at 0x%08" PRIx32 ": the tracer's jump sled at 0x%08" PRIx32
                     " is out of b range (+-32 MB)", thunk, entry);
    if (site->kind == KIND_B_JUMP) {
        put32(bytes, A_PUSH_LR);
        put32(bytes + 4, A_LDR_LR_PC4);
        put32(bytes + 8, A_ADD_LR_PC_LR);
        put32(bytes + JUMP_THUNK_RA, addr + 4 - (thunk + 16));
        put32(bytes + JUMP_THUNK_CONT, A_POP_LR);
        cont = arm_b_encode(thunk + JUMP_THUNK_JUMP, 0xE0000000u, f);
    } else {
        put16(bytes, T_PUSH_LR);
        put32(bytes + 2, T_LDR_LR_PC12);
        put16(bytes + 6, T_ADD_LR_PC);
        put16(bytes + 8, T_BX_PC);
        put16(bytes + 10, T_NOP);
        put32(bytes + JUMP_THUNK_RA, addr + 4 - (thunk + 10));
        put32(bytes + JUMP_THUNK_CONT, T_POP_LR);
        cont = t_jump_encode(thunk + JUMP_THUNK_JUMP, 0x9000F000u, f & ~1u);    /* b.w */
    }
    if (!cont)
        return error("tail jump at 0x%08" PRIx32 ": its target 0x%08" PRIx32
                     " is out of reach of its thunk at 0x%08" PRIx32, addr, f & ~1u, thunk);
    put32(bytes + JUMP_THUNK_BRANCH, b);
    put32(bytes + JUMP_THUNK_JUMP, cont);
    put32(bytes + JUMP_THUNK_TARGET, f - (thunk + JUMP_THUNK_TARGET));
    return 0;
}

/* A pair whose P reads lr: its thunk (host-arm.h), entered by b.w. */
static int pairb_thunk(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                       uint32_t thunk, uint8_t *bytes)
{
    int p32 = site->kind == KIND_T_BLX_PAIRB32;
    uint32_t entry = sled_entry(site, k, sleds, 1), ra = (uint32_t)site->addr + 2 + 1;
    uint32_t b_at = thunk + (p32 ? PAIRB32_BRANCH : PAIRB_BRANCH);
    uint32_t b = arm_b_encode(b_at, 0xE0000000u, entry);
    if (!b || (thunk & 3))
        return error("thunk at 0x%08" PRIx32 ": the tracer sled at 0x%08" PRIx32
                     " is out of b range (+-32 MB)", thunk, entry);
    if (p32) {
        put32(bytes, site->insn);
        put32(bytes + 4, T_LDR_LR_PC12);
        put16(bytes + 8, T_ADD_LR_PC);
        put16(bytes + 10, T_NOP);
        put16(bytes + 12, T_BX_PC);
        put16(bytes + PAIRB32_BLX, site->insn2);
        put32(bytes + PAIRB32_BRANCH, b);
        put32(bytes + PAIRB32_RA, ra - (thunk + 12));
    } else {
        put16(bytes, site->insn);
        put32(bytes + 2, T_LDR_LR_PC12);
        put16(bytes + 6, T_ADD_LR_PC);
        put16(bytes + 8, T_BX_PC);
        put16(bytes + PAIRB_BLX, site->insn >> 16);
        put32(bytes + PAIRB_BRANCH, b);
        put32(bytes + PAIRB_RA, ra - (thunk + 10));
    }
    return 0;
}

/* A tail jump through a register's thunk (thunks.h), to entry k of the
 * jump half. */
static int reg_jump_thunk(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                          uint32_t thunk, uint8_t *bytes)
{
    uint32_t addr = (uint32_t)site->addr, entry = (uint32_t)sleds->jump + SLED_ENTRY_SIZE * k;
    int arm = site->kind == KIND_BX_JUMP, p32 = site->kind == KIND_T_BX_JUMP32;
    uint32_t b_at = thunk + (arm ? REGJUMP_BRANCH : REGJUMP_T_BRANCH);
    uint32_t b = arm_b_encode(b_at, 0xE0000000u, entry);
    if (!sleds->jump || !b || (thunk & 3))
        return error("thunk at 0x%08" PRIx32 ": the tracer's jump sled at 0x%08" PRIx32
                     " is out of b range (+-32 MB)", thunk, entry);
    if (arm) {
        put32(bytes, A_PUSH_LR);
        put32(bytes + 4, A_LDR_LR_PC4);
        put32(bytes + 8, A_ADD_LR_PC_LR);
        put32(bytes + REGJUMP_KEY, addr + RA_OFFSET - (thunk + 16));
        put32(bytes + REGJUMP_BX, site->insn);
    } else if (!p32) {
        put16(bytes, site->insn);
        put16(bytes + 2, T_PUSH_LR);
        put32(bytes + 4, T_LDR_LR_PC12);
        put16(bytes + 8, T_ADD_LR_PC);
        put16(bytes + 10, T_NOP);
        put16(bytes + 12, T_BX_PC);
        put16(bytes + REGJUMP_T_BX, site->insn >> 16);
        put32(bytes + REGJUMP_T_KEY, addr + 2 - (thunk + 12));
    } else {
        put32(bytes, site->insn);
        put16(bytes + 4, T_PUSH_LR);
        put32(bytes + 6, T_LDR_LR_PC12);
        put16(bytes + 10, T_ADD_LR_PC);
        put16(bytes + 12, T_BX_PC);
        put16(bytes + REGJUMP_T_BX, site->insn2);
        put32(bytes + REGJUMP_T_KEY, addr + 2 - (thunk + 14));
    }
    put32(bytes + (arm ? REGJUMP_BRANCH : REGJUMP_T_BRANCH), b);
    return 0;
}

static int arm_encode_thunk(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                            uint64_t thunk64, uint8_t *bytes)
{
    uint32_t thunk = (uint32_t)thunk64;
    if (is_jump_kind(site->kind))
        return jump_thunk(site, k, sleds, thunk, bytes);
    if (is_reg_jump_kind(site->kind))
        return reg_jump_thunk(site, k, sleds, thunk, bytes);
    if (site->kind == KIND_T_BLX_PAIRB || site->kind == KIND_T_BLX_PAIRB32)
        return pairb_thunk(site, k, sleds, thunk, bytes);
    int p32 = site->kind == KIND_T_BLX_PAIR32;
    uint32_t entry = sled_entry(site, k, sleds, 1), b_at = thunk + (p32 ? THUNK32_BRANCH : THUNK_BRANCH);
    int64_t off = (int64_t)entry - ((int64_t)b_at + 8);
    if (off < -(INT64_C(1) << 25) || off >= (INT64_C(1) << 25) || (thunk & 3))
        return error("thunk at 0x%08" PRIx32 ": the tracer sled at 0x%08" PRIx32
                     " is out of b range (+-32 MB)", thunk, entry);
    uint32_t b = 0xEA000000 | ((uint32_t)(off >> 2) & 0xFFFFFF);
    if (p32) {
        put32(bytes, site->insn);
        put32(bytes + 4, T_ADD_LR_2);
        put16(bytes + 8, T_BX_PC);
        put16(bytes + THUNK32_BLX, site->insn2);
        put32(bytes + THUNK32_BRANCH, b);
    } else {
        put16(bytes, 0xBF00);                   /* nop */
        put16(bytes + THUNK_ENTRY, site->insn);
        put16(bytes + 4, T_BX_PC);
        put16(bytes + THUNK_BLX, site->insn >> 16);
        put32(bytes + THUNK_BRANCH, b);
    }
    return 0;
}

/* A fixed target relative to the DB word, bit 0 set for Thumb (ARM blx
 * imm, Thumb bl); for blx rM, rM's offset in the sled's frame. */
static uint32_t arm_site_word(const struct call_site *site, uint64_t word_addr64, uint64_t thunk)
{
    uint32_t addr = (uint32_t)site->addr, word_addr = (uint32_t)word_addr64;
    if (is_jump_kind(site->kind))   /* the thunk's continuation (Thumb: bit 0) */
        return (uint32_t)thunk + JUMP_THUNK_CONT + (site->kind == KIND_T_B_JUMP) - word_addr;
    uint32_t w = site->insn, pc = addr + 8;
    switch (site->kind) {
    case KIND_BL: return pc + (uint32_t)branch_offset(w) - word_addr;
    case KIND_BLX_IMM: return (pc + (uint32_t)branch_offset(w) + ((w >> 23) & 2)) + 1 - word_addr;
    case KIND_T_BL: return t_call_target(addr, w) + 1 - word_addr;
    case KIND_T_BLX_IMM: return t_call_target(addr, w) - word_addr;
    case KIND_T_BLX_PAIR: case KIND_T_BLX_PAIRB:
        return FRAME_R(w >> 19 & 15);                       /* the blx: second halfword */
    case KIND_T_BLX_PAIR32: case KIND_T_BLX_PAIRB32:
        return FRAME_R(site->insn2 >> 3 & 15);
    case KIND_BX_JUMP: return FRAME_R(w & 15) | LITIFUT_DB_JUMP_REG;
    case KIND_T_BX_JUMP: return FRAME_R(w >> 19 & 15) | LITIFUT_DB_JUMP_REG;
    case KIND_T_BX_JUMP32: return FRAME_R(site->insn2 >> 3 & 15) | LITIFUT_DB_JUMP_REG;
    default: return FRAME_R(w & 15);
    }
}


/* An object's attribute `tag`; -1 if it has no attributes section, -2
 * (one error line) if it cannot be read. */
static long object_attribute(const char *object_path, uint32_t tag)
{
    struct elf_image obj;
    if (elf_image_open(&obj, object_path) != 0)
        return -2;
    long v = -1;
    for (size_t si = 1; si < obj.n_sections; si++) {
        const struct elf_section *s = &obj.sections[si];
        if (s->type == SHT_ARM_ATTRIBUTES && (uint64_t)s->offset + s->size <= obj.size) {
            v = arm_attribute(obj.data + s->offset, s->size, tag);
            break;
        }
    }
    elf_image_close(&obj);
    return v;
}

/* The float ABI of an input object picks the tracer module:
 * arm-linux-gnueabihf's for hard float, else arm-linux-gnueabi's. */
static const char *arm_module_triple(const char *object_path, const char *triple)
{
    long vfp = object_attribute(object_path, TAG_ABI_VFP_ARGS);
    if (vfp == -2)
        return NULL;
    if (vfp == -1)          /* no attributes: the toolchain's own */
        return triple;
    return vfp == 1 ? "arm-linux-gnueabihf" : "arm-linux-gnueabi";
}

/* An object built for ARMv6K or later (Tag_CPU_arch v6KZ, v6T2, v6K,
 * v7, v8 and on; not the M profiles) allows the variant that reads the
 * thread register (mrc p15 TPIDRURO) instead of calling the kernel's
 * helper. */
static const char *arm_module_variant(const char *object_path)
{
    long arch = object_attribute(object_path, TAG_CPU_ARCH);
    if (arch == -2)
        return NULL;
    return arch == 7 || arch == 8 || arch == 9 || arch == 10 || arch >= 14 ? "-v6k" : "";
}

/* A constructor's or destructor's entry thunk (host-arm.h). */
static int arm_encode_entry_thunk(uint64_t thunk64, uint64_t fn, uint64_t common, uint32_t *w)
{
    uint32_t thunk = (uint32_t)thunk64;
    uint32_t b = arm_b_encode(thunk + 8, 0xE0000000u, (uint32_t)common);
    if (!b || (thunk & 3))
        return error("entry thunk at 0x%08" PRIx32 ": the tracer's entry at 0x%08" PRIx32
                     " is out of b range (+-32 MB)", thunk, (uint32_t)common);
    w[0] = A_LDR_IP_PC4;
    w[1] = A_ADD_IP_PC_IP;
    w[2] = b;
    w[3] = (uint32_t)fn - (thunk + 12);
    return 0;
}

const struct arch_rewrite_ops arch_arm_rewrite = {
    .entry_thunk_size = ENTRY_THUNK_SIZE,
    .encode_entry_thunk = arm_encode_entry_thunk,
    .encode_redirect = arm_encode_redirect,
    .encode_thunk = arm_encode_thunk,
    .site_word = arm_site_word,
    .module_triple = arm_module_triple,
    .module_variant = arm_module_variant,
};
