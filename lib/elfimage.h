/*
 * An ELF file (32- or 64-bit: word_size) read into memory, with its
 * sections and symbols unpacked.  The rewriter patches `data` in place
 * and writes it back out whole, so nothing but the patched words can
 * change.  Addresses, sizes and offsets are held in 64 bits for both
 * classes; a 32-bit file's fit in 32 (elf_image_open checks that its
 * allocated sections and load segments end within 4 GB).
 */
#ifndef LITIFUT_ELFIMAGE_H
#define LITIFUT_ELFIMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

struct elf_section {
    const char *name;
    unsigned index;
    uint32_t type, flags;       /* sh_flags: ELF64's upper half has no flags we read */
    uint64_t addr, size, offset;
    uint32_t link, info;
    uint64_t entsize;
};

struct elf_symbol {
    const char *name;
    uint64_t value, size;
    uint16_t shndx;
    uint8_t type, bind, other;
};

struct elf_segment {
    uint32_t type, flags;
    uint64_t offset, vaddr, filesz, memsz;
};

struct elf_image {
    const char *path;
    unsigned char *data;
    size_t size;
    Elf *elf;
    int machine;                /* e_machine */
    unsigned word_size;         /* 4 (ELFCLASS32) or 8 (ELFCLASS64) */
    int big_endian;
    uint16_t e_type;
    uint32_t e_flags;
    struct elf_section *sections;
    size_t n_sections;
    struct elf_segment *segments;   /* program headers */
    size_t n_segments;
    struct elf_symbol *symbols;     /* .symtab (empty if stripped) */
    size_t n_symbols;
    struct elf_symbol *dynsyms;     /* .dynsym */
    size_t n_dynsyms;
    int has_symtab;
};

/* Loads `path` (a regular file only: lib/files.h); any problem
 * (unreadable, not ELF, neither 32- nor 64-bit, truncated, tables that do not fit
 * the file, ...) is reported as one line naming the file, and -1
 * returned. */
int elf_image_open(struct elf_image *img, const char *path);
void elf_image_close(struct elf_image *img);

/* The allocated, file-backed section holding `addr`, or NULL. */
/* A shared library, not a program: ET_DYN without an interpreter
 * (PT_INTERP).  Its load address is unknown until it is loaded. */
int elf_image_is_library(const struct elf_image *img);
const struct elf_section *elf_section_at(const struct elf_image *img, uint64_t addr);
const struct elf_symbol *elf_symbol_by_name(const struct elf_image *img, const char *name);
/* The function symbols (STT_FUNC, defined) by address (an ARM Thumb
 * symbol's bit 0 dropped), for looking up many addresses. */
struct indexed_function {
    uint64_t start, size;
    const struct elf_symbol *sym;
};
struct function_index {
    struct indexed_function *v;
    size_t n;
};
void function_index_build(const struct elf_image *img, struct function_index *fx);
/* The smallest function whose range holds addr, or NULL. */
const struct indexed_function *function_index_find(const struct function_index *fx,
                                                   uint64_t addr);
void function_index_free(struct function_index *fx);

/* Link-time address of file offset `off` as a PT_LOAD maps it; -1 if none does. */
int elf_offset_to_vaddr(const struct elf_image *img, uint64_t off, uint64_t *vaddr);

/* Pointer into `data` for [addr, addr+len) if a PROGBITS section holds
 * all of it, else NULL. */
unsigned char *elf_bytes_at(const struct elf_image *img, uint64_t addr, uint64_t len);
uint32_t elf_get32(const struct elf_image *img, const unsigned char *p);
uint16_t elf_get16(const struct elf_image *img, const unsigned char *p);
void elf_put32(const struct elf_image *img, unsigned char *p, uint32_t v);
/* Reads the word at `addr`; -1 if it is not in the file. */
int elf_read32(const struct elf_image *img, uint64_t addr, uint32_t *out);

/* Relocations with symbols, from every SHT_REL/SHT_RELA section whose
 * symbol table is .dynsym (what the dynamic linker applies). */
struct elf_dynreloc {
    uint64_t offset;
    uint32_t type;
    uint64_t addend;            /* RELA addend (two's complement), or 0 */
    const char *sym_name;       /* NULL if no symbol */
    uint64_t sym_value;
    uint8_t sym_type;
    uint8_t rela;               /* from a SHT_RELA section */
    uint64_t file_off;          /* where the relocation entry is in the file */
};
int elf_dynamic_relocs(const struct elf_image *img, struct elf_dynreloc **out, size_t *n);

#endif
