/*
 * Runtime addresses to files and functions (symbols.h): the saved
 * maps, the instrumented objects' load ranges, each file's function
 * symbols and PLT entries, and the one rule that names an address
 * several symbols share.  Addresses are 64-bit numbers; run-time ones
 * wrap at the trace's word size (as->addr_mask).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>
#include "postproc/reader/symbols.h"
#include "postproc/util/gz.h"
#include "postproc/reader/buildid.h"
#include "postproc/reader/trace.h"
#include "lib/arch-read.h"
#include "lib/error.h"
#include "lib/files.h"

void address_space_init(struct address_space *as, const struct path_options *paths,
                        unsigned word_size)
{
    memset(as, 0, sizeof *as);
    as->paths = paths;
    as->addr_mask = trace_address_mask(word_size);
}

static size_t path_hash(const char *s)
{
    size_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Adds object i to the hash (which has room). */
static void index_object(struct address_space *as, size_t i)
{
    size_t b = path_hash(as->objects[i]->path) & (as->n_by_path - 1);
    while (as->by_path[b] != SIZE_MAX)
        b = (b + 1) & (as->n_by_path - 1);
    as->by_path[b] = i;
}

/* Room for one more object, in the list and the hash. */
static void grow_objects(struct address_space *as)
{
    if (as->n_objects == as->cap_objects) {
        as->cap_objects = as->cap_objects * 2 + 16;
        as->objects = xrealloc(as->objects, as->cap_objects * sizeof *as->objects);
    }
    if ((as->n_objects + 1) * 2 <= as->n_by_path)
        return;
    free(as->by_path);
    as->n_by_path = as->n_by_path ? as->n_by_path * 2 : 64;
    as->by_path = xmalloc(as->n_by_path * sizeof *as->by_path);
    for (size_t i = 0; i < as->n_by_path; i++)
        as->by_path[i] = SIZE_MAX;
    for (size_t i = 0; i < as->n_objects; i++)
        index_object(as, i);
}

struct object *object_find(const struct address_space *as, const char *path)
{
    if (!as->n_by_path)
        return NULL;
    for (size_t b = path_hash(path) & (as->n_by_path - 1); as->by_path[b] != SIZE_MAX;
         b = (b + 1) & (as->n_by_path - 1))
        if (strcmp(as->objects[as->by_path[b]]->path, path) == 0)
            return as->objects[as->by_path[b]];
    return NULL;
}

