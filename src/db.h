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
 * `db_vaddr`: where litifut_db is linked (in pass 2 it moves by the
 * thunk area's size, if any).  `provisional`: pass 1's DB, whose words
 * the rewrite computes again from its own link: a target right after
 * the DB (which pass 1 only has room for) is not refused.  `thunks`:
 * where the sites' thunks start (pass 1, which has no thunk area yet:
 * where it will be, about; src/rewrite.c), one after the other in site
 * order: a tail jump's site word names its thunk's continuation. */
int db_build(const struct arch_ops *arch, const struct arch_rewrite_ops *rw,
             const struct site_list *sites, uint32_t sled_vaddr, uint32_t bridge,
             uint32_t db_vaddr, uint64_t thunks, int provisional, struct db *db);
/* The sled entry (k) the i-th site must branch to: its position among
 * the sites of its page. */
unsigned db_sled_index(const struct arch_ops *arch, const struct db *db,
                       const struct site_list *sites, size_t i);
/* The DB as assembly for the target's assembler (`path`, and its words
 * in the target's byte order in `path`.bin, which the assembly
 * includes): the array litifut_db of `room_words` words (at least the
 * DB's; zeros after it), a thunk area of `thunk_bytes` (litifut_thunks,
 * code; none if 0) and the user's site rules as text (src/rules.h;
 * section .litifut_rules, not loaded; none if NULL or "").
 * `other_code`: n_other pairs of link-time (start, end) of code that is
 * not the program's own (the tracer, the C runtime's start files), for
 * the post-processor's --coverage (section .litifut_other_code, not
 * loaded, words in the target's byte order).  `callsites`: the call-site
 * table (src/callsites.h), `callsites_room` bytes of it (zeros after its
 * `callsites_len`; section .litifut_callsites, not loaded; none if 0). */
int db_write_asm(const struct db *db, int big_endian, uint32_t room_words, uint32_t thunk_bytes,
                 const char *rules, const uint32_t *other_code, size_t n_other,
                 const unsigned char *callsites, size_t callsites_len, size_t callsites_room,
                 const char *extra, const char *path);
/* Puts this DB into the litifut_db array `img` links, which pass 1's
 * DB for the same sites sized (its room may be larger: zeros follow;
 * pass 2's addresses may differ from pass 1's where a thunk area moved
 * the DB, or pass 3's where pass 2 moved code: its words are this
 * DB's), and reads it back; else one error line.  `how`: DB_SAME_CODE,
 * the sites are where pass 1 had them (else the linked DB was made for
 * other addresses: only its size and site count are checked);
 * DB_RELINKED, a third link's, whose sites may be a few more or fewer
 * than pass 1's (what a data word names moved with the code): only its
 * size is. */
enum { DB_SAME_CODE = 1, DB_RELINKED = 2 };
int db_write_image(const struct db *db, struct elf_image *img, int how);

#endif
