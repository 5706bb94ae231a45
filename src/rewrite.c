#include <inttypes.h>
#include <string.h>
#include "src/rewrite.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"

uint32_t thunk_area_size(const struct arch_ops *arch, const struct site_list *sites)
{
    uint32_t size = 0;
    for (size_t i = 0; i < sites->n; i++)
        size += arch->kinds[sites->v[i].kind].thunk_size;
    return size;
}

int plan_redirects(const struct arch_ops *arch, const struct site_list *sites,
                   const struct db *db, const struct sled_set *sleds, uint32_t *words,
                   uint8_t *thunks, int *any_bridged)
{
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arch);
    uint32_t off = 0;
    *any_bridged = 0;
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        unsigned k = db_sled_index(arch, db, sites, i), size = arch->kinds[s->kind].thunk_size;
        /* pass 1 has no thunk area yet: it will follow the code */
        uint64_t thunk = size ? (sleds->thunks ? sleds->thunks : sleds->code_end) + off : 0;
        int bridged;
        if (rw->encode_redirect(s, k, sleds, thunk, &words[i], &bridged) != 0 ||
            (size && thunks && rw->encode_thunk(s, k, sleds, thunk, thunks + off) != 0))
            return -1;
        off += size;
        *any_bridged |= bridged;
    }
    return 0;
}

int rewrite_call_sites(const struct arch_ops *arch, struct elf_image *img,
                       const struct site_list *sites, const uint32_t *words,
                       const struct sled_set *sleds, const uint8_t *thunks,
                       uint32_t thunk_bytes)
{
    uint32_t size = thunk_bytes;
    if (size != sleds->thunks_size)
        return error("%s: its thunk area has %" PRIu64 " bytes, its sites and entries need %"
                     PRIu32, img->path, sleds->thunks_size, size);
    if (size) {
        unsigned char *p = elf_bytes_at(img, sleds->thunks, size);
        if (!p)
            return error("%s: its thunk area is not in the file", img->path);
        memcpy(p, thunks, size);
    }
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        unsigned char *p = elf_bytes_at(img, s->addr + arch->kinds[s->kind].patch_offset, 4);
        if (!p || elf_get32(img, p) != s->insn)
            return error("%s: call site 0x%08" PRIx64 " does not hold its instruction",
                         img->path, s->addr);
        elf_put32(img, p, words[i]);
    }
    return 0;
}
