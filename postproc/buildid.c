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
 */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "postproc/buildid.h"
#include "postproc/grow.h"
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
