/*
 * The entry thunks of a linked object's constructors and destructors
 * (src/entries.h): which array words get one, and the words and their
 * thunks written.  The arch's encoding is its arch_rewrite_ops'.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "src/entries.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"

/* The word of `size` bytes at file offset `off`. */
static uint64_t get_word(const struct elf_image *img, uint64_t off, unsigned size)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++) {
        unsigned b = img->big_endian ? i : size - 1 - i;
        v = v << 8 | img->data[off + b];
    }
    return v;
}

static void put_word(struct elf_image *img, uint64_t off, unsigned size, uint64_t v)
{
    for (unsigned i = 0; i < size; i++)
        img->data[off + (img->big_endian ? size - 1 - i : i)] = (unsigned char)(v >> (8 * i));
}

static int by_offset(const void *a, const void *b)
{
    uint64_t x = ((const struct elf_dynreloc *)a)->offset, y = ((const struct elf_dynreloc *)b)->offset;
    return x < y ? -1 : x > y;
}

/* Whether `addr` lies in an executable section of `img`, outside what
 * `ex` excludes and the thunk area. */
static int own_code(const struct arch_ops *arch, const struct elf_image *img,
                    const struct exclusions *ex, uint64_t addr)
{
    addr = arch_code_address(arch, addr);
    const struct elf_section *s = elf_section_at(img, addr);
    if (!s || !(s->flags & SHF_EXECINSTR) || strcmp(s->name, ".litifut_thunks") == 0)
        return 0;
    for (size_t i = 0; ex && i < ex->n; i++) {
        uint64_t start, end;
        if (excluded_range_at(&ex->v[i], s, &start, &end) && addr >= start && addr < end)
            return 0;
    }
    return 1;
}

int entry_words_find(const struct arch_ops *arch, const struct elf_image *img,
                     const struct exclusions *ex, struct entry_words *out)
{
    out->v = NULL;
    out->n = 0;
    if (!arch_rewrite_ops(arch)->entry_thunk_size)
        return 0;
    struct elf_dynreloc *rel = NULL;
    size_t n_rel = 0;
    if (img->e_type == ET_DYN) {
        elf_dynamic_relocs(img, &rel, &n_rel);
        qsort(rel, n_rel, sizeof *rel, by_offset);
    }
    unsigned size = img->word_size;
    size_t cap = 0;
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        int fini = s->type == SHT_FINI_ARRAY;
        if ((s->type != SHT_INIT_ARRAY && s->type != SHT_PREINIT_ARRAY && !fini) ||
            !(s->flags & SHF_ALLOC) || s->offset > img->size || img->size - s->offset < s->size)
            continue;
        for (uint64_t k = 0; k + size <= s->size; k += size) {
            struct entry_word e = { s->addr + k, get_word(img, s->offset + k, size), fini, -1 };
            if (img->e_type == ET_DYN) {
                struct elf_dynreloc key = { .offset = e.at };
                const struct elf_dynreloc *r = bsearch(&key, rel, n_rel, sizeof *rel, by_offset);
                if (!r || r->type != arch->reloc_relative || r->sym_name)
                    continue;       /* (a symbol's: not ours to point elsewhere) */
                if (r->rela) {
                    e.fn = r->addend;
                    e.addend_at = (int64_t)(r->file_off + 2 * (uint64_t)size);
                }
            }
            if (!e.fn || e.fn + 1 == 0 || !own_code(arch, img, ex, e.fn))
                continue;
            if (out->n == cap) {
                cap = cap * 2 + 16;
                out->v = xrealloc(out->v, cap * sizeof *out->v);
            }
            out->v[out->n++] = e;
        }
    }
    free(rel);
    return 0;
}

void entry_words_free(struct entry_words *w)
{
    free(w->v);
    w->v = NULL;
    w->n = 0;
}

uint32_t entry_thunks_size(const struct arch_ops *arch, const struct entry_words *w)
{
    return (uint32_t)w->n * arch_rewrite_ops(arch)->entry_thunk_size;
}

/* The file offset of link-time address `addr` of section `s`. */
static uint64_t file_offset(const struct elf_image *img, uint64_t addr)
{
    const struct elf_section *s = elf_section_at(img, addr);
    return s ? s->offset + (addr - s->addr) : 0;
}

int entry_words_rewrite(const struct arch_ops *arch, struct elf_image *img,
                        const struct entry_words *w, uint64_t area, uint8_t *bytes)
{
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arch);
    if (!w->n)
        return 0;
    const struct elf_symbol *init = elf_symbol_by_name(img, "litifut_init_entry");
    const struct elf_symbol *fini = elf_symbol_by_name(img, "litifut_fini_entry");
    if (!init || !fini)
        return error("%s: no symbol litifut_init_entry: not linked with this litifut tracer",
                     img->path);
    unsigned size = img->word_size;
    for (size_t i = 0; i < w->n; i++) {
        const struct entry_word *e = &w->v[i];
        uint64_t thunk = area + i * rw->entry_thunk_size;
        uint64_t common = arch_code_address(arch, (e->fini ? fini : init)->value);
        uint64_t at = file_offset(img, e->at);
        uint32_t words[64] = { 0 };
        if (!at || rw->entry_thunk_size > sizeof words ||
            rw->encode_entry_thunk(thunk, e->fn, common, words))
            return error("%s: the entry thunk at 0x%08" PRIx64 " of the function at 0x%08" PRIx64
                         " cannot be written", img->path, thunk, e->fn);
        for (unsigned k = 0; k < rw->entry_thunk_size / 4; k++)
            elf_put32(img, bytes + i * rw->entry_thunk_size + 4 * k, words[k]);
        if (e->addend_at >= 0)
            put_word(img, (uint64_t)e->addend_at, size, thunk);
        if (e->addend_at < 0 || get_word(img, at, size) == e->fn)
            put_word(img, at, size, thunk);     /* (RELA: the word if it holds the addend) */
    }
    return 0;
}
