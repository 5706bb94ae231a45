#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/db.h"
#include "lib/arch.h"
#include "lib/error.h"

uint32_t db_checksum(const struct db *db)
{
    struct litifut_db_header h = db->header;
    h.checksum = 0;
    uint32_t sum = litifut_fnv1a_words(2166136261u, (const uint32_t *)&h, sizeof h / 4);
    sum = litifut_fnv1a_words(sum, db->pages, db->header.n_pages + 1);
    return litifut_fnv1a_words(sum, db->insns, db->header.n_sites);
}

void db_free(struct db *db)
{
    free(db->pages);
    free(db->insns);
    memset(db, 0, sizeof *db);
}

uint32_t db_size_bytes(const struct db *db)
{
    return (uint32_t)sizeof db->header + 4 * (db->header.n_pages + 1) + 4 * db->header.n_sites;
}

/* The n words of symbol `name` in `img`: the symbol must exist, be at
 * least n words long (if it has a size) and lie in the file. */
static int image_words(const struct elf_image *img, const char *name, uint32_t n,
                       uint32_t *out)
{
    const struct elf_symbol *s = elf_symbol_by_name(img, name);
    if (!s && !img->has_symtab)
        return error("%s: stripped (no symbol table): cannot find %s", img->path, name);
    if (!s)
        return error("%s: no symbol %s: not linked with the litifut tracer", img->path, name);
    if (s->size && s->size / 4 < n)
        return error("%s: %s has %" PRIu32 " bytes, its DB header says %" PRIu32 " words",
                     img->path, name, s->size, n);
    const unsigned char *p = elf_bytes_at(img, s->value, 4 * n);     /* n < 2^28 */
    if (!p)
        return error("%s: %s is not in the file", img->path, name);
    for (uint32_t i = 0; i < n; i++)
        out[i] = elf_get32(img, p + 4 * i);
    return 0;
}

/* The header must be one this code reads and fit the image's
 * architecture before its counts size anything: page_shift goes into
 * shifts, n_pages and n_sites into allocations. */
static int check_db_header(const struct elf_image *img, const struct litifut_db_header *h)
{
    const struct arch_ops *arch = arch_by_machine(img->machine);
    if (h->magic != LITIFUT_DB_MAGIC || h->version != LITIFUT_DB_VERSION)
        return error("%s: litifut_db_header has a bad magic or version", img->path);
    if (!arch || h->arch != arch->trace_arch || h->page_shift != arch->db_page_shift)
        return error("%s: litifut_db_header is corrupt (architecture or page size)", img->path);
    if (h->n_sites > (1u << 28) || ((uint64_t)h->n_pages << h->page_shift) > (UINT64_C(1) << 32))
        return error("%s: litifut_db_header is corrupt (%" PRIu32 " sites, %" PRIu32 " pages)",
                     img->path, h->n_sites, h->n_pages);
    return 0;
}

/* The page table: starts at 0, never goes down, ends at n_sites, and
 * no page has more sites than a sled has entries.  The post-processor
 * indexes the sites with it. */
static int check_db_pages(const struct elf_image *img, const struct db *db)
{
    const struct arch_ops *arch = arch_by_machine(img->machine);
    const struct litifut_db_header *h = &db->header;
    if (db->pages[0] != 0 || db->pages[h->n_pages] != h->n_sites)
        return error("%s: litifut_db_pages is corrupt (it does not run from 0 to %" PRIu32
                     " sites)", img->path, h->n_sites);
    for (uint32_t p = 0; p < h->n_pages; p++)
        if (db->pages[p + 1] < db->pages[p] ||
            db->pages[p + 1] - db->pages[p] > arch->sled_entries)
            return error("%s: litifut_db_pages is corrupt (page %" PRIu32 ")", img->path, p);
    return 0;
}

int db_read_image(const struct elf_image *img, struct db *db)
{
    memset(db, 0, sizeof *db);
    struct litifut_db_header *h = &db->header;
    if (image_words(img, "litifut_db_header", sizeof *h / 4, (uint32_t *)h) != 0 ||
        check_db_header(img, h) != 0)
        return -1;
    db->pages = xcalloc(h->n_pages + 1, 4);
    db->insns = xcalloc(h->n_sites, 4);
    if (image_words(img, "litifut_db_pages", h->n_pages + 1, db->pages) != 0 ||
        image_words(img, "litifut_db_insns", h->n_sites, db->insns) != 0) {
        db_free(db);
        return -1;
    }
    if (db_checksum(db) != h->checksum) {
        db_free(db);
        return error("%s: the instruction DB fails its checksum", img->path);
    }
    if (check_db_pages(img, db) != 0) {
        db_free(db);
        return -1;
    }
    return 0;
}
