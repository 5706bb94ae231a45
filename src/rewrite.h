/* Choosing each call site's redirect (the arch's encode_redirect,
 * src/arch-rewrite.h), and applying it (pass 2). */
#ifndef LITIFUT_REWRITE_H
#define LITIFUT_REWRITE_H

#include "src/db.h"

/* The bytes of the thunk area the sites need (litifut_thunks: each
 * site whose kind has a thunk gets the next thunk_size bytes). */
uint32_t thunk_area_size(const struct arch_ops *arch, const struct site_list *sites);

/* The redirecting word of every site (words[i] for sites->v[i]), the
 * thunks (into `thunks`, thunk_area_size() bytes, unless NULL) and
 * whether any goes through the bridge; -1 with one error line if a site
 * cannot reach any sled. */
int plan_redirects(const struct arch_ops *arch, const struct site_list *sites,
                   const struct db *db, const struct sled_set *sleds, uint32_t *words,
                   uint8_t *thunks, int *any_bridged);

/* Patches `img->data` in place: each site's word, which must still be
 * the original instruction, becomes words[i], and the thunk area (which
 * must have exactly `thunk_bytes`: what the sites need, and the entry
 * thunks after them, src/entries.h) the thunks. */
int rewrite_call_sites(const struct arch_ops *arch, struct elf_image *img,
                       const struct site_list *sites, const uint32_t *words,
                       const struct sled_set *sleds, const uint8_t *thunks,
                       uint32_t thunk_bytes);

#endif
