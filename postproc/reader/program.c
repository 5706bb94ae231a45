#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/reader/program.h"
#include "postproc/reader/buildid.h"
#include "lib/sites.h"
#include "lib/error.h"

size_t other_code_ranges(const struct elf_image *img, struct excluded_range **out)
{
    *out = NULL;
    for (size_t i = 0; i < img->n_sections; i++) {
        const struct elf_section *s = &img->sections[i];
        if (strcmp(s->name, ".litifut_other_code") != 0 || s->type != SHT_PROGBITS ||
            s->offset > img->size || s->size > img->size - s->offset)
            continue;
        const unsigned char *p = img->data + s->offset;
        size_t n = 0;
        *out = xcalloc(s->size / 8 + 1, sizeof **out);
        for (size_t k = 0; k < s->size / 8; k++, p += 8) {
            uint32_t start = elf_get32(img, p), end = elf_get32(img, p + 4);
            if (start < end)
                (*out)[n++] = (struct excluded_range){ NULL, start, end, 0 };
        }
        return n;
    }
    return 0;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A Thumb blx rM rewritten with the 32-bit instruction before it (that
 * one moved into a thunk, arch/arm) stays where it was, after the bl
 * that took the other's place: a scan of the rewritten code cannot
 * tell it from a blx that could not be rewritten.  Those are the
 * link's sites, not untraced calls: taken off the list. */
static void drop_rewritten(struct scan_stats *st, const uint64_t *site_addr, size_t n_sites)
{
    uint64_t *sorted = xmalloc((n_sites + 1) * sizeof *sorted);
    memcpy(sorted, site_addr, n_sites * sizeof *sorted);
    qsort(sorted, n_sites, sizeof *sorted, u64_cmp);
    size_t k = 0;
    for (size_t i = 0; i < st->n_untraced; i++)
        if (!bsearch(&st->untraced[i].addr, sorted, n_sites, sizeof *sorted, u64_cmp))
            st->untraced[k++] = st->untraced[i];
    st->n_untraced = k;
    free(sorted);
}

/* The rewritten call sites are the calls into the sled; in address
 * order they are the DB's sites, and each must enter the sled at its
 * position within its page.  The scan leaves out the code the link
 * left alone (the crt objects and the tracer, as the object records
 * them), so that the calls it finds untraced are the ones the link
 * counted. */
static int find_rewritten_sites(struct program *p)
{
    const struct elf_image *img = &p->obj->img;
    const struct arch_ops *arch = p->arch;
    const struct litifut_db_header *h = &p->db.header;
    struct sled_set sleds;
    struct site_list all;
    struct scan_stats st;
    struct exclusions other = { NULL, 0 };
    other.n = other_code_ranges(img, &other.v);
    int found = find_sleds(arch, img, &sleds) == 0 &&
                find_call_sites(arch, img, &other, &all, &st) == 0;
    free(other.v);
    if (!found)
        return -1;
    sleds.bridge = h->bridge;
    p->site_addr = xcalloc(h->n_sites, sizeof *p->site_addr);
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < all.n && rc == 0; i++) {
        unsigned k;
        if (!p->read_ops->decode_redirect(img, &all.v[i], &sleds, &k))
            continue;
        /* (the DB's pages count from first_page: link-time addresses
         * below 4 GB; one above is no page of it) */
        uint64_t ra = all.v[i].addr + arch->kinds[all.v[i].kind].ra_offset;
        uint64_t page = (ra >> h->page_shift) - h->first_page;
        if (n >= h->n_sites || page >= h->n_pages || p->db.pages[page] + k != n)
            rc = error("%s: its rewritten call sites do not match its instruction DB "
                       "(at 0x%08" PRIx64 ")", img->path, all.v[i].addr);
        else {
            /* a tail jump: a direct one's target (its site word names its
             * thunk); one through a register has it in its records */
            uint64_t to = 0;
            if (arch->kinds[all.v[i].kind].jump &&
                (p->read_ops->call_target(&all.v[i], &to) || p->db.words[n] < LITIFUT_DB_INDIRECT)) {
                if (!p->jump_to) {
                    p->jump_to = xcalloc(h->n_sites, sizeof *p->jump_to);
                    p->jump = xcalloc(h->n_sites, 1);
                }
                p->jump_to[n] = to;
                p->jump[n] = 1;
            }
            p->site_addr[n++] = all.v[i].addr;
        }
    }
    if (rc == 0 && n != h->n_sites)
        rc = error("%s: %zu rewritten call sites, but its DB has %" PRIu32, img->path, n,
                   h->n_sites);
    drop_rewritten(&st, p->site_addr, n);
    p->n_untraced_fn = untraced_by_function(img, &st, &p->untraced_fn);
    p->n_untraced = st.n_untraced;
    scan_stats_free(&st);
    site_list_free(&all);
    return rc;
}

