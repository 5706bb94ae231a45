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

extern const struct arch_ops arch_arm;

/* A Thumb call is redirected by a Thumb blx into the (ARM) sled. */
static const struct call_kind arm_kinds[N_ARM_KINDS] = {
    [KIND_BL] = { "bl", RA_OFFSET, 0, 0, 0 },
    [KIND_BLX_IMM] = { "blx_imm", RA_OFFSET, 0, 0, 0 },
    [KIND_BLX_REG] = { "blx_reg", RA_OFFSET, 0, 0, 0 },
    [KIND_T_BL] = { "t_bl", 4, 0, 0, 0 },
    [KIND_T_BLX_IMM] = { "t_blx_imm", 4, 0, 0, 0 },
    /* the call is the blx; its redirect starts at the instruction before */
    [KIND_T_BLX_PAIR] = { "t_blx_pair", 2, -2, THUNK_SIZE, 0 },
    [KIND_T_BLX_PAIR32] = { "t_blx_pair32", 2, -4, THUNK32_SIZE, 0 },
    /* tail jumps: their thunks make them look like calls from A to the
     * sled (return address A + 4) */
    [KIND_B_JUMP] = { "b_jump", RA_OFFSET, 0, JUMP_THUNK_SIZE, 1 },
    [KIND_T_B_JUMP] = { "t_b_jump", 4, 0, JUMP_THUNK_SIZE, 1 },
    /* a pair whose P reads lr: a b.w to its thunk, which sets lr itself */
    [KIND_T_BLX_PAIRB] = { "t_blx_pair_b", 2, -2, PAIRB_SIZE, 0 },
    [KIND_T_BLX_PAIRB32] = { "t_blx_pair32_b", 2, -4, PAIRB32_SIZE, 0 },
    /* tail jumps through a register: the jump half, its site word rM's */
    [KIND_BX_JUMP] = { "bx_jump", RA_OFFSET, 0, REGJUMP_SIZE, 1 },
    [KIND_T_BX_JUMP] = { "t_bx_pair_jump", 2, -2, REGJUMP_SIZE, 1 },
    [KIND_T_BX_JUMP32] = { "t_bx_pair32_jump", 2, -4, REGJUMP_SIZE, 1 },
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

/* ARM is a 32-bit arch (word_size 4): the images it gets are ELF32
 * (arch_of_image), so their link-time addresses fit 32 bits, and this
 * file computes with them in 32 bits, wrapping as the CPU does. */

/* "$a", "$t", "$d", optionally followed by ".<anything>". */
static char mapping_kind(const char *name)
{
    char letter = mapping_symbol_letter(name);
    return letter && strchr("atd", letter) ? letter : 0;
}

/* ARM state code is what the $a mapping symbols mark, Thumb code $t;
 * $d marks data (literal pools, tbb tables). */
static int arm_code_ranges(const struct elf_image *img, const struct exclusions *ex,
                           struct code_range **out, size_t *n, struct scan_stats *st)
{
    (void)ex;                   /* (the tracer's code has its mapping symbols) */
    static const unsigned isas[] = { ISA_ARM, ISA_THUMB };
    return mapped_code_ranges(img, "ARM", "at", isas, out, n, st);
}

static int arm_disasm_open(const struct elf_image *img, unsigned isa, csh *handle)
{
    (void)img;
    if (cs_open(CS_ARCH_ARM, isa == ISA_THUMB ? CS_MODE_THUMB : CS_MODE_ARM, handle) != CS_ERR_OK)
        return error("capstone: cannot open the ARM disassembler");
    cs_option(*handle, CS_OPT_DETAIL, CS_OPT_ON);
    return 0;
}

/*
 * What the scan keeps (scan_begin .. scan_end): the Thumb instruction
 * before the current one and whether it was in an IT block, the IT
 * block being read, and for the proof that nothing branches into a
 * 16-bit blx rM rewritten with the instruction before it: every direct
 * branch target in the image, and the computed jumps in Thumb code.
 */
struct arm_scan {
    uint32_t prev_end;          /* the previous Thumb instruction's end (0: none) */
    uint32_t prev_word;         /* it (a 32-bit one: first halfword low) */
    unsigned prev_size;
    int prev_usable;            /* it moves (and was not in an IT block) */
    int prev_usable_lr;         /* ... if lr is as it was (it reads or writes lr, not pc) */
    unsigned it_left;           /* instructions of the IT block still to come */
    /* the last Thumb instructions before the current one, newest first,
     * in one straight run: the computed jumps' idioms (jump_idiom()) */
    struct thumb_insn { uint32_t addr, w; unsigned size; } recent[3];
    unsigned n_recent;
    struct addr_set targets, jumps;
    struct addr_set tables;     /* tbb, tbh (bit 0 set): their tables are decoded */
    struct addr_set offset_tables;      /* adr, ldr, add, bx: the word tables' addresses */
    struct addr_set adrs;       /* where each adr (add rD, pc, #N) points */
    struct addr_set loaded_jumps;       /* computed jumps: a bx of a register just loaded */
    struct addr_set arith_jumps;        /* ... that write pc (add, mov, ldm): any target */
    /* the image's symbols, sorted: every defined one's address (bit 0
     * dropped), the mapping symbols (address | 1 for $d), functions */
    struct addr_set symbols, mappings;
    struct function_index functions;
    /* .ARM.exidx: each entry's address, by function (sorted, as ld
     * writes it; exidx_ok = 0 if it is not, or cannot be read) */
    struct exidx_entry { uint32_t fn, at; } *exidx;
    size_t n_exidx;
    int exidx_ok;
    struct tail_targets tails;  /* where a tail jump may go (lib/sites.h) */
    int thumb2;                 /* the image runs on Thumb-2 cores only */
    const struct elf_image *img;
};

/* Where the rest of the function is reached by a computed jump (its
 * targets are unknown): bx other than bx lr, and writes of pc other
 * than returns (pop, ldr pc, [sp], ldm sp!); tbb and tbh if their
 * tables cannot be read (decode_tables()). */
static int is_computed_jump(const cs_insn *insn)
{
    const cs_arm *a = &insn->detail->arm;
    int op0_pc = a->op_count >= 1 && a->operands[0].type == ARM_OP_REG &&
                 a->operands[0].reg == ARM_REG_PC;
    switch (insn->id) {
    case ARM_INS_TBB: case ARM_INS_TBH:
        return 0;
    case ARM_INS_BXJ:
        return 1;
    case ARM_INS_BX:
        return !(a->op_count == 1 && a->operands[0].type == ARM_OP_REG &&
                 a->operands[0].reg == ARM_REG_LR);
    case ARM_INS_POP:
        return 0;
    case ARM_INS_LDM: case ARM_INS_LDMDB: case ARM_INS_LDMIB: case ARM_INS_LDMDA:
        if (a->op_count >= 1 && a->operands[0].type == ARM_OP_REG &&
            a->operands[0].reg == ARM_REG_SP)
            return 0;
        for (int i = 1; i < a->op_count; i++)
            if (a->operands[i].type == ARM_OP_REG && a->operands[i].reg == ARM_REG_PC)
                return 1;
        return 0;
    case ARM_INS_LDR:
        return op0_pc && !(a->op_count >= 2 && a->operands[1].type == ARM_OP_MEM &&
                           a->operands[1].mem.base == ARM_REG_SP);
    default:
        return op0_pc;
    }
}

/* A 16-bit Thumb instruction that does the same at any address, with
 * lr holding something else (allow_lr: with lr as it was): it reads
 * neither pc nor lr, writes neither, and is not a branch, IT, a hint or
 * an exception. */
static int thumb16_movable_as(uint32_t hw, int allow_lr)
{
    if (hw < 0x4400 || (hw >= 0x5000 && hw < 0xA000) || (hw >= 0xA800 && hw < 0xB100) ||
        (hw & 0xFF00) == 0xB200 || (hw & 0xFF00) == 0xBA00 || (hw & 0xF000) == 0xC000)
        return 1;                       /* low registers, sp, loads, stores, ldm, stm */
    if (hw < 0x4700) {                  /* add, cmp, mov with high registers */
        unsigned rdn = (hw & 7) | (hw >> 4 & 8), rm = hw >> 3 & 15, top = allow_lr ? 15 : 14;
        return rdn < top && rm < top;
    }
    if ((hw & 0xFE00) == 0xB400)        /* push, without lr */
        return allow_lr || !(hw & 0x100);
    if ((hw & 0xFE00) == 0xBC00)        /* pop, without pc */
        return !(hw & 0x100);
    return 0;
}

static int thumb16_movable(uint32_t hw)
{
    return thumb16_movable_as(hw, 0);
}

/* pc, or (unless allow_lr) lr */
static int is_pc_or_lr(unsigned reg, int allow_lr)
{
    return reg == ARM_REG_PC || (!allow_lr && reg == ARM_REG_LR);
}

/* A 32-bit Thumb instruction that does the same at any address, with
 * lr holding something else (allow_lr: with lr as it was): no operand,
 * and nothing capstone says it reads or writes, is pc or lr; not a
 * branch, table branch, adr (pc relative without saying so), exception
 * or IT. */
static int thumb32_movable_as(const cs_insn *insn, int allow_lr)
{
    const cs_detail *d = insn->detail;
    switch (insn->id) {
    case ARM_INS_B: case ARM_INS_BL: case ARM_INS_BLX: case ARM_INS_BX: case ARM_INS_BXJ:
    case ARM_INS_TBB: case ARM_INS_TBH: case ARM_INS_CBZ: case ARM_INS_CBNZ: case ARM_INS_IT:
    case ARM_INS_ADR: case ARM_INS_SVC: case ARM_INS_BKPT: case ARM_INS_UDF: case ARM_INS_SMC:
    case ARM_INS_HVC: case ARM_INS_ERET: case ARM_INS_INVALID:
        return 0;
    }
    if (insn->size != 4 || !d)
        return 0;
    for (unsigned i = 0; i < d->groups_count; i++)
        if (d->groups[i] == CS_GRP_JUMP || d->groups[i] == CS_GRP_CALL ||
            d->groups[i] == CS_GRP_RET || d->groups[i] == CS_GRP_INT ||
            d->groups[i] == CS_GRP_BRANCH_RELATIVE)
            return 0;
    for (unsigned i = 0; i < d->regs_read_count; i++)
        if (is_pc_or_lr(d->regs_read[i], allow_lr))
            return 0;
    for (unsigned i = 0; i < d->regs_write_count; i++)
        if (is_pc_or_lr(d->regs_write[i], allow_lr))
            return 0;
    for (int i = 0; i < d->arm.op_count; i++) {
        const cs_arm_op *op = &d->arm.operands[i];
        if ((op->type == ARM_OP_REG && is_pc_or_lr(op->reg, allow_lr)) ||
            (op->type == ARM_OP_MEM && (is_pc_or_lr(op->mem.base, allow_lr) || is_pc_or_lr(op->mem.index, allow_lr))))
            return 0;
    }
    return 1;
}

static int thumb32_movable(const cs_insn *insn)
{
    return thumb32_movable_as(insn, 0);
}

/* One more Thumb instruction read (addr, w as the scan gives it, size). */
static void recent_push(struct arm_scan *sc, uint32_t addr, uint32_t w, unsigned size)
{
    if (sc->n_recent && sc->recent[0].addr + sc->recent[0].size != addr)
        sc->n_recent = 0;
    memmove(sc->recent + 1, sc->recent, sizeof sc->recent - sizeof sc->recent[0]);
    sc->recent[0] = (struct thumb_insn){ addr, w, size };
    if (sc->n_recent < sizeof sc->recent / sizeof sc->recent[0])
        sc->n_recent++;
}

/* ldmia.w sp!, {..., lr} (pop.w without pc) or ldr.w lr, [sp], #N:
 * lr back from the stack. */
static int pops_lr(const struct thumb_insn *i)
{
    uint32_t hw1 = i->w & 0xFFFF, hw2 = i->w >> 16;
    return i->size == 4 && ((hw1 == 0xE8BD && (hw2 & 0xC000) == 0x4000) ||
                            (hw1 == 0xF85D && (hw2 & 0xFF00) == 0xEB00));
}

enum jump_idiom { JUMP_UNKNOWN, JUMP_TAIL, JUMP_OFFSET_TABLE };

/* Whether lr was just restored from the stack by r0 (the instruction
 * right before a bx) with r1 (the one before it, or NULL): pop.w {...,
 * lr}, ldr.w lr, [sp], #N, or ldr.w lr, [sp, #N] then add sp, #N. */
static int lr_restored(const struct thumb_insn *r0, const struct thumb_insn *r1)
{
    return pops_lr(r0) ||
           (r1 && r0->size == 2 && (r0->w & 0xFF80) == 0xB000 &&             /* add sp, #N */
            r1->size == 4 && (r1->w & 0xFFFF) == 0xF8DD && r1->w >> 28 == 14); /* ldr.w lr, [sp, #N] */
}

/* Whether `i` is an ldr of register rm from memory (a function
 * pointer, a label's address): 16-bit ldr rM, [rN, #imm], [rN, rI] or
 * [sp, #imm]; ldr.w rM, [...]. */
static int loads_reg(const struct thumb_insn *i, unsigned rm)
{
    uint32_t w = i->w, hw1 = w & 0xFFFF;
    if (i->size == 2)
        return (((w & 0xF800) == 0x6800 || (w & 0xFE00) == 0x5800) && (w & 7) == rm) ||
               ((w & 0xF800) == 0x9800 && (w >> 8 & 7) == rm);
    return ((hw1 & 0xFFF0) == 0xF8D0 || (hw1 & 0xFFF0) == 0xF850) && (w >> 28) == rm;
}

/* Whether a bx follows an epilogue: lr_restored() by r0, the instruction
 * right before the bx (with r1), or by r1 (with r2) where r0 is a
 * 16-bit one that touches neither lr nor pc (SQLite's `pop.w {..., lr};
 * ldr r3, [r3, #32]; bx r3`).  r1, r2: the ones before, in one straight
 * run, or NULL. */
static int epilogue_before(const struct thumb_insn *r0, const struct thumb_insn *r1,
                           const struct thumb_insn *r2)
{
    return lr_restored(r0, r1) ||
           (r1 && r0->size == 2 && thumb16_movable(r0->w) && lr_restored(r1, r2));
}

/*
 * What a Thumb bx rM (rM not lr, not in an IT block) at `at` does, from
 * the instructions right before it (sc->recent):
 * - JUMP_TAIL, a sibling call: lr was just restored from the stack
 *   (pop.w {..., lr}, or ldr.w lr, [sp, #N] then add sp, #N; one
 *   16-bit instruction may follow: epilogue_before()).  GCC
 *   restores lr only in an epilogue; a function that made a call and
 *   jumps on has to.  The jump leaves the function.
 * - JUMP_OFFSET_TABLE, GCC's switch of position-independent Thumb-2
 *   code: adr rT, table; ldr.w rO, [rT, rI, lsl #2]; add rT, rO (or
 *   add rO, rT); bx, with the table of words (target - table, Thumb bit
 *   set) right after the bx.  *table = its address.
 */
static enum jump_idiom jump_idiom(const struct arm_scan *sc, uint32_t at, unsigned rm,
                                  uint32_t *table)
{
    const struct thumb_insn *r = sc->recent;
    if (sc->n_recent < 1 || r[0].addr + r[0].size != at)
        return JUMP_UNKNOWN;
    if (epilogue_before(&r[0], sc->n_recent >= 2 ? &r[1] : NULL, sc->n_recent >= 3 ? &r[2] : NULL))
        return JUMP_TAIL;
    if (sc->n_recent < 3 || r[0].size != 2 || (r[0].w & 0xFF00) != 0x4400 || r[1].size != 4)
        return JUMP_UNKNOWN;
    unsigned rdn = (r[0].w & 7) | (r[0].w >> 4 & 8), radd = r[0].w >> 3 & 15;
    uint32_t hw1 = r[1].w & 0xFFFF, hw2 = r[1].w >> 16;
    unsigned rt = hw2 >> 12, rn = hw1 & 15;     /* ldr.w rt, [rn, rI, lsl #2] */
    if (rdn != rm || (hw1 & 0xFFF0) != 0xF850 || (hw2 & 0x0FF0) != 0x0020 ||
        !((rdn == rn && radd == rt) || (rdn == rt && radd == rn)) || rn == rt ||
        rn == (hw2 & 15))
        return JUMP_UNKNOWN;
    uint32_t adr_at = r[2].addr, w = r[2].w, base = (adr_at + 4) & ~3u, where;
    if (r[2].size == 2 && (w & 0xF800) == 0xA000 && (w >> 8 & 7) == rn)
        where = base + 4 * (w & 0xFF);
    else if (r[2].size == 4 && ((w & 0xFFFF) & 0xFBFF) == 0xF20F && !(w & 0x80000000u) &&
             (w >> 24 & 15) == rn)                                           /* adr.w */
        where = base + ((w >> 10 & 1) << 11 | (w >> 28 & 7) << 8 | (w >> 16 & 0xFF));
    else
        return JUMP_UNKNOWN;
    if (where != ((at + 2 + 3) & ~3u))
        return JUMP_UNKNOWN;
    *table = where;
    return JUMP_OFFSET_TABLE;
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

long arm_attribute(const uint8_t *a, size_t size, uint32_t want)
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
                if (tag == want)
                    return uleb(&q, sub_end);
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

/* Thumb-2 (a b.w, an ldr.w) runs where the image runs: its attributes
 * say so (Tag_THUMB_ISA_use 2, or Tag_CPU_arch v6T2, v7, v8 or later). */
static int image_has_thumb2(const struct elf_image *img)
{
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (s->type == SHT_ARM_ATTRIBUTES && (uint64_t)s->offset + s->size <= img->size) {
            long isa = arm_attribute(img->data + s->offset, s->size, TAG_THUMB_ISA_USE);
            long arch = arm_attribute(img->data + s->offset, s->size, TAG_CPU_ARCH);
            return isa == 2 || arch == 8 || arch == 10 || arch >= 14;
        }
    }
    return 0;
}

static void *arm_scan_begin(const struct elf_image *img)
{
    struct arm_scan *sc = xcalloc(1, sizeof *sc);
    for (size_t i = 0; i < img->n_symbols; i++) {
        const struct elf_symbol *y = &img->symbols[i];
        if (y->shndx == SHN_UNDEF || y->shndx == SHN_ABS)
            continue;
        addr_set_add(&sc->symbols, y->value & ~1u);
        char kind = mapping_kind(y->name);
        if (kind)
            addr_set_add(&sc->mappings, (y->value & ~1u) | (kind == 'd'));
    }
    addr_set_sort(&sc->symbols);
    addr_set_sort(&sc->mappings);
    function_index_build(img, &sc->functions);
    tail_targets_build(img, &arch_arm, &sc->functions, &sc->tails);
    sc->thumb2 = image_has_thumb2(img);
    sc->img = img;
    sc->exidx_ok = 1;
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (s->type != SHT_ARM_EXIDX || sc->exidx)
            continue;
        sc->exidx = xcalloc(s->size / 8 + 1, sizeof *sc->exidx);
        for (uint32_t e = (uint32_t)s->addr; e + 8 <= (uint32_t)(s->addr + s->size); e += 8) {
            uint32_t w0;
            if (elf_read32(img, e, &w0)) {
                sc->exidx_ok = 0;
                break;
            }
            uint32_t fn = e + (uint32_t)((int32_t)(w0 << 1) >> 1);
            if (sc->n_exidx && fn < sc->exidx[sc->n_exidx - 1].fn)
                sc->exidx_ok = 0;
            sc->exidx[sc->n_exidx++] = (struct exidx_entry){ fn, e };
        }
    }
    return sc;
}

