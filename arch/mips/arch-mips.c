/*
 * MIPS o32 (big and little endian) for every host tool: which code to
 * scan and which instructions are calls.
 *
 * Calls: jal, jalr (linking into ra), bal and the other REGIMM
 * links-to-ra branches (bgezal, bltzal and their likely forms); a
 * jalr $t9 whose $t9 the function loaded from a GOT slot that the link
 * fixed is "jalr-got", a call with a fixed target (got_call).  The
 * delay slot stays where it is and still runs once, before the callee:
 * the replacement is itself a linking branch with a delay slot.  How a
 * call is redirected is rewrite-mips.c; reading rewritten code and the
 * PLT, read-mips.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include "arch/mips/host-mips.h"
#include "lib/sites.h"
#include "lib/error.h"
#include "litifut/trace-format.h"

extern const struct arch_ops arch_mips;

static const struct call_kind mips_kinds[] = {
    { "jal", RA_OFFSET, 0, 0, 0 }, { "jalr", RA_OFFSET, 0, 0, 0 }, { "bal", RA_OFFSET, 0, 0, 0 },
    { "bgezal", RA_OFFSET, 0, 0, 0 }, { "bltzal", RA_OFFSET, 0, 0, 0 },
    { "bgezall", RA_OFFSET, 0, 0, 0 }, { "bltzall", RA_OFFSET, 0, 0, 0 },
    { "jalr-got", RA_OFFSET, 0, 0, 0 },
    /* tail jumps: their thunks make them calls from the jump (host-mips.h) */
    { "j_jump", RA_OFFSET, 0, JUMP_THUNK_SIZE, 1 }, { "b_jump", RA_OFFSET, 0, JUMP_THUNK_SIZE, 1 },
    { "jr-got_jump", RA_OFFSET, 0, JUMP_THUNK_SIZE, 1 },
    { "jr_jump", RA_OFFSET, 0, REGJUMP_SIZE, 1 },     /* through a register */
};
static const struct ld_emulation mips_emulations[] = {
    { "elf32btsmip", "mips-linux-gnu" },
    { "elf32ltsmip", "mipsel-linux-gnu" },
    { NULL, NULL },
};


#ifndef EF_MIPS_ARCH_32R6
#define EF_MIPS_ARCH_32R6 0x90000000
#define EF_MIPS_ARCH_64R6 0xa0000000
#endif
#define STO_MIPS16_MASK  0xf0
#define STO_MICROMIPS_   0x80

static int is_jalr(uint32_t w)
{
    return op_of(w) == 0 && (w & 0x3f) == 9 && rd_of(w) != 0;
}

static int mips_check_image(const struct elf_image *img)
{
    if (img->e_flags & EF_MIPS_ABI2)
        return error("%s: n32 ABI: only o32 is supported", img->path);
    if ((img->e_flags & EF_MIPS_ARCH) == EF_MIPS_ARCH_32R6 ||
        (img->e_flags & EF_MIPS_ARCH) == EF_MIPS_ARCH_64R6)
        return error("%s: MIPS release 6 is not supported", img->path);
    return 0;
}

