#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/program.h"
#include "src/rewrite.h"
#include "lib/error.h"

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

/* The traced program's file: found, an ELF file of the trace's
 * architecture and byte order, with its symbol table.  One error line
 * if not. */
static int open_program(struct program *p, const struct trace_file *t)
{
    const struct litifut_trace_header *h = &t->header;
    struct object *o = p->obj;
    if (object_open(o) != 0) {
        if (o->missing)
            return error("%s: cannot read the traced program %s (see --binary-dir, --sysroot)",
                         t->path, h->exe);
        if (o->why_not)
            return error("%s: %s", o->host_path, o->why_not);
        return -1;                      /* the ELF reader said why */
    }
    p->arch = arch_by_machine(o->img.machine);
    if (!p->arch || p->arch->trace_arch != h->arch)
        return error("%s: %s is not the traced program (another architecture)", t->path,
                     o->host_path);
    if (o->img.big_endian != (h->endian == LITIFUT_BIG_ENDIAN))
        return error("%s: %s is not the traced program (the other byte order)", t->path,
                     o->host_path);
    /* `strip` keeps the DB (.rodata) but drops the symbols that find it,
     * the sled and the code's mapping symbols */
    if (!o->img.has_symtab)
        return error("%s: stripped (no symbol table): the post-processor needs the program "
                     "as linked, before stripping (give its directory with --binary-dir)",
                     o->host_path);
    return 0;
}

int program_load(struct program *p, struct address_space *as, const struct trace_file *t)
{
    memset(p, 0, sizeof *p);
    const struct litifut_trace_header *h = &t->header;
    if (!h->exe[0])
        return error("%s: the trace does not name its program", t->path);
    p->obj = object_get(as, h->exe);
    if (open_program(p, t) != 0 || db_read_image(&p->obj->img, &p->db) != 0)
        return -1;
    if (p->db.header.checksum != h->db_checksum)
        return error("%s: %s is not the build that was traced (its instruction DB differs)",
                     t->path, p->obj->host_path);
    /* the same DB, so the header's count is damaged: the DB's is used */
    if (h->db_sites != p->db.header.n_sites)
        warning("%s: the header says %" PRIu32 " call sites, the program's DB has %" PRIu32
                "; using the DB's", t->path, h->db_sites, p->db.header.n_sites);
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