/* The program the process runs, not a library: a fixed-address
 * executable, or a PIE (which asks for the dynamic linker). */
static int is_main_program(const struct elf_image *img)
{
    if (img->e_type == ET_EXEC)
        return 1;
    for (size_t i = 0; i < img->n_segments; i++)
        if (img->segments[i].type == PT_INTERP)
            return 1;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Whether an object's path names the program the header names (maybe
 * by another way: the header has /proc/self/exe, the object its path
 * as mapped), for messages about a file that is not there. */
static int names_program(const char *path, const char *exe)
{
    return strcmp(base_name(path), base_name(exe)) == 0;
}

/* The record has a build-id and the file found by name (--binary-dir,
 * --sysroot, the path) is not that build, or has no symbol table:
 * a file of that build-id in the --binary-dir tree instead (buildid.c),
 * one with symbols if there is one. */
static void find_by_build_id(struct program *p)
{
    struct object *o = p->obj;
    const struct trace_object *rec = p->rec;
    if (o->tried || !rec->build_id_size || !o->paths || !o->paths->binary_dir)
        return;
    uint8_t id[LITIFUT_BUILD_ID_MAX];
    uint32_t size;
    int symtab;
    if (buildid_of_file(o->host_path, id, sizeof id, &size, &symtab) == 0 && symtab &&
        size == rec->build_id_size && memcmp(id, rec->build_id, size) == 0)
        return;                         /* the one */
    char *found = buildid_find(o->paths->binary_dir, rec->build_id, rec->build_id_size);
    if (found) {
        free(o->host_path);
        o->host_path = found;
    }
}

/* The object's file: found, an ELF file of the trace's architecture
 * and byte order, with its symbol table.  One error line if not. */
static int open_object(struct program *p, const struct trace_file *t)
{
    const struct litifut_trace_header *h = &t->header;
    struct object *o = p->obj;
    find_by_build_id(p);
    if (object_open(o) != 0) {
        o->warned = 1;                  /* said here: not again for its addresses */
        if (o->missing)
            return error("%s: cannot read the traced %s %s (see --binary-dir, --sysroot)",
                         t->path, names_program(o->path, h->exe) ? "program" : "library",
                         o->path);
        if (o->why_not)
            return error("%s: %s", o->host_path, o->why_not);
        return -1;                      /* the ELF reader said why */
    }
    const char *what = is_main_program(&o->img) ? "program" : "library";
    p->arch = arch_of_image(&o->img);
    if (!p->arch || p->arch->trace_arch != h->arch)
        return error("%s: %s is not the traced %s (another architecture)", t->path,
                     o->host_path, what);
    p->read_ops = arch_read_ops(p->arch);
    if (o->img.big_endian != (h->endian == LITIFUT_BIG_ENDIAN))
        return error("%s: %s is not the traced %s (the other byte order)", t->path,
                     o->host_path, what);
    /* `strip` keeps the DB (.rodata) but drops the symbols that find it,
     * the sled and the code's mapping symbols (an emulator's trace reads
     * any file: its names come from what symbols it has) */
    if (!o->img.has_symtab && !trace_is_emulated(t))
        return error("%s: stripped (no symbol table): the post-processor needs the file "
                     "as linked, before stripping (give its directory with --binary-dir: a "
                     "file of the same build-id is found there whatever its name), or its "
                     "separate debug file (--debug-dir)", o->host_path);
    return 0;
}

/* The file is the build traced: the record's build-id (if it has
 * one) and DB checksum are the file's. */