static int range_cmp(const void *a, const void *b)
{
    const struct code_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Bytes of code in [from, to), outside the ranges ex[n] (sorted,
 * merged): words that are not zero (the linker's fill and alignment
 * padding are zeros; so is nop, but no function is all nops). */
static uint64_t code_outside(const struct elf_image *img, uint64_t from, uint64_t to,
                             const struct code_range *ex, size_t n)
{
    from &= ~(uint64_t)3;
    const unsigned char *p = to > from ? elf_bytes_at(img, from, to - from) : NULL;
    if (!p)
        return 0;                   /* (not in the file: the scan says so) */
    uint64_t bytes = 0;
    size_t i = 0;
    for (uint64_t a = from; a + 4 <= to; a += 4, p += 4) {
        while (i < n && ex[i].end <= a)
            i++;
        if (i < n && ex[i].start <= a)
            continue;
        bytes += (p[0] | p[1] | p[2] | p[3]) ? 4 : 0;
    }
    return bytes;
}

/* MIPS has no mapping symbols: the code is the functions' [value,
 * value + size) in executable sections.  MIPS16 and microMIPS
 * functions are left alone; the PLT and lazy-binding stubs too.  Code
 * outside any function is counted, but for what `ex` excludes (the
 * tracer's sleds and island, which have no function symbols) and the
 * zeros between sections and functions. */
static int mips_code_ranges(const struct elf_image *img, const struct exclusions *ex,
                            struct code_range **out, size_t *n, struct scan_stats *st)
{
    if (!img->has_symtab)
        return error("%s: no symbol table (stripped?): MIPS code is found by its "
                     "function symbols", img->path);
    *out = NULL;
    *n = 0;
    struct code_range *r = xcalloc(img->n_symbols, sizeof *r);
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (s->type != SHT_PROGBITS || (s->flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
                                           (SHF_ALLOC | SHF_EXECINSTR) || !s->size)
            continue;
        if (strcmp(s->name, ".MIPS.stubs") == 0 || strcmp(s->name, ".plt") == 0) {
            stats_skip(st, "PLT and lazy-binding stubs", s->size);
            continue;
        }
        size_t m = 0;
        for (size_t i = 0; i < img->n_symbols; i++) {
            const struct elf_symbol *y = &img->symbols[i];
            if (y->shndx != s->index || y->type != STT_FUNC)
                continue;
            if (!y->size) {
                stats_skip(st, "functions without a size", 0);
                continue;
            }
            if ((y->other & STO_MIPS16_MASK) == STO_MIPS16_MASK || (y->other & STO_MICROMIPS_) ||
                (y->value & 1)) {
                stats_skip(st, "MIPS16 and microMIPS functions", y->size);
                continue;
            }
            /* ELF32 (arch_of_image): the end in 32 bits, as it always was */
            r[m++] = (struct code_range){ y->value, (uint32_t)(y->value + y->size), ISA_MAIN };
        }
        qsort(r, m, sizeof *r, range_cmp);
        struct code_range *excl = NULL;
        size_t n_excl = 0, first = *n;
        if (ex)
            exclusions_for_section(ex, s, &excl, &n_excl);
        uint64_t outside = 0, pos = s->addr;
        for (size_t i = 0; i < m; i++) {
            if (*n > first && r[i].start < (*out)[*n - 1].end) {   /* overlap: aliases */
                if (r[i].end > (*out)[*n - 1].end)
                    (*out)[*n - 1].end = r[i].end;
                continue;
            }
            if (r[i].start > pos)
                outside += code_outside(img, pos, r[i].start, excl, n_excl);
            *out = xrealloc(*out, (*n + 1) * sizeof **out);
            (*out)[(*n)++] = r[i];
            pos = r[i].end;
        }
        if (*n > first && (*out)[*n - 1].end > pos)
            pos = (*out)[*n - 1].end;
        if (s->addr + s->size > pos)
            outside += code_outside(img, pos, s->addr + s->size, excl, n_excl);
        free(excl);
        if (outside)
            stats_skip(st, "code outside any function", outside);
    }
    free(r);
    return 0;
}

static int mips_disasm_open(const struct elf_image *img, unsigned isa, csh *handle)
{
    (void)isa;
    cs_mode mode = CS_MODE_MIPS32 | (img->big_endian ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN);
    if (cs_open(CS_ARCH_MIPS, mode, handle) != CS_ERR_OK)
        return error("capstone: cannot open the MIPS disassembler");
    cs_option(*handle, CS_OPT_DETAIL, CS_OPT_ON);
    return 0;
}

/* The general register an instruction writes: 0 if none, -1 if this
 * decoder does not know the instruction (then assume it may write any). */
static int gpr_written(uint32_t w)
{
    unsigned op = op_of(w), funct = w & 63;
    switch (op) {
    case 0:                                     /* SPECIAL */
        if (funct == 8 || funct == 12 || funct == 13 || funct == 15 || funct == 0x11 ||
            funct == 0x13 || (funct >= 0x18 && funct <= 0x1b) || (funct >= 0x30 && funct <= 0x36))
            return 0;                           /* jr, syscall, break, sync, mthi/lo, mult/div, traps */
        return rd_of(w);
    case 1:                                     /* REGIMM */
        return is_regimm_link(w) ? 31 : 0;
    case 2: case 4: case 5: case 6: case 7:     /* j, branches */
    case 0x14: case 0x15: case 0x16: case 0x17:
        return 0;
    case 3:
        return 31;
    case 0x1c:                                  /* SPECIAL2: mul, clz, clo; madd... */
        return funct == 2 || funct == 0x20 || funct == 0x21 ? (int)rd_of(w) : 0;
    case 0x1f:                                  /* SPECIAL3: ext, ins (rt); bshfl (rd) */
        return funct == 0x20 ? (int)rd_of(w) : (int)rt_of(w);
    case 0x11:                                  /* COP1: mfc1, cfc1, mfhc1 */
        return rs_of(w) == 0 || rs_of(w) == 2 || rs_of(w) == 3 ? (int)rt_of(w) : 0;
    case 0x13:                                  /* COP1X: madd.d, lwxc1, swxc1, prefx...: */
        return 0;                               /* FPRs and memory only */
    case 0x28: case 0x29: case 0x2a: case 0x2b: case 0x2e:      /* stores */
    case 0x31: case 0x35: case 0x39: case 0x3d: case 0x33:      /* fp loads/stores, pref */
        return 0;
    default:
        if ((op >= 8 && op <= 15) || (op >= 0x20 && op <= 0x26) || op == 0x30 || op == 0x38)
            return rt_of(w);                    /* immediates, loads, ll, sc */
        return -1;
    }
}

/* An instruction that capstone names `id`. */
static int classify_id(unsigned id, uint32_t addr, uint32_t w, uint32_t next, int has_next,
                       struct call_site *site, struct scan_stats *st)
{
    site->insn = w;
    switch (id) {
    case MIPS_INS_JAL:
        if (!is_jal(w))
            break;
        site->kind = KIND_JAL;
        return 1;
    case MIPS_INS_JALR:
        if (!is_jalr(w))
            return 0;                           /* jalr $zero: a jump */
        if (rd_of(w) != 31) {
            /* the redirecting branch links into ra, which this call keeps */
            stats_untraced(st, addr, "jalr linking into a register other than ra", 4);
            return 0;
        }
        if (!has_next || gpr_written(next) < 0 || gpr_written(next) == (int)rs_of(w)) {
            /* the tracer reads the target register after the delay slot ran */
            stats_untraced(st, addr, "jalr whose delay slot may change its target register", 4);
            return 0;
        }
        site->kind = KIND_JALR;
        return 1;
    case MIPS_INS_JALR_HB:
        stats_untraced(st, addr, "jalr.hb (hazard barrier)", 4);
        return 0;
    case MIPS_INS_JALX:
        stats_untraced(st, addr, "jalx (to MIPS16/microMIPS)", 4);
        return 0;
    case MIPS_INS_BAL:
    case MIPS_INS_BGEZAL:
    case MIPS_INS_BLTZAL:
    case MIPS_INS_BGEZALL:
    case MIPS_INS_BLTZALL:
        if (!is_regimm_link(w))
            break;
        if ((w & 0xffff) == 1) {
            /* bal .+8 reads the pc (static glibc's __syscall_error: gp from
             * ra): nothing returns to it, and a hooked ra would be wrong */
            stats_untraced(st, addr, "bal to the instruction after its delay slot (reads the pc)", 4);
            return 0;
        }
        switch (rt_of(w)) {
        case 16: site->kind = KIND_BLTZAL; break;
        case 17: site->kind = rs_of(w) == 0 ? KIND_BAL : KIND_BGEZAL; break;
        case 18: site->kind = KIND_BLTZALL; break;
        default: site->kind = KIND_BGEZALL; break;
        }
        return 1;
    default:
        return 0;
    }
    stats_untraced(st, addr, "calls capstone decodes differently", 4);
    return 0;
}

static int mips_classify(void *state, const cs_insn *insn, unsigned isa, uint32_t w,
                         uint32_t next, int has_next, struct call_site *site,
                         struct scan_stats *st)
{
    (void)state;
    (void)isa;
    return classify_id(insn->id, (uint32_t)insn->address, w, next, has_next, site, st);
}

/* What capstone would name an instruction, where its bits say it
 * plainly: every word but the few kinds of call; those in their usual
 * encodings (any other goes to capstone).  So a scan decodes no
 * instruction with capstone in the common case. */
static unsigned mips_quick(void *state, unsigned isa, uint64_t link_addr, uint32_t w,
                           uint32_t next, int has_next, struct call_site *site, int *found,
                           struct scan_stats *st)
{
    uint32_t addr = (uint32_t)link_addr;        /* ELF32: arch_of_image */
    (void)state;
    (void)isa;
    unsigned op = op_of(w), id;
    if (op == 3)
        id = MIPS_INS_JAL;
    else if (op == 0 && (w & 63) == 9 && rt_of(w) == 0 && ((w >> 6) & 31) == 0)
        id = MIPS_INS_JALR;
    else if (op == 0 && (w & 63) == 9 && rt_of(w) == 0 && ((w >> 6) & 31) == 16)
        id = MIPS_INS_JALR_HB;
    else if (op == 0x1d)
        id = MIPS_INS_JALX;
    else if (op == 1 && rt_of(w) == 17)
        id = rs_of(w) == 0 ? MIPS_INS_BAL : MIPS_INS_BGEZAL;
    else if (op == 1 && rt_of(w) == 16)
        id = MIPS_INS_BLTZAL;
    else if (op == 1 && rt_of(w) == 18)
        id = MIPS_INS_BLTZALL;
    else if (op == 1 && rt_of(w) == 19)
        id = MIPS_INS_BGEZALL;
    else if (op == 0 && (w & 63) == 9)
        return 0;                       /* an unusual jalr: capstone says */
    else if (is_j(w) || is_b(w) || (is_jr(w) && rs_of(w) != 31 && rs_of(w) != 0)) {
        /* a tail jump, maybe: scan_end says (it knows the functions) */
        site->insn = w;
        site->kind = is_j(w) ? KIND_J_JUMP : is_b(w) ? KIND_B_JUMP
                   : is_jr_t9(w) ? KIND_JR_GOT_JUMP : KIND_JR_JUMP;
        site->addr = addr;
        *found = 1;
        return 4;
    } else {
        *found = 0;
        return 4;
    }
    *found = classify_id(id, addr, w, next, has_next, site, st);
    if (*found)
        site->addr = addr;
    return 4;
}

/*
 * jalr $t9 calls whose callee the link fixed (scan_end).  o32 PIC code
 * calls through the GOT: `lw t9, N(gp)` (maybe `addiu t9, t9, lo`, a
 * local function's page entry), then `jalr t9`.  Where the slot's value
 * is known at link time the call is redirected as one with a fixed
 * target: the record needs no target, the hot path no register.  Known
 * means, for a slot of the primary GOT (the dynamic tags describe no
 * other: a multi-GOT link's secondary GOTs are left alone):
 *   - a local entry (a link-time address, which the loader moves with
 *     the object, as the site word's relative target moves too);
 *   - a global entry of a symbol the object defines, in an executable
 *     (it comes first in every lookup), or in a library if the symbol
 *     cannot be preempted (hidden or protected, or -Bsymbolic);
 *   - in a static program, the word the file holds.
 * The callee must be a function of this image's code.  gp is the
 * function's own, from its prologue (`lui gp, hi; addiu gp, gp, lo`
 * and, PIC, `addu gp, gp, t9`, t9 being the function's address at its
 * entry); a function that sets gp any other way than that and the
 * reload of its saved copy (`lw gp, N(sp)`) is left alone.  The load
 * must be in the same straight run as the call: no branch, jump or
 * call between them, nothing else writing t9 or gp, and no place in
 * between that a branch of the function or a word of read-only data
 * (a jump table: addresses, or gp-relative .gpword) could enter.
 */
#ifndef DT_MIPS_LOCAL_GOTNO
#define DT_MIPS_LOCAL_GOTNO 0x7000000a
#define DT_MIPS_SYMTABNO    0x70000011
#define DT_MIPS_GOTSYM      0x70000013
#endif

struct got_info {
    uint64_t got, local_gotno, gotsym, symtabno;    /* from .dynamic */
    int have_dynamic, symbolic;
    struct addr_set entries;    /* words of allocated data: addresses that may enter code */
};

static void got_info_read(const struct elf_image *img, struct got_info *g)
{
    memset(g, 0, sizeof *g);
    /* (not the instruction DB's words: pass 1 links a placeholder, and
     * both passes must find the same sites) */
    const struct elf_symbol *db = elf_symbol_by_name(img, "litifut_db");
    uint64_t db_lo = db ? db->value : 0, db_size = db ? db->size : 0;
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (s->type == SHT_DYNAMIC) {
            if (s->offset > img->size || s->size > img->size - s->offset)
                continue;
            const unsigned char *p = img->data + s->offset;
            g->have_dynamic = 1;
            for (uint64_t o = 0; o + 8 <= s->size; o += 8) {
                uint32_t tag = elf_get32(img, p + o), val = elf_get32(img, p + o + 4);
                if (tag == DT_NULL)
                    break;
                if (tag == DT_PLTGOT) g->got = val;
                else if (tag == DT_MIPS_LOCAL_GOTNO) g->local_gotno = val;
                else if (tag == DT_MIPS_GOTSYM) g->gotsym = val;
                else if (tag == DT_MIPS_SYMTABNO) g->symtabno = val;
                else if (tag == DT_SYMBOLIC) g->symbolic = 1;
                else if (tag == DT_FLAGS && (val & DF_SYMBOLIC)) g->symbolic = 1;
            }
            continue;
        }
        /* words of allocated data that could be code addresses or
         * gp-relative ones (a jump table's): every word, as it is;
         * data_enters tries it both ways.  Not the unwind tables': no
         * jump table lies there, and their pc-relative words change
         * between the two links (the DB before them grows), so that one
         * link's could read as a jump into a call's range and the
         * other's not */
        if ((s->flags & SHF_ALLOC) && !(s->flags & SHF_EXECINSTR) && s->type == SHT_PROGBITS &&
            s->size >= 4 && strcmp(s->name, ".eh_frame") != 0 &&
            strcmp(s->name, ".eh_frame_hdr") != 0 && strcmp(s->name, ".gcc_except_table") != 0) {
            const unsigned char *p = elf_bytes_at(img, s->addr, s->size);
            if (!p)
                continue;
            for (uint64_t o = 0; o + 4 <= s->size; o += 4)
                if (s->addr + o - db_lo >= db_size)
                    addr_set_add(&g->entries, elf_get32(img, p + o));
        }
    }
    addr_set_sort(&g->entries);
}

