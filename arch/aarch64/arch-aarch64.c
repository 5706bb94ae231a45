/*
 * AArch64 (LP64, little-endian) for every host tool: which code to scan
 * and which instructions are calls.  Every instruction is one 32-bit
 * word and the calls are plain encodings, so the scan classifies each
 * by its bits alone (quick), never asking capstone (4.x does not know
 * the Armv8.3 forms, and would stop at them):
 *   bl imm26           rewritten (first sled half)
 *   blr Xn             rewritten (second half), but for x16, x17 (the
 *                      sled's scratch registers), x30 (the redirecting
 *                      bl writes it) and TLS descriptor calls
 *   blraa, blrab, blraaz, blrabz   refused, counted as untraced
 * In a BTI program a bl to code without a landing pad (a static
 * function, a PLT entry, a veneer) is a site like any other: the
 * tracer's fixed-target paths there end in `ret x16` (stub.S).
 * How a call is redirected is rewrite-aarch64.c; reading rewritten code,
 * the PLT and veneers, read-aarch64.c.
 */
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "arch/aarch64/host-aarch64.h"
#include "lib/sites.h"
#include "lib/error.h"
#include "litifut/trace-format.h"

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

static const struct call_kind a64_kinds[N_A64_KINDS] = {
    [KIND_BL] = { "bl", RA_OFFSET, 0, 0, 0 },
    [KIND_BLR] = { "blr", RA_OFFSET, 0, 0, 0 },
    [KIND_B_JUMP] = { "b_jump", RA_OFFSET, 0, JUMP_THUNK_SIZE, 1 },
    [KIND_BCOND_JUMP] = { "bcond_jump", RA_OFFSET, 0, JUMP_THUNK_SIZE, 1 },
    [KIND_BR_JUMP] = { "br_jump", RA_OFFSET, 0, REGJUMP_SIZE, 1 },
};
/* (the big-endian ones, aarch64linuxb and aarch64elfb, are not
 * listed: the wrapper refuses them with one line) */
static const struct ld_emulation a64_emulations[] = {
    { "aarch64linux", "aarch64-linux-gnu" },
    { "aarch64elf", "aarch64-linux-gnu" },
    { NULL, NULL },
};

static int a64_check_image(const struct elf_image *img)
{
    if (img->big_endian)
        return error("%s: big-endian AArch64 is not supported", img->path);
    return 0;
}

/* The code is what the $x mapping symbols mark; $d marks data (literal
 * pools, tables in hand-written code). */
static int a64_code_ranges(const struct elf_image *img, const struct exclusions *ex,
                           struct code_range **out, size_t *n, struct scan_stats *st)
{
    (void)ex;                   /* (the tracer's code has its mapping symbols) */
    static const unsigned isas[] = { ISA_MAIN };
    return mapped_code_ranges(img, "AArch64", "x", isas, out, n, st);
}

static int a64_disasm_open(const struct elf_image *img, unsigned isa, csh *handle)
{
    (void)img;
    (void)isa;
    if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, handle) != CS_ERR_OK)
        return error("capstone: cannot open the AArch64 disassembler");
    cs_option(*handle, CS_OPT_DETAIL, CS_OPT_ON);
    return 0;
}

extern const struct arch_ops arch_aarch64;

