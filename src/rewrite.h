/* Pass 2's last step: redirect every call site to the sled. */
#ifndef LITIFUT_REWRITE_H
#define LITIFUT_REWRITE_H

#include "db.h"

/* Patches `img->data` in place: each site's word (which must still be
 * the original instruction) becomes a branch to its sled entry.  On
 * any error nothing should be written out. */
int rewrite_call_sites(const struct arch_ops *arch, struct elf_image *img,
                       const struct site_list *sites, const struct db *db);

/* Link-time address of the tracer's sled in `img`. */
int find_sled(const struct elf_image *img, uint32_t *vaddr);

#endif