/* 1 if a word of data, as an address or gp-relative, lies in (lo, hi]. */
static int data_enters(const struct got_info *g, uint32_t lo, uint32_t hi, uint32_t gp)
{
    const struct addr_set *e = &g->entries;
    for (int rel = 0; rel < 2; rel++) {
        uint32_t a = lo + 1 - (rel ? gp : 0), span = hi - lo;   /* [a, a + span): may wrap */
        size_t l = addr_set_lower_bound(e, a);
        if (l < e->n && e->v[l] - a < span)
            return 1;
        if (a + span < a && e->n && e->v[0] < a + span)
            return 1;                       /* (the range wrapped) */
    }
    return 0;
}

/* A direct branch's or j's target, if w is one (0 else: jal, a call,
 * enters no function's middle). */
static uint32_t direct_target(uint32_t a, uint32_t w)
{
    unsigned op = op_of(w);
    if (op == 2)
        return mips_jal_target(a, w);
    return op != 0 && op != 3 && is_jump_or_branch(w) ? mips_branch_target(a, w) : 0;
}

/* The function's gp, from its prologue; 0 if it sets gp otherwise. */
static int function_gp(const struct elf_image *img, uint32_t start, uint32_t size, int pic,
                       uint32_t *gp)
{
    const unsigned char *p = elf_bytes_at(img, start, size);
    if (!p)
        return 0;
    int hi = -1, lo = -1, add = -1;
    uint32_t v = 0;
    for (uint32_t o = 0; o + 4 <= size; o += 4) {
        uint32_t w = elf_get32(img, p + o);
        int wr = gpr_written(w);
        if (wr != 28 && wr >= 0)
            continue;
        if (wr < 0)
            return 0;
        if (op_of(w) == 0x0f && hi < 0 && o < 48) {                 /* lui gp, hi */
            hi = (int)o, v = (w & 0xffff) << 16;
        } else if (op_of(w) == 9 && rs_of(w) == 28 && hi >= 0 && lo < 0 && o < 48) {
            lo = (int)o, v += (uint32_t)(int32_t)(int16_t)(w & 0xffff);     /* addiu gp, gp, lo */
        } else if (op_of(w) == 0 && (w & 63) == 0x21 && rd_of(w) == 28 && lo >= 0 && add < 0 &&
                   o < 48 && ((rs_of(w) == 28 && rt_of(w) == 25) || (rs_of(w) == 25 && rt_of(w) == 28))) {
            add = (int)o, v += start;                               /* addu gp, gp, t9 */
        } else if (!(op_of(w) == 0x23 && rs_of(w) == 29 && lo >= 0)) {  /* lw gp, N(sp) */
            return 0;
        }
    }
    if (lo < 0 || (pic && add < 0))
        return 0;                   /* (without the addu: _gp itself, an ET_EXEC's) */
    *gp = v;
    return 1;
}