/* Where an adr at `at` points (its pc-relative address), or 0 if the
 * instruction is none: Thumb adr, adr.w (add and sub forms), ARM add
 * and sub rD, pc, #imm. */
static uint32_t adr_address(unsigned isa, uint32_t at, uint32_t w, unsigned size)
{
    if (isa != ISA_THUMB) {
        uint32_t imm = w & 0xFF, rot = 2 * (w >> 8 & 15);
        imm = rot ? imm >> rot | imm << (32 - rot) : imm;
        if ((w & 0x0FFF0000u) == 0x028F0000u)
            return at + 8 + imm;
        return (w & 0x0FFF0000u) == 0x024F0000u ? at + 8 - imm : 0;
    }
    uint32_t base = (at + 4) & ~3u;
    if (size == 2)
        return (w & 0xF800) == 0xA000 ? base + 4 * (w & 0xFF) : 0;
    uint32_t hw1 = w & 0xFFFF, hw2 = w >> 16, imm = (hw1 >> 10 & 1) << 11 | (hw2 >> 12 & 7) << 8 |
                                                    (hw2 & 0xFF);
    if (hw2 & 0x8000)
        return 0;
    if ((hw1 & 0xFBFF) == 0xF20F)
        return base + imm;
    return (hw1 & 0xFBFF) == 0xF2AF ? base - imm : 0;
}

