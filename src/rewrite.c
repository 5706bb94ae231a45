#include <inttypes.h>
#include "rewrite.h"
#include "error.h"

int find_sled(const struct elf_image *img, uint32_t *vaddr)
{
    const struct elf_symbol *s = elf_symbol_by_name(img, "litifut_sled");
    if (!s)
        return error("%s: no symbol litifut_sled: not linked with the litifut tracer",
                     img->path);
    *vaddr = s->value & ~1u;
    return 0;
}

int rewrite_call_sites(const struct arch_ops *arch, struct elf_image *img,
                       const struct site_list *sites, const struct db *db)
{
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        unsigned char *p = elf_bytes_at(img, s->addr, 4);
        if (!p || elf_get32(img, p) != s->insn)
            return error("%s: call site 0x%08" PRIx32 " does not hold its instruction",
                         img->path, s->addr);
        uint32_t word;
        if (arch->encode_redirect(s, db_sled_entry(arch, db, sites, i), &word) != 0)
            return -1;
        elf_put32(img, p, word);
    }
    return 0;
}
