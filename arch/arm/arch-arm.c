/*
 * ARM (EABI, little-endian, ARM state) for the host tools: which code
 * to scan, which instructions are calls (bl<c>, blx imm, blx<c> rM) and
 * how a call is redirected to the sled (arch/arm/stub.S).  The DB keeps
 * the original instruction; arch/arm/tracer-arch.h emulates it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "lib/arch.h"
#include "lib/error.h"
#include "litifut/trace-format.h"

enum { KIND_BL, KIND_BLX_IMM, KIND_BLX_REG };
static const char *const arm_kinds[] = { "bl", "blx_imm", "blx_reg" };
/* Both float ABIs link with the same emulation; the first entry is
 * what the emulation alone implies. */
static const struct ld_emulation arm_emulations[] = {
    { "armelf_linux_eabi", "arm-linux-gnueabi" },
    { "armelf_linux_eabi", "arm-linux-gnueabihf" },
    { NULL, NULL },
};

static int32_t branch_offset(uint32_t w)
{
    return (int32_t)(w << 8) >> 6;     /* sign-extended imm24 * 4 */
}

static int is_bl(uint32_t w)
{
    return (w >> 28) != 0xF && (w & 0x0F000000) == 0x0B000000;
}

static int is_blx_imm(uint32_t w)
{
    return (w & 0xFE000000) == 0xFA000000;
}

static int is_blx_reg(uint32_t w)
{
    return (w >> 28) != 0xF && (w & 0x0FFFFFF0) == 0x012FFF30;
}

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

/* bl<c> to entry k of the (one) sled, keeping the call's condition. */
static int arm_encode_redirect(const struct call_site *site, unsigned k,
                               const struct sled_set *sleds, uint32_t *word, int *bridged)
{
    uint32_t entry = sleds->base[0] + 8 * k;
    int64_t off = (int64_t)entry - ((int64_t)site->addr + 8);
    *bridged = 0;
    if (off < -(INT64_C(1) << 25) || off >= (INT64_C(1) << 25))
        return error("call at 0x%08" PRIx32 ": the tracer sled at 0x%08" PRIx32
                     " is out of bl range (+-32 MB)", site->addr, entry);
    uint32_t cond = site->kind == KIND_BLX_IMM ? 0xE : site->insn >> 28;
    *word = cond << 28 | 0x0B000000 | ((uint32_t)(off >> 2) & 0xFFFFFF);
    return 0;
}

static int arm_decode_redirect(uint32_t addr, uint32_t w, const struct sled_set *sleds,
                               unsigned *k)
{
    uint32_t target = addr + 8 + (uint32_t)branch_offset(w);
    if (!is_bl(w) || target - sleds->base[0] >= 256 * 8 || (target - sleds->base[0]) % 8)
        return 0;
    *k = (target - sleds->base[0]) / 8;
    return 1;
}

static int arm_call_target(uint32_t addr, uint32_t w, uint32_t *target)
{
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
        struct plt_entry e = { addr, size, NULL, rel[j].addend };
        if (rel[j].sym_name && *rel[j].sym_name)
            e.name = xasprintf("%s@plt", rel[j].sym_name);
        else if (!e.resolver)
            elf_read32(img, got, &e.resolver);  /* REL: the slot holds the resolver */
        *out = xrealloc(*out, (*n + 1) * sizeof **out);
        (*out)[(*n)++] = e;
        return;
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
        for (uint32_t a = s->addr; a + 8 <= s->addr + s->size; a += 4) {
            uint32_t w;
            if (elf_read32(img, a, &w) || (w & 0xFFFFF000) != 0xE28FC000)
                continue;
            uint32_t got = a + 8 + dp_imm(w), b = a + 4;
            while (b + 4 <= s->addr + s->size && !elf_read32(img, b, &w) &&
                   (w & 0xFFFFF000) == 0xE28CC000) {
                got += dp_imm(w);
                b += 4;
            }
            if (b + 4 > s->addr + s->size || elf_read32(img, b, &w) ||
                (w & 0xFFFFF000) != 0xE5BCF000)
                continue;
            got += w & 0xFFF;
            add_plt_entry(out, n, a, b + 4 - a, got, img, rel, n_rel);
            a = b;
        }
    }
    free(rel);
    return 0;
}

/* ULEB128 at *p (before end); 0 past the end. */
static uint32_t uleb(const uint8_t **p, const uint8_t *end)
{
    uint32_t v = 0;
    for (unsigned shift = 0; *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        if (shift < 32)
            v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    return v;
}

/* Tag_ABI_VFP_args of an object's "aeabi" file attributes: 1 if it
 * passes floating-point arguments in VFP registers (hard float). */
static int vfp_args_of(const uint8_t *a, size_t size)
{
    const uint8_t *end = a + size, *p = a + 1;
    if (size < 1 || a[0] != 'A')
        return 0;
    while (end - p >= 4) {                      /* vendor subsections */
        uint32_t len = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
        if (len < 4 || len > (size_t)(end - p))
            return 0;
        const uint8_t *sub_end = p + len, *q = p + 4;
        const char *vendor = (const char *)q;
        while (q < sub_end && *q)
            q++;
        if (q < sub_end && strcmp(vendor, "aeabi") == 0 && sub_end - ++q >= 5 && *q == 1) {
            q += 5;                             /* Tag_File and its size */
            while (q < sub_end) {
                uint32_t tag = uleb(&q, sub_end);
                if (tag == 28)
                    return uleb(&q, sub_end) == 1;
                if (tag == 32)                  /* Tag_compatibility: ULEB, string */
                    uleb(&q, sub_end);
                if (tag == 4 || tag == 5 || tag == 67 || tag == 32 || (tag > 32 && tag % 2)) {
                    while (q < sub_end && *q)   /* a string */
                        q++;
                    q++;
                } else {
                    uleb(&q, sub_end);
                }
            }
        }
        p = sub_end;
    }
    return 0;
}

/* The float ABI of an input object picks the tracer module:
 * arm-linux-gnueabihf's for hard float, else arm-linux-gnueabi's. */
static const char *arm_module_triple(const char *object_path, const char *triple)
{
    struct elf_image obj;
    if (elf_image_open(&obj, object_path) != 0)
        return NULL;
    const char *fit = triple;
    for (size_t si = 1; si < obj.n_sections; si++) {
        const struct elf_section *s = &obj.sections[si];
        if (s->type == SHT_ARM_ATTRIBUTES && (uint64_t)s->offset + s->size <= obj.size) {
            fit = vfp_args_of(obj.data + s->offset, s->size) ? "arm-linux-gnueabihf"
                                                             : "arm-linux-gnueabi";
            break;
        }
    }
    elf_image_close(&obj);
    return fit;
}

const struct arch_ops arch_arm = {
    .name = "arm",
    .elf_machine = EM_ARM,
    .trace_arch = LITIFUT_ARCH_ARM,
    .ld_emulations = arm_emulations,
    .kind_names = arm_kinds,
    .n_kinds = 3,
    .ra_offset = 4,
    .db_page_shift = 10,
    .sled_entry_size = 8,
    .sled_entries = 256,
    .check_image = arm_check_image,
    .code_ranges = arm_code_ranges,
    .disasm_open = arm_disasm_open,
    .classify = arm_classify,
    .encode_redirect = arm_encode_redirect,
    .decode_redirect = arm_decode_redirect,
    .call_target = arm_call_target,
    .plt_entries = arm_plt_entries,
    .module_triple = arm_module_triple,
};