struct object *object_get(struct address_space *as, const char *path)
{
    struct object *o = object_find(as, path);
    if (o)
        return o;
    o = xcalloc(1, sizeof *o);
    o->path = xstrdup(path);
    o->paths = as->paths;
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
    grow_objects(as);
    as->objects[as->n_objects] = o;
    index_object(as, as->n_objects++);
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

/* Which name wins where several share an address, in every view: a
 * PLT entry's, then a global function's, a weak one's, a local one's;
 * a public name before any name reserved to the implementation
 * (leading '_'), so that libc's puts is "puts" whichever way it was
 * reached, not its global alias "_IO_puts"; and a symbol of a hidden
 * version (a compatibility alias, "cfree@GLIBC_2.4" where free is
 * "free@@GLIBC_2.4") after every other, so that glibc's free is "free".
 * Names that rank alike go by strcmp. */
enum { RANK_PLT, RANK_GLOBAL, RANK_WEAK, RANK_LOCAL, RANK_RESERVED, RANK_COMPAT = 8,
       RANK_UNWIND = 16 };

static int symbol_rank(const struct elf_symbol *s, int compat)
{
    int rank = s->bind == STB_GLOBAL ? RANK_GLOBAL : s->bind == STB_WEAK ? RANK_WEAK : RANK_LOCAL;
    if (s->name[0] == '_')
        rank += RANK_RESERVED;
    return compat ? rank + RANK_COMPAT : rank;
}

/* The hidden versions of .dynsym: per entry 1 if its version is hidden
 * (not the default one a new link binds to), from .gnu.version;
 * NULL if the file has none (or one that does not fit). */
static unsigned char *hidden_versions(const struct elf_image *img)
{
    for (size_t i = 0; i < img->n_sections; i++) {
        const struct elf_section *sec = &img->sections[i];
        if (sec->type != SHT_GNU_versym || sec->entsize != 2 || sec->offset > img->size ||
            sec->size > img->size - sec->offset || sec->size / 2 < img->n_dynsyms)
            continue;
        unsigned char *hidden = xcalloc(img->n_dynsyms + 1, 1);
        for (size_t k = 0; k < img->n_dynsyms; k++)
            hidden[k] = (elf_get16(img, img->data + sec->offset + 2 * k) & 0x8000) != 0;
        return hidden;
    }
    return NULL;
}

/* .dynsym's symbols of a hidden version, by value then name. */
struct compat_set {
    const struct elf_symbol **v;
    size_t n;
};

static int compat_cmp(const void *a, const void *b)
{
    const struct elf_symbol *x = *(const struct elf_symbol *const *)a;
    const struct elf_symbol *y = *(const struct elf_symbol *const *)b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void compat_set_init(struct compat_set *c, const struct elf_image *img,
                            const unsigned char *hidden)
{
    c->v = xcalloc(img->n_dynsyms + 1, sizeof *c->v);
    c->n = 0;
    for (size_t k = 0; hidden && k < img->n_dynsyms; k++)
        if (hidden[k])
            c->v[c->n++] = &img->dynsyms[k];
    if (c->n)
        qsort(c->v, c->n, sizeof *c->v, compat_cmp);
}

/* Whether .symtab's symbol `s` is a compatibility alias: .dynsym has
 * it (same name and value) under a hidden version. */
static int compat_in_dynsym(const struct compat_set *c, const struct elf_symbol *s)
{
    return c->n && bsearch(&s, c->v, c->n, sizeof *c->v, compat_cmp) != NULL;
}

static struct func_symbol *add_sym(struct object *o, size_t *cap, uint64_t addr, uint64_t size,
                                   const char *name, int rank)
{
    if (o->n_syms == *cap) {
        *cap = *cap * 2 + 256;
        o->syms = xrealloc(o->syms, *cap * sizeof *o->syms);
    }
    struct func_symbol *f = &o->syms[o->n_syms++];
    *f = (struct func_symbol){ addr, size, name, rank, NULL, 0, NULL, 0 };
    return f;
}

static char *own_name(struct object *o, char *name)
{
    o->owned_names = xrealloc(o->owned_names, (o->n_owned + 1) * sizeof(char *));
    o->owned_names[o->n_owned++] = name;
    return name;
}

/* The function around `addr` among n symbols sorted by address. */
static struct func_symbol *find_symbol(struct func_symbol *syms, size_t n, uint64_t addr,
                                       uint64_t *off)
{
    if (!n || addr < syms[0].addr)
        return NULL;
    size_t lo = 0, hi = n;              /* last symbol with syms[i].addr <= addr */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (syms[mid].addr <= addr)
            lo = mid;
        else
            hi = mid;
    }
    while (lo > 0 && syms[lo - 1].addr == syms[lo].addr)
        lo--;                           /* the first name at that address */
    struct func_symbol *f = &syms[lo];
    if (f->size && addr - f->addr >= f->size)
        return NULL;
    *off = addr - f->addr;
    return f;
}

/* name@plt for every PLT entry; an IRELATIVE slot is named after its
 * resolver (e.g. memcpy@plt in a static program).  Called with the
 * function symbols sorted. */
static void add_plt_symbols(struct object *o, size_t *cap)
{
    const struct arch_ops *arch = arch_of_image(&o->img);
    struct plt_entry *e;
    size_t n, n_funcs = o->n_syms;
    if (!arch || arch_read_ops(arch)->plt_entries(&o->img, &e, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        char *name = e[i].name;
        const char *import = NULL;
        if (name) {                     /* "memcpy@plt" stands for memcpy */
            size_t len = strlen(name);
            if (len > 4 && strcmp(name + len - 4, "@plt") == 0)
                import = own_name(o, xasprintf("%.*s", (int)(len - 4), name));
        } else {                        /* the functions only: sorted, no PLT yet */
            uint64_t off;
            const struct func_symbol *f = find_symbol(o->syms, n_funcs, e[i].resolver, &off);
            name = f && !off ? xasprintf("%s@plt", f->name)
                             : xasprintf("*ABS*+0x%" PRIx64 "@plt", e[i].resolver);
        }
        own_name(o, name);
        struct func_symbol *f = add_sym(o, cap, e[i].addr, e[i].size, name, RANK_PLT);
        f->import = import;
        f->veneer_to = arch_code_address(arch, e[i].to);
    }
    free(e);
}

/* The start addresses of the functions the unwind tables know (sorted,
 * as both tables are): .eh_frame_hdr's search table (the encodings GNU
 * ld writes: a count in udata4, datarel sdata4 pairs) or ARM's
 * .ARM.exidx (prel31 starts).  Every field is checked against the
 * file; *n = 0 if there is no table that fits. */
static uint64_t *unwind_starts(const struct elf_image *img, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < img->n_sections; i++) {
        const struct elf_section *sec = &img->sections[i];
        int hdr = sec->name && strcmp(sec->name, ".eh_frame_hdr") == 0;
        int exidx = sec->type == SHT_ARM_EXIDX && img->machine == EM_ARM;
        if ((!hdr && !exidx) || sec->type == SHT_NOBITS || sec->offset > img->size ||
            sec->size > img->size - sec->offset)
            continue;
        const unsigned char *d = img->data + sec->offset;
        size_t count, first, step = 8;
        if (hdr) {
            /* version 1, eh_frame_ptr (pcrel sdata4), count, table */
            if (sec->size < 12 || d[0] != 1 || d[1] != 0x1b || d[2] != 0x03 || d[3] != 0x3b)
                continue;
            count = elf_get32(img, d + 8);
            first = 12;
        } else {
            count = sec->size / 8;
            first = 0;
        }
        if (count == 0 || count > (sec->size - first) / step)
            continue;
        uint64_t *v = xcalloc(count, sizeof *v);
        for (size_t k = 0; k < count; k++) {
            const unsigned char *e = d + first + k * step;
            int64_t rel;
            uint64_t at;
            if (hdr) {
                rel = (int32_t)elf_get32(img, e);           /* from the table's start */
                at = sec->addr;
            } else {
                uint32_t w = elf_get32(img, e);
                rel = (int32_t)(w << 1) >> 1;               /* prel31, from the entry */
                at = sec->addr + first + k * step;
            }
            v[k] = at + (uint64_t)rel;
        }
        *n = count;
        return v;
    }
    return NULL;
}

/* Functions no symbol names, from the unwind tables: a stripped
 * library's static functions (musl's libc.so: _dlstart_c after the
 * unsized _dlstart) get a name of their own, 0x<start>, and their call
 * sites one function, instead of the unsized symbol before them or a
 * function per site.  A start inside a sized symbol (a function's cold
 * part) or at a symbol's address adds nothing.  Called with the
 * symbols sorted. */
static void add_unwind_functions(struct object *o, size_t *cap)
{
    size_t n, n_named = o->n_syms;
    uint64_t *starts = unwind_starts(&o->img, &n);
    const struct arch_ops *arch = arch_of_image(&o->img);
    for (size_t k = 0; k < n; k++) {
        uint64_t start = arch ? arch_code_address(arch, starts[k]) : starts[k], off;
        if (!elf_section_at(&o->img, start))
            continue;                       /* (not code of this file) */
        const struct func_symbol *s = find_symbol(o->syms, n_named, start, &off);
        if (s && (off == 0 || s->size))
            continue;
        uint64_t size = k + 1 < n && starts[k + 1] > starts[k] ? starts[k + 1] - starts[k] : 0;
        add_sym(o, cap, start, size, own_name(o, xasprintf("0x%08" PRIx64, start)), RANK_UNWIND);
    }
    free(starts);
}

/* Why `o` cannot be opened, for the caller to say (o->missing if there
 * is no such file); NULL if it can be tried.  A FIFO is never opened
 * here: that would wait for a writer. */
static const char *not_openable(struct object *o)
{
    struct stat st;
    if (stat(o->host_path, &st) != 0) {
        o->missing = 1;
        return "not found";
    }
    if (S_ISREG(st.st_mode))
        return NULL;
    return S_ISFIFO(st.st_mode)  ? "not a regular file (a FIFO)"
           : S_ISDIR(st.st_mode) ? "not a regular file (a directory)"
                                 : "not a regular file";
}

int object_open(struct object *o)
{
    if (o->tried)
        return o->ok ? 0 : -1;
    o->tried = 1;
    if ((o->why_not = not_openable(o)))
        return -1;                      /* the caller says what it means */
    if (elf_image_open(&o->img, o->host_path) != 0)
        return -1;                      /* the ELF reader said why */
    if (!o->img.has_symtab && o->paths && o->paths->debug_dir)
        o->debug = buildid_debug_symbols(&o->img, o->paths->debug_dir);
    const struct elf_symbol *src = o->img.has_symtab ? o->img.symbols : o->img.dynsyms;
    size_t n = o->img.has_symtab ? o->img.n_symbols : o->img.n_dynsyms, cap = 0;
    unsigned char *hidden = hidden_versions(&o->img);
    struct compat_set compat;
    compat_set_init(&compat, &o->img, o->img.has_symtab ? hidden : NULL);
    const struct arch_ops *arch = arch_of_image(&o->img);    /* (the Thumb bit) */
    for (size_t i = 0; i < n; i++) {
        const struct elf_symbol *s = &src[i];
        if ((s->type != STT_FUNC && s->type != STT_GNU_IFUNC) || s->shndx == SHN_UNDEF ||
            !s->name[0])
            continue;
        int is_compat = !o->img.has_symtab ? hidden && hidden[i]
                        : s->bind != STB_LOCAL && compat_in_dynsym(&compat, s);
        add_sym(o, &cap, arch ? arch_code_address(arch, s->value) : s->value, s->size, s->name,
                symbol_rank(s, is_compat));
    }
    free(compat.v);
    free(hidden);
    if (o->n_syms)
        qsort(o->syms, o->n_syms, sizeof *o->syms, sym_cmp);
    add_plt_symbols(o, &cap);
    if (o->n_syms)
        qsort(o->syms, o->n_syms, sizeof *o->syms, sym_cmp);
    size_t before = o->n_syms;
    add_unwind_functions(o, &cap);
    if (o->n_syms != before)
        qsort(o->syms, o->n_syms, sizeof *o->syms, sym_cmp);
    o->ok = 1;
    return 0;
}

struct func_symbol *object_symbol(struct object *o, uint64_t addr, uint64_t *off)
{
    if (o->rejected || object_open(o) != 0)
        return NULL;
    return find_symbol(o->syms, o->n_syms, addr, off);
}

int object_usable(struct object *o)
{
    if (o->rejected)
        return -1;                      /* said when it was */
    if (object_open(o) == 0)
        return 0;
    if (!o->why_not || o->warned++)
        return -1;
    if (o->missing)
        warning("%s not found (see --sysroot, --binary-dir): its addresses stay unnamed",
                o->path);
    else
        warning("%s: %s; its addresses stay unnamed", o->host_path, o->why_not);
    return -1;
}

/* "r-xp": read, write, execute, private or shared. */
static int perms_ok(const char *p)
{
    return strlen(p) == 4 && (p[0] == 'r' || p[0] == '-') && (p[1] == 'w' || p[1] == '-') &&
           (p[2] == 'x' || p[2] == '-') && (p[3] == 'p' || p[3] == 's');
}

static int has_control_chars(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

/* One line of /proc/PID/maps:
 *   start-end perms offset dev inode [path]
 * Addresses are the target's: below 2^(8 * word size) (`mask`, the
 * largest; the end, exclusive, may be one more).  Returns 0 and the
 * mapping (path NULL for anonymous memory, [stack] and the like; *exec
 * if it is code), or -1. */
static int parse_maps_line(char *line, uint64_t mask, struct mapping *m, const char **path,
                           int *exec)
{
    unsigned long long start, end, offset;
    char perms[8];
    int path_at = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &offset,
               &path_at) < 4 || !path_at)
        return -1;
    if (start >= end || end - 1 > mask || !perms_ok(perms) || has_control_chars(line))
        return -1;
    *m = (struct mapping){ start, end, offset, NULL };
    *path = line[path_at] == '/' ? line + path_at : NULL;
    *exec = perms[2] == 'x';
    return 0;
}

