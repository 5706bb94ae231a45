#include <inttypes.h>
#include "src/rewrite.h"
#include "lib/error.h"

int find_sleds(const struct arch_ops *arch, const struct elf_image *img,
               struct sled_set *sleds)
{
    static const char *const names[] = { "litifut_sled", "litifut_island_sled" };
    sleds->n = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct elf_symbol *s = elf_symbol_by_name(img, names[i]);
        if (s)
            sleds->base[sleds->n++] = s->value & ~1u;
        else if (i == 0)
            return error("%s: no symbol litifut_sled: not linked with the litifut tracer",
                         img->path);
    }
    sleds->fixed_address = img->e_type == ET_EXEC;
    sleds->bridge = arch->bridge_offset;
    return 0;
}

int plan_redirects(const struct arch_ops *arch, const struct site_list *sites,
                   const struct db *db, const struct sled_set *sleds, uint32_t *words,
                   int *any_bridged)
{
    *any_bridged = 0;
    for (size_t i = 0; i < sites->n; i++) {
        int bridged;
        if (arch->encode_redirect(&sites->v[i], db_sled_index(arch, db, sites, i), sleds,
                                  &words[i], &bridged) != 0)
            return -1;
        *any_bridged |= bridged;
    }
    return 0;
}

int rewrite_call_sites(struct elf_image *img, const struct site_list *sites,
                       const uint32_t *words)
{
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        unsigned char *p = elf_bytes_at(img, s->addr, 4);
        if (!p || elf_get32(img, p) != s->insn)
            return error("%s: call site 0x%08" PRIx32 " does not hold its instruction",
                         img->path, s->addr);
        elf_put32(img, p, words[i]);
    }
    return 0;
}
