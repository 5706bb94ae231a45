/*
 * ARM (EABI, little-endian, ARM and Thumb-2 state) for every host tool:
 * which code to scan (and in which state), which instructions are calls
 * (ARM bl<c>, blx imm, blx<c> rM; Thumb bl, blx imm),
 * and which tracer module an object needs (its float ABI).  How a call
 * is redirected to the sled (arch/arm/stub.S) and what the DB says of it
 * is rewrite-arm.c; reading rewritten code and the PLT, read-arm.c.
 */
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "arch/arm/host-arm.h"
#include "lib/sites.h"
#include "lib/error.h"
#include "litifut/trace-format.h"

/* A Thumb call is redirected by a Thumb blx into the (ARM) sled. */
static const struct call_kind arm_kinds[N_ARM_KINDS] = {
    [KIND_BL] = { "bl", RA_OFFSET, 0 },
    [KIND_BLX_IMM] = { "blx_imm", RA_OFFSET, 0 },
    [KIND_BLX_REG] = { "blx_reg", RA_OFFSET, 0 },
    [KIND_T_BL] = { "t_bl", 4, 0 },
    [KIND_T_BLX_IMM] = { "t_blx_imm", 4, 0 },
};
/* Both float ABIs link with the same emulation; the first entry is
 * what the emulation alone implies. */
static const struct ld_emulation arm_emulations[] = {
    { "armelf_linux_eabi", "arm-linux-gnueabi" },
    { "armelf_linux_eabi", "arm-linux-gnueabihf" },
    { NULL, NULL },
};

static int arm_check_image(const struct elf_image *img)
{
    if (img->big_endian)
        return error("%s: big-endian ARM is not supported", img->path);
    if (EF_ARM_EABI_VERSION(img->e_flags) != EF_ARM_EABI_VER5)
        return error("%s: not an ARM EABI version 5 file", img->path);
    return 0;
}

struct mapping_symbol { uint32_t addr; char kind; };