/* Every instruction: its direct branch target, computed jumps, IT
 * blocks, where an adr points.  Returns whether `insn` is in an IT
 * block. */
static int thumb_track(struct arm_scan *sc, const cs_insn *insn, unsigned isa, uint32_t w)
{
    const cs_arm *a = &insn->detail->arm;
    uint32_t adr = adr_address(isa, (uint32_t)insn->address, w, insn->size);
    if (adr)
        addr_set_add(&sc->adrs, adr & ~1u);
    switch (insn->id) {
    case ARM_INS_B: case ARM_INS_BL: case ARM_INS_BLX: case ARM_INS_CBZ: case ARM_INS_CBNZ:
        for (int i = 0; i < a->op_count; i++)
            if (a->operands[i].type == ARM_OP_IMM)
                addr_set_add(&sc->targets, (uint32_t)a->operands[i].imm);
        break;
    }
    if (isa != ISA_THUMB) {
        sc->prev_end = 0;
        sc->n_recent = 0;
        return 0;
    }
    if (is_computed_jump(insn)) {
        uint32_t table = 0;
        enum jump_idiom idiom = insn->id == ARM_INS_BX && insn->size == 2 && !sc->it_left
                                    ? jump_idiom(sc, (uint32_t)insn->address, w >> 3 & 15, &table)
                                    : JUMP_UNKNOWN;
        if (idiom == JUMP_OFFSET_TABLE)
            addr_set_add(&sc->offset_tables, table);
        else if (idiom == JUMP_UNKNOWN)
            addr_set_add(&sc->jumps, (uint32_t)insn->address);
        if (insn->id != ARM_INS_BX && insn->id != ARM_INS_LDR)
            addr_set_add(&sc->arith_jumps, (uint32_t)insn->address);
        if (idiom == JUMP_UNKNOWN && insn->id == ARM_INS_BX && insn->size == 2 && sc->n_recent &&
            sc->recent[0].addr + sc->recent[0].size == insn->address &&
            loads_reg(&sc->recent[0], w >> 3 & 15))
            addr_set_add(&sc->loaded_jumps, (uint32_t)insn->address);
    }
    if (insn->id == ARM_INS_TBB || insn->id == ARM_INS_TBH)
        addr_set_add(&sc->tables, (uint32_t)insn->address | (insn->id == ARM_INS_TBH));
    int in_it = sc->it_left > 0;
    if (in_it)
        sc->it_left--;
    if (insn->id == ARM_INS_IT && (w & 0xF))
        sc->it_left = 4 - (unsigned)__builtin_ctz(w & 0xF);
    return in_it;
}

