#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/elfimage.h"
#include "lib/arch.h"
#include "lib/error.h"
#include "lib/files.h"


/* Names from the file go into messages: never print control characters. */
static const char *printable(const char *name)
{
    for (const char *c = name; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return "(unprintable name)";
    return name;
}

/* Bytes of one entry of ELF type `t` (ELF_T_SYM, ...) in the image's class. */
static uint64_t entry_size(const struct elf_image *img, Elf_Type t)
{
    return gelf_fsize(img->elf, t, 1, EV_CURRENT);
}

/* A symbol table's entries.  Entries that libelf cannot read end the
 * table there (n_out counts only what was read), so every entry has a
 * name, "" if none. */
static void load_symbols(struct elf_image *img, Elf_Scn *scn, const GElf_Shdr *sh,
                         struct elf_symbol **out, size_t *n_out)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    /* sh_entsize is this size (load_section); sh_size is within the file */
    size_t n = (size_t)(sh->sh_size / entry_size(img, ELF_T_SYM)), i;
    struct elf_symbol *syms = xcalloc(n, sizeof *syms);
    for (i = 0; d && i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            break;
        const char *name = elf_strptr(img->elf, sh->sh_link, s.st_name);
        syms[i].name = name ? name : "";
        syms[i].value = s.st_value;
        syms[i].size = s.st_size;
        syms[i].shndx = s.st_shndx;
        syms[i].type = GELF_ST_TYPE(s.st_info);
        syms[i].bind = GELF_ST_BIND(s.st_info);
        syms[i].other = s.st_other;
    }
    *out = syms;
    *n_out = i;
}

/* Where a table of `n` entries of `entsize` bytes at `off` ends;
 * UINT64_MAX if that is past 2^64 (an ELF64 file's offsets and counts
 * are 64-bit: nothing here may wrap). */
static uint64_t table_end(uint64_t off, uint64_t n, uint64_t entsize)
{
    if (entsize && n > UINT64_MAX / entsize)
        return UINT64_MAX;
    return n * entsize > UINT64_MAX - off ? UINT64_MAX : off + n * entsize;
}

/* 1 if `size` bytes at file offset `off` are not all in the file. */
static int past_file(const struct elf_image *img, uint64_t off, uint64_t size)
{
    return off > img->size || size > img->size - off;
}

/* 1 if `size` bytes at `addr` run past the end of the image's address
 * space (4 GB for ELF32, as before; for ELF64 their end must be a
 * 64-bit number). */
static int past_address_space(const struct elf_image *img, uint64_t addr, uint64_t size)
{
    if (img->word_size == 4)
        return addr + size > UINT64_C(1) << 32;     /* both < 2^32 (ELF32 fields) */
    return size > UINT64_MAX - addr;
}

/* The ELF header's tables must be whole and in the file.  A file that
 * ends before them was cut short (a partial copy), which is what the
 * message says, rather than the "no symbol table" that follows from it. */
static int check_header_tables(const struct elf_image *img, const GElf_Ehdr *eh)
{
    if (eh->e_phnum && eh->e_phentsize != entry_size(img, ELF_T_PHDR))
        return error("%s: malformed ELF file: program header entries of %u bytes",
                     img->path, eh->e_phentsize);
    if (eh->e_shoff && eh->e_shentsize != entry_size(img, ELF_T_SHDR))
        return error("%s: malformed ELF file: section header entries of %u bytes",
                     img->path, eh->e_shentsize);
    /* e_shnum 0 with a table: the count is in section 0 (extended numbering) */
    uint64_t sh_end = table_end(eh->e_shoff, eh->e_shnum ? eh->e_shnum : 1, eh->e_shentsize);
    if (eh->e_shoff && sh_end > img->size)
        return error("%s: truncated: the file has %zu bytes, its section headers end at "
                     "byte %" PRIu64, img->path, img->size, sh_end);
    uint64_t ph_end = table_end(eh->e_phoff, eh->e_phnum, eh->e_phentsize);
    if (eh->e_phnum && eh->e_phnum != PN_XNUM && ph_end > img->size)
        return error("%s: truncated: the file has %zu bytes, its program headers end at "
                     "byte %" PRIu64, img->path, img->size, ph_end);
    return 0;
}

