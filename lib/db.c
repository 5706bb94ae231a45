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
    for (uint32_t p = 0; p < db->header.n_pages; p++) {
        uint32_t off = 4 * db->pages[p];
        sum = litifut_fnv1a_words(sum, &off, 1);
    }
    return litifut_fnv1a_words(sum, db->words, db->header.n_sites);
}

void db_free(struct db *db)
{
    free(db->pages);
    free(db->words);
    memset(db, 0, sizeof *db);
}

uint32_t db_size_bytes(const struct db *db)
{
    return (uint32_t)sizeof db->header + 4 * db->header.n_pages + 4 * db->header.n_sites;
}

/* The header must be one this code reads and fit the image's
 * architecture before its counts size anything: page_shift goes into
 * shifts, n_pages and n_sites into allocations. */
static int check_db_header(const struct elf_image *img, const struct litifut_db_header *h)
{
    const struct arch_ops *arch = arch_of_image(img);
    if (h->magic != LITIFUT_DB_MAGIC || h->version != LITIFUT_DB_VERSION)
        return error("%s: its instruction DB has a bad magic or version (another "
                     "litifut's?)", img->path);
    if (!arch || h->arch != arch->trace_arch || h->page_shift != arch->db_page_shift)
        return error("%s: its instruction DB is corrupt (architecture or page size)", img->path);
    if (h->n_sites > (1u << 28) || h->n_pages > (1u << 28) ||
        ((uint64_t)h->first_page + h->n_pages) << h->page_shift > (UINT64_C(1) << 32))
        return error("%s: its instruction DB is corrupt (%" PRIu32 " sites, %" PRIu32 " pages)",
                     img->path, h->n_sites, h->n_pages);
    return 0;
}

/* The page table as the file holds it (byte offsets from the first
 * site word): starts at 0, never goes down, stays within the sites,
 * and no page has more sites than a sled has entries.  Kept as site
 * indices, with n_sites appended. */
static int read_db_pages(const struct elf_image *img, const uint32_t *file, struct db *db)
{
    const struct arch_ops *arch = arch_of_image(img);
    const struct litifut_db_header *h = &db->header;
    db->pages = xcalloc(h->n_pages + 1, 4);
    for (uint32_t p = 0; p < h->n_pages; p++) {
        if (file[p] % 4 || file[p] / 4 > h->n_sites)
            return error("%s: its instruction DB's page table is corrupt (page %" PRIu32 ")",
                         img->path, p);
        db->pages[p] = file[p] / 4;
    }
    db->pages[h->n_pages] = h->n_sites;
    if (h->n_pages && db->pages[0] != 0)
        return error("%s: its instruction DB's page table does not start at 0", img->path);
    for (uint32_t p = 0; p < h->n_pages; p++)
        if (db->pages[p + 1] < db->pages[p] ||
            db->pages[p + 1] - db->pages[p] > arch->sled_entries)
            return error("%s: its instruction DB's page table is corrupt (page %" PRIu32 ")",
                         img->path, p);
    return 0;
}

int db_read_image(const struct elf_image *img, struct db *db)
{
    memset(db, 0, sizeof *db);
    struct litifut_db_header *h = &db->header;
    const struct elf_symbol *s = elf_symbol_by_name(img, "litifut_db");
    if (!s && !img->has_symtab)
        return error("%s: stripped (no symbol table): cannot find its instruction DB",
                     img->path);
    if (!s)
        return error("%s: no symbol litifut_db: not linked with the litifut tracer", img->path);
    const unsigned char *p = elf_bytes_at(img, s->value, sizeof *h);
    if (!p)
        return error("%s: its instruction DB is not in the file", img->path);
    for (uint32_t i = 0; i < LITIFUT_DB_HEADER_WORDS; i++)
        ((uint32_t *)h)[i] = elf_get32(img, p + 4 * i);
    if (check_db_header(img, h) != 0)
        return -1;
    /* 64-bit: db_vaddr is a 32-bit header word, so a DB linked above
     * 4 GB fails here until the format has a 64-bit address */
    if (h->db_vaddr != s->value)
        return error("%s: its instruction DB was made for another address (0x%08" PRIx32
                     ", not 0x%08" PRIx64 ")", img->path, h->db_vaddr, s->value);
    uint32_t n = h->n_pages + h->n_sites;       /* < 2^29 */
    if (s->size && (s->size / 4 < LITIFUT_DB_HEADER_WORDS ||
                    s->size / 4 - LITIFUT_DB_HEADER_WORDS < n))
        return error("%s: litifut_db has %" PRIu64 " bytes, its header says %" PRIu32
                     " words more", img->path, s->size, n);
    p = elf_bytes_at(img, s->value + sizeof *h, 4 * n);
    if (n && !p)
        return error("%s: its instruction DB is not in the file", img->path);
    uint32_t *file = xcalloc(n + 1, 4);
    for (uint32_t i = 0; i < n; i++)
        file[i] = elf_get32(img, p + 4 * i);
    int rc = read_db_pages(img, file, db);
    if (rc == 0) {
        db->words = xcalloc(h->n_sites + 1, 4);
        memcpy(db->words, file + h->n_pages, 4 * h->n_sites);
        if (db_checksum(db) != h->checksum)
            rc = error("%s: the instruction DB fails its checksum", img->path);
    }
    free(file);
    if (rc != 0)
        db_free(db);
    return rc;
}
