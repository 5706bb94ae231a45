/*
 * Binaries by build-id.  Firmware is stripped: the device runs
 * `busybox`, the host has `busybox_unstripped` (BusyBox's own build
 * keeps both) or a tree of unstripped files under other names.  So
 * where the file --binary-dir names is not the traced build (another
 * build-id), or has no symbol table, the post-processor looks in the
 * --binary-dir tree for the file whose NT_GNU_BUILD_ID is the one the
 * trace's OBJECT record holds, and takes one with a symbol table if
 * there is one.  The tree is read once (MAX_DEPTH levels, MAX_FILES
 * files, regular files that begin with ELF's magic), each file's
 * notes and section headers only (libelf, ELF_C_READ: nothing mapped,
 * so a file cut meanwhile cannot SIGBUS); symbolic links are not
 * followed into directories (no loops).
 *
 * Separate debug files (--debug-dir, as /usr/lib/debug): a stripped
 * file's build-id names its debug file, dir/.build-id/xx/rest.debug
 * (`objcopy --only-keep-debug`).  That file has the symbol table and
 * DWARF but no code or data (NOBITS): the code, the instruction DB and
 * the sleds still come from the stripped file, with the debug file's
 * symbols moved onto it (section indexes matched by name, since strip
 * renumbers sections), and its DWARF for --srcline.
 */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "postproc/reader/buildid.h"
#include "postproc/util/grow.h"
#include "lib/elfimage.h"
#include "lib/error.h"

#define MAX_DEPTH  4
#define MAX_FILES  20000
#define MAX_ID     64

int buildid_of_file(const char *path, uint8_t *id, uint32_t max, uint32_t *size, int *symtab)
{
    *size = 0;
    *symtab = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    unsigned char magic[4];
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, magic, 4, 0) != 4 ||
        memcmp(magic, ELFMAG, SELFMAG) != 0) {
        close(fd);
        return -1;
    }
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    int rc = elf && elf_kind(elf) == ELF_K_ELF ? 0 : -1;
    for (Elf_Scn *scn = NULL; rc == 0 && (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            break;
        if (sh.sh_type == SHT_SYMTAB)
            *symtab = 1;
        if (sh.sh_type != SHT_NOTE || *size)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        GElf_Nhdr nh;
        size_t off = 0, name_off, desc_off, next;
        while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz <= max) {
                memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
                *size = nh.n_descsz;
                break;
            }
            off = next;
        }
    }
    elf_end(elf);
    close(fd);
    return rc;
}

struct entry {
    char *path;
    uint8_t id[MAX_ID];
    uint32_t size;
    int symtab;
};

struct tree {
    char *dir;
    struct entry *v;
    size_t n, cap;
    struct tree *next;
};

static struct tree *trees;              /* every --binary-dir read, for the process */

static void walk(struct tree *t, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while (t->n < MAX_FILES && (e = readdir(d))) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (depth < MAX_DEPTH)
                walk(t, path, depth + 1);
            free(path);
            continue;
        }
        struct entry en = { .path = path };
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 64 &&
            buildid_of_file(path, en.id, MAX_ID, &en.size, &en.symtab) == 0 && en.size) {
            t->v = grow_for_one(t->v, t->n, &t->cap, sizeof *t->v);
            t->v[t->n++] = en;
        } else {
            free(path);
        }
    }
    closedir(d);
}

char *buildid_find(const char *dir, const uint8_t *id, uint32_t size)
{
    struct tree *t = trees;
    while (t && strcmp(t->dir, dir) != 0)
        t = t->next;
    if (!t) {
        t = xcalloc(1, sizeof *t);
        t->dir = xstrdup(dir);
        t->next = trees;
        trees = t;
        walk(t, dir, 0);
    }
    const struct entry *best = NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].size == size && memcmp(t->v[i].id, id, size) == 0 &&
            (!best || (t->v[i].symtab && !best->symtab)))
            best = &t->v[i];
    return best ? xstrdup(best->path) : NULL;
}

void buildid_of_image(const struct elf_image *img, uint8_t *id, uint32_t max, uint32_t *size)
{
    *size = 0;
    for (size_t i = 0; i < img->n_segments; i++) {
        const struct elf_segment *seg = &img->segments[i];
        uint64_t off = seg->offset, end = (uint64_t)seg->offset + seg->filesz;
        if (seg->type != PT_NOTE || end > img->size)
            continue;
        while (off + 12 <= end) {
            const unsigned char *n = img->data + off;
            uint32_t namesz = elf_get32(img, n), descsz = elf_get32(img, n + 4);
            uint64_t desc = off + 12 + ((namesz + UINT64_C(3)) & ~UINT64_C(3));
            uint64_t next = desc + ((descsz + UINT64_C(3)) & ~UINT64_C(3));
            if (next > end)
                break;
            if (elf_get32(img, n + 8) == NT_GNU_BUILD_ID && namesz == 4 &&
                memcmp(n + 12, "GNU", 4) == 0) {
                *size = descsz < max ? descsz : max;
                memcpy(id, img->data + desc, *size);
                return;
            }
            off = next;
        }
    }
}

void buildid_hex(char *out, const uint8_t *id, uint32_t n)
{
    out[0] = 0;
    for (uint32_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", id[i]);
}

struct elf_image *buildid_debug_symbols(struct elf_image *img, const char *dir)
{
    uint8_t id[MAX_ID];
    uint32_t size;
    buildid_of_image(img, id, sizeof id, &size);
    if (size < 2)
        return NULL;
    char hex[2 * MAX_ID + 1];
    buildid_hex(hex, id, size);
    char *cand[2] = { xasprintf("%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2),
                      xasprintf("%s/%.2s/%s.debug", dir, hex, hex + 2) };
    struct elf_image *dbg = NULL;
    for (int i = 0; i < 2 && !dbg; i++) {
        uint8_t did[MAX_ID];
        uint32_t dsize;
        int dsym;
        if (buildid_of_file(cand[i], did, sizeof did, &dsize, &dsym) != 0 || !dsym ||
            dsize != size || memcmp(did, id, size) != 0)
            continue;
        dbg = xcalloc(1, sizeof *dbg);
        if (elf_image_open(dbg, cand[i]) != 0 || !dbg->has_symtab ||
            dbg->machine != img->machine || dbg->word_size != img->word_size) {
            elf_image_close(dbg);
            free(dbg);
            dbg = NULL;
        }
    }
    free(cand[0]);
    free(cand[1]);
    if (!dbg)
        return NULL;
    /* its symbols, each in the section of img of the same name (strip
     * renumbers sections); one in a section img has not keeps none */
    struct elf_symbol *syms = xcalloc(dbg->n_symbols + 1, sizeof *syms);
    for (size_t i = 0; i < dbg->n_symbols; i++) {
        syms[i] = dbg->symbols[i];
        uint16_t sh = syms[i].shndx;
        if (sh == SHN_UNDEF || sh >= SHN_LORESERVE)
            continue;
        syms[i].shndx = SHN_UNDEF;
        for (size_t k = 1; sh < dbg->n_sections && k < img->n_sections; k++)
            if (strcmp(img->sections[k].name, dbg->sections[sh].name) == 0) {
                syms[i].shndx = (uint16_t)img->sections[k].index;
                break;
            }
        if (syms[i].shndx == SHN_UNDEF)
            syms[i].type = STT_NOTYPE;  /* (not a function of this file) */
    }
    free(img->symbols);
    img->symbols = syms;
    img->n_symbols = dbg->n_symbols;
    img->has_symtab = 1;
    return dbg;
}
