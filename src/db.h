/* Building the instruction DB from a site list, writing it as C, and
 * checking that a linked binary holds exactly that DB. */
#ifndef LITIFUT_DB_H
#define LITIFUT_DB_H

#include "litifut/db-format.h"
#include "src/sites.h"

struct db {
    struct litifut_db_header header;
    uint32_t *pages;            /* n_pages + 1: the last is n_sites */
    uint32_t *insns;            /* n_sites: the original call instructions */
};

/* `sled_vaddr`: link-time address of litifut_sled; `bridge`: the
 * bridge offset if any site goes through the MIPS bridge, else 0.  An
 * empty list gives the placeholder DB pass 1 links with. */
int db_build(const struct arch_ops *arch, const struct site_list *sites,
             uint32_t sled_vaddr, uint32_t bridge, struct db *db);
void db_free(struct db *db);
/* The sled entry (k) the i-th site must branch to: its position among
 * the sites of its page. */
unsigned db_sled_index(const struct arch_ops *arch, const struct db *db,
                       const struct site_list *sites, size_t i);
int db_write_c(const struct db *db, const char *path);
/* 0 if `img` links exactly this DB; else one error line. */
int db_check_image(const struct db *db, const struct elf_image *img);
/* Reads the DB a linked binary holds (for the post-processor), checked
 * against the file and itself: header, sizes, checksum, page table
 * (from 0 to n_sites, never down, at most a sled's entries per page).
 * Anything wrong is one error line and -1. */
int db_read_image(const struct elf_image *img, struct db *db);
/* Bytes the DB adds to the program. */
uint32_t db_size_bytes(const struct db *db);

#endif
