/*
 * The instruction DB a linked object holds (include/litifut/db-format.h),
 * as every tool has it: read from the object and checked, its checksum
 * and size.  The rewriter builds and writes it (src/db.h).
 */
#ifndef LITIFUT_DB_H
#define LITIFUT_DB_H

#include "litifut/db-format.h"
#include "lib/elfimage.h"

struct db {
    struct litifut_db_header header;
    uint32_t *pages;            /* n_pages + 1: the last is n_sites */
    uint32_t *insns;            /* n_sites: the original call instructions */
};

void db_free(struct db *db);
/* What header.checksum must be: FNV-1a of the header (checksum 0),
 * the pages and the instructions. */
uint32_t db_checksum(const struct db *db);
/* Reads the DB a linked binary holds, checked against the file and
 * itself: header, sizes, checksum, page table (from 0 to n_sites,
 * never down, at most a sled's entries per page).  Anything wrong is
 * one error line and -1. */
int db_read_image(const struct elf_image *img, struct db *db);
/* Bytes the DB adds to the program. */
uint32_t db_size_bytes(const struct db *db);

#endif
