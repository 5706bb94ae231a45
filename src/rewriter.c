#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "src/rewriter.h"
#include "src/rewrite.h"
#include "src/site-report.h"
#include "src/entries.h"
#include "src/callsites.h"
#include "lib/error.h"
#include "lib/files.h"
#include "lib/arch-read.h"

/* Zeros after the DB's words: room for the DB of a link whose code moved
 * after pass 1 (a third link then redoes pass 2, wrapper/instrument.c:
 * its page table may be a few pages longer), and what keeps code that
 * follows the DB (a linker script with .rodata first) more than
 * LITIFUT_DB_INDIRECT bytes from any site word (src/db.c). */
#define DB_ROOM_WORDS (LITIFUT_DB_INDIRECT / 4)

/* A third link's thunk area, for pass 1's sites that need `bytes`:
 * where the code moved, a pair of data words may name a function's
 * inside in one link and not in the other (lib/sites.c), so that link
 * may rewrite a few more jumps through registers than pass 1 found. */
static uint32_t relink_thunk_room(uint32_t bytes)
{
    return bytes + (bytes / 8 & ~7u) + 4096;
}

static int open_program(const char *path, struct elf_image *img, const struct arch_ops **arch)
{
    if (elf_image_open(img, path) != 0)
        return -1;
    *arch = arch_of_image(img);
    if (!*arch && arch_by_machine(img->machine)) {
        error("%s: a %u-bit ELF file, and %s objects are %u-bit", path, 8 * img->word_size,
              arch_by_machine(img->machine)->name, 8 * arch_by_machine(img->machine)->word_size);
        goto fail;
    }
    if (!*arch) {
        error("%s: unsupported machine (ELF e_machine %d)", path, img->machine);
        goto fail;
    }
    if (img->e_type != ET_EXEC && img->e_type != ET_DYN) {
        error("%s: not a linked program", path);
        goto fail;
    }
    if ((*arch)->check_image(img) != 0)
        goto fail;
    return 0;
fail:
    elf_image_close(img);
    return -1;
}

static int scan(const char *binary, const struct rewriter_opts *o, struct elf_image *img,
                const struct arch_ops **arch, struct site_list *sites)
{
    struct scan_stats st;
    if (open_program(binary, img, arch) != 0)
        return -1;
    if (find_call_sites(*arch, img, o->excluded, sites, &st) != 0) {
        elf_image_close(img);
        return -1;
    }
    char *rules = xstrdup("");
    if (o->rules) {
        site_rules_resolve_functions(o->rules, img);
        site_rules_apply(o->rules, *arch, img, sites, &st);
        free(rules);
        rules = site_rules_describe(o->rules);
    }
    if (o->summary)
        print_summary(o->summary, o->name ? o->name : binary, *arch, img, sites, &st, rules);
    free(rules);
    if ((o->sites_tsv && write_sites_tsv(*arch, sites, o->sites_tsv) != 0) ||
        (o->untraced_tsv && write_untraced_tsv(img, &st, o->untraced_tsv) != 0)) {
        scan_stats_free(&st);
        site_list_free(sites);
        elf_image_close(img);
        return -1;
    }
    scan_stats_free(&st);
    return 0;
}

/* What rewriting the sites takes: the DB, the redirecting word of each
 * site, the thunks (the sites' thunk area, if the image has one: pass
 * 2), and where the sleds are. */
struct plan {
    struct db db;
    uint32_t *words;
    uint8_t *thunks;
    struct sled_set sleds;
};

static void plan_free(struct plan *pl)
{
    db_free(&pl->db);
    free(pl->words);
    free(pl->thunks);
}

/* Whether the DB names a bridge depends on the redirects.  `name`: the
 * program's, in messages.  `more_thunks`: bytes of the thunk area after
 * the sites' (the entry thunks). */
static int plan(const struct arch_ops *arch, const struct elf_image *img, const char *name,
                const struct site_list *sites, uint32_t more_thunks, int provisional,
                struct plan *pl)
{
    int bridged;
    memset(pl, 0, sizeof *pl);
    if (find_sleds(arch, img, &pl->sleds) != 0)
        return -1;
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arch);
    if (rw->check_reach && rw->check_reach(sites, &pl->sleds, name) != 0)
        return -1;
    const struct elf_symbol *dbsym = elf_symbol_by_name(img, "litifut_db");
    if (!dbsym)
        return error("%s: no symbol litifut_db: not linked with the litifut tracer", img->path);
    /* 64-bit: the DB's header and page words hold 32-bit addresses
     * (include/litifut/db-format.h); an image linked above 4 GB needs a
     * wider format first */
    if (dbsym->value > UINT32_MAX || pl->sleds.base[0] > UINT32_MAX)
        return error("%s: the tracer is linked above 4 GB, beyond the instruction DB's "
                     "32-bit addresses", img->path);
    uint32_t db_vaddr = (uint32_t)dbsym->value, sled = (uint32_t)pl->sleds.base[0];
    pl->words = xcalloc(sites->n + 1, sizeof *pl->words);
    uint32_t need = thunk_area_size(arch, sites) + more_thunks;
    /* (zeros after the thunks where a third link's area has room) */
    pl->thunks = pl->sleds.thunks ? xcalloc((need > pl->sleds.thunks_size ? need
                                                                          : pl->sleds.thunks_size) + 1, 1)
                                  : NULL;
    uint64_t thunks = pl->sleds.thunks ? pl->sleds.thunks : pl->sleds.code_end;  /* (rewrite.c) */
    if (db_build(arch, rw, sites, sled, 0, db_vaddr, thunks, provisional, &pl->db) == 0 &&
        plan_redirects(arch, sites, &pl->db, &pl->sleds, pl->words, pl->thunks, &bridged) == 0) {
        if (!bridged)
            return 0;
        db_free(&pl->db);
        if (db_build(arch, rw, sites, sled, pl->sleds.bridge, db_vaddr, thunks,
                     provisional, &pl->db) == 0)
            return 0;
    }
    plan_free(pl);
    return -1;
}