static int check_build(const struct program *p, const struct trace_file *t)
{
    const struct trace_object *rec = p->rec;
    if (rec->build_id_size) {
        uint8_t id[LITIFUT_BUILD_ID_MAX];
        uint32_t size;
        buildid_of_image(&p->obj->img, id, sizeof id, &size);
        if (size != rec->build_id_size || memcmp(id, rec->build_id, size) != 0) {
            char mine[2 * LITIFUT_BUILD_ID_MAX + 1], traced[2 * LITIFUT_BUILD_ID_MAX + 1];
            buildid_hex(mine, id, size);
            buildid_hex(traced, rec->build_id, rec->build_id_size);
            return error("%s: %s is not the build that was traced (build-id %s, traced %s)",
                         t->path, p->obj->host_path, size ? mine : "none", traced);
        }
    }
    if (p->db.header.checksum != rec->db_checksum)
        return error("%s: %s is not the build that was traced (its instruction DB differs)",
                     t->path, p->obj->host_path);
    return 0;
}

/* The file: opened, its DB read and its call sites found (what does
 * not depend on the record).  One error line and -1 if not. */
static int open_file(struct program *p, const struct trace_file *t)
{
    if (open_object(p, t) != 0 || db_read_image(&p->obj->img, &p->db) != 0)
        return -1;
    p->owns_db = 1;
    p->is_main = is_main_program(&p->obj->img);
    return find_rewritten_sites(p);
}

/* An emulated trace's object (litifut-emu): no DB in the file; its
 * sites are the SITE_ADDR records of its range, every call through a
 * register as far as the views care (the record gives each target). */
static void emulated_sites(struct program *p, const struct trace_file *t)
{
    const struct trace_object *rec = p->rec;
    /* its sites: the SITE_ADDR records of its range, up to the last one
     * (a call beyond is a bad record; the range's size is only what it
     * may hold) */
    size_t first = trace_site_addr_at(t, rec->base);
    size_t end = trace_site_addr_at(t, (uint64_t)rec->base + rec->n_sites);
    uint32_t n = end > first ? t->site_addrs[end - 1].id - rec->base + 1 : 0;
    p->db.header.n_sites = n;
    p->db.header.checksum = rec->db_checksum;
    p->db.words = xcalloc(n + 1, sizeof *p->db.words);    /* 0: indirect */
    p->site_addr = xcalloc(n + 1, sizeof *p->site_addr);
    for (size_t k = first; k < end; k++) {
        uint32_t i = t->site_addrs[k].id - rec->base;
        p->site_addr[i] = arch_code_address(p->arch, (t->site_addrs[k].addr - p->bias) & p->addr_mask);
        if (t->site_addrs[k].jump) {                /* a tail jump: the record has its target */
            if (!p->jump)
                p->jump = xcalloc(n + 1, 1);
            p->jump[i] = 1;
        }
    }
    p->owns_db = 1;
}

/* The record against the file: the build, and its site count. */
static int check_record(const struct program *p, const struct trace_file *t)
{
    if (check_build(p, t) != 0)
        return -1;
    /* the same DB, so the record's count is damaged: the DB's is used */
    if (p->rec->n_sites != p->db.header.n_sites)
        warning("%s: the OBJECT record of %s says %" PRIu32 " call sites, its DB has %" PRIu32
                "; the DB is believed", t->path, p->obj->host_path, p->rec->n_sites,
                p->db.header.n_sites);
    return 0;
}

static void program_init(struct program *p, struct address_space *as,
                         const struct trace_object *rec)
{
    memset(p, 0, sizeof *p);
    p->rec = rec;
    p->obj = object_get(as, rec->path);
    p->bias = rec->load_bias;
    p->addr_mask = as->addr_mask;
}

int program_load(struct program *p, struct address_space *as, const struct trace_file *t,
                 const struct trace_object *rec)
{
    program_init(p, as, rec);
    if (open_file(p, t) != 0 || check_record(p, t) != 0)
        return -1;
    p->ok = 1;
    return 0;
}

void program_free(struct program *p)
{
    if (p->owns_db) {
        db_free(&p->db);
        free(p->site_addr);
        free(p->jump_to);
        free(p->jump);
        free(p->untraced_fn);
    }
    memset(p, 0, sizeof *p);
}