/* A ULEB128 at *p, before end; *ok = 0 if it runs past end. */
static uint32_t read_uleb(const unsigned char **p, const unsigned char *end, int *ok)
{
    uint32_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (*p >= end) {
            *ok = 0;
            return 0;
        }
        unsigned char b = *(*p)++;
        if (shift < 32)
            v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
}

/* Reads an LSDA's call-site table (the GCC format that
 * __gxx_personality_v0 reads; ARM EHABI puts it after the personality
 * routine and its unwind opcodes in .ARM.extab) and adds each landing
 * pad (relative to the function's start) to `pads`.  -1 if it cannot be
 * read: then any address may be a landing pad. */
static int read_lsda(const struct elf_image *img, uint32_t lsda, uint32_t fn,
                     struct addr_set *pads)
{
    const struct elf_section *s = elf_section_at(img, lsda);
    if (!s || lsda - s->addr >= s->size)
        return -1;
    const unsigned char *p = elf_bytes_at(img, lsda, s->addr + s->size - lsda), *end;
    if (!p)
        return -1;
    end = p + (s->addr + s->size - lsda);
    int ok = 1;
    if (end - p < 3 || p[0] != 0xff)            /* LPStart: the function's start */
        return -1;
    p++;
    if (*p++ != 0xff)                           /* type table offset */
        read_uleb(&p, end, &ok);
    if (p >= end)
        return -1;
    unsigned enc = *p++;                        /* call sites: uleb128 or udata2/4 */
    uint32_t len = read_uleb(&p, end, &ok);
    if (!ok || len > (uint32_t)(end - p) || (enc != 0x01 && enc != 0x02 && enc != 0x03))
        return -1;
    const unsigned char *table_end = p + len;
    while (ok && p < table_end) {
        uint32_t f[3];
        for (int i = 0; i < 3; i++) {
            unsigned size = enc == 0x02 ? 2 : 4;
            if (enc == 0x01) {
                f[i] = read_uleb(&p, table_end, &ok);
            } else if ((size_t)(table_end - p) < size) {
                return -1;
            } else {
                f[i] = size == 2 ? p[0] | (uint32_t)p[1] << 8
                                 : p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                   (uint32_t)p[3] << 24;
                p += size;
            }
        }
        read_uleb(&p, table_end, &ok);          /* the action */
        if (ok && f[2])
            addr_set_add(pads, fn + f[2]);
    }
    return ok ? 0 : -1;
}