/* A maps file inflates to this at most (/proc/PID/maps of a large
 * process is a few hundred KB). */
#define MAX_MAPS_BYTES (64u << 20)

int address_space_load_maps(struct address_space *as, const char *maps_path)
{
    struct stat st;
    if (stat(maps_path, &st) != 0)
        return 0;                       /* none: only the instrumented objects are known */
    if (!S_ISREG(st.st_mode)) {
        warning("%s: %s; ignored: only the instrumented objects' addresses are named",
                maps_path,
                S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO)" : "not a regular file");
        return 0;
    }
    unsigned char *data;
    size_t size;
    if (read_file(maps_path, &data, &size) != 0)
        return 0;
    if (gz_magic_bytes(data, size)) {   /* gzip (gz.c); a maps file is a few KB */
        unsigned char *raw;
        size_t raw_size;
        int rc = gz_inflate_buffer(maps_path, data, size, MAX_MAPS_BYTES, &raw, &raw_size);
        free(data);
        if (rc != 0)
            return 0;
        data = xrealloc(raw, raw_size + 1);
        data[raw_size] = 0;             /* (read_file's buffer ends with a NUL too) */
        size = raw_size;
    }
    size_t n_lines = 0, bad_line = 0;
    for (char *line = (char *)data, *next; line < (char *)data + size; line = next) {
        char *nl = memchr(line, '\n', (size_t)((char *)data + size - line));
        next = nl ? nl + 1 : (char *)data + size;
        if (nl)
            *nl = 0;                    /* the buffer ends with a NUL too */
        n_lines++;
        struct mapping m;
        const char *path;
        int exec;
        if (memchr(line, 0, (size_t)(next - line) - (nl ? 1 : 0)) ||
            parse_maps_line(line, as->addr_mask, &m, &path, &exec) != 0) {
            if (!bad_line)
                bad_line = n_lines;
            continue;
        }
        m.obj = path ? object_get(as, path) : NULL;
        if (m.obj && exec)
            m.obj->has_code = 1;
        as->maps = xrealloc(as->maps, (as->n_maps + 1) * sizeof *as->maps);
        as->maps[as->n_maps++] = m;
    }
    if (bad_line)
        warning("%s: line %zu is not a maps line; skipped it and any other such line",
                maps_path, bad_line);
    free(data);
    return 0;
}