/* The fixed callee of GOT slot `slot`, or 0. */
static uint32_t got_callee(const struct elf_image *img, const struct got_info *g, uint32_t slot)
{
    uint32_t word;
    if (elf_read32(img, slot, &word) != 0 || !word)
        return 0;
    if (!g->have_dynamic)
        return img->e_type == ET_EXEC ? word : 0;       /* static: the file's word is final */
    if (slot < g->got || (slot - g->got) % 4)
        return 0;
    uint64_t i = (slot - g->got) / 4;
    if (i < 2)
        return 0;                           /* the loader's own entries */
    if (i < g->local_gotno)
        return word;
    uint64_t sym = g->gotsym + (i - g->local_gotno);
    if (sym >= g->symtabno || sym >= img->n_dynsyms)
        return 0;                           /* past the primary GOT */
    const struct elf_symbol *y = &img->dynsyms[sym];
    if (y->shndx == SHN_UNDEF || y->type != STT_FUNC || y->value != word)
        return 0;
    if (elf_image_is_library(img) && !g->symbolic && ELF32_ST_VISIBILITY(y->other) != STV_PROTECTED &&
        ELF32_ST_VISIBILITY(y->other) != STV_HIDDEN)
        return 0;                           /* another object's may preempt it */
    return word;
}

