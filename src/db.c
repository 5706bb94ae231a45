#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/db.h"
#include "lib/error.h"

/* The page (number) a site is keyed by: that of its return address. */
static uint32_t page_of(const struct arch_ops *arch, const struct call_site *site)
{
    /* 64-bit: page numbers are 32-bit DB words; plan() refuses a DB above 4 GB */
    return (uint32_t)((site->addr + arch->kinds[site->kind].ra_offset) >> arch->db_page_shift);
}

int db_build(const struct arch_ops *arch, const struct arch_rewrite_ops *rw,
             const struct site_list *sites, uint32_t sled_vaddr, uint32_t bridge,
             uint32_t db_vaddr, uint64_t thunks, int provisional, struct db *db)
{
    memset(db, 0, sizeof *db);
    struct litifut_db_header *h = &db->header;
    h->magic = LITIFUT_DB_MAGIC;
    h->version = LITIFUT_DB_VERSION;
    h->arch = arch->trace_arch;
    h->page_shift = arch->db_page_shift;
    h->sled_vaddr = sled_vaddr;
    h->bridge = bridge;
    h->db_vaddr = db_vaddr;
    h->n_sites = (uint32_t)sites->n;
    if (sites->n) {
        h->first_page = page_of(arch, &sites->v[0]);
        h->n_pages = page_of(arch, &sites->v[sites->n - 1]) - h->first_page + 1;
    }
    db->pages = xcalloc(h->n_pages + 1, sizeof *db->pages);
    db->words = xcalloc(sites->n + 1, sizeof *db->words);
    uint32_t page = 0;
    uint64_t thunk = thunks;
    for (size_t i = 0; i < sites->n; i++) {
        unsigned thunk_size = arch->kinds[sites->v[i].kind].thunk_size;
        uint32_t p = page_of(arch, &sites->v[i]) - h->first_page;
        while (page < p)
            db->pages[++page] = (uint32_t)i;
        /* A fixed target is never within LITIFUT_DB_INDIRECT bytes after
         * its word, where it would read as a register: before the DB
         * (the usual layout: code, then .rodata) the word is negative;
         * after it (a linker script with .rodata first) it is past the
         * room of zeros that follows the words (DB_ROOM_WORDS). */
        uint64_t own = thunk_size ? thunk : 0;
        thunk += thunk_size;
        uint32_t at = db_word_addr(db, (uint32_t)i), w = rw->site_word(&sites->v[i], at, own);
        int fixed = w != rw->site_word(&sites->v[i], at + 4, own);    /* relative to its word */
        if (fixed && w < LITIFUT_DB_INDIRECT && !provisional) {
            db_free(db);
            return error("call at 0x%08" PRIx64 ": its target lies right after the "
                         "instruction DB", sites->v[i].addr);
        }
        db->words[i] = w;
    }
    while (page < h->n_pages)
        db->pages[++page] = (uint32_t)sites->n;
    for (uint32_t p = 0; p < h->n_pages; p++)
        if (db->pages[p + 1] - db->pages[p] > arch->sled_entries) {
            db_free(db);
            return error("more than %u call sites in one %u-byte page: the sled is too short",
                         arch->sled_entries, 1u << arch->db_page_shift);
        }
    h->checksum = db_checksum(db);
    return 0;
}

unsigned db_sled_index(const struct arch_ops *arch, const struct db *db,
                       const struct site_list *sites, size_t i)
{
    return (unsigned)i -
           db->pages[page_of(arch, &sites->v[i]) - db->header.first_page];
}

/* Word i of the DB as the file holds it. */
static uint32_t file_word(const struct db *db, uint32_t i)
{
    const struct litifut_db_header *h = &db->header;
    return i < LITIFUT_DB_HEADER_WORDS ? ((const uint32_t *)h)[i]
         : i < LITIFUT_DB_HEADER_WORDS + h->n_pages ? 4 * db->pages[i - LITIFUT_DB_HEADER_WORDS]
         : db->words[i - LITIFUT_DB_HEADER_WORDS - h->n_pages];
}

/* The words as the target reads them. */
static int write_bytes(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return error("%s: cannot create", path);
    if ((n && fwrite(p, 1, n, f) != n) | (fclose(f) != 0))
        return error("%s: write error", path);
    return 0;
}

static void put_word(unsigned char *p, uint32_t v, int big_endian)
{
    for (int b = 0; b < 4; b++)
        p[big_endian ? 3 - b : b] = (unsigned char)(v >> (8 * b));
}

