/*
 * Tail calls as an instrumented object's code has them.  A function
 * that jumps to another (a sibling call: `return g(x);` compiled to a
 * jump) leaves no record: the jumped-to function runs in its frame.
 * The inferred call stack (callstack.c) needs to know which function
 * can have done so: here, for each function of the object's code
 * (the program's own: not the tracer and crt code the link left
 * alone), the functions it can jump to, read once per object file:
 *   - a jump (not a call) whose target, from the instruction, is the
 *     first instruction of another function, or a PLT entry (ARM b,
 *     b<cond>, Thumb b.w; MIPS j, b, beq, ...; AArch64 b, b.<cond>); a
 *     jump into the middle of a function is a branch of its own, not a
 *     call;
 *   - MIPS PIC: jr $t9 where $t9 was loaded from the GOT in the same
 *     function (lw $t9, OFFSET($gp), maybe then addiu $t9, $t9, LOW):
 *     the GOT word the file holds (a function of the object, or the
 *     stub of an import) is the target.
 * Other jumps through registers (a pointer, a switch table) are not
 * followed.  Targets are named as callees are (names.c: an import, the
 * tracer's wrapper), so a jump through a PLT entry into an instrumented
 * library reaches that library's function.  The code is read with the
 * arch's ranges and disassembler (lib/arch.h), as the call sites are;
 * what cannot be read is left out (fewer jumps known, nothing worse).
 * The instructions' details are capstone's per arch: read here by the
 * file's machine (MIPS's $t9 tracking too; an arch without a case
 * here has no jumps known).  Addresses are 64-bit numbers (link-time).
 *
 * Also the object's *entries*: the functions called from outside every
 * traced call, at the process's start or exit (the dynamic linker's and
 * the C library's calls of main, and of the functions that the object's
 * .preinit_array, .init_array, .fini_array, .ctors and .dtors list:
 * constructors and destructors; link-time addresses, as REL objects
 * hold them).
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <capstone/capstone.h>
#include "postproc/reader/jumps.h"
#include "lib/error.h"

/* The jump at `addr` to `target` (link-time, in p's object): an edge
 * if the target starts a function (or is a PLT entry) other than the
 * one the jump is in. */
static void tail_jump(struct trace_funcs *tf, const struct program *p, uint64_t addr,
                      uint64_t target)
{
    uint64_t off;
    struct func_symbol *to = object_symbol(p->obj, target, &off);
    if (!to || (off && !to->import))
        return;
    uint32_t from = trace_funcs_holding(tf, p->obj, addr);
    uint32_t callee = trace_funcs_callee_at(tf, p->obj, target);
    func_add_jump(tf->ft, from, callee);
}

/* MIPS (32-bit): what $t9 holds, as far as the code since the
 * function's start says. */
struct t9 {
    int known;
    uint32_t value;
    uint64_t fn_end;            /* the function being read ends here (0: not known) */
};

static int in_other(const struct excluded_range *r, size_t n, uint64_t addr)
{
    for (size_t i = 0; i < n; i++)
        if (addr >= r[i].start && addr < r[i].end)
            return 1;
    return 0;
}

/* The link-time value of MIPS $gp in the object: _gp, else .got + 0x7ff0. */
static int mips_gp(const struct elf_image *img, uint32_t *gp)
{
    const struct elf_symbol *s = elf_symbol_by_name(img, "_gp");
    if (s) {
        *gp = (uint32_t)s->value;             /* (MIPS32) */
        return 1;
    }
    for (size_t i = 0; i < img->n_sections; i++)
        if (strcmp(img->sections[i].name, ".got") == 0) {
            *gp = (uint32_t)img->sections[i].addr + 0x7ff0;
            return 1;
        }
    return 0;
}

