/* Choosing each call site's redirect (the arch's encode_redirect,
 * src/arch-rewrite.h), and applying it (pass 2). */
#ifndef LITIFUT_REWRITE_H
#define LITIFUT_REWRITE_H

#include "src/db.h"

/* The redirecting word of every site (words[i] for sites->v[i]) and
 * whether any goes through the bridge; -1 with one error line if a site
 * cannot reach any sled. */
int plan_redirects(const struct arch_ops *arch, const struct site_list *sites,
                   const struct db *db, const struct sled_set *sleds, uint32_t *words,
                   int *any_bridged);

/* Patches `img->data` in place: each site's word, which must still be
 * the original instruction, becomes words[i]. */
int rewrite_call_sites(const struct arch_ops *arch, struct elf_image *img,
                       const struct site_list *sites, const uint32_t *words);

#endif
