/*
 * RISC-V for the rewriter and the wrapper: a call (jal ra, the jalr of
 * an auipc + jalr pair, jalr ra, 0(rs)) becomes `jal ra, litifut_sled +
 * SLED_ENTRY_SIZE * (k + half * SLED_ENTRIES)` (arch/riscv64/sled.h),
 * 4 bytes with the same return address; the DB word says where the
 * call went; a c.jalr pair becomes `jal ra` to its thunk, which goes
 * on to the register half (host-riscv64.h).  jal reaches +-1 MB: a call
 * beyond the tracer's sled goes to the nearest far sled (far-sled.S),
 * one beyond every sled is refused in one line.  One tracer module for
 * every object.
 */
#include <inttypes.h>
#include "arch/riscv64/host-riscv64.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"
#include "litifut/db-format.h"

extern const struct arch_ops arch_riscv64;

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Entry k of the sled a call goes to: the tracer's own (base[0]) if
 * both ends of its half are in reach, else the nearest other one. */
static uint64_t sled_entry(const struct call_site *site, unsigned k, const struct sled_set *sleds)
{
    unsigned half = rv_site_half(site->kind, site->insn, site->insn2);          /* sled.h */
    uint64_t base = sleds->base[0], half_bytes = SLED_ENTRY_SIZE * SLED_ENTRIES;
    if (!rv_jal_encode(RV_RA, site->addr, base + half * half_bytes) ||
        !rv_jal_encode(RV_RA, site->addr, base + (half + 1) * half_bytes - SLED_ENTRY_SIZE))
        for (unsigned i = 1; i < sleds->n; i++)
            if (distance(site->addr, sleds->base[i]) < distance(site->addr, base))
                base = sleds->base[i];
    return base + SLED_ENTRY_SIZE * (k + half * SLED_ENTRIES);
}

/* jal ra to entry k of the sled in reach (the first half for a fixed
 * target, the second for a register). */
static int rv_encode_redirect(const struct call_site *site, unsigned k,
                              const struct sled_set *sleds, uint64_t thunk, uint32_t *word,
                              int *bridged)
{
    uint64_t entry = sled_entry(site, k, sleds);
    *bridged = 0;
    if (site->kind == KIND_CJALR_PAIR || site->kind == KIND_CJALR_PAIR32) {      /* to its thunk */
        uint64_t at = site->addr + (uint64_t)(int64_t)arch_riscv64.kinds[site->kind].patch_offset;
        if (!(*word = rv_jal_encode(RV_RA, at, thunk)))
            return error("call at 0x%08" PRIx64 ": its thunk at 0x%08" PRIx64
                         " is out of jal range (+-1 MB)", site->addr, thunk);
        return 0;
    }
    if (!(*word = rv_jal_encode(RV_RA, site->addr, entry)))
        return error("call at 0x%08" PRIx64 ": the nearest tracer sled, at 0x%08" PRIx64 ", is "
                     "out of jal range (+-1 MB)", site->addr, entry);
    return 0;
}

/* The first site (if any) that reaches no sled, neither the tracer's nor
 * a far one (too much code in one input between two far sleds, or an
 * archive found by -l that the wrapper did not count): the link is
 * refused in one line naming it. */
static int rv_check_reach(const struct site_list *sites, const struct sled_set *sleds,
                          const char *program)
{
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        if (s->kind == KIND_CJALR_PAIR || s->kind == KIND_CJALR_PAIR32)
            continue;                   /* (its thunk's, beside the sled) */
        uint64_t first = sled_entry(s, 0, sleds), last = sled_entry(s, SLED_ENTRIES - 1, sleds);
        if (!rv_jal_encode(RV_RA, s->addr, first) || !rv_jal_encode(RV_RA, s->addr, last))
            return error("%s: the call at 0x%08" PRIx64 " is out of jal's reach (+-1 MB) of "
                         "every tracer sled (the nearest at 0x%08" PRIx64 "): too much code "
                         "between two far sleds", program, s->addr, first);
    }
    return 0;
}

/* A fixed target relative to the DB word (the DB lies within +-2 GB of
 * the code: the 32-bit difference is exact); jalr ra, 0(rs): rs's word. */
static uint32_t rv_site_word(const struct call_site *site, uint64_t word_addr, uint64_t thunk)
{
    (void)thunk;
    unsigned reg = rv_call_reg(site->kind, site->insn, site->insn2);
    if (reg)
        return SITE_REG_WORD(reg);
    uint64_t target = site->kind == KIND_CALL ? site->target
                                              : site->addr + (uint64_t)rv_jal_offset(site->insn);
    return (uint32_t)(target - word_addr);
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* A c.jalr pair's thunk (host-riscv64.h), to entry k of the register
 * half. */
static int rv_encode_thunk(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                           uint64_t thunk, uint8_t *bytes)
{
    int wide = site->kind == KIND_CJALR_PAIR32;
    unsigned j_at = wide ? 6 : 2;
    uint32_t j = rv_jal_encode(0, thunk + j_at, sled_entry(site, k, sleds));   /* (its half's) */
    if (!j)
        return error("thunk at 0x%08" PRIx64 ": the tracer's sled is out of its reach", thunk);
    if (wide) {
        put16(bytes, site->insn);
        put16(bytes + 2, site->insn >> 16);
        put16(bytes + 4, RV_C_ADDI_RA_2);
        put16(bytes + 10, site->insn2);
    } else {
        put16(bytes, site->insn);
        put16(bytes + 6, site->insn >> 16);
    }
    put16(bytes + j_at, j);
    put16(bytes + j_at + 2, j >> 16);
    return 0;
}

/* A constructor's or destructor's entry thunk (host-riscv64.h). */
static int rv_encode_entry_thunk(uint64_t thunk, uint64_t fn, uint64_t common, uint32_t *w)
{
    int64_t d = (int64_t)(fn - thunk);
    uint32_t j = rv_jal_encode(0, thunk + 8, common);
    if (d < INT32_MIN || d > INT32_MAX - 0x800 || !j || (thunk & 1))
        return error("entry thunk at 0x%08" PRIx64 ": the function at 0x%08" PRIx64 " or the "
                     "tracer's entry at 0x%08" PRIx64 " is out of its reach", thunk, fn, common);
    uint32_t hi = (uint32_t)((d + 0x800) & ~(int64_t)0xfff), lo = (uint32_t)(d - (int64_t)(int32_t)hi) & 0xfff;
    w[0] = hi | (uint32_t)SLED_REG << 7 | 0x17;                              /* auipc t1 */
    w[1] = lo << 20 | (uint32_t)SLED_REG << 15 | (uint32_t)SLED_REG << 7 | 0x13;   /* addi t1, t1 */
    w[2] = j;
    return 0;
}

const struct arch_rewrite_ops arch_riscv64_rewrite = {
    .entry_thunk_size = ENTRY_THUNK_SIZE,
    .encode_entry_thunk = rv_encode_entry_thunk,
    .encode_redirect = rv_encode_redirect,
    .check_reach = rv_check_reach,
    .encode_thunk = rv_encode_thunk,
    .site_word = rv_site_word,
};