/* The landing pads of the function at `fn` (C++ exception handlers and
 * cleanups: the unwinder jumps there), from its .ARM.exidx entry: none
 * for "cannot unwind" and the compact models; a generic personality
 * routine's LSDA follows its unwind opcodes.  -1 if they cannot be
 * known. */
static int add_landing_pads(const struct arm_scan *sc, const struct elf_image *img,
                            uint32_t fn, struct addr_set *pads)
{
    if (!sc->exidx_ok)
        return -1;
    size_t lo = 0, hi = sc->n_exidx;           /* the last entry for a function <= fn */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc->exidx[mid].fn <= fn)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    const struct exidx_entry *e = &sc->exidx[lo - 1];
    uint32_t w1, pr, ops;
    if (elf_read32(img, e->at + 4, &w1))
        return -1;
    if (w1 == 1 || (w1 & 0x80000000u))         /* cannot unwind; compact, inline */
        return 0;
    uint32_t at = e->at + 4 + (uint32_t)((int32_t)(w1 << 1) >> 1);
    if (elf_read32(img, at, &pr))
        return -1;
    if (pr & 0x80000000u)                       /* a compact model: no LSDA */
        return 0;
    if (elf_read32(img, at + 4, &ops))
        return -1;
    return read_lsda(img, at + 8 + 4 * (ops >> 24), e->fn, pads);
}

/* Why a pair site must stay untraced (NULL: it may be rewritten):
 * something may reach its blx other than the instruction before it. */
static const char *pair_refusal(const struct arm_scan *sc, const struct elf_image *img,
                                uint32_t blx, uint32_t sled, uint32_t reach)
{
    if (sled && (blx < sled ? sled - blx : blx - sled) >= reach)
        return "Thumb blx rM (16-bit) beyond bl range of the thunk area";
    if (addr_set_has(&sc->targets, blx))
        return "Thumb blx rM (16-bit) at a branch target";
    if (addr_set_has(&sc->symbols, blx))
        return "Thumb blx rM (16-bit) at a symbol";
    const struct indexed_function *f = function_index_find(&sc->functions, blx);
    if (!f)
        return "Thumb blx rM (16-bit) outside any function";
    uint32_t f_start = (uint32_t)f->start;
    /* (a bx rM rewritten with its P is a jump of its own: not counted) */
    for (size_t j = addr_set_lower_bound(&sc->jumps, f_start);
         j < sc->jumps.n && sc->jumps.v[j] - f_start < f->size; j++)
        if (sc->jumps.v[j] != blx)
            return "Thumb blx rM (16-bit) in a function with computed jumps";
    struct addr_set pads = { NULL, 0, 0 };
    int known = add_landing_pads(sc, img, f_start, &pads) == 0;
    int pad = 0;
    for (size_t i = 0; i < pads.n; i++)
        pad |= pads.v[i] == blx;
    free(pads.v);
    if (!known)
        return "Thumb blx rM (16-bit) in a function whose landing pads cannot be read";
    if (pad)
        return "Thumb blx rM (16-bit) at a landing pad";
    return NULL;
}

/* Whether `s` (sorted) holds a place inside f (not its start). */
static int set_has_inside(const struct addr_set *s, const struct indexed_function *f)
{
    size_t i = addr_set_lower_bound(s, (uint32_t)f->start + 1);
    return i < s->n && s->v[i] - f->start < f->size;
}

/* The places inside f that `s` holds, to sc->targets. */
static void targets_inside(struct arm_scan *sc, const struct addr_set *s,
                           const struct indexed_function *f)
{
    for (size_t i = addr_set_lower_bound(s, (uint32_t)f->start + 1);
         i < s->n && s->v[i] - f->start < f->size; i++)
        addr_set_add(&sc->targets, s->v[i]);
}

/* The words of f's literal pools (the $d ranges inside it) that name
 * places inside it, to sc->targets. */
static void pool_targets_inside(struct arm_scan *sc, const struct elf_image *img,
                                const struct indexed_function *f)
{
    uint32_t lo = (uint32_t)f->start, hi = lo + (uint32_t)f->size, v;
    for (size_t m = addr_set_lower_bound(&sc->mappings, lo);
         m < sc->mappings.n && (sc->mappings.v[m] & ~1u) < hi; m++) {
        if (!(sc->mappings.v[m] & 1))
            continue;
        uint32_t end = m + 1 < sc->mappings.n ? sc->mappings.v[m + 1] & ~1u : hi;
        for (uint32_t at = ((sc->mappings.v[m] & ~1u) + 3) & ~3u;
             at + 4 <= end && at + 4 <= hi && !elf_read32(img, at, &v); at += 4)
            if ((v & ~1u) > lo && (v & ~1u) < hi)
                addr_set_add(&sc->targets, v & ~1u);
    }
}

/*
 * A function whose labels data tabulates (two neighbouring words name
 * places inside it: sc->tails.inner) jumps through that table: glibc's
 * vfprintf in a static link, `goto *step0_jumps[c]`, a bx of a word
 * loaded from it.  So does one whose every computed jump is a bx of a
 * register loaded right before (a sibling call through a function
 * pointer where lr was never saved: SQLite's sqlite3_free, `ldr r3,
 * [r3, #36]; bx r3`; or a goto through a label's address kept in
 * memory).  Such jumps leave the function or land at its labels, and
 * what names a label is data (sc->tails.named, lone words too), a
 * literal pool in its own code, or an adr: those places are its branch
 * targets, and its jumps no longer unknown, so a pair whose blx none
 * of them is may be rewritten.  (A label materialised by movw and movt
 * would be missed: GCC's position-independent code, Debian's default,
 * uses adr and literal pools.  A function with a jump computed by
 * arithmetic, an add or mov to pc, keeps its jumps unknown; so does an
 * adr plus an offset where no table names the labels.)
 */
