/*
 * MIPS o32 for the rewriter: where each call is redirected.
 *
 * Redirects (arch/mips/stub.S holds the sleds; DESIGN.md says why; a
 * jalr $t9 whose callee the link fixed goes as a call with that fixed
 * target, to the first half):
 *   - bal (or, conditional forms, the same branch retargeted) to entry
 *     k of a sled copy within +-128 KB: right at any load address;
 *   - else, in a program with a fixed address (ET_EXEC): jal to the
 *     sled entry;
 *   - else (PIE): jal to entry k of the bridge, which the tracer maps at
 *     the same offset in every 256 MB region the code spans.
 * A conditional call with no sled in reach fails the link.
 */
#include <inttypes.h>
#include "arch/mips/host-mips.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"
#include "litifut/db-format.h"

/* MIPS here is 32-bit (word_size 4): its images are ELF32 (arch_of_image),
 * their addresses fit 32 bits and are computed with in 32 bits. */
static int in_branch_range(uint32_t addr, uint32_t target)
{
    int64_t off = (int64_t)target - ((int64_t)addr + 4);
    return off >= -(INT64_C(1) << 17) && off < (INT64_C(1) << 17);
}

static int mips_encode_redirect(const struct call_site *site, unsigned k,
                                const struct sled_set *sleds, uint64_t thunk, uint32_t *word,
                                int *bridged)
{
    uint32_t a = (uint32_t)site->addr;
    unsigned entry_k = k + (site->kind == KIND_JALR) * SLED_ENTRIES;    /* its half: sled.h */
    if (site->kind == KIND_J_JUMP || site->kind == KIND_B_JUMP || site->kind == KIND_JR_GOT_JUMP ||
        site->kind == KIND_JR_JUMP) {
        uint32_t t = (uint32_t)thunk;   /* to its thunk: b, else j (a fixed address) */
        *bridged = 0;
        if (in_branch_range(a, t))
            *word = 0x10000000u | (((t - (a + 4)) >> 2) & 0xffff);
        else if (sleds->fixed_address && (t & 0xf0000000u) == ((a + 4) & 0xf0000000u))
            *word = 0x08000000u | (t & 0x0fffffffu) >> 2;
        else
            return error("tail jump at 0x%08" PRIx32 ": its thunk at 0x%08" PRIx32
                         " is out of its reach", a, t);
        return 0;
    }
    int unconditional = site->kind == KIND_JAL || site->kind == KIND_JALR ||
                        site->kind == KIND_JALR_GOT || site->kind == KIND_BAL;
    *bridged = 0;
    for (unsigned i = 0; i < sleds->n; i++) {           /* a sled in branch range */
        uint32_t entry = (uint32_t)sleds->base[i] + SLED_ENTRY_SIZE * entry_k;
        if (!in_branch_range(a, entry))
            continue;
        uint32_t base = unconditional ? 0x04110000u : (site->insn & 0xffff0000u);
        *word = base | (((entry - (a + 4)) >> 2) & 0xffff);
        return 0;
    }
    if (!unconditional)
        return error("conditional call at 0x%08" PRIx32 ": no tracer sled within +-128 KB", a);
    if (sleds->fixed_address) {
        for (unsigned i = 0; i < sleds->n; i++) {       /* same 256 MB region: jal */
            uint32_t entry = (uint32_t)sleds->base[i] + SLED_ENTRY_SIZE * entry_k;
            if ((entry & 0xf0000000u) == ((a + 4) & 0xf0000000u)) {
                *word = 0x0c000000u | (entry & 0x0fffffffu) >> 2;
                return 0;
            }
        }
        return error("call at 0x%08" PRIx32 ": no tracer sled in its 256 MB region", a);
    }
    *word = 0x0c000000u | (sleds->bridge + SLED_ENTRY_SIZE * entry_k) >> 2;
    *bridged = 1;
    return 0;
}

/* A fixed target relative to the DB word (jal: in the region of its
 * delay slot, at link time; jalr $t9 from a fixed GOT slot: its
 * callee); for jalr rs, rs's offset in the sled's
 * frame, + 1 if the hot path does not save rs. */
static uint32_t mips_site_word(const struct call_site *site, uint64_t word_addr, uint64_t thunk)
{
    uint32_t w = site->insn, a = (uint32_t)site->addr, word = (uint32_t)word_addr;
    if (site->kind == KIND_J_JUMP || site->kind == KIND_B_JUMP || site->kind == KIND_JR_GOT_JUMP)
        return (uint32_t)thunk + JUMP_THUNK_CONT - word;    /* its continuation */
    if (site->kind == KIND_JR_JUMP)
        return FRAME_R(3) | LITIFUT_DB_JUMP_REG;            /* the thunk's v1 */
    if (site->kind == KIND_JALR) {
        unsigned rs = rs_of(w);
        return FRAME_R(rs) + ((HOT_SAVED_REGS >> rs) & 1u ? 0 : 1);
    }
    if (site->kind == KIND_JAL)
        return mips_jal_target(a, w) - word;
    if (site->kind == KIND_JALR_GOT)
        return (uint32_t)site->target - word;
    return mips_branch_target(a, w) - word;
}

/* hi and lo of d for lui + addiu (addiu's immediate is signed) */
static uint32_t hi16(uint32_t d)
{
    return (d + 0x8000) >> 16;
}

