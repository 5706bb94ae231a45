/*
 * AArch64 for the rewriter and the wrapper: a call (bl or blr Xn)
 * becomes `bl litifut_sled + SLED_ENTRY_SIZE * (k + half *
 * SLED_ENTRIES)` (arch/aarch64/sled.h), the same size and the same
 * return address; the DB word says where the call went.  A call
 * beyond bl's +-128 MB of the tracer's sled goes to the nearest far
 * sled (far-sled.S).  One tracer module for every object (no float-ABI
 * or variant choice).
 */
#include <inttypes.h>
#include "arch/aarch64/host-aarch64.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"
#include "litifut/db-format.h"

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Entry k of the sled a call goes to: the tracer's own (base[0]) if
 * both ends of its half are in reach, else the nearest far sled
 * (far-sled.S: 4 instructions more per call). */
static uint64_t sled_entry(const struct call_site *site, unsigned k, const struct sled_set *sleds)
{
    unsigned half = site->kind == KIND_BLR;                                    /* sled.h */
    uint64_t base = sleds->base[0], half_bytes = SLED_ENTRY_SIZE * SLED_ENTRIES;
    if (!a64_bl_encode(site->addr, base + half * half_bytes) ||
        !a64_bl_encode(site->addr, base + (half + 1) * half_bytes - SLED_ENTRY_SIZE))
        for (unsigned i = 1; i < sleds->n; i++)
            if (distance(site->addr, sleds->base[i]) < distance(site->addr, base))
                base = sleds->base[i];
    return base + SLED_ENTRY_SIZE * (k + half * SLED_ENTRIES);
}

/* bl to entry k of the sled in reach (the first half for bl, the second
 * for blr). */
static int a64_encode_redirect(const struct call_site *site, unsigned k,
                               const struct sled_set *sleds, uint64_t thunk, uint32_t *word,
                               int *bridged)
{
    uint64_t entry = sled_entry(site, k, sleds);
    *bridged = 0;
    if (site->kind == KIND_B_JUMP || site->kind == KIND_BCOND_JUMP ||
        site->kind == KIND_BR_JUMP) {                                   /* to its thunk */
        uint32_t as = site->kind == KIND_BR_JUMP ? 0x14000000u : site->insn;   /* (b) */
        if (!(*word = a64_jump_encode(site->addr, as, thunk)))
            return error("tail jump at 0x%08" PRIx64 ": its thunk at 0x%08" PRIx64
                         " is out of its reach", site->addr, thunk);
        return 0;
    }
    if (!(*word = a64_bl_encode(site->addr, entry)))
        return error("call at 0x%08" PRIx64 ": the nearest tracer sled, at 0x%08" PRIx64 ", is "
                     "out of bl range (+-128 MB)", site->addr, entry);
    return 0;
}

/* The first site (if any) that reaches no sled, neither the tracer's nor
 * a far one (too much code in one input between two far sleds, or an
 * archive found by -l that the wrapper did not count): the link is
 * refused in one line naming it. */
static int a64_check_reach(const struct site_list *sites, const struct sled_set *sleds,
                           const char *program)
{
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        if (s->kind == KIND_B_JUMP || s->kind == KIND_BCOND_JUMP || s->kind == KIND_BR_JUMP)
            continue;                   /* (its thunk's, beside the sled) */
        uint64_t first = sled_entry(s, 0, sleds), last = sled_entry(s, SLED_ENTRIES - 1, sleds);
        if (!a64_bl_encode(s->addr, first) || !a64_bl_encode(s->addr, last))
            return error("%s: the call at 0x%08" PRIx64 " is out of bl's reach (+-128 MB) of "
                         "every tracer sled (the nearest at 0x%08" PRIx64 "): too much code "
                         "between two far sleds", program, s->addr, first);
    }
    return 0;
}

/* bl: its target relative to the DB word (the DB lies within +-2 GB of
 * the code: the 32-bit difference is exact); blr Xn: Xn's word. */