/* What the look at jalr $t9 calls needs, made at the first one
 * (readers of a rewritten object seldom meet any). */
struct mips_scan {
    struct function_index fx;
    struct got_info got;
    struct addr_set targets;    /* every direct branch's and j's target in the code */
    const struct indexed_function *last;    /* the last function looked at, */
    int last_ok;                /* whether its gp is known, */
    uint32_t last_gp;           /* and which */
};

static void mips_scan_make(struct mips_scan *m, const struct elf_image *img)
{
    function_index_build(img, &m->fx);
    got_info_read(img, &m->got);
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        const unsigned char *p = s->type == SHT_PROGBITS && (s->flags & SHF_EXECINSTR)
                                 ? elf_bytes_at(img, s->addr, s->size) : NULL;
        for (uint64_t o = 0; p && o + 4 <= s->size; o += 4) {
            uint32_t t = direct_target((uint32_t)(s->addr + o), elf_get32(img, p + o));
            if (t)
                addr_set_add(&m->targets, t);
        }
    }
    addr_set_sort(&m->targets);
}

/* GOT slot `slot`'s function of another object (an undefined function
 * symbol of the primary GOT): its index in the dynamic symbols + 1, or 0. */
static uint32_t got_import(const struct elf_image *img, const struct got_info *g, uint32_t slot)
{
    if (!g->have_dynamic || slot < g->got || (slot - g->got) % 4)
        return 0;
    uint64_t i = (slot - g->got) / 4;
    if (i < g->local_gotno)
        return 0;
    uint64_t sym = g->gotsym + (i - g->local_gotno);
    if (sym >= g->symtabno || sym >= img->n_dynsyms)
        return 0;
    const struct elf_symbol *y = &img->dynsyms[sym];
    return y->shndx == SHN_UNDEF && y->type == STT_FUNC ? (uint32_t)sym + 1 : 0;
}