int db_write_asm(const struct db *db, int big_endian, uint32_t room_words, uint32_t thunk_bytes,
                 const char *rules, const uint32_t *other_code, size_t n_other,
                 const unsigned char *callsites, size_t callsites_len, size_t callsites_room,
                 const char *extra, const char *path)
{
    /* no DB: zeros (pass 1's placeholder) */
    uint32_t n = db ? LITIFUT_DB_HEADER_WORDS + db->header.n_pages + db->header.n_sites : 0;
    if (room_words < n)
        room_words = n;
    /* the words themselves go into a binary file the assembler copies
     * (.incbin): a million sites cost no parsing */
    char *bin = xasprintf("%s.bin", path);
    FILE *b = fopen(bin, "wb");
    if (!b) {
        error("%s: cannot create", bin);
        free(bin);
        return -1;
    }
    unsigned char w[4];
    for (uint32_t i = 0; i < n; i++) {
        put_word(w, file_word(db, i), big_endian);
        fwrite(w, 1, 4, b);
    }
    if (fclose(b) != 0) {
        error("%s: write error", bin);
        free(bin);
        return -1;
    }
    /* the call-site table, the same way (.incbin) */
    char *cs = xasprintf("%s.callsites", path);
    if (callsites_room && write_bytes(cs, callsites, callsites_len) != 0) {
        free(cs);
        free(bin);
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        free(cs);
        free(bin);
        return error("%s: cannot create", path);
    }
    /* One hidden array in .rodata, no relocations; the room after the
     * words (zeros) lets the DB of a link whose code moved (the wrapper
     * then links a third time) have a page or two more. */
    fprintf(f, "/* litifut instruction DB, generated by the rewriter: do not edit.\n"
               " * Layout: include/litifut/db-format.h; the words: %s */\n"
               "    .section .rodata, \"a\", %%progbits\n"
               "    .p2align 3\n"
               "    .global litifut_db\n"
               "    .hidden litifut_db\n"
               "    .type litifut_db, \"object\"\n"
               "    .size litifut_db, %" PRIu32 "\n"
               "litifut_db:\n", bin, 4 * room_words);
    if (n)
        fprintf(f, "    .incbin \"%s\"\n", bin);
    if (room_words > n)
        fprintf(f, "    .space %" PRIu32 "\n", 4 * (room_words - n));
    /* The sites' thunks, filled in by the rewriter: the last code of
     * the link (this object is its last input), so no call site moves.
     * The tracer tells a tail jump by its target there (stub/call.c):
     * without thunks, an empty range at the DB. */
    if (thunk_bytes)
        fprintf(f, "    .section .litifut_thunks, \"axR\", %%progbits\n"
                   "    .p2align 2\n"
                   "    .global litifut_thunks\n"
                   "    .hidden litifut_thunks\n"
                   "litifut_thunks:\n"
                   "    .space %" PRIu32 "\n"
                   "    .size litifut_thunks, %" PRIu32 "\n"
                   "    .global litifut_thunks_end\n"
                   "    .hidden litifut_thunks_end\n"
                   "litifut_thunks_end:\n", thunk_bytes, thunk_bytes);
    else    /* (labels: an alias made with .set would take the DB's size) */
        fprintf(f, "    .section .rodata, \"a\", %%progbits\n"
                   "    .global litifut_thunks\n"
                   "    .hidden litifut_thunks\n"
                   "    .global litifut_thunks_end\n"
                   "    .hidden litifut_thunks_end\n"
                   "litifut_thunks:\n"
                   "litifut_thunks_end:\n");
    /* The user's site rules, for the post-processor's --info: a section
     * the program does not load, so no address depends on it. */
    if (rules && *rules) {
        fprintf(f, "    .section .litifut_rules, \"\", %%progbits\n    .byte ");
        for (const char *c = rules; *c; c++)
            fprintf(f, "%u,", (unsigned char)*c);
        fprintf(f, "0\n");
    }
    if (n_other) {
        fprintf(f, "    .section .litifut_other_code, \"\", %%progbits\n    .p2align 2\n");
        for (size_t i = 0; i < 2 * n_other; i++)
            fprintf(f, "    .4byte 0x%08" PRIx32 "\n", other_code[i]);
    }
    /* The call-site table, for LITIFUT_EXCLUDE_CALLEE at run time
     * (stub/skip.c): not loaded either. */
    if (callsites_room) {
        fprintf(f, "    .section %s, \"\", %%progbits\n    .p2align 2\n", LITIFUT_CALLSITES_SECTION);
        if (callsites_len)
            fprintf(f, "    .incbin \"%s\"\n", cs);
        if (callsites_room > callsites_len)
            fprintf(f, "    .space %zu\n", callsites_room - callsites_len);
    }
    if (extra)
        fputs(extra, f);
    fprintf(f, "    .section .note.GNU-stack, \"\", %%progbits\n");
    free(cs);
    free(bin);
    if (fclose(f) != 0)
        return error("%s: write error", path);
    return 0;
}

int db_write_image(const struct db *db, struct elf_image *img, int how)
{
    int same_code = how & DB_SAME_CODE;
    const struct litifut_db_header *h = &db->header;
    uint32_t n = LITIFUT_DB_HEADER_WORDS + h->n_pages + h->n_sites;
    const struct elf_symbol *s = elf_symbol_by_name(img, "litifut_db");
    unsigned char *p = s ? elf_bytes_at(img, s->value, s->size) : NULL;
    if (!s || s->size < 4 * n || s->size % 4 || !p || s->value != h->db_vaddr)
        return error("%s: the linked instruction DB is not the one generated for it",
                     img->path);
    struct litifut_db_header linked;
    for (uint32_t i = 0; i < LITIFUT_DB_HEADER_WORDS; i++)
        ((uint32_t *)&linked)[i] = elf_get32(img, p + 4 * i);
    if (linked.magic != h->magic || linked.version != h->version ||
        (!(how & DB_RELINKED) && linked.n_sites != h->n_sites) ||
        (same_code && linked.n_pages != h->n_pages))
        return error("%s: the linked instruction DB is not the one generated for it",
                     img->path);
    /* Where nothing moved it (no thunk area), it is exactly this DB:
     * anything else is another program (or one rewritten already). */
    for (uint32_t i = 0; same_code && linked.db_vaddr == h->db_vaddr && i < n; i++)
        if (elf_get32(img, p + 4 * i) != file_word(db, i))
            return error("%s: the linked instruction DB differs from the one generated for it",
                         img->path);
    for (uint32_t i = 0; i < s->size / 4; i++)
        elf_put32(img, p + 4 * i, i < n ? file_word(db, i) : 0);
    struct db back;
    if (db_read_image(img, &back) != 0)
        return -1;
    db_free(&back);
    return 0;
}
