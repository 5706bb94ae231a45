/* Building the instruction DB from a site list, writing it as C, and
 * checking that a linked binary holds exactly that DB (the rewriter's
 * side; reading it back is lib/db.h). */
#ifndef LITIFUT_SRC_DB_H
#define LITIFUT_SRC_DB_H

#include "lib/db.h"
#include "lib/sites.h"
#include "src/arch-rewrite.h"

/* `sled_vaddr`: link-time address of litifut_sled; `bridge`: the
 * bridge offset if any site goes through the MIPS bridge, else 0;
 * `db_vaddr`: where litifut_db is linked (the same in both passes: the
 * DB object is the link's last input).  An empty list gives the
 * placeholder DB pass 1 links with. */
int db_build(const struct arch_ops *arch, const struct arch_rewrite_ops *rw,
             const struct site_list *sites, uint32_t sled_vaddr, uint32_t bridge,
             uint32_t db_vaddr, struct db *db);
/* The sled entry (k) the i-th site must branch to: its position among
 * the sites of its page. */
unsigned db_sled_index(const struct arch_ops *arch, const struct db *db,
                       const struct site_list *sites, size_t i);
int db_write_c(const struct db *db, const char *path);
/* 0 if `img` links exactly this DB; else one error line. */
int db_check_image(const struct db *db, const struct elf_image *img);

#endif