/* jalr $t9 at `a` in function f: its fixed callee, or 0 (then *import:
 * the other object's function its GOT slot names, got_import, or 0). */
static uint32_t got_call(const struct elf_image *img, struct mips_scan *m,
                         const struct indexed_function *f, uint32_t a, uint32_t *import)
{
    *import = 0;
    uint32_t start = (uint32_t)f->start, size = (uint32_t)f->size, gp;
    if (f != m->last) {
        m->last = f;
        m->last_ok = function_gp(img, start, size, img->e_type != ET_EXEC, &m->last_gp);
    }
    if (!m->last_ok)
        return 0;
    gp = m->last_gp;
    const unsigned char *p = elf_bytes_at(img, start, size);
    int32_t addend = 0;
    int seen_addiu = 0;
    uint32_t load = 0, slot = 0;
    for (uint32_t b = a; b > start && a - b < 4 * 64; ) {
        b -= 4;
        uint32_t w = elf_get32(img, p + (b - start));
        if (is_jump_or_branch(w))
            return 0;
        if (op_of(w) == 0x23 && rt_of(w) == 25 && rs_of(w) == 28) {         /* lw t9, N(gp) */
            if (b > start && is_jump_or_branch(elf_get32(img, p + (b - 4 - start))))
                return 0;                   /* in a delay slot (a likely branch's may not run) */
            load = b, slot = gp + (uint32_t)(int32_t)(int16_t)(w & 0xffff);
            break;
        }
        int wr = gpr_written(w);
        if (op_of(w) == 9 && rt_of(w) == 25 && rs_of(w) == 25 && !seen_addiu) {  /* addiu t9, t9, lo */
            seen_addiu = 1, addend = (int16_t)(w & 0xffff);
            continue;
        }
        if (wr < 0 || wr == 25 || wr == 28)
            return 0;
    }
    if (!load)
        return 0;
    /* nothing may enter between the load and the call */
    size_t t = addr_set_lower_bound(&m->targets, load + 1);
    if (t < m->targets.n && m->targets.v[t] <= a)
        return 0;
    if (data_enters(&m->got, load, a, gp))
        return 0;
    uint32_t callee = got_callee(img, &m->got, slot);
    if (!callee) {
        *import = addend ? 0 : got_import(img, &m->got, slot);
        return 0;
    }
    callee += (uint32_t)addend;
    const struct indexed_function *c = function_index_find(&m->fx, callee);
    if (!c || c->start != callee || (c->sym->other & STO_MIPS16_MASK) == STO_MIPS16_MASK ||
        (c->sym->other & STO_MICROMIPS_))
        return 0;                           /* not a function's start of this image */
    return callee;
}

