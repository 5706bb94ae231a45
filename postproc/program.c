#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "program.h"
#include "rewrite.h"
#include "error.h"

/* The rewritten call sites are the calls into the sled; in address
 * order they are the DB's sites, and each must enter the sled at its
 * position within its page. */
static int find_rewritten_sites(struct program *p)
{
    const struct elf_image *img = &p->obj->img;
    const struct arch_ops *arch = p->arch;
    const struct litifut_db_header *h = &p->db.header;
    static const struct exclusions none;
    struct sled_set sleds;
    struct site_list all;
    struct scan_stats st;
    if (find_sleds(arch, img, &sleds) != 0 || find_call_sites(arch, img, &none, &all, &st) != 0)
        return -1;
    sleds.bridge = h->bridge;
    p->site_addr = xcalloc(h->n_sites, sizeof *p->site_addr);
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < all.n && rc == 0; i++) {
        unsigned k;
        if (!arch->decode_redirect(all.v[i].addr, all.v[i].insn, &sleds, &k))
            continue;
        uint32_t page = (all.v[i].addr + arch->ra_offset - h->key_origin) >> h->page_shift;
        if (n >= h->n_sites || page >= h->n_pages || p->db.pages[page] + k != n)
            rc = error("%s: its rewritten call sites do not match its instruction DB "
                       "(at 0x%08" PRIx32 ")", img->path, all.v[i].addr);
        else
            p->site_addr[n++] = all.v[i].addr;
    }
    if (rc == 0 && n != h->n_sites)
        rc = error("%s: %zu rewritten call sites, but its DB has %" PRIu32, img->path, n,
                   h->n_sites);
    site_list_free(&all);
    return rc;
}

int program_load(struct program *p, struct address_space *as, const struct trace_file *t)
{
    memset(p, 0, sizeof *p);
    const struct litifut_trace_header *h = &t->header;
    if (!h->exe[0])
        return error("%s: the trace does not name its program", t->path);
    p->obj = object_get(as, h->exe);
    if (object_open(p->obj) != 0)
        return error("%s: cannot read the traced program %s (see --binary-dir, --sysroot)",
                     t->path, h->exe);
    p->arch = arch_by_machine(p->obj->img.machine);
    if (!p->arch || p->arch->trace_arch != h->arch)
        return error("%s: %s is not the traced program (another architecture)", t->path,
                     p->obj->host_path);
    if (db_read_image(&p->obj->img, &p->db) != 0)
        return -1;
    if (p->db.header.checksum != h->db_checksum)
        return error("%s: %s is not the build that was traced (its instruction DB differs)",
                     t->path, p->obj->host_path);
    p->bias = h->load_bias;
    return find_rewritten_sites(p);
}

void program_free(struct program *p)
{
    db_free(&p->db);
    free(p->site_addr);
    memset(p, 0, sizeof *p);
}

uint32_t call_target(const struct program *p, const struct trace_call *c, int *direct,
                     uint32_t *link)
{
    uint32_t target;
    *direct = !c->has_target &&
              p->arch->call_target(p->site_addr[c->site], p->db.insns[c->site], &target);
    if (*direct) {
        *link = target;
        return target + p->bias;
    }
    return c->target & ~1u;             /* drop the Thumb / ISA-mode bit */
}