/* One MIPS instruction for $t9's value; a jr $t9 it knows is a jump. */
static void mips_track(struct trace_funcs *tf, const struct program *p, csh cs,
                      const cs_insn *insn, struct t9 *t, int have_gp, uint32_t gp)
{
    const cs_mips *m = &insn->detail->mips;
    uint64_t addr = insn->address;
    uint32_t word;
    if (addr >= t->fn_end) {            /* a function's start: nothing known */
        uint64_t off;
        const struct func_symbol *f = object_symbol(p->obj, addr, &off);
        t->known = 0;
        t->fn_end = f && f->size ? f->addr + f->size : addr + 4;
    }
    if (insn->id == MIPS_INS_JR && m->op_count == 1 && m->operands[0].type == MIPS_OP_REG &&
        m->operands[0].reg == MIPS_REG_T9) {
        if (t->known)
            tail_jump(tf, p, addr, t->value);
        return;
    }
    if (cs_insn_group(cs, insn, CS_GRP_CALL)) {
        t->known = 0;                   /* (the callee may change it) */
        return;
    }
    if (m->op_count < 1 || m->operands[0].type != MIPS_OP_REG || m->operands[0].reg != MIPS_REG_T9)
        return;                         /* (does not name $t9 first: does not write it) */
    if (insn->id == MIPS_INS_LW && m->op_count == 2 && m->operands[1].type == MIPS_OP_MEM &&
        m->operands[1].mem.base == MIPS_REG_GP && have_gp &&
        elf_read32(&p->obj->img, gp + (uint32_t)(int32_t)m->operands[1].mem.disp, &word) == 0) {
        t->known = 1;
        t->value = word;
    } else if (insn->id == MIPS_INS_ADDIU && m->op_count == 3 && t->known &&
               m->operands[1].type == MIPS_OP_REG && m->operands[1].reg == MIPS_REG_T9 &&
               m->operands[2].type == MIPS_OP_IMM) {
        t->value += (uint32_t)m->operands[2].imm;
    } else if (!cs_insn_group(cs, insn, CS_GRP_JUMP) && insn->id != MIPS_INS_SW &&
               insn->id != MIPS_INS_SH && insn->id != MIPS_INS_SB) {
        t->known = 0;                   /* written some other way */
    }
}

/* The target of a direct jump (not a call), if `insn` (of an ELF file
 * of `machine`) is one.  (ARM and MIPS are 32-bit: their immediates
 * are addresses cut to 32 bits.) */
static int direct_jump(csh cs, const cs_insn *insn, int machine, uint64_t *target)
{
    if (!cs_insn_group(cs, insn, CS_GRP_JUMP) || cs_insn_group(cs, insn, CS_GRP_CALL))
        return 0;
    if (machine == EM_MIPS) {
        const cs_mips *m = &insn->detail->mips;
        if (!m->op_count || m->operands[m->op_count - 1].type != MIPS_OP_IMM)
            return 0;
        *target = (uint32_t)m->operands[m->op_count - 1].imm;
        return 1;
    }
    if (machine == EM_ARM) {
        const cs_arm *a = &insn->detail->arm;
        if (insn->id != ARM_INS_B || a->op_count != 1 || a->operands[0].type != ARM_OP_IMM)
            return 0;
        *target = (uint32_t)a->operands[0].imm;
        return 1;
    }
    if (machine == EM_AARCH64) {
        const cs_arm64 *a = &insn->detail->arm64;
        if (insn->id != ARM64_INS_B || a->op_count != 1 || a->operands[0].type != ARM64_OP_IMM)
            return 0;
        *target = (uint64_t)a->operands[0].imm;
        return 1;
    }
    return 0;
}

/* A pointer the file holds at `p`, of its word size. */
static uint64_t pointer_at(const struct elf_image *img, const unsigned char *p)
{
    if (img->word_size != 8)
        return elf_get32(img, p);
    uint64_t a = elf_get32(img, p), b = elf_get32(img, p + 4);
    return img->big_endian ? a << 32 | b : b << 32 | a;
}

/* The functions the object's start and exit call (see the top). */
static void mark_entries(struct trace_funcs *tf, const struct program *p)
{
    static const char *const tables[] = {
        ".preinit_array", ".init_array", ".fini_array", ".ctors", ".dtors",
    };
    const struct elf_image *img = &p->obj->img;
    for (size_t i = 0; i < img->n_sections; i++) {
        const struct elf_section *sec = &img->sections[i];
        int listed = 0;
        for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
            listed |= strcmp(sec->name, tables[k]) == 0;
        if (!listed || sec->type == SHT_NOBITS || sec->offset > img->size ||
            sec->size > img->size - sec->offset)
            continue;
        const unsigned ptr = img->word_size;    /* bytes of an entry (a pointer) */
        for (uint64_t off = 0; off + ptr <= sec->size; off += ptr) {
            uint64_t at = arch_code_address(p->arch, pointer_at(img, img->data + sec->offset + off));
            uint64_t o;
            const struct func_symbol *f = object_symbol(p->obj, at, &o);
            if (f && !o && !f->import) {        /* (.ctors: -1 and 0 name none) */
                uint32_t fid = trace_funcs_holding(tf, p->obj, at);    /* (may grow v) */
                tf->ft->v[fid].entry = 1;
            }
        }
    }
    if (p->is_main) {
        const struct elf_symbol *m = elf_symbol_by_name(img, "main");
        if (m && m->shndx != SHN_UNDEF && (m->type == STT_FUNC || m->type == STT_GNU_IFUNC)) {
            uint32_t fid = trace_funcs_holding(tf, p->obj, arch_code_address(p->arch, m->value));
            tf->ft->v[fid].entry = 1;
        }
    }
}

