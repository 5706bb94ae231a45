/*
 * --auto-args' prototypes from DWARF (protos.h): a function's formal
 * parameters (names, types through typedefs and qualifiers), placed in
 * registers as the target's procedure call standard places them (its
 * struct call_abi: arch/<arch>/read-<arch>.c), so that "argN" and
 * "fpargN" get their parameter's name: integers and pointers in
 * argument words (a 64-bit one on a 32-bit target in an even pair),
 * floats and doubles in words too, or in a bank of their own (the Nth
 * in vN-1), or VFP's s0-s15/d0-d7 with back-filling.
 * A struct, union or array by value, varargs or an integer wider than
 * a word ends the placing (what follows stays unnamed: guessed wrong
 * would be worse); a struct returned by value may take the first word
 * (its hidden pointer).  Types become include/litifut/protos.h's
 * letters.
 */
#include <dwarf.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include "postproc/reader/protos.h"
#include "lib/arch-read.h"
#include "lib/error.h"

#define MAX_INT_REGS 8
#define MAX_FP_REGS 16              /* (armhf's s0-s15) */

/* A type's class for placing, and its letter. */
enum type_class { CLASS_INT, CLASS_WIDE, CLASS_FLOAT, CLASS_DOUBLE, CLASS_AGGREGATE, CLASS_VOID };

static enum type_class type_of(Dwarf_Die *owner, unsigned ws, char *letter)
{
    Dwarf_Attribute a;
    Dwarf_Die t, peeled;
    *letter = '?';
    if (!dwarf_attr_integrate(owner, DW_AT_type, &a)) {
        *letter = 'v';
        return CLASS_VOID;
    }
    if (!dwarf_formref_die(&a, &t) || dwarf_peel_type(&t, &peeled) != 0)
        return CLASS_AGGREGATE;     /* (unreadable: stop placing) */
    int size = dwarf_bytesize(&peeled);
    Dwarf_Word enc = 0;
    switch (dwarf_tag(&peeled)) {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
    case DW_TAG_ptr_to_member_type:
        *letter = 'p';
        return CLASS_INT;
    case DW_TAG_enumeration_type:
        if (size > 0 && (unsigned)size > ws)
            return CLASS_WIDE;
        *letter = 'i';
        return CLASS_INT;
    case DW_TAG_base_type:
        if (!dwarf_attr_integrate(&peeled, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) != 0 ||
            size <= 0)
            return CLASS_AGGREGATE;
        if (enc == DW_ATE_float)
            return size == 4 ? CLASS_FLOAT : size == 8 ? CLASS_DOUBLE : CLASS_AGGREGATE;
        if ((unsigned)size > ws)
            return CLASS_WIDE;
        if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char)
            *letter = 'c';
        else if (enc == DW_ATE_signed)
            *letter = (unsigned)size == ws && ws == 8 ? 'l' : 'i';
        else if (enc == DW_ATE_unsigned || enc == DW_ATE_boolean || enc == DW_ATE_UTF)
            *letter = (unsigned)size == ws && ws == 8 ? 'z' : 'u';
        return CLASS_INT;
    default:
        return CLASS_AGGREGATE;
    }
}

struct find {
    Dwarf_Addr addr;
    Dwarf_Die die;
    int found;
};

static int find_func(Dwarf_Die *die, void *arg)
{
    struct find *f = arg;
    Dwarf_Addr pc;
    if ((dwarf_entrypc(die, &pc) == 0 || dwarf_lowpc(die, &pc) == 0) &&
        (pc == f->addr || pc == (f->addr & ~(Dwarf_Addr)1))) {
        f->die = *die;
        f->found = 1;
        return DWARF_CB_ABORT;
    }
    return DWARF_CB_OK;
}

static char *join(char *const *v, unsigned n)
{
    size_t len = 1;
    for (unsigned i = 0; i < n; i++)
        len += (v[i] ? strlen(v[i]) : 0) + 1;
    char *s = xmalloc(len), *p = s;
    for (unsigned i = 0; i < n; i++) {
        if (i)
            *p++ = ',';
        size_t k = v[i] ? strlen(v[i]) : 0;
        memcpy(p, v[i] ? v[i] : "", k);
        p += k;
    }
    *p = 0;
    return s;
}