/* Where a tail jump candidate goes (jr $t9: its fixed GOT callee, or
 * 0); a jump to the thunk area is one rewritten already. */
static uint32_t jump_target(const struct elf_image *img, struct mips_scan *m,
                            const struct call_site *s)
{
    uint32_t a = (uint32_t)s->addr;
    if (s->kind == KIND_J_JUMP)
        return mips_jal_target(a, s->insn);
    if (s->kind == KIND_B_JUMP)
        return mips_branch_target(a, s->insn);
    const struct indexed_function *f = function_index_find(&m->fx, a);
    uint32_t import;
    return f ? got_call(img, m, f, a, &import) : 0;
}


/* Whether jr rs (`w` at `a`, no fixed callee) may be a tail jump
 * through a register: register_jump_at's rules; not a switch of PIC
 * code (its table's gp-relative word added to gp right before: addu rs,
 * rX, gp); its delay slot writes no rs (the thunk reads rs after it
 * ran). */
static int register_jump_through(const struct elf_image *img, const struct tail_targets *tt,
                                 uint32_t a, uint32_t w)
{
    uint32_t prev, next;
    unsigned rs = rs_of(w);
    if (!register_jump_at(tt, a) || elf_read32(img, a + 4, &next) || gpr_written(next) < 0 ||
        gpr_written(next) == (int)rs)
        return 0;
    if (a >= 4 && !elf_read32(img, a - 4, &prev) && op_of(prev) == 0 && (prev & 63) == 0x21 &&
        rd_of(prev) == rs && (rs_of(prev) == 28 || rt_of(prev) == 28))
        return 0;
    return 1;
}

/* A tail jump from `a` reaches every thunk in [lo, hi): b +-128 KB, or
 * at a fixed address j in the 256 MB region of its delay slot. */
static int jump_reaches(const struct elf_image *img, uint32_t a, uint32_t lo, uint32_t hi)
{
    int64_t d0 = (int64_t)lo - (int64_t)(a + 4), d1 = (int64_t)hi - (int64_t)(a + 4);
    if (d0 >= -(INT64_C(1) << 17) && d1 < (INT64_C(1) << 17))
        return 1;
    return img->e_type == ET_EXEC && ((a + 4) & 0xf0000000u) == (lo & 0xf0000000u) &&
           ((a + 4) & 0xf0000000u) == (hi & 0xf0000000u);
}