static void resolve_label_jumps(struct arm_scan *sc, const struct elf_image *img)
{
    addr_set_sort(&sc->jumps);
    addr_set_sort(&sc->adrs);
    addr_set_sort(&sc->loaded_jumps);
    addr_set_sort(&sc->arith_jumps);
    size_t k = 0;
    /* the jumps in address order: each function's in one run [j, e) */
    for (size_t j = 0, e; j < sc->jumps.n; j = e) {
        const struct indexed_function *f = function_index_find(&sc->functions, sc->jumps.v[j]);
        int loaded = 1;
        for (e = j; e < sc->jumps.n && (e == j || (f && sc->jumps.v[e] - f->start < f->size)); e++)
            loaded &= addr_set_has(&sc->loaded_jumps, sc->jumps.v[e]);
        size_t a = f ? addr_set_lower_bound(&sc->arith_jumps, (uint32_t)f->start) : 0;
        int arith = f && a < sc->arith_jumps.n && sc->arith_jumps.v[a] - f->start < f->size;
        if (!f || arith || (!loaded && !set_has_inside(&sc->tails.inner, f))) {
            while (j < e)
                sc->jumps.v[k++] = sc->jumps.v[j++];
            continue;
        }
        targets_inside(sc, &sc->tails.named, f);
        targets_inside(sc, &sc->adrs, f);
        pool_targets_inside(sc, img, f);
    }
    sc->jumps.n = k;
}

/* The end of the table at `table` (the next mapping symbol after the
 * $d that must mark it), or 0 if it is not marked so. */
static uint32_t marked_table_end(const struct arm_scan *sc, uint32_t table)
{
    size_t m = addr_set_lower_bound(&sc->mappings, table);
    if (m >= sc->mappings.n || sc->mappings.v[m] != (table | 1))
        return 0;
    while (m < sc->mappings.n && (sc->mappings.v[m] & ~1u) <= table)
        m++;
    return m < sc->mappings.n ? sc->mappings.v[m] & ~1u : 0;
}

/* The targets of every tbb and tbh: its table (bytes, or halfwords:
 * offsets / 2 from the instruction + 4) is what the $d mapping symbol
 * right after it marks, up to the next mapping symbol; likewise
 * jump_idiom()'s tables of words (target - table).  A table that is
 * not marked so makes its jump a computed one. */
static void decode_tables(struct arm_scan *sc, const struct elf_image *img)
{
    for (size_t t = 0; t < sc->tables.n; t++) {
        uint32_t at = sc->tables.v[t] & ~1u, table = at + 4, end = marked_table_end(sc, table);
        int half = sc->tables.v[t] & 1;
        const unsigned char *p = end ? elf_bytes_at(img, table, end - table) : NULL;
        if (!p) {
            addr_set_add(&sc->jumps, at);
            continue;
        }
        for (uint32_t off = 0; off + 1 + half <= end - table; off += 1 + half)
            addr_set_add(&sc->targets, table + 2 * (half ? p[off] | (uint32_t)p[off + 1] << 8 : p[off]));
    }
    for (size_t t = 0; t < sc->offset_tables.n; t++) {
        uint32_t table = sc->offset_tables.v[t], end = marked_table_end(sc, table), w;
        for (uint32_t at = table; at + 4 <= end && !elf_read32(img, at, &w); at += 4)
            addr_set_add(&sc->targets, (table + w) & ~1u);
        if (!end || (end - table) % 4 || elf_read32(img, end - 4, &w))
            addr_set_add(&sc->jumps, table);    /* (in the function: it counts) */
    }
}

static uint32_t distance32(uint32_t a, uint32_t b)
{
    return a < b ? b - a : a - b;
}

/* A tail jump (not yet rewritten: a rewritten one is decoded by the
 * reader) can go to a thunk that lies within `span` after the sled,
 * and the thunk's jump on to its target: ARM b +-32 MB, Thumb b.w +-16
 * MB, b<c>.w +-1 MB. */
static int jump_in_reach(const struct call_site *site, uint32_t sled, uint32_t span)
{
    uint32_t addr = (uint32_t)site->addr, w = site->insn, target, reach;
    if (is_reg_jump_kind(site->kind))       /* ARM b +-32 MB, Thumb b.w +-16 MB; any target */
        return distance32(addr, sled) + span <
               (UINT32_C(1) << (site->kind == KIND_BX_JUMP ? 25 : 24));
    if (site->kind == KIND_B_JUMP) {
        target = addr + 8 + (uint32_t)branch_offset(w);
        reach = UINT32_C(1) << 25;
    } else {
        target = t_jump_target(addr, w);
        reach = UINT32_C(1) << 24;
    }
    uint32_t site_reach = site->kind == KIND_T_B_JUMP && is_t_bcond_w(w) ? UINT32_C(1) << 20 : reach;
    return distance32(addr, sled) + span < site_reach && distance32(target, sled) + span < reach;
}

static void arm_scan_end(void *state, const struct elf_image *img, struct site_list *sites,
                         struct scan_stats *st)
{
    struct arm_scan *sc = state;
    resolve_label_jumps(sc, img);
    decode_tables(sc, img);
    addr_set_sort(&sc->targets);
    addr_set_sort(&sc->jumps);
    /* The pairs' thunks lie after the code (the DB object's thunk
     * area, src/db.c), within 1 MB of the tracer's sled plus the area
     * itself: a pair farther than Thumb bl reaches (+-16 MB) from there
     * stays untraced.  (The sled is where it is in both passes.) */
    const struct elf_symbol *sled_sym = elf_symbol_by_name(img, "litifut_sled");
    uint32_t sled = sled_sym ? (uint32_t)sled_sym->value : 0;
    uint32_t area = 0;
    for (size_t i = 0; i < sites->n; i++)
        area += arm_kinds[sites->v[i].kind].thunk_size;
    /* every thunk lies within this of the sled (the DB object is the
     * link's last input: the tracer's code, then the area) */
    uint32_t thunk_span = (UINT32_C(1) << 20) + area;
    uint32_t reach = 0;
    if ((UINT32_C(1) << 24) > thunk_span)
        reach = (UINT32_C(1) << 24) - thunk_span;
    size_t k = 0;
    for (size_t i = 0; i < sites->n; i++) {
        unsigned kind = sites->v[i].kind;
        const char *why = is_thumb_pair_kind(kind)
                              ? pair_refusal(sc, img, (uint32_t)sites->v[i].addr, sled, reach)
                              : NULL;
        if ((is_jump_kind(kind) || is_reg_jump_kind(kind)) && sled &&
            !jump_in_reach(&sites->v[i], sled, thunk_span)) {
            st->sites_by_kind[kind]--;
            stats_skip(st, "tail jumps beyond reach of the thunk area", 4);
            continue;
        }
        if (why && is_reg_jump_kind(kind)) {    /* (no call: not an untraced one) */
            st->sites_by_kind[kind]--;
            stats_skip(st, "tail jumps through a register (Thumb) that cannot be rewritten", 2);
            continue;
        }
        if (why) {
            st->sites_by_kind[kind]--;
            stats_untraced(st, sites->v[i].addr, why, 2);
        } else {
            sites->v[k++] = sites->v[i];
        }
    }
    sites->n = k;
    tail_targets_free(&sc->tails);
    free(sc->targets.v);
    free(sc->jumps.v);
    free(sc->tables.v);
    free(sc->offset_tables.v);
    free(sc->adrs.v);
    free(sc->loaded_jumps.v);
    free(sc->arith_jumps.v);
    free(sc->symbols.v);
    free(sc->mappings.v);
    free(sc->exidx);
    function_index_free(&sc->functions);
    free(sc);
}