static uint32_t a64_site_word(const struct call_site *site, uint64_t word_addr, uint64_t thunk)
{
    if (site->kind == KIND_B_JUMP || site->kind == KIND_BCOND_JUMP)
        return (uint32_t)(thunk + JUMP_THUNK_CONT - word_addr);     /* its continuation */
    if (site->kind == KIND_BLR)
        return SITE_REG_WORD(a64_rn(site->insn));
    if (site->kind == KIND_BR_JUMP)
        return SITE_REG_WORD(a64_rn(site->insn)) | LITIFUT_DB_JUMP_REG;
    return (uint32_t)(site->addr + (uint64_t)a64_branch_offset(site->insn) - word_addr);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A tail jump's thunk (host-aarch64.h), to entry k of the jump half. */
static int a64_encode_thunk(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                            uint64_t thunk, uint8_t *bytes)
{
    if (site->kind == KIND_BR_JUMP) {   /* through a register (host-aarch64.h) */
        uint64_t key = site->addr + RA_OFFSET;
        unsigned rn = a64_rn(site->insn);
        uint32_t adrp = a64_adrp_encode(thunk + 8, key, 30);
        uint32_t b = sleds->jump ? a64_jump_encode(thunk + 16, 0x14000000u,
                                                   sleds->jump + SLED_ENTRY_SIZE * k) : 0;
        if (!adrp || !b || (thunk & 3))
            return error("thunk at 0x%08" PRIx64 ": the tracer's jump sled is out of its reach",
                         thunk);
        put32(bytes, rn == 16 || rn == 17 ? A64_MOV_X15(rn) : A64_NOP);
        put32(bytes + 4, A64_PUSH_X30);
        put32(bytes + 8, adrp);
        put32(bytes + 12, 0x91000000u | (uint32_t)(key & 0xfff) << 10 | 30u << 5 | 30u);
        put32(bytes + 16, b);
        put32(bytes + REGJUMP_BR, site->insn);
        return 0;
    }
    uint64_t ra = site->addr + RA_OFFSET, f = a64_jump_target(site->addr, site->insn);
    uint32_t adrp = a64_adrp_encode(thunk + 4, ra, 30);
    uint32_t b = sleds->jump ? a64_jump_encode(thunk + JUMP_THUNK_BRANCH, 0x14000000u,
                                               sleds->jump + SLED_ENTRY_SIZE * k) : 0;
    uint32_t jump = a64_jump_encode(thunk + JUMP_THUNK_JUMP, 0x14000000u, f);
    int64_t off = (int64_t)(f - (thunk + JUMP_THUNK_TARGET));
    if (!adrp || !b || (thunk & 3))
        return error("thunk at 0x%08" PRIx64 ": the tracer's jump sled is out of its reach",
                     thunk);
    if (!jump || off < INT32_MIN || off > INT32_MAX)
        return error("tail jump at 0x%08" PRIx64 ": its target 0x%08" PRIx64
                     " is out of reach of its thunk at 0x%08" PRIx64, site->addr, f, thunk);
    put32(bytes, A64_PUSH_X30);
    put32(bytes + 4, adrp);
    put32(bytes + 8, 0x91000000u | (uint32_t)(ra & 0xfff) << 10 | 30u << 5 | 30u);
    put32(bytes + JUMP_THUNK_BRANCH, b);
    put32(bytes + JUMP_THUNK_CONT, A64_POP_X30);
    put32(bytes + JUMP_THUNK_JUMP, jump);
    put32(bytes + JUMP_THUNK_TARGET, (uint32_t)off);
    put32(bytes + JUMP_THUNK_TARGET + 4, 0);
    return 0;
}

/* The DB object's GNU property note, as the tracer's (property.h): BTI
 * and PAC, so that a program whose every input has them keeps them. */
static const char a64_db_note[] =
    "    .section .note.gnu.property, \"a\"\n"
    "    .p2align 3\n"
    "    .word 4, 16, 5\n"                 /* namesz, descsz, NT_GNU_PROPERTY_TYPE_0 */
    "    .asciz \"GNU\"\n"
    "    .word 0xc0000000, 4, 3, 0\n";     /* FEATURE_1_AND: BTI | PAC */

/* A constructor's or destructor's entry thunk (host-aarch64.h). */
static int a64_encode_entry_thunk(uint64_t thunk, uint64_t fn, uint64_t common, uint32_t *w)
{
    uint32_t adrp = a64_adrp_encode(thunk + 4, fn, 16);
    uint32_t b = a64_jump_encode(thunk + 12, 0x14000000u, common);
    if (!adrp || !b || (thunk & 3))
        return error("entry thunk at 0x%08" PRIx64 ": the tracer's entry at 0x%08" PRIx64
                     " is out of its reach", thunk, common);
    w[0] = A64_BTI_C;
    w[1] = adrp;
    w[2] = 0x91000000u | (uint32_t)(fn & 0xfff) << 10 | 16u << 5 | 16u;
    w[3] = b;
    return 0;
}

const struct arch_rewrite_ops arch_aarch64_rewrite = {
    .entry_thunk_size = ENTRY_THUNK_SIZE,
    .encode_entry_thunk = a64_encode_entry_thunk,
    .encode_redirect = a64_encode_redirect,
    .check_reach = a64_check_reach,
    .encode_thunk = a64_encode_thunk,
    .site_word = a64_site_word,
    .db_asm = a64_db_note,
};
