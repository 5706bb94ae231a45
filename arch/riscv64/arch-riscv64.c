/*
 * RISC-V (RV64GC, LP64D, little-endian) for every host tool: which code
 * to scan and which instructions are calls.  An instruction's size is
 * in its low bits and the calls are plain encodings, so the scan
 * classifies each by its bits alone (quick): Debian 12's capstone (4.0)
 * has no RISC-V, and none is needed.
 *   jal ra, imm             rewritten (first sled half)
 *   auipc rX + jalr ra, lo(rX)   rewritten at the jalr (first half):
 *                           rX ra or a register the call clobbers
 *   jalr ra, 0(rs)          rewritten (second half; the third for t1,
 *                           the sled's register), but for rs ra (the
 *                           redirect writes it)
 *   c.jalr rs              rewritten with the instruction before it
 *                           (host-riscv64.h: a pair and its thunk),
 *                           where that one can move and nothing else
 *                           may lead to the c.jalr
 *   jalr ra with an offset, jal t0 and jalr t0 (-msave-restore's
 *   millicode calls)        left alone, counted as untraced with why
 * How a call is redirected is rewrite-riscv64.c; reading rewritten code
 * and the PLT, read-riscv64.c.
 */
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "arch/riscv64/host-riscv64.h"
#include "lib/sites.h"
#include "lib/error.h"
#include "litifut/trace-format.h"

#ifndef R_RISCV_RELATIVE
#define R_RISCV_RELATIVE 3
#endif

static const struct call_kind rv_kinds[N_RV_KINDS] = {
    [KIND_JAL] = { "jal", RA_OFFSET, 0, 0, 0 },
    [KIND_CALL] = { "auipc_jalr", RA_OFFSET, 0, 0, 0 },
    [KIND_JALR] = { "jalr", RA_OFFSET, 0, 0, 0 },
    [KIND_CJALR_PAIR] = { "c_jalr_pair", 2, -2, PAIR_THUNK_SIZE, 0 },
    [KIND_CJALR_PAIR32] = { "c_jalr_pair32", 2, -4, PAIR32_THUNK_SIZE, 0 },
};
/* (the 32-bit ones, elf32lriscv*, and the soft-float elf64lriscv_lp64
 * and _lp64f are not listed: the wrapper refuses them with one line) */
static const struct ld_emulation rv_emulations[] = {
    { "elf64lriscv", "riscv64-linux-gnu" },
    { NULL, NULL },
};

static int rv_check_image(const struct elf_image *img)
{
    if (img->big_endian)
        return error("%s: big-endian RISC-V is not supported", img->path);
    return 0;
}

/* The code is what the $x mapping symbols mark (binutils names them
 * "$x" plus the ISA string, "$xrv64i2p1_m2p0_..."); $d marks data. */
static int rv_code_ranges(const struct elf_image *img, const struct exclusions *ex,
                          struct code_range **out, size_t *n, struct scan_stats *st)
{
    (void)ex;
    static const unsigned isas[] = { ISA_MAIN };
    return mapped_code_ranges(img, "RISC-V", "x", isas, out, n, st);
}

/* The scan's state: the instruction before this one (an auipc that a
 * jalr completes, the P of a c.jalr pair), and what makes a 2-byte
 * pair safe (nothing but P may lead to its c.jalr, whose halfword the
 * pair's jal covers): every direct branch and jump target of the
 * image, every symbol's address, and the functions with an indirect
 * jump other than a return through ra (a switch's, a sibling call's;
 * one through t0, which GCC may take for a temporary, too), which may
 * go anywhere in them, and in the parts GCC split off them (foo.cold,
 * foo.part.0: the same base name). */