/* capstone's immediate operand of a direct call is its target. */
static int capstone_agrees(const cs_insn *insn, uint32_t target)
{
    const cs_arm *arm = &insn->detail->arm;
    return arm->op_count >= 1 && arm->operands[0].type == ARM_OP_IMM &&
           (uint32_t)arm->operands[0].imm == target;
}

/* Thumb: 32-bit bl and blx imm are redirected (in an IT block too: the
 * redirect is a 32-bit blx, allowed where they are).  A 16-bit blx rM
 * is redirected with the 16-bit instruction before it if that can move
 * (and arm_scan_end() may still refuse it); else it is counted. */
static int thumb_classify(struct arm_scan *sc, int in_it, const cs_insn *insn, uint32_t w,
                          struct call_site *site, struct scan_stats *st)
{
    uint32_t addr = (uint32_t)insn->address;
    if (insn->size == 2) {
        const char *why = "calls capstone decodes differently";
        if (insn->id == ARM_INS_BLX && is_t_blx_reg(w)) {
            unsigned rm = w >> 3 & 15;
            /* (P that needs lr as it was: entered by b.w, PAIRB) */
            int by_b = !sc->prev_usable && sc->prev_usable_lr && (sc->thumb2 || sc->prev_size == 4);
            why = in_it ? "Thumb blx rM (16-bit) in an IT block"
                : rm > 12 ? "Thumb blx lr, sp or pc (16-bit)"
                : (!sc->prev_usable && !by_b) || sc->prev_end != addr
                    ? "Thumb blx rM (16-bit) after an instruction that cannot move"
                    : NULL;
            if (!why && sc->prev_size == 2) {
                site->insn = sc->prev_word | w << 16;
                site->kind = by_b ? KIND_T_BLX_PAIRB : KIND_T_BLX_PAIR;
                return 1;
            }
            if (!why) {
                site->insn = sc->prev_word;
                site->insn2 = (uint16_t)w;
                site->kind = by_b ? KIND_T_BLX_PAIRB32 : KIND_T_BLX_PAIR32;
                return 1;
            }
        }
        stats_untraced(st, addr, why, 2);
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

/* Thumb bx rM (16-bit; rM not lr, sp or pc), not a known switch:
 * maybe a tail jump through a register, rewritten with the instruction
 * before it if that can move (lr it may read and write: the thunk runs
 * it first) and the jump is no IT block's (arm_scan_end may still
 * refuse it, as a pair).  A b.w reaches the thunk: Thumb-2 only. */
static int thumb_bx_classify(struct arm_scan *sc, int in_it, const cs_insn *insn, uint32_t w,
                             struct call_site *site, struct scan_stats *st)
{
    uint32_t addr = (uint32_t)insn->address, table;
    unsigned rm = w >> 3 & 15;
    if (!is_t_bx_reg(w) || rm > 12 || !register_jump_at(&sc->tails, addr) ||
        jump_idiom(sc, addr, rm, &table) == JUMP_OFFSET_TABLE)
        return 0;
    if (in_it || !sc->prev_usable_lr || sc->prev_end != addr || !(sc->thumb2 || sc->prev_size == 4)) {
        stats_skip(st, "tail jumps through a register (Thumb) that cannot be rewritten", 2);
        return 0;
    }
    if (sc->prev_size == 2) {
        site->insn = sc->prev_word | w << 16;
        site->kind = KIND_T_BX_JUMP;
    } else {
        site->insn = sc->prev_word;
        site->insn2 = (uint16_t)w;
        site->kind = KIND_T_BX_JUMP32;
    }
    return 1;
}

static int arm_state_classify(const cs_insn *insn, uint32_t w, struct call_site *site,
                              struct scan_stats *st)
{
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

/* arm_classify without capstone, where the bits say all: ARM state,
 * every instruction (only b, bl, blx imm and blx rM matter, and their
 * encodings are plain); Thumb, the 16-bit instructions that are no
 * branch, IT or write of pc, and the 32-bit bl and blx imm.  The rest
 * of Thumb (other 32-bit instructions: the pair check needs their
 * operands) goes to capstone. */
static unsigned arm_quick(void *state, unsigned isa, uint64_t link_addr, uint32_t w,
                          uint32_t next, int has_next, struct call_site *site, int *found,
                          struct scan_stats *st)
{
    uint32_t addr = (uint32_t)link_addr;        /* ELF32: arch_of_image */
    (void)next;
    (void)has_next;
    struct arm_scan *sc = state;
    *found = 0;
    if (isa != ISA_THUMB) {
        sc->prev_end = 0;
        sc->n_recent = 0;
        if ((w & 0x0E000000) == 0x0A000000) {          /* b, bl, blx imm */
            uint32_t target = addr + 8 + (uint32_t)branch_offset(w);
            if (is_blx_imm(w))
                target += (w >> 23) & 2;
            addr_set_add(&sc->targets, target);
            if (is_bl(w) || is_blx_imm(w) ||
                (is_b(w) && tail_jump_at(&sc->tails, addr, target) != NOT_TAIL_JUMP)) {
                site->insn = w;
                site->kind = is_bl(w) ? KIND_BL : is_b(w) ? KIND_B_JUMP : KIND_BLX_IMM;
                site->addr = addr;
                *found = 1;
            }
            return 4;
        }
        if (is_bx_reg(w) && (w & 15) <= 12 && register_jump_at(&sc->tails, addr)) {
            site->insn = w;                             /* bx rM: a tail jump, maybe */
            site->kind = KIND_BX_JUMP;
            site->addr = addr;
            *found = 1;
            return 4;
        }
        if ((w & 0x0FFFFFF0) == 0x012FFF30) {          /* blx rM */
            if (!is_blx_reg(w))
                return 0;
            unsigned rm = w & 15;
            if (rm >= 13) {
                stats_untraced(st, addr, rm == 13 ? "blx sp" : rm == 14 ? "blx lr" : "blx pc", 4);
                return 4;
            }
            site->insn = w;
            site->kind = KIND_BLX_REG;
            site->addr = addr;
            *found = 1;
        }
        return 4;
    }
    uint32_t hw = w & 0xFFFF;
    if ((hw >> 11) >= 0x1D) {                           /* 32-bit */
        if (!is_t_bl(w) && !is_t_blx_imm(w))
            return 0;
        addr_set_add(&sc->targets, t_call_target(addr, w));
        int in_it = sc->it_left > 0;
        if (in_it)
            sc->it_left--;
        site->insn = w;
        site->kind = is_t_bl(w) ? KIND_T_BL : KIND_T_BLX_IMM;
        site->addr = addr;
        *found = 1;
        sc->prev_end = addr + 4;
        sc->prev_word = w;
        sc->prev_size = 4;
        sc->prev_usable = sc->prev_usable_lr = 0;       /* a call never moves */
        recent_push(sc, addr, w, 4);
        return 4;
    }
    if ((hw & 0xFF00) == 0xBF00 ||                      /* IT, hints */
        (hw & 0xF000) == 0xD000 || (hw & 0xF800) == 0xE000 ||   /* b<c>, udf, svc; b */
        (hw & 0xF500) == 0xB100 ||                      /* cbz, cbnz */
        (hw & 0xFF00) == 0x4700 ||                      /* bx, blx */
        ((hw & 0xFC00) == 0x4400 && (hw & 0x87) == 0x87) ||    /* add, cmp, mov to pc */
        (hw & 0xFF00) == 0xBD00)                        /* pop {..., pc} */
        return 0;
    int in_it = sc->it_left > 0;
    if (in_it)
        sc->it_left--;
    sc->prev_end = addr + 2;
    sc->prev_word = hw;
    sc->prev_size = 2;
    sc->prev_usable = !in_it && thumb16_movable(hw);
    sc->prev_usable_lr = !in_it && thumb16_movable_as(hw, 1);
    recent_push(sc, addr, hw, 2);
    return 2;
}

static int arm_classify(void *state, const cs_insn *insn, unsigned isa, uint32_t w,
                        uint32_t next, int has_next, struct call_site *site,
                        struct scan_stats *st)
{
    (void)next;
    (void)has_next;
    struct arm_scan *sc = state;
    int in_it = thumb_track(sc, insn, isa, w), is_call = 0;
    if (insn->id == ARM_INS_BL || insn->id == ARM_INS_BLX)
        is_call = isa == ISA_THUMB ? thumb_classify(sc, in_it, insn, w, site, st)
                                   : arm_state_classify(insn, w, site, st);
    else if (insn->id == ARM_INS_BX && isa == ISA_THUMB && insn->size == 2)
        is_call = thumb_bx_classify(sc, in_it, insn, w, site, st);
    else if (insn->id == ARM_INS_B && isa == ISA_THUMB && insn->size == 4 &&
             (is_t_b_w(w) || is_t_bcond_w(w))) {
        /* Thumb b.w (in an IT block too, as its last: so is the
         * redirect) or b<c>.w to a function: a tail jump */
        uint32_t target = t_jump_target((uint32_t)insn->address, w);
        enum tail_jump tj = capstone_agrees(insn, target)
                                ? tail_jump_at(&sc->tails, insn->address, target) : NOT_TAIL_JUMP;
        if (tj != NOT_TAIL_JUMP) {
            site->insn = w;
            site->kind = KIND_T_B_JUMP;
            is_call = 1;
        }
        /* a rewritten bx rM is the computed jump it was (the thunk's bx:
         * both passes' and the readers' scans find the same pairs) */
        uint16_t h[REGJUMP_SIZE / 2];
        const unsigned char *p = tj == TAIL_JUMP_REWRITTEN && is_t_b_w(w)
                                     ? elf_bytes_at(sc->img, target, REGJUMP_SIZE) : NULL;
        for (unsigned i = 0; p && i < REGJUMP_SIZE / 2; i++)
            h[i] = (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
        unsigned psize = p ? regjump_t_thunk_p(h) : 0;
        struct thumb_insn pi = { (uint32_t)insn->address, psize == 2 ? h[0] : h[0] | (uint32_t)h[1] << 16,
                                 psize };
        int before = sc->n_recent >= 1 && sc->recent[0].addr + sc->recent[0].size == insn->address;
        if (psize && !epilogue_before(&pi, before ? &sc->recent[0] : NULL,
                                      before && sc->n_recent >= 2 ? &sc->recent[1] : NULL)) {
            addr_set_add(&sc->jumps, (uint32_t)insn->address + psize);
            if (loads_reg(&pi, h[REGJUMP_T_BX / 2] >> 3 & 15))
                addr_set_add(&sc->loaded_jumps, (uint32_t)insn->address + psize);
        }
    }
    if (isa == ISA_THUMB) {
        sc->prev_end = (uint32_t)insn->address + insn->size;
        sc->prev_word = w;
        sc->prev_size = insn->size;
        sc->prev_usable = !in_it && (insn->size == 2 ? thumb16_movable(w) : thumb32_movable(insn));
        sc->prev_usable_lr = !in_it && (insn->size == 2 ? thumb16_movable_as(w, 1)
                                                        : thumb32_movable_as(insn, 1));
        recent_push(sc, (uint32_t)insn->address, w, insn->size);
    }
    return is_call;
}

const struct arch_ops arch_arm = {
    .name = "arm",
    .elf_machine = EM_ARM,
    .word_size = 4,
    .trace_arch = LITIFUT_ARCH_ARM,
    .ld_emulations = arm_emulations,
    .kinds = arm_kinds,
    .n_kinds = N_ARM_KINDS,
    .insn_unit = { 4, 2 },
    .db_page_shift = DB_PAGE_SHIFT,
    .sled_entry_size = SLED_ENTRY_SIZE,
    .sled_entries = SLED_ENTRIES,
    .signal_names = arch_generic_signal_names,
    .code_address_mask = ~1u,                       /* the Thumb bit */
    .counter_clock = LITIFUT_CLOCK_ARM_CNTVCT,
    .counter_clock_name = "the ARM generic timer",
    .counter_clock_info = "counter (ARM CNTVCT)",
    .far_sled_spacing = (uint32_t)THUMB1_REACH,     /* far-sled.S */
    .reloc_relative = R_ARM_RELATIVE,
    .check_image = arm_check_image,
    .code_ranges = arm_code_ranges,
    .disasm_open = arm_disasm_open,
    .scan_begin = arm_scan_begin,
    .scan_end = arm_scan_end,
    .classify = arm_classify,
    .quick = arm_quick,
};
