/*
 * ARM (EABI, little-endian, ARM state) for every host tool: which code
 * to scan, which instructions are calls (bl<c>, blx imm, blx<c> rM),
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

static const char *const arm_kinds[] = { "bl", "blx_imm", "blx_reg" };
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

static void add_range(struct code_range **out, size_t *n, uint32_t start, uint32_t end)
{
    *out = xrealloc(*out, (*n + 1) * sizeof **out);
    (*out)[(*n)++] = (struct code_range){ start, end };
}

/* Thumb code is not rewritten yet: count its call instructions (bl,
 * blx), so the summary says how many calls go untraced. */
static void count_thumb_calls(const struct elf_image *img, uint32_t from, uint32_t to,
                              struct scan_stats *st)
{
    csh cs;
    const uint8_t *code = elf_bytes_at(img, from, to - from);
    if (!code || cs_open(CS_ARCH_ARM, CS_MODE_THUMB, &cs) != CS_ERR_OK) {
        stats_skip(st, "Thumb code (not decoded)", to - from);
        return;
    }
    cs_insn *insn = cs_malloc(cs);
    size_t size = to - from;
    uint64_t addr = from;
    while (size >= 2) {
        if (!cs_disasm_iter(cs, &code, &size, &addr, insn)) {
            code += 2;          /* not an instruction: go on at the next halfword */
            size -= 2;
            addr += 2;
            continue;
        }
        if (insn->id == ARM_INS_BL || insn->id == ARM_INS_BLX)
            stats_skip(st, "Thumb calls (not traced yet)", insn->size);
    }
    cs_free(insn, 1);
    cs_close(&cs);
}

/* ARM state code is what the $a mapping symbols mark; $t is Thumb
 * (its calls counted) and $d data, both left alone for now. */
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
                add_range(out, n, from, to);
            else if (ms[i].kind == 't')
                count_thumb_calls(img, from, to, st);
            else
                stats_skip(st, "data in code", to - from);
        }
    }
    free(ms);
    return 0;
}

static int arm_disasm_open(const struct elf_image *img, csh *handle)
{
    (void)img;
    if (cs_open(CS_ARCH_ARM, CS_MODE_ARM, handle) != CS_ERR_OK)
        return error("capstone: cannot open the ARM disassembler");
    cs_option(*handle, CS_OPT_DETAIL, CS_OPT_ON);
    return 0;
}

static int arm_classify(const cs_insn *insn, uint32_t w, uint32_t next, int has_next,
                        struct call_site *site, struct scan_stats *st)
{
    (void)next;
    (void)has_next;
    if (insn->id != ARM_INS_BL && insn->id != ARM_INS_BLX)
        return 0;
    uint32_t addr = (uint32_t)insn->address;
    site->insn = w;
    if (is_bl(w) || is_blx_imm(w)) {
        uint32_t target = addr + 8 + (uint32_t)branch_offset(w);
        if (is_blx_imm(w))
            target += (w >> 23) & 2;       /* H bit: halfword offset */
        const cs_arm *arm = &insn->detail->arm;
        if (arm->op_count < 1 || arm->operands[0].type != ARM_OP_IMM ||
            (uint32_t)arm->operands[0].imm != target) {
            stats_skip(st, "calls capstone decodes differently", 4);
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
            stats_skip(st, rm == 13 ? "blx sp" : rm == 14 ? "blx lr" : "blx pc", 4);
            return 0;
        }
        site->kind = KIND_BLX_REG;
        return 1;
    }
    stats_skip(st, "calls capstone decodes differently", 4);
    return 0;
}

const struct arch_ops arch_arm = {
    .name = "arm",
    .elf_machine = EM_ARM,
    .trace_arch = LITIFUT_ARCH_ARM,
    .ld_emulations = arm_emulations,
    .kind_names = arm_kinds,
    .n_kinds = 3,
    .ra_offset = RA_OFFSET,
    .db_page_shift = DB_PAGE_SHIFT,
    .sled_entry_size = SLED_ENTRY_SIZE,
    .sled_entries = SLED_ENTRIES,
    .check_image = arm_check_image,
    .code_ranges = arm_code_ranges,
    .disasm_open = arm_disasm_open,
    .classify = arm_classify,
};
