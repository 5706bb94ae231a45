/*
 * The instruction DB a linked object holds (include/litifut/db-format.h),
 * as every tool has it: read from the object and checked, its checksum,
 * size and site words.  The rewriter builds and writes it (src/db.h).
 */
#ifndef LITIFUT_DB_H
#define LITIFUT_DB_H

#include "litifut/db-format.h"
#include "lib/elfimage.h"

struct db {
    struct litifut_db_header header;
    uint32_t *pages;            /* n_pages + 1: index of each page's first site
                                   (the file holds 4 * that); the last is n_sites */
    uint32_t *words;            /* n_sites: the site words */
};

void db_free(struct db *db);
/* What header.checksum must be: FNV-1a of the DB as the file holds it
 * (its checksum field counted as 0). */
uint32_t db_checksum(const struct db *db);
/* Reads the DB a linked binary holds, checked against the file and
 * itself: header, sizes, checksum, page table (from 0 to n_sites,
 * never down, at most a sled's entries per page), its address.
 * Anything wrong is one error line and -1. */
int db_read_image(const struct elf_image *img, struct db *db);
/* Bytes the DB adds to the program. */
uint32_t db_size_bytes(const struct db *db);

/* The link-time address of site i's word. */
static inline uint32_t db_word_addr(const struct db *db, uint32_t i)
{
    return db->header.db_vaddr + 4 * (LITIFUT_DB_HEADER_WORDS + db->header.n_pages + i);
}

/* 1 and *target (link time; bit 0: Thumb) if site i has a fixed target;
 * 0 for a call through a register. */
static inline int db_site_target(const struct db *db, uint32_t i, uint32_t *target)
{
    uint32_t w = db->words[i];
    if (w < LITIFUT_DB_INDIRECT)
        return 0;
    *target = db_word_addr(db, i) + w;
    return 1;
}

#endif