void address_space_add_object(struct address_space *as, struct object *o, uint64_t bias,
                              int unloaded)
{
    o->has_code = 1;
    for (size_t i = 0; i < o->img.n_segments; i++) {
        const struct elf_segment *seg = &o->img.segments[i];
        if (seg->type != PT_LOAD || !seg->memsz)
            continue;
        uint64_t start = (seg->vaddr + bias) & as->addr_mask;  /* wraps as the target's do */
        as->ranges = xrealloc(as->ranges, (as->n_ranges + 1) * sizeof *as->ranges);
        as->ranges[as->n_ranges] = (struct object_range){
            start, start + seg->memsz, bias, unloaded, o, as->n_ranges, 0 };
        as->n_ranges++;
        as->ranges_sorted = 0;
    }
}

static int range_cmp(const void *a, const void *b)
{
    const struct object_range *x = a, *y = b;
    if (x->unloaded != y->unloaded)
        return x->unloaded - y->unloaded;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The ranges by (unloaded, start), each with the largest end so far in
 * its half: a lookup need not look further back than that. */
static void sort_ranges(struct address_space *as)
{
    struct object_range *r = as->ranges;
    if (as->n_ranges)
        qsort(r, as->n_ranges, sizeof *r, range_cmp);
    as->n_live_ranges = 0;
    for (size_t i = 0; i < as->n_ranges; i++) {
        uint64_t before = i && r[i - 1].unloaded == r[i].unloaded ? r[i - 1].max_end : 0;
        r[i].max_end = r[i].end > before ? r[i].end : before;
        as->n_live_ranges += !r[i].unloaded;
    }
    as->ranges_sorted = 1;
}

/* Among ranges [lo, hi) (one half, sorted): the one holding `rt` that
 * starts last, or NULL. */
static const struct object_range *range_holding(const struct address_space *as, size_t lo,
                                                size_t hi, uint64_t rt)
{
    const struct object_range *r = as->ranges;
    size_t a = lo, b = hi;              /* the first that starts after rt */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (r[mid].start <= rt)
            a = mid + 1;
        else
            b = mid;
    }
    for (size_t k = a; k > lo && r[k - 1].max_end > rt; k--)
        if (rt < r[k - 1].end)
            return &r[k - 1];
    return NULL;
}