/* A name as a list item: no ',' or control character in it. */
static char *item(const char *name)
{
    if (!name)
        return NULL;
    char *s = xstrdup(name);
    for (char *c = s; *c; c++)
        if (*c == ',' || (unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '_';
    return s;
}

struct func_proto *dwarf_func_proto(struct srclines *s, struct object *o, uint64_t addr)
{
    Dwarf *dw = srclines_dwarf(s, o);
    Dwarf_Die cu;
    if (!dw || !dwarf_addrdie(dw, addr, &cu))
        return NULL;
    struct find f = { addr, { 0 }, 0 };
    dwarf_getfuncs(&cu, find_func, &f, 0);
    if (!f.found)
        return NULL;
    const struct elf_image *img = &o->img;
    const struct arch_ops *arch = arch_of_image(img);
    const struct arch_read_ops *rops = arch ? arch_read_ops(arch) : NULL;
    if (!rops || !rops->call_abi)
        return NULL;
    struct call_abi abi;
    rops->call_abi(img, &abi);
    unsigned ws = img->word_size;
    int own_bank = abi.fp == CALL_FP_OWN_BANK, vfp = abi.fp == CALL_FP_VFP;
    unsigned n_int = abi.int_regs < MAX_INT_REGS ? abi.int_regs : MAX_INT_REGS;
    char *names[MAX_INT_REGS] = { 0 }, *fp[MAX_FP_REGS] = { 0 }, *fp32[MAX_FP_REGS] = { 0 };
    char types[MAX_INT_REGS + 2] = { 0 };
    memset(types, '?', MAX_INT_REGS + 1);
    char ret;
    enum type_class rc = type_of(&f.die, ws, &ret);
    types[0] = ret;
    unsigned slot = 0, fp_used = 0, placed = 0;    /* fp_used: armhf's s registers taken (bits) */
    if (rc == CLASS_AGGREGATE && abi.struct_return_word)
        slot = 1;                   /* (the hidden pointer of a struct returned by value) */
    if (rc == CLASS_FLOAT || rc == CLASS_DOUBLE || rc == CLASS_WIDE || rc == CLASS_AGGREGATE)
        types[0] = '?';             /* (a float's value says so; the others are not one register) */
    Dwarf_Die p;
    int more = dwarf_child(&f.die, &p) == 0;
    unsigned bank = 0;                  /* (CALL_FP_OWN_BANK: the next one) */
    for (; more; more = dwarf_siblingof(&p, &p) == 0) {
        int tag = dwarf_tag(&p);
        if (tag == DW_TAG_unspecified_parameters)
            break;
        if (tag != DW_TAG_formal_parameter)
            continue;
        char letter;
        enum type_class c = type_of(&p, ws, &letter);
        const char *name = dwarf_diename(&p);
        if (c == CLASS_AGGREGATE || c == CLASS_VOID || c == CLASS_WIDE)
            break;
        if ((c == CLASS_FLOAT || c == CLASS_DOUBLE) && own_bank) {
            if (bank < 8) {
                fp[bank] = item(name);
                fp32[bank] = item(name);
                placed++;
            }
            bank++;
            continue;
        }
        if ((c == CLASS_FLOAT || c == CLASS_DOUBLE) && vfp) {
            unsigned k = 0;
            if (c == CLASS_FLOAT) {         /* the first free s */
                while (k < 16 && (fp_used >> k & 1))
                    k++;
                if (k < 16) {
                    fp_used |= 1u << k;
                    fp32[k] = item(name);
                    placed++;
                }
            } else {                        /* the first free d (an even pair of s) */
                while (k < 8 && (fp_used >> (2 * k) & 3))
                    k++;
                if (k < 8) {
                    fp_used |= 3u << (2 * k);
                    fp[k] = item(name);
                    placed++;
                }
            }
            continue;
        }
        unsigned words = c == CLASS_DOUBLE && ws == 4 ? 2 : 1;
        if (words == 2 && abi.pairs)
            slot = (slot + 1) & ~1u;        /* (an 8-byte value: an even pair) */
        if (slot + words > n_int)
            break;
        if (words == 1 && c == CLASS_INT) {
            names[slot] = item(name);
            types[slot + 1] = letter;
            placed++;
        }
        slot += words;                      /* (a soft-float value: its words unnamed) */
    }
    if (!placed) {
        for (unsigned i = 0; i < MAX_INT_REGS; i++)
            free(names[i]);
        for (unsigned i = 0; i < MAX_FP_REGS; i++)
            free(fp[i]), free(fp32[i]);
        return NULL;
    }
    struct func_proto *fpr = xcalloc(1, sizeof *fpr);
    fpr->names = join(names, n_int);
    fpr->fp_names = join(fp, 8);
    fpr->fp32_names = join(fp32, 16);
    types[n_int + 1] = 0;
    fpr->types = xstrdup(types);
    for (unsigned i = 0; i < MAX_INT_REGS; i++)
        free(names[i]);
    for (unsigned i = 0; i < MAX_FP_REGS; i++)
        free(fp[i]), free(fp32[i]);
    return fpr;
}

void func_proto_free(struct func_proto *p)
{
    if (!p)
        return;
    free(p->names);
    free(p->fp_names);
    free(p->fp32_names);
    free(p->types);
    free(p);
}
