#include <inttypes.h>
#include "src/rewrite.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"

int plan_redirects(const struct arch_ops *arch, const struct site_list *sites,
                   const struct db *db, const struct sled_set *sleds, uint32_t *words,
                   int *any_bridged)
{
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arch);
    *any_bridged = 0;
    for (size_t i = 0; i < sites->n; i++) {
        int bridged;
        if (rw->encode_redirect(&sites->v[i], db_sled_index(arch, db, sites, i), sleds,
                                &words[i], &bridged) != 0)
            return -1;
        *any_bridged |= bridged;
    }
    return 0;
}

int rewrite_call_sites(const struct arch_ops *arch, struct elf_image *img,
                       const struct site_list *sites, const uint32_t *words)
{
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        unsigned char *p = elf_bytes_at(img, s->addr + arch->kinds[s->kind].patch_offset, 4);
        if (!p || elf_get32(img, p) != s->insn)
            return error("%s: call site 0x%08" PRIx32 " does not hold its instruction",
                         img->path, s->addr);
        elf_put32(img, p, words[i]);
    }
    return 0;
}