static int by_addr(const void *a, const void *b)
{
    const struct mapping_symbol *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "$a", "$t", "$d", optionally followed by ".<anything>". */
static char mapping_kind(const char *name)
{
    if (name[0] != '$' || !strchr("atd", name[1]) || name[1] == 0)
        return 0;
    return name[2] == 0 || name[2] == '.' ? name[1] : 0;
}

static void add_range(struct code_range **out, size_t *n, uint32_t start, uint32_t end,
                      unsigned isa)
{
    *out = xrealloc(*out, (*n + 1) * sizeof **out);
    (*out)[(*n)++] = (struct code_range){ start, end, isa };
}

/* ARM state code is what the $a mapping symbols mark, Thumb code $t;
 * $d marks data (literal pools, tbb tables). */
static int arm_code_ranges(const struct elf_image *img, struct code_range **out,
                           size_t *n, struct scan_stats *st)
{
    if (!img->has_symtab)
        return error("%s: no symbol table (stripped?): ARM code cannot be told "
                     "from data without mapping symbols", img->path);
    *out = NULL;
    *n = 0;
    struct mapping_symbol *ms = xcalloc(img->n_symbols, sizeof *ms);
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (s->type != SHT_PROGBITS || (s->flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
                                           (SHF_ALLOC | SHF_EXECINSTR) || !s->size)
            continue;
        if (strcmp(s->name, ".plt") == 0 || strcmp(s->name, ".iplt") == 0) {
            stats_skip(st, "PLT", s->size);
            continue;
        }
        size_t m = 0;
        for (size_t i = 0; i < img->n_symbols; i++) {
            const struct elf_symbol *y = &img->symbols[i];
            char kind = y->shndx == s->index ? mapping_kind(y->name) : 0;
            if (kind && y->value >= s->addr && y->value - s->addr < s->size)
                ms[m++] = (struct mapping_symbol){ y->value, kind };
        }
        qsort(ms, m, sizeof *ms, by_addr);
        uint32_t end = s->addr + s->size;
        if (m == 0 || ms[0].addr > s->addr)
            stats_skip(st, "code without a mapping symbol", (m ? ms[0].addr : end) - s->addr);
        for (size_t i = 0; i < m; i++) {
            uint32_t from = ms[i].addr, to = i + 1 < m ? ms[i + 1].addr : end;
            if (from == to)
                continue;
            if (ms[i].kind == 'a')
                add_range(out, n, from, to, ISA_MAIN);
            else if (ms[i].kind == 't')
                add_range(out, n, from, to, ISA_THUMB);
            else
                stats_skip(st, "data in code", to - from);
        }
    }
    free(ms);
    return 0;
}

static int arm_disasm_open(const struct elf_image *img, unsigned isa, csh *handle)
{
    (void)img;
    if (cs_open(CS_ARCH_ARM, isa == ISA_THUMB ? CS_MODE_THUMB : CS_MODE_ARM, handle) != CS_ERR_OK)
        return error("capstone: cannot open the ARM disassembler");
    cs_option(*handle, CS_OPT_DETAIL, CS_OPT_ON);
    return 0;
}

/* capstone's immediate operand of a direct call is its target. */
static int capstone_agrees(const cs_insn *insn, uint32_t target)
{
    const cs_arm *arm = &insn->detail->arm;
    return arm->op_count >= 1 && arm->operands[0].type == ARM_OP_IMM &&
           (uint32_t)arm->operands[0].imm == target;
}

/* Thumb: 32-bit bl and blx imm are redirected (in an IT block too: the
 * redirect is a 32-bit blx, allowed where they are); 16-bit blx rM has
 * no call of its size that reaches a sled and is counted. */
static int thumb_classify(const cs_insn *insn, uint32_t w, struct call_site *site,
                          struct scan_stats *st)
{
    uint32_t addr = (uint32_t)insn->address;
    if (insn->size == 2) {
        if (insn->id == ARM_INS_BLX && is_t_blx_reg(w))
            stats_untraced(st, addr, "Thumb blx rM (16-bit: not rewritten)", 2);
        else
            stats_untraced(st, addr, "calls capstone decodes differently", 2);
        return 0;
    }
    if (!(is_t_bl(w) || is_t_blx_imm(w)) || !capstone_agrees(insn, t_call_target(addr, w))) {
        stats_untraced(st, addr, "calls capstone decodes differently", 4);
        return 0;
    }
    site->insn = w;
    site->kind = is_t_bl(w) ? KIND_T_BL : KIND_T_BLX_IMM;
    return 1;
}

static int arm_classify(const cs_insn *insn, unsigned isa, uint32_t w, uint32_t next,
                        int has_next, struct call_site *site, struct scan_stats *st)
{
    (void)next;
    (void)has_next;
    if (insn->id != ARM_INS_BL && insn->id != ARM_INS_BLX)
        return 0;
    if (isa == ISA_THUMB)
        return thumb_classify(insn, w, site, st);
    uint32_t addr = (uint32_t)insn->address;
    site->insn = w;
    if (is_bl(w) || is_blx_imm(w)) {
        uint32_t target = addr + 8 + (uint32_t)branch_offset(w);
        if (is_blx_imm(w))
            target += (w >> 23) & 2;       /* H bit: halfword offset */
        if (!capstone_agrees(insn, target)) {
            stats_untraced(st, addr, "calls capstone decodes differently", 4);
            return 0;
        }
        site->kind = is_bl(w) ? KIND_BL : KIND_BLX_IMM;
        return 1;
    }
    if (is_blx_reg(w)) {
        unsigned rm = w & 15;
        if (rm >= 13) {
            /* lr is overwritten by the redirecting bl before the
             * tracer could read it; sp and pc are unpredictable here. */
            stats_untraced(st, addr, rm == 13 ? "blx sp" : rm == 14 ? "blx lr" : "blx pc", 4);
            return 0;
        }
        site->kind = KIND_BLX_REG;
        return 1;
    }
    stats_untraced(st, addr, "calls capstone decodes differently", 4);
    return 0;
}

const struct arch_ops arch_arm = {
    .name = "arm",
    .elf_machine = EM_ARM,
    .trace_arch = LITIFUT_ARCH_ARM,
    .ld_emulations = arm_emulations,
    .kinds = arm_kinds,
    .n_kinds = N_ARM_KINDS,
    .insn_unit = { 4, 2 },
    .db_page_shift = DB_PAGE_SHIFT,
    .sled_entry_size = SLED_ENTRY_SIZE,
    .sled_entries = SLED_ENTRIES,
    .check_image = arm_check_image,
    .code_ranges = arm_code_ranges,
    .disasm_open = arm_disasm_open,
    .classify = arm_classify,
};
