#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include "symbols.h"
#include "arch.h"
#include "error.h"

void address_space_init(struct address_space *as, const struct path_options *paths)
{
    memset(as, 0, sizeof *as);
    as->paths = paths;
}

struct object *object_get(struct address_space *as, const char *path)
{
    for (size_t i = 0; i < as->n_objects; i++)
        if (strcmp(as->objects[i]->path, path) == 0)
            return as->objects[i];
    struct object *o = xcalloc(1, sizeof *o);
    o->path = xstrdup(path);
    /* --binary-dir first (by file name), then the sysroot, then as is */
    const struct path_options *p = as->paths;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *cand[3] = {
        p && p->binary_dir ? xasprintf("%s/%s", p->binary_dir, base) : NULL,
        p && p->sysroot && path[0] == '/' ? xasprintf("%s%s", p->sysroot, path) : NULL,
        xstrdup(path),
    };
    for (int i = 0; i < 3; i++) {
        if (cand[i] && !o->host_path && access(cand[i], R_OK) == 0)
            o->host_path = cand[i];
        else
            free(cand[i]);
    }
    if (!o->host_path)
        o->host_path = xstrdup(path);
    as->objects = xrealloc(as->objects, (as->n_objects + 1) * sizeof *as->objects);
    as->objects[as->n_objects++] = o;
    return o;
}

static int sym_cmp(const void *a, const void *b)
{
    const struct func_symbol *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank - y->rank;
    return strcmp(x->name, y->name);
}

/* Which name wins where several share an address: a PLT entry's, then
 * a global function's, a weak one's, a local one's. */
enum { RANK_PLT, RANK_GLOBAL, RANK_WEAK, RANK_LOCAL };

static void add_sym(struct object *o, size_t *cap, uint32_t addr, uint32_t size,
                    const char *name, int rank)
{
    if (o->n_syms == *cap) {
        *cap = *cap * 2 + 256;
        o->syms = xrealloc(o->syms, *cap * sizeof *o->syms);
    }
    o->syms[o->n_syms++] = (struct func_symbol){ addr, size, name, rank };
}

/* name@plt for every PLT entry; an IRELATIVE slot is named after its
 * resolver (e.g. memcpy@plt in a static program). */
static void add_plt_symbols(struct object *o, size_t *cap)
{
    const struct arch_ops *arch = arch_by_machine(o->img.machine);
    struct plt_entry *e;
    size_t n;
    if (!arch || arch->plt_entries(&o->img, &e, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        char *name = e[i].name;
        if (!name) {
            uint32_t off;
            const struct func_symbol *f = object_symbol(o, e[i].resolver, &off);
            name = f && !off ? xasprintf("%s@plt", f->name)
                             : xasprintf("*ABS*+0x%" PRIx32 "@plt", e[i].resolver);
        }
        o->owned_names = xrealloc(o->owned_names, (o->n_owned + 1) * sizeof(char *));
        o->owned_names[o->n_owned++] = name;
        add_sym(o, cap, e[i].addr, e[i].size, name, RANK_PLT);
    }
    free(e);
}

int object_open(struct object *o)
{
    if (o->tried)
        return o->ok ? 0 : -1;
    o->tried = 1;
    if (access(o->host_path, F_OK) != 0)
        return -1;                      /* not here: the caller says what it means */
    if (elf_image_open(&o->img, o->host_path) != 0)
        return -1;
    const struct elf_symbol *src = o->img.has_symtab ? o->img.symbols : o->img.dynsyms;
    size_t n = o->img.has_symtab ? o->img.n_symbols : o->img.n_dynsyms, cap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct elf_symbol *s = &src[i];
        if ((s->type == STT_FUNC || s->type == STT_GNU_IFUNC) && s->shndx != SHN_UNDEF &&
            s->name[0])
            add_sym(o, &cap, s->value & ~1u, s->size, s->name,   /* ~1: Thumb bit */
                    s->bind == STB_GLOBAL ? RANK_GLOBAL : s->bind == STB_WEAK ? RANK_WEAK
                                                                               : RANK_LOCAL);
    }
    if (o->n_syms)
        qsort(o->syms, o->n_syms, sizeof *o->syms, sym_cmp);
    add_plt_symbols(o, &cap);
    if (o->n_syms)
        qsort(o->syms, o->n_syms, sizeof *o->syms, sym_cmp);
    o->ok = 1;
    return 0;
}

const struct func_symbol *object_symbol(struct object *o, uint32_t addr, uint32_t *off)
{
    if (object_open(o) != 0 || !o->n_syms || addr < o->syms[0].addr)
        return NULL;
    size_t lo = 0, hi = o->n_syms;      /* last symbol with syms[i].addr <= addr */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (o->syms[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    while (lo > 0 && o->syms[lo - 1].addr == o->syms[lo].addr)
        lo--;                           /* the first name at that address */
    const struct func_symbol *f = &o->syms[lo];
    if (f->size && addr - f->addr >= f->size)
        return NULL;
    *off = addr - f->addr;
    return f;
}

int address_space_load_maps(struct address_space *as, const char *maps_path)
{
    FILE *f = fopen(maps_path, "r");
    if (!f)
        return 0;
    char line[4352];
    while (fgets(line, sizeof line, f)) {
        unsigned long start, end;
        unsigned long long offset;
        char perms[8];
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %7s %llx %*s %*s %n", &start, &end, perms, &offset,
                   &path_at) < 4)
            continue;
        char *path = path_at ? line + path_at : NULL;
        if (path) {
            path[strcspn(path, "\n")] = 0;
            if (path[0] != '/')
                path = NULL;        /* [stack], [heap], anonymous */
        }
        as->maps = xrealloc(as->maps, (as->n_maps + 1) * sizeof *as->maps);
        as->maps[as->n_maps++] = (struct mapping){
            (uint32_t)start, (uint32_t)end, offset, path ? object_get(as, path) : NULL };
    }
    fclose(f);
    return 0;
}

int resolve_address(struct address_space *as, uint32_t rt, struct object **obj,
                    uint32_t *link_addr)
{
    for (size_t i = 0; i < as->n_maps; i++) {
        const struct mapping *m = &as->maps[i];
        if (rt < m->start || rt >= m->end || !m->obj)
            continue;
        if (object_open(m->obj) != 0) {
            if (!m->obj->warned++)
                warning("%s not found (see --sysroot, --binary-dir): its addresses stay unnamed",
                        m->obj->path);
            return -1;
        }
        if (elf_offset_to_vaddr(&m->obj->img, rt - m->start + m->offset, link_addr) != 0)
            return -1;
        *obj = m->obj;
        return 0;
    }
    return -1;
}

void address_space_free(struct address_space *as)
{
    for (size_t i = 0; i < as->n_objects; i++) {
        struct object *o = as->objects[i];
        if (o->ok)
            elf_image_close(&o->img);
        for (size_t j = 0; j < o->n_owned; j++)
            free(o->owned_names[j]);
        free(o->owned_names);
        free(o->syms);
        free(o->path);
        free(o->host_path);
        free(o);
    }
    free(as->objects);
    free(as->maps);
    memset(as, 0, sizeof *as);
}