static void put_be(uint8_t *p, uint32_t v, int big)
{
    for (int i = 0; i < 4; i++)
        p[big ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Where a tail jump goes: j, b from the instruction, jr $t9 its callee. */
static uint32_t jump_target(const struct call_site *site)
{
    uint32_t a = (uint32_t)site->addr;
    return site->kind == KIND_J_JUMP ? mips_jal_target(a, site->insn)
         : site->kind == KIND_B_JUMP ? mips_branch_target(a, site->insn) : (uint32_t)site->target;
}

/* lui r, hi(d); addiu r, r, lo(d); addu dst, ra, r */
static void put_offset(uint32_t *w, unsigned r, unsigned dst, uint32_t d)
{
    w[0] = 0x3c000000u | r << 16 | hi16(d);
    w[1] = 0x24000000u | r << 21 | r << 16 | (d & 0xffff);
    w[2] = 31u << 21 | r << 16 | dst << 11 | 0x21;
}

/* A tail jump's thunk (host-mips.h), to entry k of the jump half. */
static int mips_encode_thunk(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                             uint64_t thunk64, uint8_t *bytes)
{
    uint32_t t = (uint32_t)thunk64, w[JUMP_THUNK_SIZE / 4] = { 0 };
    uint32_t entry = (uint32_t)sleds->jump + SLED_ENTRY_SIZE * k, f = jump_target(site);
    if (!sleds->jump || (t & 3))
        return error("thunk at 0x%08" PRIx32 ": no tracer jump sled", t);
    if (site->kind == KIND_JR_JUMP) {           /* through a register (host-mips.h) */
        w[0] = rs_of(site->insn) << 21 | 3u << 11 | 0x25;      /* or v1, rs, zero */
        w[1] = 0x27bdfff8u;                     /* addiu sp, sp, -8 */
        w[2] = 0xafbf0004u;                     /* sw ra, 4(sp) */
        w[3] = 0x04110001u;                     /* bal 1f */
        put_offset(w + 5, 1, 25, entry - (t + 20));
        put_offset(w + 8, 1, 31, (uint32_t)site->addr + RA_OFFSET - (t + 20));
        w[11] = 0x03200008u;                    /* jr t9 */
        w[13] = site->insn;
        for (unsigned i = 0; i < REGJUMP_SIZE / 4; i++)
            put_be(bytes + 4 * i, w[i], sleds->big_endian);
        return 0;
    }
    w[0] = 0x27bdfff8u;                         /* addiu sp, sp, -8 */
    w[1] = 0xafbf0004u;                         /* sw ra, 4(sp) */
    w[2] = 0x04110001u;                         /* bal 1f */
    w[3] = 0;
    put_offset(w + 4, 1, 25, entry - (t + 16)); /* t9 = the entry */
    put_offset(w + 7, 1, 31, (uint32_t)site->addr + RA_OFFSET - (t + 16));  /* ra = A + 8 */
    w[10] = 0x03200008u;                        /* jr t9 */
    w[11] = 0;
    w[12] = 0x04110001u;                        /* the continuation: bal 2f */
    w[13] = 0;
    put_offset(w + 14, 1, 25, f - (t + 56));    /* t9 = f */
    w[17] = 0x8fbf0004u;                        /* lw ra, 4(sp) */
    w[18] = 0x03200008u;                        /* jr t9 */
    w[19] = 0x27bd0008u;                        /* addiu sp, sp, 8 (delay slot) */
    w[20] = f - (t + JUMP_THUNK_TARGET);
    w[21] = site->insn;
    for (unsigned i = 0; i < JUMP_THUNK_SIZE / 4; i++)
        put_be(bytes + 4 * i, w[i], sleds->big_endian);
    return 0;
}

/* A constructor's or destructor's entry thunk (src/entries.h): at = the
 * function, t9 = the tracer's entry, both from the thunk's own address
 * (bal: ra kept in v1, free at a function's entry), then jr t9:
 *     move v1, ra ; bal 1f ; nop
 * 1:  lui at, hi ; addiu at, at, lo ; addu at, at, ra
 *     lui t9, hi ; addiu t9, t9, lo ; addu t9, t9, ra
 *     jr t9 ; move ra, v1 */
static int mips_encode_entry_thunk(uint64_t thunk64, uint64_t fn, uint64_t common, uint32_t *w)
{
    uint32_t pc = (uint32_t)thunk64 + 12, f = (uint32_t)fn - pc, c = (uint32_t)common - pc;
    w[0] = 0x03e01821u;                         /* move v1, ra */
    w[1] = 0x04110001u;                         /* bal 1f */
    w[2] = 0;
    w[3] = 0x3c010000u | hi16(f);               /* lui at */
    w[4] = 0x24210000u | (f & 0xffff);          /* addiu at, at */
    w[5] = 0x003f0821u;                         /* addu at, at, ra */
    w[6] = 0x3c190000u | hi16(c);               /* lui t9 */
    w[7] = 0x27390000u | (c & 0xffff);          /* addiu t9, t9 */
    w[8] = 0x033fc821u;                         /* addu t9, t9, ra */
    w[9] = 0x03200008u;                         /* jr t9 */
    w[10] = 0x0060f821u;                        /* move ra, v1 (delay slot) */
    w[11] = 0;
    return 0;
}

const struct arch_rewrite_ops arch_mips_rewrite = {
    .encode_thunk = mips_encode_thunk,
    .entry_thunk_size = 48,
    .encode_entry_thunk = mips_encode_entry_thunk,
    .encode_redirect = mips_encode_redirect,
    .site_word = mips_site_word,
};