static void mips_scan_end(void *state, const struct elf_image *img, struct site_list *sites,
                          struct scan_stats *st)
{
    (void)state;
    struct mips_scan scan, *m = NULL;
    struct tail_targets tt;
    size_t jumps = 0;
    for (size_t i = 0; i < sites->n; i++)
        jumps += mips_kinds[sites->v[i].kind].jump;
    if (jumps) {
        memset(&scan, 0, sizeof scan);
        mips_scan_make(m = &scan, img);
        tail_targets_build(img, &arch_mips, &m->fx, &tt);
    }
    /* every thunk lies in [area, area + the candidates' thunks) */
    uint32_t area = (uint32_t)image_code_end(img), area_end = area + (uint32_t)jumps * JUMP_THUNK_SIZE;
    size_t k = 0;
    for (size_t i = 0; i < sites->n; i++) {
        struct call_site *s = &sites->v[i];
        if (mips_kinds[s->kind].jump) {
            uint32_t to = s->kind == KIND_JR_JUMP ? 0 : jump_target(img, m, s);
            enum tail_jump tj = to ? tail_jump_at(&tt, s->addr, to) : NOT_TAIL_JUMP;
            if (!to && is_jr(s->insn)) {
                /* jr rs with no fixed callee: through a register */
                if (!register_jump_through(img, &tt, (uint32_t)s->addr, s->insn)) {
                    st->sites_by_kind[s->kind]--;
                    continue;
                }
                st->sites_by_kind[s->kind]--;
                st->sites_by_kind[s->kind = KIND_JR_JUMP]++;
                tj = TAIL_JUMP;
            }
            if (tj == NOT_TAIL_JUMP) {
                st->sites_by_kind[s->kind]--;           /* a branch, or no fixed callee */
                continue;
            }
            if (tj == TAIL_JUMP && !jump_reaches(img, (uint32_t)s->addr, area, area_end)) {
                st->sites_by_kind[s->kind]--;
                stats_skip(st, "tail jumps beyond reach of the thunk area", 4);
                continue;
            }
            if (s->kind == KIND_JR_GOT_JUMP)
                s->target = to;
        } else if (s->kind == KIND_JALR && rs_of(s->insn) == 25) {
            if (!m) {
                memset(&scan, 0, sizeof scan);
                mips_scan_make(m = &scan, img);
                tail_targets_build(img, &arch_mips, &m->fx, &tt);
            }
            const struct indexed_function *f = function_index_find(&m->fx, s->addr);
            uint32_t import = 0;
            uint32_t callee = f ? got_call(img, m, f, (uint32_t)s->addr, &import) : 0;
            s->callee_sym = import;
            if (callee) {
                s->kind = KIND_JALR_GOT;
                s->target = callee;
                st->sites_by_kind[KIND_JALR]--;
                st->sites_by_kind[KIND_JALR_GOT]++;
            }
        }
        sites->v[k++] = *s;
    }
    sites->n = k;
    if (m) {
        tail_targets_free(&tt);
        function_index_free(&m->fx);
        free(m->got.entries.v);
        free(m->targets.v);
    }
}

/* The MIPS kernel's own signal numbering (arch/mips/include/uapi/asm/signal.h). */
static const char *const mips_signal_names[32] = {
    NULL, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "EMT", "FPE", "KILL", "BUS", "SEGV",
    "SYS", "PIPE", "ALRM", "TERM", "USR1", "USR2", "CHLD", "PWR", "WINCH", "URG", "IO",
    "STOP", "TSTP", "CONT", "TTIN", "TTOU", "VTALRM", "PROF", "XCPU", "XFSZ",
};

/* MIPS numbers the errors above 34 otherwise than the generic ABI:
 * EDQUOT (1133) as the host's, the others none. */
static uint32_t mips_host_errno(uint32_t err)
{
    if (err == 1133)
        return EDQUOT;
    return err > 34 ? 0 : err;      /* (the numbers below 35 are the same everywhere) */
}

const struct arch_ops arch_mips = {
    .name = "mips",
    .elf_machine = EM_MIPS,
    .word_size = 4,
    .trace_arch = LITIFUT_ARCH_MIPS,
    .ld_emulations = mips_emulations,
    .kinds = mips_kinds,
    .n_kinds = N_MIPS_KINDS,
    .insn_unit = { 4, 0 },
    .db_page_shift = DB_PAGE_SHIFT,
    .sled_entry_size = SLED_ENTRY_SIZE,
    .sled_entries = SLED_ENTRIES,
    .bridge_offset = BRIDGE_OFFSET,
    .signal_names = mips_signal_names,
    .host_errno = mips_host_errno,
    .code_address_mask = ~1u,                       /* the MIPS16 / microMIPS mode bit */
    .counter_clock = LITIFUT_CLOCK_MIPS_CC,
    .counter_clock_name = "the MIPS cycle counter",
    .counter_clock_info = "counter (MIPS CC)",
    .reloc_relative = R_MIPS_REL32,
    .check_image = mips_check_image,
    .code_ranges = mips_code_ranges,
    .disasm_open = mips_disasm_open,
    .scan_end = mips_scan_end,
    .classify = mips_classify,
    .quick = mips_quick,
};
