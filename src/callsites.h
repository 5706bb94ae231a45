/* The call-site table the tracer reads for LITIFUT_EXCLUDE_CALLEE at
 * run time (include/litifut/db-format.h, src/callsites.c). */
#ifndef LITIFUT_SRC_CALLSITES_H
#define LITIFUT_SRC_CALLSITES_H

#include <stddef.h>
#include <stdint.h>
#include "lib/elfimage.h"
#include "lib/sites.h"

/* The table of img's `sites` (in DB order), for the DB whose checksum
 * is db_checksum, in the image's byte order; allocated, its length (a
 * multiple of 4) in *len. */
unsigned char *callsites_build(const struct arch_ops *arch, const struct elf_image *img,
                               const struct site_list *sites, uint32_t db_checksum, size_t *len);
/* The same, written over the section the DB object carried (pass 1's
 * table, its checksum provisional; zeros after it, where a relink's
 * object had room): one line and -1 if it is missing or too small. */
int callsites_write_image(const struct arch_ops *arch, struct elf_image *img,
                          const struct site_list *sites, uint32_t db_checksum);

#endif