/* The scan's state: the image, to read the instructions around a call. */
struct a64_scan {
    const struct elf_image *img;
    struct function_index functions;
    struct tail_targets tails;  /* where a tail jump may go (lib/sites.h) */
    uint64_t *tlsdesc;          /* the GOT slots of R_AARCH64_TLSDESC, sorted */
    size_t n_tlsdesc;
    int has_relocs;             /* the image has dynamic relocations */
};

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void *a64_scan_begin(const struct elf_image *img)
{
    struct a64_scan *sc = xcalloc(1, sizeof *sc);
    struct elf_dynreloc *rel;
    size_t n_rel;
    sc->img = img;
    function_index_build(img, &sc->functions);
    tail_targets_build(img, &arch_aarch64, &sc->functions, &sc->tails);
    elf_dynamic_relocs(img, &rel, &n_rel);
    sc->has_relocs = n_rel > 0;
    sc->tlsdesc = xcalloc(n_rel + 1, sizeof *sc->tlsdesc);
    for (size_t i = 0; i < n_rel; i++)
        if (rel[i].type == R_AARCH64_TLSDESC)
            sc->tlsdesc[sc->n_tlsdesc++] = rel[i].offset;
    qsort(sc->tlsdesc, sc->n_tlsdesc, sizeof *sc->tlsdesc, u64_cmp);
    free(rel);
    return sc;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Tail jumps whose thunk (in the thunk area after the code: within 1
 * MB of the tracer's sled plus the area) or whose target from there is
 * out of reach (b +-128 MB, b.cond +-1 MB) stay as they are.  (A
 * rewritten jump, which the readers' scan finds, is in reach.) */
static void a64_scan_end(void *state, const struct elf_image *img, struct site_list *sites,
                         struct scan_stats *st)
{
    struct a64_scan *sc = state;
    const struct elf_symbol *sled_sym = elf_symbol_by_name(img, "litifut_sled");
    uint64_t area = 0;
    for (size_t i = 0; i < sites->n; i++)
        area += a64_kinds[sites->v[i].kind].thunk_size;
    uint64_t span = (UINT64_C(1) << 20) + area, far = UINT64_C(1) << 27;
    size_t k = 0;
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        if (s->kind == KIND_BR_JUMP && sled_sym) {
            if (distance(s->addr, sled_sym->value) + span >= far) {
                st->sites_by_kind[s->kind]--;
                stats_skip(st, "tail jumps beyond reach of the thunk area", 4);
                continue;
            }
        } else if (a64_kinds[s->kind].jump && sled_sym) {
            uint64_t sled = sled_sym->value, to = a64_jump_target(s->addr, s->insn);
            uint64_t reach = s->kind == KIND_B_JUMP ? far : UINT64_C(1) << 20;
            if (distance(s->addr, sled) + span >= reach || distance(to, sled) + span >= far) {
                st->sites_by_kind[s->kind]--;
                stats_skip(st, "tail jumps beyond reach of the thunk area", 4);
                continue;
            }
        }
        sites->v[k++] = *s;
    }
    sites->n = k;
    tail_targets_free(&sc->tails);
    function_index_free(&sc->functions);
    free(sc->tlsdesc);
    free(sc);
}

/* A TLS descriptor call (the general-dynamic model of -mtls-dialect=
 * desc, in shared libraries), as GCC and ld write it:
 *     adrp x0, :tlsdesc:v ; ldr xN, [x0, #:tlsdesc_lo12:v]
 *     add x0, x0, #:tlsdesc_lo12:v ; blr xN
 * the GOT slot it loads having an R_AARCH64_TLSDESC relocation (if the
 * image has dynamic relocations at all).  The resolver keeps every
 * register but x0 and x30 (and xN): not a call the tracer may stand in. */
static int is_tlsdesc_call(const struct a64_scan *sc, uint64_t addr, unsigned rn)
{
    uint32_t add, ldr, adrp;
    if (addr < 12 || elf_read32(sc->img, addr - 4, &add) ||
        elf_read32(sc->img, addr - 8, &ldr) || elf_read32(sc->img, addr - 12, &adrp) ||
        a64_add_imm(add, 0, 0) < 0 || a64_ldr_imm(ldr, rn, 0) < 0 || !a64_is_adrp(adrp, 0))
        return 0;
    uint64_t slot = a64_adrp_page(addr - 12, adrp) + (uint64_t)a64_ldr_imm(ldr, rn, 0);
    return !sc->has_relocs ||
           bsearch(&slot, sc->tlsdesc, sc->n_tlsdesc, sizeof slot, u64_cmp) != NULL;
}

/* mov Xd, x30 (orr Xd, xzr, x30), add or sub Xd, x30, #imm: how code
 * reads the address a `bl .+4` left in x30. */
static int reads_x30(uint32_t w)
{
    return (w & 0xffffffe0u) == 0xaa1e03e0u || (w & 0x1f8003e0u) == (0x11000000u | 30u << 5);
}

/* Classifies the instruction `w` at `addr` (`next` the one after it,
 * if has_next): 1 and `site` filled for a call to rewrite; 0 for
 * anything else, calls left alone counted in st. */
static int a64_classify_word(const struct a64_scan *sc, uint64_t addr, uint32_t w,
                             uint32_t next, int has_next, struct call_site *site,
                             struct scan_stats *st)
{
    if (a64_is_bl(w)) {
        if (a64_branch_offset(w) == 4 && has_next && reads_x30(next)) {
            /* takes its own address from x30, which the tracer changes
             * (a call to a function that follows is rewritten) */
            stats_untraced(st, addr, "bl to the next instruction (reads the pc)", 4);
            return 0;
        }
        site->kind = KIND_BL;
    } else if (a64_is_blr(w)) {
        unsigned rn = a64_rn(w);
        if (rn == 16 || rn == 17 || rn == 30) {
            stats_untraced(st, addr, rn == 30 ? "blr x30" : "blr x16, x17 (the sled's registers)",
                           4);
            return 0;
        }
        if (is_tlsdesc_call(sc, addr, rn)) {
            stats_skip(st, "TLS descriptor call", 4);
            return 0;
        }
        site->kind = KIND_BLR;
    } else if (a64_is_blra(w)) {
        stats_untraced(st, addr, "blraa, blrab (pointer-authenticated calls)", 4);
        return 0;
    } else if ((a64_is_b(w) || a64_is_bcond(w)) &&
               tail_jump_at(&sc->tails, addr, a64_jump_target(addr, w)) != NOT_TAIL_JUMP) {
        site->kind = a64_is_b(w) ? KIND_B_JUMP : KIND_BCOND_JUMP;
    } else if (a64_is_br_any(w)) {
        /* maybe a tail jump through a register (its target known when it
         * runs: the reader keeps it where it enters a function), not a
         * switch's (add, extended, into the table first), not through
         * the sled's registers or x30 */
        unsigned rn = a64_rn(w);
        uint32_t prev;
        if (rn == 30 || !register_jump_at(&sc->tails, addr) ||
            (addr >= 4 && !elf_read32(sc->img, addr - 4, &prev) && a64_is_add_ext(prev)))
            return 0;
        site->kind = KIND_BR_JUMP;
    } else {
        return 0;
    }
    site->insn = w;
    site->addr = addr;
    return 1;
}

/* Every instruction is classified by its bits (a64_classify_word). */
static unsigned a64_quick(void *state, unsigned isa, uint64_t addr, uint32_t w, uint32_t next,
                          int has_next, struct call_site *site, int *found, struct scan_stats *st)
{
    (void)isa;
    *found = a64_classify_word(state, addr, w, next, has_next, site, st);
    return 4;
}

/* The same for an instruction capstone decoded (quick never leaves one). */
static int a64_classify(void *state, const cs_insn *insn, unsigned isa, uint32_t w,
                        uint32_t next, int has_next, struct call_site *site,
                        struct scan_stats *st)
{
    (void)isa;
    return a64_classify_word(state, insn->address, w, next, has_next, site, st);
}

/* (stub.S's __wrap___setcontext) */
static const char *const a64_wrapped[] = { "__setcontext", NULL };

const struct arch_ops arch_aarch64 = {
    .name = "aarch64",
    .elf_machine = EM_AARCH64,
    .word_size = 8,
    .trace_arch = LITIFUT_ARCH_AARCH64,
    .ld_emulations = a64_emulations,
    .kinds = a64_kinds,
    .n_kinds = N_A64_KINDS,
    .insn_unit = { 4, 0 },
    .db_page_shift = DB_PAGE_SHIFT,
    .sled_entry_size = SLED_ENTRY_SIZE,
    .sled_entries = SLED_ENTRIES,
    .signal_names = arch_generic_signal_names,
    .code_address_mask = ~UINT64_C(0),             /* no instruction-set bits */
    .counter_clock = LITIFUT_CLOCK_A64_CNTVCT,
    .counter_clock_name = "the AArch64 generic timer",
    .counter_clock_info = "counter (AArch64 CNTVCT)",
    .far_sled_spacing = A64_FAR_SLED_SPACING,       /* far-sled.S */
    .reloc_relative = R_AARCH64_RELATIVE,
    .wrapped = a64_wrapped,
    .check_image = a64_check_image,
    .code_ranges = a64_code_ranges,
    .disasm_open = a64_disasm_open,
    .scan_begin = a64_scan_begin,
    .scan_end = a64_scan_end,
    .classify = a64_classify,
    .quick = a64_quick,
};
