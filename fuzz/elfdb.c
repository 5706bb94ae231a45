/*
 * Fuzzes the ELF image and instruction-DB readers behind the rewriter
 * and the post-processor.  The input is a linked program (seeds: the
 * instrumented demo for each arch, and pass 2 before rewriting).  Each
 * input goes through:
 *   1. lib/elfimage.c: open, symbol, section and segment lookups,
 *      dynamic relocations, the arch's PLT reader, lib/db.c's DB reader;
 *   2. the rewriter as litifut-rewrite runs it (src/rewriter.c): pass 1
 *      scan (sites, DB as C, sites.tsv, summary), sites.tsv read back,
 *      pass 2 (check and rewrite, to a file);
 *   3. the post-processor's object loader (postproc/program.c,
 *      symbols.c) on the input and on what pass 2 wrote: DB checksum,
 *      build-id, the rewritten sites found again, symbols, PLT names,
 *      targets, addresses through the object's load bias.
 * The DB's checksum is made right for each input first (if the input
 * has a DB where its symbols say), so that mutations of the DB get past
 * the checksum test into the code that uses it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/common.h"
#include "src/linkmap.h"
#include "src/rewriter.h"
#include "src/site-report.h"
#include "lib/arch-read.h"
#include "lib/db.h"
#include "postproc/reader/program.h"
#include "postproc/reader/symbols.h"
#include "lib/error.h"

static FILE *devnull;
static char prog[4096], out[4096], db_c[4096], sites_tsv[4096];
static int fix_checksums;
/* What litifut-ld leaves alone in the seed programs (their pass-1 link
 * maps, fuzz/corpus/linkmap/), so that pass 2 accepts the DB they link. */
static struct exclusions excluded_arm, excluded_mips;

static void read_exclusions(const char *name, struct exclusions *ex)
{
    char *path = fuzz_corpus_file(name);
    struct link_map map;
    if (link_map_read(path, &map) != 0)
        fuzz_die("cannot read (set LITIFUT_FUZZ_CORPUS)", path);
    exclusions_from_map(&map, fuzz_tracer_objects, ex);
    link_map_free(&map);
    free(path);
}

/* FNV-1a (db-format.h) of n words at `addr`; 0 if they are not in the file. */
static int sum_words(const struct elf_image *img, uint64_t addr, uint32_t n, uint32_t *sum)
{
    const unsigned char *p = n ? elf_bytes_at(img, addr, 4 * n) : NULL;
    if (n && (n > (UINT32_MAX >> 2) || !p))
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t w = elf_get32(img, p + 4 * i);
        *sum = litifut_fnv1a_words(*sum, &w, 1);
    }
    return 1;
}

/* The file offset of the DB's checksum word in `path` and the checksum
 * its contents have (as lib/db.c computes it); 0 if it has no DB in
 * the file where its symbol says. */
static int db_checksum_of(const char *path, size_t *offset, uint32_t *sum, int *big)
{
    struct elf_image img;
    if (elf_image_open(&img, path) != 0)
        return 0;
    const struct elf_symbol *ds = elf_symbol_by_name(&img, "litifut_db");
    struct litifut_db_header h;
    const unsigned char *hp = ds ? elf_bytes_at(&img, ds->value, sizeof h) : NULL;
    int ok = 0;
    if (hp) {
        uint32_t *w = (uint32_t *)&h;
        for (size_t i = 0; i < sizeof h / 4; i++)
            w[i] = elf_get32(&img, hp + 4 * i);
        h.checksum = 0;
        *sum = litifut_fnv1a_words(2166136261u, w, sizeof h / 4);
        ok = h.n_pages < img.size && h.n_sites < img.size &&    /* else not in the file */
             sum_words(&img, ds->value + sizeof h, h.n_pages + h.n_sites, sum);
        *offset = (size_t)(hp - img.data) + offsetof(struct litifut_db_header, checksum);
        *big = img.big_endian;
    }
    elf_image_close(&img);
    return ok;
}