struct rv_scan {
    uint64_t prev_end;
    uint32_t prev;
    unsigned prev_size;
    uint64_t *targets;          /* sorted */
    size_t n_targets;
    uint64_t *jumpers;          /* base-name hashes of functions with indirect jumps, sorted */
    size_t n_jumpers;
    struct function_index functions;
};

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void push(uint64_t **v, size_t *n, size_t *cap, uint64_t x)
{
    if (*n == *cap) {
        *cap = *cap * 2 + 256;
        *v = xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = x;
}

/* A hash of a function's name up to its first '.' (foo of foo.cold). */
static uint64_t base_name_hash(const char *name)
{
    uint64_t h = 14695981039346656037ull;
    for (const char *c = name; *c && *c != '.'; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    return h;
}

/* The branch targets and indirect jumps of the image's code. */
static void scan_jumps(struct rv_scan *sc, const struct elf_image *img)
{
    struct code_range *r;
    size_t n_r, cap_t = 0, cap_j = 0;
    struct scan_stats st;
    memset(&st, 0, sizeof st);
    int rc = rv_code_ranges(img, NULL, &r, &n_r, &st);
    scan_stats_free(&st);
    if (rc != 0)
        return;
    for (size_t i = 0; i < img->n_symbols; i++)     /* (not the mapping symbols) */
        if (img->symbols[i].shndx != SHN_UNDEF && img->symbols[i].value &&
            img->symbols[i].name[0] != '$')
            push(&sc->targets, &sc->n_targets, &cap_t, img->symbols[i].value);
    for (size_t i = 0; i < n_r; i++) {
        const unsigned char *code = elf_bytes_at(img, r[i].start, r[i].end - r[i].start);
        if (!code)
            continue;
        for (uint64_t a = r[i].start; a + 2 <= r[i].end;) {
            uint32_t w = a + 4 <= r[i].end ? elf_get32(img, code + (a - r[i].start))
                                           : elf_get16(img, code + (a - r[i].start));
            unsigned size = rv_insn_size(w);
            int jumps = 0;
            if (size == 2) {
                if (rv_is_c_j(w))
                    push(&sc->targets, &sc->n_targets, &cap_t, a + (uint64_t)rv_c_j_offset(w));
                else if (rv_is_c_branch(w))
                    push(&sc->targets, &sc->n_targets, &cap_t,
                         a + (uint64_t)rv_c_branch_offset(w));
                else
                    jumps = rv_is_c_jr(w) && rv_c_rs1(w) != RV_RA;
            } else if (size == 4) {
                if (rv_is_jal(w))
                    push(&sc->targets, &sc->n_targets, &cap_t, a + (uint64_t)rv_jal_offset(w));
                else if (rv_is_branch(w))
                    push(&sc->targets, &sc->n_targets, &cap_t, a + (uint64_t)rv_branch_offset(w));
                else
                    jumps = rv_is_jalr(w) && rv_rd(w) == 0 && rv_rs1(w) != RV_RA;
            }
            if (jumps) {
                const struct indexed_function *f = function_index_find(&sc->functions, a);
                if (f)
                    push(&sc->jumpers, &sc->n_jumpers, &cap_j, base_name_hash(f->sym->name));
            }
            a += size;
        }
    }
    free(r);
    qsort(sc->targets, sc->n_targets, sizeof *sc->targets, u64_cmp);
    qsort(sc->jumpers, sc->n_jumpers, sizeof *sc->jumpers, u64_cmp);
}

static void *rv_scan_begin(const struct elf_image *img)
{
    struct rv_scan *sc = xcalloc(1, sizeof *sc);
    function_index_build(img, &sc->functions);
    scan_jumps(sc, img);
    return sc;
}

static int untraced_cmp(const void *a, const void *b)
{
    uint64_t x = ((const struct untraced_call *)a)->addr, y = ((const struct untraced_call *)b)->addr;
    return x < y ? -1 : x > y;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* c.jalr pairs whose thunk (in the thunk area after the code: within 1
 * MB of the tracer's sled plus the area, and the tracer's code) would
 * be out of jal's reach stay as they are, untraced: far sleds have no
 * thunk areas (yet).  (A rewritten pair, which the readers' scan finds,
 * is in reach.) */
static void rv_scan_end(void *state, const struct elf_image *img, struct site_list *sites,
                        struct scan_stats *st)
{
    const struct elf_symbol *sled_sym = elf_symbol_by_name(img, "litifut_sled");
    uint64_t area = 0;
    for (size_t i = 0; i < sites->n; i++)
        area += rv_kinds[sites->v[i].kind].thunk_size;
    uint64_t span = area + (UINT64_C(64) << 10);
    size_t k = 0;
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        if (rv_kinds[s->kind].thunk_size && sled_sym &&
            distance(s->addr, sled_sym->value) + span >= JAL_REACH) {
            st->sites_by_kind[s->kind]--;
            stats_untraced(st, s->addr, "c.jalr beyond reach of the thunk area", 2);
            continue;
        }
        sites->v[k++] = *s;
    }
    if (k < sites->n)               /* (the untraced calls in address order again) */
        qsort(st->untraced, st->n_untraced, sizeof *st->untraced, untraced_cmp);
    sites->n = k;
    struct rv_scan *sc = state;
    function_index_free(&sc->functions);
    free(sc->targets);
    free(sc->jumpers);
    free(sc);
}

/* Registers a call leaves undefined (RISC-V psABI): ra, t0-t6, a0-a7. */
static int call_clobbers(unsigned r)
{
    return r == 1 || (r >= 5 && r <= 7) || (r >= 10 && r <= 17) || r >= 28;
}

/* 1 if only the instruction before it leads to `addr`: no branch or
 * symbol names it, and its function jumps nowhere computed. */
static int reached_only_in_line(const struct rv_scan *sc, uint64_t addr)
{
    if (bsearch(&addr, sc->targets, sc->n_targets, sizeof addr, u64_cmp))
        return 0;
    const struct indexed_function *f = function_index_find(&sc->functions, addr);
    if (!f)
        return 0;
    uint64_t h = base_name_hash(f->sym->name);
    return !bsearch(&h, sc->jumpers, sc->n_jumpers, sizeof h, u64_cmp);
}

/* A c.jalr at `addr` (halfword `h`): a pair site with the instruction
 * before it, or untraced with why. */
static int classify_c_jalr(const struct rv_scan *sc, uint64_t addr, uint32_t h, int has_prev,
                           struct call_site *site, struct scan_stats *st)
{
    if (rv_c_rs1(h) == RV_RA) {
        stats_untraced(st, addr, "jalr through ra", 2);
        return 0;
    }
    if (has_prev && sc->prev_size == 4 && rv_movable(sc->prev)) {
        site->kind = KIND_CJALR_PAIR32;
        site->insn = sc->prev;
        site->insn2 = (uint16_t)h;
    } else if (has_prev && sc->prev_size == 2 && rv_c_movable(sc->prev)) {
        if (!reached_only_in_line(sc, addr)) {
            stats_untraced(st, addr, "c.jalr after a 2-byte instruction, where a jump may "
                                     "lead to it", 2);
            return 0;
        }
        site->kind = KIND_CJALR_PAIR;
        site->insn = sc->prev | h << 16;
    } else {
        stats_untraced(st, addr, "c.jalr after an instruction that cannot move", 2);
        return 0;
    }
    site->addr = addr;
    return 1;
}

/* Classifies the instruction `w` (`size` bytes) at `addr`, the one
 * before it in sc if it ended at addr (has_prev): 1 and `site` filled
 * for a call to rewrite; 0 for anything else, calls left alone counted
 * in st. */
static int rv_classify_word(const struct rv_scan *sc, uint64_t addr, uint32_t w, unsigned size,
                            int has_prev, struct call_site *site, struct scan_stats *st)
{
    uint32_t prev = sc->prev;
    if (size == 2)
        return rv_is_c_jalr(w) && classify_c_jalr(sc, addr, w, has_prev, site, st);
    if (size != 4)
        return 0;
    if (rv_is_jal(w)) {
        if (rv_rd(w) == RV_T0) {
            stats_untraced(st, addr, "jal t0 (a millicode call, -msave-restore)", 4);
            return 0;
        }
        if (rv_rd(w) != RV_RA)
            return 0;
        site->kind = KIND_JAL;
    } else if (rv_is_jalr(w)) {
        unsigned rs = rv_rs1(w);
        if (rv_rd(w) == RV_T0) {
            stats_untraced(st, addr, "jalr t0 (a millicode call)", 4);
            return 0;
        }
        if (rv_rd(w) != RV_RA)
            return 0;
        if (has_prev && sc->prev_size == 4 && rv_is_auipc(prev) && rv_rd(prev) == rs && rs != 0 &&
            call_clobbers(rs) &&
            !bsearch(&addr, sc->targets, sc->n_targets, sizeof addr, u64_cmp)) {   /* (asm) */
            site->kind = KIND_CALL;
            site->target = addr - 4 + (uint64_t)rv_u_imm(prev) + (uint64_t)rv_i_imm(w);
            site->insn2 = (uint16_t)(prev >> 12);
        } else if (rs == RV_RA || rs == 0) {
            stats_untraced(st, addr, rs == RV_RA ? "jalr through ra" : "jalr to an absolute address",
                           4);
            return 0;
        } else if (rv_i_imm(w) != 0) {
            stats_untraced(st, addr, "jalr with an offset", 4);
            return 0;
        } else {
            site->kind = KIND_JALR;
        }
    } else {
        return 0;
    }
    site->insn = w;
    site->addr = addr;
    return 1;
}

/* Every instruction is classified by its bits (rv_classify_word). */
static unsigned rv_quick(void *state, unsigned isa, uint64_t addr, uint32_t w, uint32_t next,
                         int has_next, struct call_site *site, int *found, struct scan_stats *st)
{
    (void)isa;
    (void)next;
    (void)has_next;
    struct rv_scan *sc = state;
    unsigned size = rv_insn_size(w);
    if (size == 2)
        w &= 0xffff;
    *found = rv_classify_word(sc, addr, w, size, sc->prev_end == addr && addr, site, st);
    sc->prev = w;
    sc->prev_size = size;
    sc->prev_end = addr + size;
    return size;
}

/* (rv_quick decides every instruction: nothing is left to a disassembler) */
static int rv_classify(void *state, const cs_insn *insn, unsigned isa, uint32_t w,
                       uint32_t next, int has_next, struct call_site *site,
                       struct scan_stats *st)
{
    (void)state;
    (void)insn;
    (void)isa;
    (void)w;
    (void)next;
    (void)has_next;
    (void)site;
    (void)st;
    return 0;
}

const struct arch_ops arch_riscv64 = {
    .name = "riscv64",
    .elf_machine = EM_RISCV,
    .word_size = 8,
    .trace_arch = LITIFUT_ARCH_RISCV64,
    .ld_emulations = rv_emulations,
    .kinds = rv_kinds,
    .n_kinds = N_RV_KINDS,
    .insn_unit = { 2, 0 },
    .db_page_shift = DB_PAGE_SHIFT,
    .sled_entry_size = SLED_ENTRY_SIZE,
    .sled_entries = SLED_ENTRIES,
    .signal_names = arch_generic_signal_names,
    .code_address_mask = ~UINT64_C(0),             /* no instruction-set bits */
    .counter_clock = LITIFUT_CLOCK_RV_TIME,
    .counter_clock_name = "the RISC-V time counter",
    .counter_clock_info = "counter (RISC-V rdtime)",
    .far_sled_spacing = FAR_SLED_SPACING,           /* far-sled.S */
    .reloc_relative = R_RISCV_RELATIVE,
    .check_image = rv_check_image,
    .code_ranges = rv_code_ranges,
    .disasm_open = NULL,
    .scan_begin = rv_scan_begin,
    .scan_end = rv_scan_end,
    .classify = rv_classify,
    .quick = rv_quick,
};