/* The instrumented object loaded at `rt` (one still loaded at the end
 * first: a library unloaded may have left its addresses to another). */
static int resolve_in_ranges(struct address_space *as, uint64_t rt, struct object **obj,
                             uint64_t *link_addr)
{
    if (!as->ranges_sorted)
        sort_ranges(as);
    const struct object_range *r = range_holding(as, 0, as->n_live_ranges, rt);
    if (!r)
        r = range_holding(as, as->n_live_ranges, as->n_ranges, rt);
    if (!r)
        return -1;
    *obj = r->obj;
    *link_addr = (rt - r->bias) & as->addr_mask;
    return 0;
}

int resolve_address(struct address_space *as, uint64_t rt, struct object **obj,
                    uint64_t *link_addr)
{
    if (resolve_in_ranges(as, rt, obj, link_addr) == 0)
        return 0;
    for (size_t i = 0; i < as->n_maps; i++) {
        const struct mapping *m = &as->maps[i];
        if (rt < m->start || rt >= m->end || !m->obj)
            continue;
        if (object_usable(m->obj) != 0)
            return -1;
        if (elf_offset_to_vaddr(&m->obj->img, rt - m->start + m->offset, link_addr) != 0)
            return -1;
        *obj = m->obj;
        return 0;
    }
    return -1;
}