/* The excluded ranges that are code of the image (the link map also
 * places .debug_* sections, at 0), as (start, end) pairs. */
static uint32_t *other_code(const struct exclusions *ex, const struct elf_image *img, size_t *n)
{
    uint32_t *v = xcalloc(2 * (ex ? ex->n : 0) + 2, sizeof *v);
    for (size_t i = 0; ex && i < ex->n; i++) {
        const struct excluded_range *r = &ex->v[i];
        for (size_t k = 0; k < img->n_sections; k++) {
            const struct elf_section *s = &img->sections[k];
            uint64_t start, end;
            if ((s->flags & SHF_ALLOC) && (s->flags & SHF_EXECINSTR) &&
                excluded_range_at(r, s, &start, &end) && start < end && start >= s->addr &&
                end <= s->addr + s->size) {
                /* 64-bit: .litifut_other_code holds 32-bit words */
                v[2 * *n] = (uint32_t)start;
                v[2 * *n + 1] = (uint32_t)end;
                ++*n;
                break;
            }
        }
    }
    return v;
}

static int same_site_lists(const struct site_list *a, const struct site_list *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].addr != b->v[i].addr || a->v[i].insn != b->v[i].insn ||
            a->v[i].kind != b->v[i].kind || a->v[i].insn2 != b->v[i].insn2)
            return 0;
    return 1;
}

/* .litifut_other_code as this image has it: the DB object wrote pass
 * 1's ranges, which a third link may have moved (the same ranges, the
 * same number). */
static int write_other_code(const struct exclusions *ex, struct elf_image *img)
{
    const struct elf_section *sec = NULL;
    for (size_t i = 0; i < img->n_sections && !sec; i++)
        if (strcmp(img->sections[i].name, ".litifut_other_code") == 0)
            sec = &img->sections[i];
    size_t n = 0;
    uint32_t *v = other_code(ex, img, &n);
    int rc = 0;
    if (sec ? sec->size != 8 * n || sec->offset > img->size || img->size - sec->offset < sec->size
            : n != 0)
        rc = error("%s: .litifut_other_code is not the one written for it", img->path);
    for (size_t i = 0; rc == 0 && i < 2 * n; i++)
        elf_put32(img, img->data + sec->offset + 4 * i, v[i]);
    free(v);
    return rc;
}

int rewriter_scan(const char *binary, const struct rewriter_opts *o, const char *db_c,
                  struct site_list *sites)
{
    struct elf_image img;
    const struct arch_ops *arch;
    struct plan pl;
    if (scan(binary, o, &img, &arch, sites) != 0)
        return -1;
    int rc = -1;
    struct entry_words ew = { NULL, 0 };
    if (o->entries)
        entry_words_find(arch, &img, o->excluded, &ew);
    if (plan(arch, &img, o->name ? o->name : binary, sites, 0, 1, &pl) == 0) {
        char *rules = o->rules ? site_rules_text(o->rules) : NULL;
        size_t n_other = 0;
        uint32_t *other = other_code(o->excluded, &img, &n_other);
        uint32_t words = db_size_bytes(&pl.db) / 4;
        uint32_t thunk_bytes = thunk_area_size(arch, sites) + entry_thunks_size(arch, &ew);
        if (o->relink)
            thunk_bytes = relink_thunk_room(thunk_bytes);
        /* (the table's checksum is the provisional DB's: the rewrite
         * writes the final one; a relink's sites may be a few more) */
        size_t cs_len = 0;
        unsigned char *cs = db_c ? callsites_build(arch, &img, sites, pl.db.header.checksum,
                                                   &cs_len) : NULL;
        size_t cs_room = o->relink ? relink_thunk_room((uint32_t)cs_len) : cs_len;
        rc = db_c ? db_write_asm(&pl.db, img.big_endian, words + DB_ROOM_WORDS, thunk_bytes,
                                 rules, other, n_other, cs, cs_len, cs_room,
                                 arch_rewrite_ops(arch)->db_asm, db_c)
                  : 0;
        free(cs);
        free(other);
        free(rules);
        plan_free(&pl);
    }
    entry_words_free(&ew);
    elf_image_close(&img);
    if (rc != 0)
        site_list_free(sites);
    return rc;
}

