/*
 * Which of the functions the wrapper links through the tracer (ld
 * --wrap) the archives of a static link define, and which C library a
 * link is for (libsearch.h).
 *
 * In a link against libc.a a wrapped function must be asked for
 * (--undefined): the program's call of it now names __wrap_NAME, and
 * the tracer's reference to the real one is weak, which pulls no
 * archive member.  But asking for a function that no library has fails
 * the link, and the C libraries differ: musl has no ssignal, no
 * getcontext, no backtrace; uClibc-ng leaves out what its configuration
 * does.  So the archives are searched as ld searches them (each -l in
 * the -L folders, in the -Bstatic/-Bdynamic state it is in, and the
 * archives named as inputs), by their symbol index, and only what one
 * of them defines is asked for.  A function nobody defines stays a weak
 * 0: the program cannot call it (its plain link would have failed).
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wrapper/libsearch.h"
#include "lib/error.h"
#include "lib/files.h"

/* Marks in `defined` the names in the archive's symbol index; 1 if the
 * file is an archive (with an index), 0 if not, -1 if unreadable. */
static int archive_defines(const char *path, const char *const *names, unsigned char *defined)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    elf_version(EV_CURRENT);
    int rc = 0;
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (elf && elf_kind(elf) == ELF_K_AR) {
        size_t n = 0;
        Elf_Arsym *sym = elf_getarsym(elf, &n);
        rc = 1;                 /* (no index: empty, as musl's libpthread.a; ld reads
                                   none either) */
        for (size_t i = 0; sym && i < n; i++)
            for (int k = 0; sym[i].as_name && names[k]; k++)
                if (strcmp(sym[i].as_name, names[k]) == 0)
                    defined[k] = 1;
    }
    elf_end(elf);
    close(fd);
    return rc;
}

/* The value of option `arg` (at *i) if it is one of the spellings
 * given: "-X" with the value joined or next, "--long=V" or "--long V";
 * NULL if it is not. */
static const char *option_value(char *const *v, int n, int *i, char shrt, const char *lng)
{
    const char *a = v[*i];
    if (a[0] == '-' && a[1] == shrt && shrt)
        return a[2] ? a + 2 : *i + 1 < n ? v[++*i] : NULL;
    const char *name = a[0] == '-' ? a + 1 + (a[1] == '-') : NULL;
    size_t len = strlen(lng);
    if (!name || strncmp(name, lng, len) != 0)
        return NULL;
    if (name[len] == '=')
        return name + len + 1;
    if (name[len] == 0 && *i + 1 < n)
        return v[++*i];
    return NULL;
}

/* `dir` as ld reads it: "=" or "$SYSROOT" at the start is the sysroot. */
static char *search_dir(const char *dir, const char *sysroot)
{
    if (dir[0] == '=')
        return xasprintf("%s%s", sysroot ? sysroot : "", dir + 1);
    if (strncmp(dir, "$SYSROOT", 8) == 0)
        return xasprintf("%s%s", sysroot ? sysroot : "", dir + 8);
    return xstrdup(dir);
}

static int is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The file -l`name` names in the state given (static: lib<name>.a;
 * dynamic: lib<name>.so before lib<name>.a, folder by folder), or NULL. */
static char *find_library(const char *name, int is_static, char **dirs, int n_dirs)
{
    for (int d = 0; d < n_dirs; d++) {
        char *p;
        if (name[0] == ':') {
            p = xasprintf("%s/%s", dirs[d], name + 1);
        } else {
            if (!is_static) {
                p = xasprintf("%s/lib%s.so", dirs[d], name);
                if (is_regular(p))
                    return p;
                free(p);
            }
            p = xasprintf("%s/lib%s.a", dirs[d], name);
        }
        if (is_regular(p))
            return p;
        free(p);
    }
    return NULL;
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* The link's -L folders (every -L counts for every -l), as ld reads
 * them; *n_dirs of them.  free_dirs() frees them. */
static char **link_dirs(const struct link_args *la, int *n_dirs)
{
    char *const *v = la->args.v;
    int n = la->args.n;
    const char *sysroot = NULL;
    char **dirs = xcalloc((size_t)n + 1, sizeof *dirs);
    *n_dirs = 0;
    for (int i = 0; i < n; i++)
        if (!la->input[i] && strncmp(v[i], "--sysroot=", 10) == 0)
            sysroot = v[i] + 10;
    for (int i = 0; i < n; i++) {
        const char *val;
        if (!la->input[i] && (val = option_value(v, n, &i, 'L', "library-path")))
            dirs[(*n_dirs)++] = search_dir(val, sysroot);
    }
    return dirs;
}

static void free_dirs(char **dirs, int n_dirs)
{
    for (int d = 0; d < n_dirs; d++)
        free(dirs[d]);
    free(dirs);
}

int archive_in_folders_defines(const struct link_args *la, const char *lib, const char *name)
{
    int n_dirs;
    char **dirs = link_dirs(la, &n_dirs);
    char *path = find_library(lib, 1, dirs, n_dirs);
    const char *names[] = { name, NULL };
    unsigned char defined[1] = { 0 };
    int rc = path && archive_defines(path, names, defined) > 0 ? defined[0] : -1;
    free(path);
    free_dirs(dirs, n_dirs);
    return rc;
}

int static_link_defines(const struct link_args *la, const char *const *names,
                        unsigned char *defined)
{
    char *const *v = la->args.v;
    int n = la->args.n, n_dirs, complete = 1;
    char **dirs = link_dirs(la, &n_dirs);
    int is_static = 0;
    for (int i = 0; i < n; i++) {
        const char *a = v[i], *lib;
        if (la->input[i]) {
            if (ends_with(a, ".a") || !ends_with(a, ".o"))
                archive_defines(a, names, defined);     /* (0: an object or a script) */
        } else if (!strcmp(a, "-Bstatic") || !strcmp(a, "-static") || !strcmp(a, "--static") ||
                   !strcmp(a, "-dn") || !strcmp(a, "-non_shared")) {
            is_static = 1;
        } else if (!strcmp(a, "-Bdynamic") || !strcmp(a, "-dy") || !strcmp(a, "-call_shared")) {
            is_static = 0;
        } else if ((lib = option_value(v, n, &i, 'l', "library"))) {
            char *path = find_library(lib, is_static, dirs, n_dirs);
            if (!path)
                complete = 0;       /* (ld's own folders: not known here) */
            else
                complete &= archive_defines(path, names, defined) >= 0;
            free(path);
        } else if (option_value(v, n, &i, 'L', "library-path")) {
            /* (seen above) */
        }
    }
    free_dirs(dirs, n_dirs);
    return complete ? 0 : -1;
}

enum c_library link_c_library(const struct link_args *la, const char *triple)
{
    char *const *v = la->args.v;
    for (int i = 0; i < la->args.n; i++) {
        const char *ldso;
        if (la->input[i] || !(ldso = option_value(v, la->args.n, &i, 'I', "dynamic-linker")))
            continue;
        const char *base = strrchr(ldso, '/');
        base = base ? base + 1 : ldso;
        if (strncmp(base, "ld-musl-", 8) == 0)
            return C_LIBRARY_MUSL;
        if (strncmp(base, "ld-uClibc", 9) == 0 || strncmp(base, "ld64-uClibc", 11) == 0)
            return C_LIBRARY_UCLIBC;
        return C_LIBRARY_GLIBC;
    }
    if (triple && strstr(triple, "-musl"))
        return C_LIBRARY_MUSL;
    if (triple && strstr(triple, "-uclibc"))
        return C_LIBRARY_UCLIBC;
    return C_LIBRARY_GLIBC;
}