static int load_segments(struct elf_image *img, const GElf_Ehdr *eh)
{
    size_t phnum;
    if (elf_getphdrnum(img->elf, &phnum) != 0)
        return error("%s: malformed program headers: %s", img->path, elf_errmsg(-1));
    if (!phnum)
        return 0;
    if (table_end(eh->e_phoff, phnum, entry_size(img, ELF_T_PHDR)) > img->size)   /* PN_XNUM */
        return error("%s: truncated: the file has %zu bytes, less than its %zu program headers",
                     img->path, img->size, phnum);
    /* A separate debug file (objcopy --only-keep-debug) keeps the
     * program's headers, not its code (its sections NOBITS): there a
     * segment may end past the file, and holds no file bytes. */
    int debug_file = 1;
    for (size_t i = 0; i < img->n_sections; i++)
        if ((img->sections[i].flags & SHF_ALLOC) && (img->sections[i].flags & SHF_EXECINSTR) &&
            img->sections[i].type != SHT_NOBITS)
            debug_file = 0;
    img->segments = xcalloc(phnum, sizeof *img->segments);
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(img->elf, (int)i, &ph))
            return error("%s: malformed program header %zu: %s", img->path, i, elf_errmsg(-1));
        if (debug_file && past_file(img, ph.p_offset, ph.p_filesz)) {
            ph.p_filesz = 0;
            ph.p_offset = 0;
        }
        if (past_file(img, ph.p_offset, ph.p_filesz))
            return error("%s: truncated: the file has %zu bytes, segment %zu ends at byte %"
                         PRIu64, img->path, img->size, i,
                         table_end(ph.p_offset, 1, ph.p_filesz));
        if (ph.p_type == PT_LOAD && (ph.p_filesz > ph.p_memsz ||
                                     past_address_space(img, ph.p_vaddr, ph.p_memsz)))
            return error("%s: malformed ELF file: load segment %zu does not fit its memory",
                         img->path, i);
        img->segments[img->n_segments++] = (struct elf_segment){
            ph.p_type, ph.p_flags, ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz };
    }
    return 0;
}

/* One section header, checked against the file: its bytes must be in
 * it, its addresses must not wrap, a symbol table's entries must be
 * symbols. */
static int load_section(struct elf_image *img, Elf_Scn *scn, size_t shstrndx)
{
    GElf_Shdr sh;
    size_t i = elf_ndxscn(scn);
    if (!gelf_getshdr(scn, &sh) || i >= img->n_sections)
        return error("%s: malformed section header %zu: %s", img->path, i, elf_errmsg(-1));
    struct elf_section *s = &img->sections[i];
    const char *name = elf_strptr(img->elf, shstrndx, sh.sh_name);
    s->name = name ? name : "";
    s->index = (unsigned)i;
    s->type = sh.sh_type;
    s->flags = (uint32_t)sh.sh_flags;
    s->addr = sh.sh_addr;
    s->size = sh.sh_size;
    s->offset = sh.sh_offset;
    s->link = sh.sh_link;
    s->info = sh.sh_info;
    s->entsize = sh.sh_entsize;
    if (sh.sh_type != SHT_NOBITS && past_file(img, sh.sh_offset, sh.sh_size))
        return error("%s: truncated: the file has %zu bytes, section %s ends at byte %" PRIu64,
                     img->path, img->size, printable(s->name),
                     table_end(sh.sh_offset, 1, sh.sh_size));
    if ((sh.sh_flags & SHF_ALLOC) && past_address_space(img, sh.sh_addr, sh.sh_size))
        return error("%s: malformed ELF file: section %s runs past the end of the address space",
                     img->path, printable(s->name));
    if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
        if (sh.sh_entsize != entry_size(img, ELF_T_SYM) || sh.sh_link >= img->n_sections)
            return error("%s: malformed ELF file: symbol table %s", img->path,
                         printable(s->name));
        /* ELF allows one of each; a second would silently replace the first */
        if (sh.sh_type == SHT_SYMTAB ? img->has_symtab : img->dynsyms != NULL)
            return error("%s: malformed ELF file: a second %s symbol table (%s)", img->path,
                         sh.sh_type == SHT_SYMTAB ? "SHT_SYMTAB" : "SHT_DYNSYM",
                         printable(s->name));
        if (sh.sh_type == SHT_SYMTAB) {
            load_symbols(img, scn, &sh, &img->symbols, &img->n_symbols);
            img->has_symtab = 1;
        } else {
            load_symbols(img, scn, &sh, &img->dynsyms, &img->n_dynsyms);
        }
    }
    return 0;
}