int rewriter_rewrite(const char *binary, const struct rewriter_opts *o,
                     const struct site_list *expected, const char *out)
{
    struct elf_image img;
    const struct arch_ops *arch;
    struct site_list sites;
    struct stat st;
    struct plan pl;
    struct entry_words ew = { NULL, 0 };
    if (stat(binary, &st) != 0)
        return error("%s: cannot stat", binary);
    if (scan(binary, o, &img, &arch, &sites) != 0)
        return -1;
    int rc = -1;
    if (o->entries)
        entry_words_find(arch, &img, o->excluded, &ew);
    if (expected && o->moved && !same_site_lists(expected, &sites)) {
        *o->moved = 1;
        goto out;
    }
    if (expected && compare_site_lists(arch, expected, &sites,
                                       "pass 2 moved code (the two links differ)") != 0)
        goto out;
    /* A MIPS GOT call's import is named by both links or by neither
     * (whether data could enter between its load and the call is read
     * from words that differ between them): the call-site table pass 1
     * made room for names no more */
    for (size_t i = 0; expected && i < sites.n; i++)
        if (expected->v[i].callee_sym != sites.v[i].callee_sym)
            sites.v[i].callee_sym = 0;
    uint32_t site_thunks = thunk_area_size(arch, &sites), more = entry_thunks_size(arch, &ew);
    if (plan(arch, &img, o->name ? o->name : binary, &sites, more, 0, &pl) != 0)
        goto out;
    for (size_t i = 0; i < sites.n; i++) {
        struct call_site s = sites.v[i];
        unsigned k;
        if (arch_read_ops(arch)->decode_redirect(&img, &s, &pl.sleds, &k)) {
            error("%s: already rewritten (the call at 0x%08" PRIx64 " goes to the tracer)",
                  binary, sites.v[i].addr);
            plan_free(&pl);
            goto out;
        }
    }
    /* (a thunk area: the site words of tail jumps name their thunks, which
     * pass 1 only guessed) */
    uint32_t thunk_bytes = site_thunks + more;
    if (o->relink && thunk_bytes <= pl.sleds.thunks_size)
        thunk_bytes = (uint32_t)pl.sleds.thunks_size;
    if (db_write_image(&pl.db, &img, (expected != NULL && !pl.sleds.thunks_size ? DB_SAME_CODE : 0) |
                                     (o->relink ? DB_RELINKED : 0)) == 0 &&
        write_other_code(o->excluded, &img) == 0 &&
        callsites_write_image(arch, &img, &sites, pl.db.header.checksum) == 0 &&
        (!ew.n || (pl.thunks && entry_words_rewrite(arch, &img, &ew, pl.sleds.thunks + site_thunks,
                                                    pl.thunks + site_thunks) == 0)) &&
        rewrite_call_sites(arch, &img, &sites, pl.words, &pl.sleds, pl.thunks, thunk_bytes) == 0)
        rc = write_file_atomic(out, img.data, img.size, st.st_mode & 07777);
    plan_free(&pl);
out:
    entry_words_free(&ew);
    site_list_free(&sites);
    elf_image_close(&img);
    return rc;
}

int rewriter_placeholder_db(const struct arch_ops *arch, const char *db_c)
{
    /* pass 1's: a header's room of zeros (nothing reads it) */
    return db_write_asm(NULL, 0, LITIFUT_DB_HEADER_WORDS + DB_ROOM_WORDS, 0, NULL, NULL, 0,
                        NULL, 0, 0, arch_rewrite_ops(arch)->db_asm, db_c);
}

int read_sites_tsv(const struct arch_ops *arch, const char *path, struct site_list *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return error("%s: cannot open", path);
    char line[256], kind[32];
    size_t cap = 0;
    int rc = 0;
    out->v = NULL;
    out->n = 0;
    if (!fgets(line, sizeof line, f) || strncmp(line, "site\t", 5) != 0)
        rc = error("%s: not a sites.tsv file", path);
    for (unsigned lineno = 2; rc == 0 && fgets(line, sizeof line, f); lineno++) {
        struct call_site s;
        memset(&s, 0, sizeof s);
        if (sscanf(line, "%" SCNx64 "\t%31s\t%" SCNx32 "\t%" SCNx16 "\t%" SCNu32, &s.addr, kind,
                   &s.insn, &s.insn2, &s.callee_sym) < 3) {
            rc = error("%s:%u: malformed line", path, lineno);
            break;
        }
        unsigned k;
        for (k = 0; k < arch->n_kinds && strcmp(arch->kinds[k].name, kind) != 0; k++)
            ;
        if (k == arch->n_kinds) {
            rc = error("%s:%u: unknown call kind %s", path, lineno, kind);
            break;
        }
        s.kind = (uint8_t)k;
        if (out->n == cap) {
            cap = cap * 2 + 256;
            out->v = xrealloc(out->v, cap * sizeof *out->v);
        }
        out->v[out->n++] = s;
    }
    fclose(f);
    if (rc != 0)
        site_list_free(out);
    return rc;
}