/* Whether `o` defines function `name` for other objects to call. */
static int defines_function(const struct object *o, const char *name)
{
    for (size_t i = 0; i < o->img.n_dynsyms; i++) {
        const struct elf_symbol *s = &o->img.dynsyms[i];
        if (s->shndx != SHN_UNDEF && (s->type == STT_FUNC || s->type == STT_GNU_IFUNC) &&
            s->bind != STB_LOCAL && strcmp(s->name, name) == 0)
            return 1;
    }
    return 0;
}

/* Whether `lib` is where the dynamic linker finds function `name`. */
static int binds(struct object *lib, const char *name)
{
    return lib && lib->has_code && object_usable(lib) == 0 && defines_function(lib, name);
}

struct object *object_binding(struct address_space *as, const char *name)
{
    if (binds(as->main, name))
        return as->main;
    for (size_t i = 0; i < as->n_objects; i++)
        if (binds(as->objects[i], name))
            return as->objects[i];
    return NULL;
}

/* The object holding the entry is searched too, in its place: a
 * library may call a function it exports through its own PLT. */
struct object *plt_import_object(struct address_space *as, struct func_symbol *f)
{
    if (!f || !f->import || f->import_looked_up)
        return f ? f->import_from : NULL;
    f->import_looked_up = 1;
    f->import_from = object_binding(as, f->import);
    return f->import_from;
}

void address_space_free(struct address_space *as)
{
    for (size_t i = 0; i < as->n_objects; i++) {
        struct object *o = as->objects[i];
        if (o->ok)
            elf_image_close(&o->img);
        if (o->debug) {
            elf_image_close(o->debug);
            free(o->debug);
        }
        for (size_t j = 0; j < o->n_owned; j++)
            free(o->owned_names[j]);
        free(o->owned_names);
        free(o->syms);
        free(o->path);
        free(o->host_path);
        free(o);
    }
    free(as->objects);
    free(as->by_path);
    free(as->maps);
    free(as->ranges);
    memset(as, 0, sizeof *as);
}