static int load_sections(struct elf_image *img, const GElf_Ehdr *eh)
{
    size_t shnum, shstrndx;
    if (elf_getshdrnum(img->elf, &shnum) != 0 || elf_getshdrstrndx(img->elf, &shstrndx) != 0)
        return error("%s: malformed section headers: %s", img->path, elf_errmsg(-1));
    if (shnum && table_end(eh->e_shoff, shnum, entry_size(img, ELF_T_SHDR)) > img->size)   /* e_shnum 0 */
        return error("%s: truncated: the file has %zu bytes, less than its %zu section headers",
                     img->path, img->size, shnum);
    img->sections = xcalloc(shnum, sizeof *img->sections);
    img->n_sections = shnum;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(img->elf, scn));)
        if (load_section(img, scn, shstrndx) != 0)
            return -1;
    for (size_t i = 0; i < shnum; i++)
        if (!img->sections[i].name)
            img->sections[i].name = "";
    return 0;
}

int elf_image_open(struct elf_image *img, const char *path)
{
    memset(img, 0, sizeof *img);
    img->path = path;
    if (read_file(path, &img->data, &img->size) != 0)
        return -1;
    if (img->size < EI_NIDENT || memcmp(img->data, ELFMAG, SELFMAG) != 0) {
        error("%s: not an ELF file", path);
        goto fail;
    }
    if (img->data[EI_CLASS] != ELFCLASS32 && img->data[EI_CLASS] != ELFCLASS64) {
        error("%s: neither a 32-bit nor a 64-bit ELF file", path);
        goto fail;
    }
    img->word_size = img->data[EI_CLASS] == ELFCLASS64 ? 8 : 4;
    if (img->size < (img->word_size == 8 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr))) {
        error("%s: truncated: the file has %zu bytes, less than an ELF header", path, img->size);
        goto fail;
    }
    elf_version(EV_CURRENT);
    img->elf = elf_memory((char *)img->data, img->size);
    GElf_Ehdr eh;
    if (!img->elf || elf_kind(img->elf) != ELF_K_ELF ||
        gelf_getclass(img->elf) != (img->word_size == 8 ? ELFCLASS64 : ELFCLASS32) ||
        !gelf_getehdr(img->elf, &eh)) {
        error("%s: malformed ELF file: %s", path, elf_errmsg(-1));
        goto fail;
    }
    img->machine = eh.e_machine;
    img->e_type = eh.e_type;
    img->e_flags = eh.e_flags;
    img->big_endian = img->data[EI_DATA] == ELFDATA2MSB;
    if (check_header_tables(img, &eh) != 0 || load_sections(img, &eh) != 0 ||
        load_segments(img, &eh) != 0)
        goto fail;
    return 0;
fail:
    elf_image_close(img);
    return -1;
}

void elf_image_close(struct elf_image *img)
{
    if (img->elf)
        elf_end(img->elf);
    free(img->sections);
    free(img->segments);
    free(img->symbols);
    free(img->dynsyms);
    free(img->data);
    memset(img, 0, sizeof *img);
}

const struct elf_section *elf_section_at(const struct elf_image *img, uint64_t addr)
{
    for (size_t i = 1; i < img->n_sections; i++) {
        const struct elf_section *s = &img->sections[i];
        if ((s->flags & SHF_ALLOC) && s->type != SHT_NOBITS && addr >= s->addr &&
            addr - s->addr < s->size)
            return s;
    }
    return NULL;
}

const struct elf_symbol *elf_symbol_by_name(const struct elf_image *img, const char *name)
{
    for (size_t i = 0; i < img->n_symbols; i++)
        if (img->symbols[i].shndx != SHN_UNDEF && strcmp(img->symbols[i].name, name) == 0)
            return &img->symbols[i];
    return NULL;
}

int elf_offset_to_vaddr(const struct elf_image *img, uint64_t off, uint64_t *vaddr)
{
    for (size_t i = 0; i < img->n_segments; i++) {
        const struct elf_segment *g = &img->segments[i];
        if (g->type == PT_LOAD && off >= g->offset && off - g->offset < g->memsz) {
            *vaddr = g->vaddr + (off - g->offset);
            return 0;
        }
    }
    return -1;
}

unsigned char *elf_bytes_at(const struct elf_image *img, uint64_t addr, uint64_t len)
{
    const struct elf_section *s = elf_section_at(img, addr);
    if (!s || s->size - (addr - s->addr) < len)
        return NULL;
    return img->data + s->offset + (addr - s->addr);
}

