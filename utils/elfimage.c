#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "elfimage.h"
#include "error.h"
#include "files.h"

static int load_symbols(struct elf_image *img, Elf_Scn *scn, const GElf_Shdr *sh,
                        struct elf_symbol **out, size_t *n_out)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    struct elf_symbol *syms = xcalloc(n, sizeof *syms);
    for (size_t i = 0; d && i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            break;
        const char *name = elf_strptr(img->elf, sh->sh_link, s.st_name);
        syms[i].name = name ? name : "";
        syms[i].value = (uint32_t)s.st_value;
        syms[i].size = (uint32_t)s.st_size;
        syms[i].shndx = s.st_shndx;
        syms[i].type = GELF_ST_TYPE(s.st_info);
        syms[i].bind = GELF_ST_BIND(s.st_info);
        syms[i].other = s.st_other;
    }
    *out = syms;
    *n_out = n;
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
    if (img->data[EI_CLASS] != ELFCLASS32) {
        error("%s: not a 32-bit ELF file", path);
        goto fail;
    }
    elf_version(EV_CURRENT);
    img->elf = elf_memory((char *)img->data, img->size);
    GElf_Ehdr eh;
    if (!img->elf || elf_kind(img->elf) != ELF_K_ELF || !gelf_getehdr(img->elf, &eh)) {
        error("%s: malformed ELF file: %s", path, elf_errmsg(-1));
        goto fail;
    }
    img->machine = eh.e_machine;
    img->e_type = eh.e_type;
    img->e_flags = eh.e_flags;
    img->big_endian = img->data[EI_DATA] == ELFDATA2MSB;

    size_t phnum;
    if (elf_getphdrnum(img->elf, &phnum) == 0 && phnum) {
        img->segments = xcalloc(phnum, sizeof *img->segments);
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(img->elf, (int)i, &ph))
                continue;
            img->segments[img->n_segments++] = (struct elf_segment){
                ph.p_type, ph.p_flags, (uint32_t)ph.p_offset, (uint32_t)ph.p_vaddr,
                (uint32_t)ph.p_filesz, (uint32_t)ph.p_memsz };
        }
    }
    size_t shnum, shstrndx;
    if (elf_getshdrnum(img->elf, &shnum) != 0 || elf_getshdrstrndx(img->elf, &shstrndx) != 0) {
        error("%s: malformed section headers: %s", path, elf_errmsg(-1));
        goto fail;
    }
    img->sections = xcalloc(shnum, sizeof *img->sections);
    img->n_sections = shnum;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(img->elf, scn));) {
        GElf_Shdr sh;
        size_t i = elf_ndxscn(scn);
        if (!gelf_getshdr(scn, &sh) || i >= shnum)
            continue;
        struct elf_section *s = &img->sections[i];
        const char *name = elf_strptr(img->elf, shstrndx, sh.sh_name);
        s->name = name ? name : "";
        s->index = (unsigned)i;
        s->type = sh.sh_type;
        s->flags = (uint32_t)sh.sh_flags;
        s->addr = (uint32_t)sh.sh_addr;
        s->size = (uint32_t)sh.sh_size;
        s->offset = (uint32_t)sh.sh_offset;
        s->link = sh.sh_link;
        s->info = sh.sh_info;
        s->entsize = (uint32_t)sh.sh_entsize;
        if (sh.sh_type != SHT_NOBITS && (uint64_t)sh.sh_offset + sh.sh_size > img->size) {
            error("%s: section %s lies outside the file (truncated?)", path, s->name);
            goto fail;
        }
        if (sh.sh_type == SHT_SYMTAB) {
            load_symbols(img, scn, &sh, &img->symbols, &img->n_symbols);
            img->has_symtab = 1;
        } else if (sh.sh_type == SHT_DYNSYM) {
            load_symbols(img, scn, &sh, &img->dynsyms, &img->n_dynsyms);
        }
    }
    for (size_t i = 0; i < shnum; i++)
        if (!img->sections[i].name)
            img->sections[i].name = "";
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

const struct elf_section *elf_section_at(const struct elf_image *img, uint32_t addr)
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

int elf_offset_to_vaddr(const struct elf_image *img, uint64_t off, uint32_t *vaddr)
{
    for (size_t i = 0; i < img->n_segments; i++) {
        const struct elf_segment *g = &img->segments[i];
        if (g->type == PT_LOAD && off >= g->offset && off - g->offset < g->memsz) {
            *vaddr = g->vaddr + (uint32_t)(off - g->offset);
            return 0;
        }
    }
    return -1;
}

unsigned char *elf_bytes_at(const struct elf_image *img, uint32_t addr, uint32_t len)
{
    const struct elf_section *s = elf_section_at(img, addr);
    if (!s || s->size - (addr - s->addr) < len)
        return NULL;
    return img->data + s->offset + (addr - s->addr);
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

int elf_read32(const struct elf_image *img, uint32_t addr, uint32_t *out)
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
            e->offset = (uint32_t)offset;
            e->type = (uint32_t)GELF_R_TYPE(info);
            e->addend = (uint32_t)addend;
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