/* The direct jumps of `r` on an arch whose read ops decode them
 * (decode_jump: no disassembler). */
static void decoded_jumps(struct trace_funcs *tf, const struct program *p, struct code_range r,
                          const struct excluded_range *other, size_t n_other)
{
    const struct elf_image *img = &p->obj->img;
    size_t size = r.end - r.start;
    const uint8_t *code = elf_bytes_at(img, r.start, size);
    if (!code || !p->read_ops->decode_jump)
        return;
    for (uint64_t addr = r.start; size >= 2;) {
        uint32_t w = size >= 4 ? elf_get32(img, code) : elf_get16(img, code);
        uint64_t target;
        int is_jump = 0;
        unsigned n = p->read_ops->decode_jump(r.isa, addr, w, &is_jump, &target);
        if (!n || n > size)
            break;
        if (is_jump && !(n_other && in_other(other, n_other, addr)))
            tail_jump(tf, p, addr, arch_code_address(p->arch, target));
        code += n;
        size -= n;
        addr += n;
    }
}

void jumps_scan(struct trace_funcs *tf, const struct program *p)
{
    mark_entries(tf, p);
    const struct elf_image *img = &p->obj->img;
    const struct arch_ops *arch = p->arch;
    struct code_range *ranges = NULL;
    size_t n_ranges = 0;
    struct scan_stats st;
    memset(&st, 0, sizeof st);
    if (!arch || arch->code_ranges(img, NULL, &ranges, &n_ranges, &st) != 0) {
        scan_stats_free(&st);
        return;
    }
    scan_stats_free(&st);
    struct excluded_range *other;
    size_t n_other = other_code_ranges(img, &other);
    int mips = img->machine == EM_MIPS;     /* (MIPS32: $t9 from the 32-bit GOT) */
    uint32_t gp = 0;
    int have_gp = mips && mips_gp(img, &gp);
    csh cs[N_ISAS];
    int opened[N_ISAS] = { 0 };
    cs_insn *insns[N_ISAS] = { NULL };
    for (size_t i = 0; i < n_ranges; i++) {
        unsigned isa = ranges[i].isa;
        if (isa >= N_ISAS || !arch->insn_unit[isa])
            continue;
        if (!arch->disasm_open) {       /* every instruction known by its bits */
            decoded_jumps(tf, p, ranges[i], other, n_other);
            continue;
        }
        if (!opened[isa]) {
            if (arch->disasm_open(img, isa, &cs[isa]) != 0)
                continue;
            opened[isa] = 1;
            insns[isa] = cs_malloc(cs[isa]);
        }
        cs_insn *insn = insns[isa];
        size_t size = ranges[i].end - ranges[i].start;
        const uint8_t *code = elf_bytes_at(img, ranges[i].start, size);
        if (!code)
            continue;
        uint64_t addr = ranges[i].start;
        unsigned unit = arch->insn_unit[isa];
        struct t9 t = { 0, 0, 0 };
        while (size >= unit) {
            /* most instructions are neither jumps nor (MIPS) $t9's:
             * skipped by their bits, faster than capstone decodes */
            uint32_t w = size >= 4 ? elf_get32(img, code) : elf_get16(img, code);
            unsigned skip = p->read_ops->jump_skip ? p->read_ops->jump_skip(isa, w) : 0;
            if (skip && skip <= size) {
                code += skip;
                size -= skip;
                addr += skip;
                continue;
            }
            if (!cs_disasm_iter(cs[isa], &code, &size, &addr, insn)) {
                code += unit;           /* (as the call site scan does) */
                size -= unit;
                addr += unit;
                continue;
            }
            uint64_t at = insn->address, target;
            if (n_other && in_other(other, n_other, at))
                continue;
            if (direct_jump(cs[isa], insn, img->machine, &target))
                tail_jump(tf, p, at, arch_code_address(arch, target));  /* (a Thumb target) */
            else if (mips)
                mips_track(tf, p, cs[isa], insn, &t, have_gp, gp);
        }
    }
    for (unsigned isa = 0; isa < N_ISAS; isa++)
        if (opened[isa]) {
            cs_free(insns[isa], 1);
            cs_close(&cs[isa]);
        }
    free(other);
    free(ranges);
}