uint16_t elf_get16(const struct elf_image *img, const unsigned char *p)
{
    return (uint16_t)(img->big_endian ? p[0] << 8 | p[1] : p[0] | p[1] << 8);
}

uint32_t elf_get32(const struct elf_image *img, const unsigned char *p)
{
    if (img->big_endian)
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

void elf_put32(const struct elf_image *img, unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[img->big_endian ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

int elf_read32(const struct elf_image *img, uint64_t addr, uint32_t *out)
{
    const unsigned char *p = elf_bytes_at(img, addr, 4);
    if (!p)
        return -1;
    *out = elf_get32(img, p);
    return 0;
}

int elf_dynamic_relocs(const struct elf_image *img, struct elf_dynreloc **out, size_t *n_out)
{
    struct elf_dynreloc *rel = NULL;
    size_t n = 0, cap = 0;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(img->elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA))
            continue;
        if (sh.sh_link >= img->n_sections || img->sections[sh.sh_link].type != SHT_DYNSYM)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; d && i < count; i++) {
            GElf_Rel r;
            GElf_Rela ra;
            uint64_t info, offset, addend = 0;
            if (sh.sh_type == SHT_REL) {
                if (!gelf_getrel(d, (int)i, &r))
                    break;
                info = r.r_info;
                offset = r.r_offset;
            } else {
                if (!gelf_getrela(d, (int)i, &ra))
                    break;
                info = ra.r_info;
                offset = ra.r_offset;
                addend = (uint64_t)ra.r_addend;
            }
            if (n == cap) {
                cap = cap * 2 + 64;
                rel = xrealloc(rel, cap * sizeof *rel);
            }
            struct elf_dynreloc *e = &rel[n++];
            memset(e, 0, sizeof *e);
            e->rela = sh.sh_type == SHT_RELA;
            e->file_off = sh.sh_offset + i * sh.sh_entsize;
            e->offset = offset;
            e->type = (uint32_t)GELF_R_TYPE(info);
            e->addend = addend;
            size_t symi = GELF_R_SYM(info);
            if (symi && symi < img->n_dynsyms) {
                e->sym_name = img->dynsyms[symi].name;
                e->sym_value = img->dynsyms[symi].value;
                e->sym_type = img->dynsyms[symi].type;
            }
        }
    }
    *out = rel;
    *n_out = n;
    return 0;
}

int elf_image_is_library(const struct elf_image *img)
{
    if (img->e_type != ET_DYN)
        return 0;
    for (size_t i = 0; i < img->n_segments; i++)
        if (img->segments[i].type == PT_INTERP)
            return 0;
    return 1;
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const struct indexed_function *)a)->start;
    uint64_t y = ((const struct indexed_function *)b)->start;
    return x < y ? -1 : x > y;
}

void function_index_build(const struct elf_image *img, struct function_index *fx)
{
    const struct arch_ops *arch = arch_of_image(img);
    fx->v = xcalloc(img->n_symbols + 1, sizeof *fx->v);
    fx->n = 0;
    for (size_t i = 0; i < img->n_symbols; i++) {
        const struct elf_symbol *y = &img->symbols[i];
        uint64_t start = arch ? arch_code_address(arch, y->value) : y->value;
        if (y->type == STT_FUNC && y->shndx != SHN_UNDEF)
            fx->v[fx->n++] = (struct indexed_function){ start, y->size, y };
    }
    if (fx->n)
        qsort(fx->v, fx->n, sizeof *fx->v, by_start);
}

/* Functions nest rarely and briefly: a few steps back from the last
 * one starting at or before addr find the smallest that holds it. */
#define FUNCTION_LOOKBACK 8

const struct indexed_function *function_index_find(const struct function_index *fx,
                                                   uint64_t addr)
{
    size_t lo = 0, hi = fx->n;
    while (lo < hi) {                   /* the first function starting after addr */
        size_t mid = lo + (hi - lo) / 2;
        if (fx->v[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct indexed_function *best = NULL;
    for (size_t i = lo, steps = 0; i > 0 && steps < FUNCTION_LOOKBACK; i--, steps++) {
        const struct indexed_function *f = &fx->v[i - 1];
        if (addr - f->start < (f->size ? f->size : 1) && (!best || f->size < best->size))
            best = f;
    }
    return best;
}

void function_index_free(struct function_index *fx)
{
    free(fx->v);
    fx->v = NULL;
    fx->n = 0;
}