/* Whether two records describe the same build the same way. */
static int same_build(const struct trace_object *a, const struct trace_object *b)
{
    return a->db_checksum == b->db_checksum && a->n_sites == b->n_sites &&
           a->build_id_size == b->build_id_size &&
           memcmp(a->build_id, b->build_id, a->build_id_size) == 0;
}

/* An object whose file `first` has opened already (a library loaded
 * again after dlclose, one process's objects described again): the
 * file's DB and sites are first's, only the record is checked (and
 * not even that if first's record says the same: one line per build). */
static int program_share(struct program *p, const struct program *first,
                         const struct trace_file *t)
{
    p->arch = first->arch;
    p->read_ops = first->read_ops;
    p->db = first->db;
    p->site_addr = first->site_addr;
    p->jump_to = first->jump_to;
    p->jump = first->jump;
    p->n_untraced = first->n_untraced;
    p->untraced_fn = first->untraced_fn;
    p->n_untraced_fn = first->n_untraced_fn;
    p->is_main = first->is_main;
    if (same_build(p->rec, first->rec))
        p->ok = first->ok;
    else
        p->ok = check_record(p, t) == 0;
    return p->ok ? 0 : -1;
}

/* One object of the trace.  A file is opened once, whatever number of
 * objects it is; one that cannot be used is said once. */
static int program_of_set(struct program *p, struct address_space *as,
                          const struct trace_file *t, const struct trace_object *rec)
{
    program_init(p, as, rec);
    struct object *o = p->obj;
    if (o->load_failed)
        return -1;
    if (trace_is_emulated(t)) {         /* each range its own sites, the file once */
        if (!o->program && open_object(p, t) != 0) {
            o->load_failed = 1;
            return -1;
        }
        if (o->program) {
            p->arch = o->program->arch;
            p->read_ops = o->program->read_ops;
        }
        p->is_main = strcmp(rec->path, t->header.exe) == 0;  /* (libc.so.6 has PT_INTERP) */
        if (!o->program)
            o->program = p;
        emulated_sites(p, t);
        p->ok = check_build(p, t) == 0;
        return p->ok ? 0 : -1;
    }
    if (o->program)
        return program_share(p, o->program, t);
    if (open_file(p, t) != 0) {
        o->load_failed = 1;
        return -1;
    }
    o->program = p;
    p->ok = check_record(p, t) == 0;
    return p->ok ? 0 : -1;
}

int programs_load(struct program_set *ps, struct address_space *as, struct trace_file *t)
{
    int rc = 0;
    memset(ps, 0, sizeof *ps);
    ps->n = t->n_objects;
    ps->v = xcalloc(ps->n + 1, sizeof *ps->v);
    for (size_t i = 0; i < ps->n; i++) {
        struct program *p = &ps->v[i];
        struct trace_object *rec = &t->objects[i];
        if (program_of_set(p, as, t, rec) != 0) {
            rc = -1;
            continue;
        }
        rec->usable = 1;
        rec->db_sites = p->db.header.n_sites;
        address_space_add_object(as, p->obj, p->bias, rec->unloaded);
        if (p->is_main && !ps->main)
            ps->main = p;
    }
    /* a file no record matches is another build: its names are not used */
    for (size_t i = 0; i < ps->n; i++)
        ps->v[i].obj->rejected = 1;
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i].ok)
            ps->v[i].obj->rejected = 0;
    /* the dynamic linker looks in the program first */
    as->main = ps->main ? ps->main->obj : object_find(as, t->header.exe);
    return rc;
}

void programs_free(struct program_set *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        program_free(&ps->v[i]);
    free(ps->v);
    memset(ps, 0, sizeof *ps);
}

uint64_t call_target(const struct program *p, const struct trace_call *c, int *direct,
                     uint64_t *link)
{
    uint32_t target;
    if (p->jump_to && c->site < p->db.header.n_sites && p->jump_to[c->site]) {
        *direct = 1;            /* a tail jump: its site word names its thunk */
        *link = p->jump_to[c->site];
        return (*link + p->bias) & p->addr_mask;
    }
    *direct = !c->has_target && db_site_target(&p->db, c->site, &target);
    if (*direct) {
        *link = arch_code_address(p->arch, target);     /* drop the Thumb bit */
        return (*link + p->bias) & p->addr_mask;
    }
    return arch_code_address(p->arch, c->target);      /* drop the Thumb / ISA-mode bit */
}