/* Makes the DB checksum in `path` (holding `data`) right; 1 if it changed. */
static int fix_checksum(const char *path, unsigned char *data, size_t size)
{
    size_t off;
    uint32_t sum;
    int big;
    if (!db_checksum_of(path, &off, &sum, &big) || off + 4 > size)
        return 0;
    unsigned char w[4];
    for (int i = 0; i < 4; i++)
        w[big ? 3 - i : i] = (unsigned char)(sum >> (8 * i));
    if (memcmp(data + off, w, 4) == 0)
        return 0;
    memcpy(data + off, w, 4);
    return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        fuzz_die("cannot open", "/dev/null");
    fuzz_path(prog, sizeof prog, "prog");
    fuzz_path(out, sizeof out, "prog.rewritten");
    fuzz_path(db_c, sizeof db_c, "db.c");
    fuzz_path(sites_tsv, sizeof sites_tsv, "sites.tsv");

    read_exclusions("linkmap/arm.map", &excluded_arm);
    read_exclusions("linkmap/mips.map", &excluded_mips);

    /* the checksum as computed here must be the one the rewriter wrote */
    char *seed = fuzz_corpus_file("elfdb/arm-demo");
    size_t off;
    uint32_t sum, stored;
    int big;
    struct elf_image img;
    fix_checksums = db_checksum_of(seed, &off, &sum, &big) && elf_image_open(&img, seed) == 0;
    if (fix_checksums) {
        fix_checksums = off + 4 <= img.size && (stored = elf_get32(&img, img.data + off)) == sum;
        elf_image_close(&img);
    }
    if (!fix_checksums)
        dprintf(fuzz_stderr, "fuzz/elfdb: DB checksums not fixed up: %s has none, or lib/db.c "
                             "computes it differently now (see db_checksum_of)\n", seed);
    free(seed);
    return 0;
}

/* Step 1: the readers on their own.  Returns the image's arch, *db_ok
 * and *checksum if it holds a readable DB. */
static const struct arch_ops *read_image(const char *path, int *db_ok, uint32_t *checksum)
{
    struct elf_image img;
    *db_ok = 0;
    if (elf_image_open(&img, path) != 0)
        return NULL;
    const struct arch_ops *arch = arch_of_image(&img);
    static const char *const names[] = {
        "litifut_sled", "litifut_island_sled", "litifut_db", "main", "_start",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct elf_symbol *s = elf_symbol_by_name(&img, names[i]);
        uint32_t w;
        if (s)
            elf_read32(&img, s->value, &w);
    }
    for (size_t i = 0; i < img.n_segments; i++) {
        uint64_t v;
        elf_offset_to_vaddr(&img, img.segments[i].offset, &v);
        elf_offset_to_vaddr(&img, (uint64_t)img.segments[i].offset + img.segments[i].filesz, &v);
    }
    for (size_t i = 0; i < img.n_sections; i++) {
        const struct elf_section *s = &img.sections[i];
        unsigned char *p = elf_bytes_at(&img, s->addr, s->size);
        if (p && s->size) {             /* every byte of it must be in the file */
            volatile unsigned char sink = p[0] ^ p[s->size - 1];
            (void)sink;
        }
        uint32_t w;
        elf_read32(&img, s->addr + s->size - 4, &w);
    }
    struct elf_dynreloc *rel;
    size_t n_rel;
    if (elf_dynamic_relocs(&img, &rel, &n_rel) == 0)
        free(rel);
    if (arch && arch->check_image(&img) == 0) {
        struct plt_entry *e;
        size_t n;
        if (arch_read_ops(arch)->plt_entries(&img, &e, &n) == 0) {
            for (size_t i = 0; i < n; i++)
                free(e[i].name);
            free(e);
        }
    }
    struct db db;
    if (db_read_image(&img, &db) == 0) {
        *db_ok = 1;
        *checksum = db.header.checksum;
        db_size_bytes(&db);
        db_free(&db);
    }
    elf_image_close(&img);
    return arch;
}

/* Step 3: as litifut-postproc loads a traced object, for an OBJECT
 * record that names `path` and matches its DB (and its build-id, when
 * the record keeps one). */
static void load_program(const char *path, const struct arch_ops *arch, uint32_t checksum)
{
    static struct trace_file t;         /* large: exe[] */
    static const struct path_options paths = { NULL, NULL };
    struct trace_object rec;
    struct address_space as;
    struct program p;
    memset(&t, 0, sizeof t);
    memset(&rec, 0, sizeof rec);
    /* the header and record as the tracer would write them for this
     * object: its byte order and DB size (else every run stops at those
     * checks) */
    struct elf_image img;
    struct db db;
    if (elf_image_open(&img, path) != 0)
        return;
    t.header.endian = img.big_endian ? LITIFUT_BIG_ENDIAN : LITIFUT_LITTLE_ENDIAN;
    if (db_read_image(&img, &db) == 0) {
        rec.n_sites = db.header.n_sites;
        db_free(&db);
    }
    elf_image_close(&img);
    t.path = (char *)"fuzz.trace";
    t.header.arch = (uint8_t)arch->trace_arch;
    t.header.word_size = (uint8_t)arch->word_size;
    snprintf(t.header.exe, sizeof t.header.exe, "%s", path);
    rec.db_checksum = checksum;
    rec.load_bias = 0x40000000;
    rec.path = (char *)path;
    address_space_init(&as, &paths, arch->word_size);
    /* a record with a build-id: the file's notes read and compared
     * (another build, most of the time), then one without */
    rec.build_id_size = 20;
    memset(rec.build_id, 0xa5, rec.build_id_size);
    program_load(&p, &as, &t, &rec);
    program_free(&p);
    rec.build_id_size = 0;
    if (program_load(&p, &as, &t, &rec) == 0) {
        address_space_add_object(&as, p.obj, p.bias, 0);
        for (uint32_t i = 0; i < p.db.header.n_sites; i++) {
            struct trace_call c = { .kind = TRACE_CALL, .site = i, .target = 0x40001000 };
            uint64_t off, link;
            int direct;
            object_symbol(p.obj, p.site_addr[i], &off);
            call_target(&p, &c, &direct, &link);
            if (direct)
                object_symbol(p.obj, link, &off);
            c.has_target = 1;
            call_target(&p, &c, &direct, &link);
            struct object *o;
            if (resolve_address(&as, c.target, &o, &link) == 0)
                object_symbol(o, link, &off);
        }
    }
    program_free(&p);
    address_space_free(&as);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int db_ok;
    uint32_t checksum = 0;
    fuzz_write_file(prog, data, size);
    if (fix_checksums) {
        unsigned char *copy = malloc(size ? size : 1);
        memcpy(copy, data, size);
        if (fix_checksum(prog, copy, size))
            fuzz_write_file(prog, copy, size);
        free(copy);
    }
    const struct arch_ops *arch = read_image(prog, &db_ok, &checksum);
    if (!arch)
        return 0;

    const struct exclusions *ex = arch->elf_machine == EM_ARM ? &excluded_arm : &excluded_mips;
    struct rewriter_opts o = { ex, devnull, sites_tsv, "prog", NULL, NULL };
    struct site_list sites = { NULL, 0 }, back = { NULL, 0 };
    if (rewriter_scan(prog, &o, db_c, &sites) == 0) {
        if (read_sites_tsv(arch, sites_tsv, &back) != 0 ||
            compare_site_lists(arch, &sites, &back, "sites.tsv") != 0)
            fuzz_fail("elfdb: sites.tsv does not read back as written");
        site_list_free(&back);
        o.sites_tsv = NULL;
        if (rewriter_rewrite(prog, &o, &sites, out) == 0) {
            int ok;
            uint32_t sum = 0;
            if (read_image(out, &ok, &sum) && ok)
                load_program(out, arch, sum);
            unlink(out);
        }
        site_list_free(&sites);
    }
    if (db_ok)
        load_program(prog, arch, checksum);
    return 0;
}
