/*
 * litifut-ld --install TRIPLE: put the wrapper where TRIPLE-gcc finds
 * its linker, so that every link of the toolchain goes through it (a
 * plain one unchanged, byte for byte; LITIFUT=1 instruments).
 *
 * The linker is the path P that `TRIPLE-gcc -print-prog-name=ld`
 * gives (/usr/TRIPLE/bin/ld on Debian).  P keeps being what it was
 * under the name P.litifut-real (the lead's rule in toolchain.c finds
 * it from argv[0]), and P becomes a symlink to this program.  The same
 * for P's sibling ld.bfd (gcc -fuse-ld=bfd), if there is one.
 *
 * Each name is in one of a few states (enum state); everything is
 * checked before anything changes, so a refusal changes nothing.  The
 * original is saved with link() (the same inode under a second name)
 * and the symlink renamed over P: P never disappears, a link running
 * meanwhile finds either linker, and an install cut short (both names
 * one file) is recognised and finished or undone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "wrapper/install.h"
#include "lib/arch.h"
#include "lib/error.h"

extern char **environ;

#define SAVED_SUFFIX ".litifut-real"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The triples with a tracer module (lib/litifut/<triple>/tracer.o):
 * lib/arches.def. */
static int check_triple(const char *triple)
{
    if (arch_by_triple(triple))
        return 0;
    return error("%s: litifut has no tracer module for this target; supported: %s", triple,
                 arch_supported_triples());
}

/* An error about changing `path`, saying what a refusal of
 * permission means here (the toolchain is root's). */
static int change_error(const char *what, const char *path)
{
    int err = errno;
    return error("cannot %s %s: %s%s", what, path, strerror(err),
                 err == EACCES || err == EPERM ? " (changing the toolchain needs root)" : "");
}

/* Runs argv with stdin and stderr on /dev/null; its stdout, up to a
 * limit, in *out (allocated, NUL-terminated).  Returns its exit status
 * (128 + signal if killed), or -1 with errno if it could not be run. */
static int capture_stdout(char *const argv[], char **out)
{
    enum { LIMIT = 1 << 16 };           /* a version text or a path */
    int fds[2], err;
    *out = NULL;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    err = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)
                               : posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (err != 0) {
        close(fds[0]);
        errno = err;
        return -1;
    }
    char *buf = xmalloc(LIMIT + 1);
    size_t len = 0;
    for (;;) {
        char chunk[4096];
        ssize_t n = read(fds[0], chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t keep = (size_t)n < LIMIT - len ? (size_t)n : LIMIT - len;
        memcpy(buf + len, chunk, keep);     /* the rest is read and dropped */
        len += keep;
    }
    close(fds[0]);
    buf[len] = 0;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            free(buf);
            return -1;
        }
    *out = buf;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* P: the ld of TRIPLE-gcc, with its directory made canonical (P itself
 * is usually a symlink, which is what we keep). */
static char *toolchain_linker(const char *triple)
{
    char *gcc = xasprintf("%s-gcc", triple), *out;
    char *argv[] = { gcc, "-print-prog-name=ld", NULL };
    int st = capture_stdout(argv, &out);
    char *result = NULL;
    if (st < 0) {
        error("cannot run %s: %s (is the cross compiler for %s installed?)", gcc,
              strerror(errno), triple);
    } else if (st != 0) {
        error("%s -print-prog-name=ld failed (exit %d)", gcc, st);
    } else {
        out[strcspn(out, "\n")] = 0;
        char *slash = strrchr(out, '/');
        if (out[0] != '/' || !slash[1]) {
            error("%s -print-prog-name=ld gives \"%s\", not an absolute path: "
                  "the toolchain has no linker of its own to replace", gcc, out);
        } else {
            *slash = 0;
            char *dir = realpath(out[0] ? out : "/", NULL);
            if (!dir)
                error("%s (from %s -print-prog-name=ld): %s", out, gcc, strerror(errno));
            else
                result = xasprintf("%s/%s", strcmp(dir, "/") ? dir : "", slash + 1);
            free(dir);
        }
    }
    free(out);
    free(gcc);
    return result;
}

/* What a name of the toolchain is, as far as we are concerned. */
enum state {
    ABSENT,         /* neither NAME nor NAME.litifut-real */
    ORIGINAL,       /* the toolchain's own, not installed */
    INSTALLED,      /* NAME is our symlink, the original is NAME.litifut-real */
    HALF_SAVED,     /* an install cut short: both names are the original (one inode) */
    MOVED,          /* only NAME.litifut-real: cut short after a rename, or our link removed */
};

struct entry {
    char *path, *saved;         /* NAME, NAME.litifut-real */
    enum state state;
    int current;                /* INSTALLED and linked to this very program */
};

static char *read_link(const char *path)
{
    char buf[PATH_MAX];
    ssize_t n = readlink(path, buf, sizeof buf - 1);
    if (n < 0)
        return NULL;
    buf[n] = 0;
    return xstrdup(buf);
}

/* `P --version` says it is GNU ld (not gold, lld or a stranger). */
static int is_gnu_ld(const char *path)
{
    char *out;
    char *argv[] = { (char *)path, "--version", NULL };
    int st = capture_stdout(argv, &out);
    int yes = st == 0 && strstr(out, "GNU ld") != NULL;
    free(out);
    return yes;
}

/* Finds e->state; one error line for a state we do not recognise.
 * `probe`: make sure an ORIGINAL is a GNU ld (before replacing it). */
static int classify(struct entry *e, const char *self, int probe)
{
    struct stat st, saved_st;
    int has_path = lstat(e->path, &st) == 0;
    if (!has_path && errno != ENOENT)
        return error("cannot inspect %s: %s", e->path, strerror(errno));
    int has_saved = lstat(e->saved, &saved_st) == 0;
    if (!has_saved && errno != ENOENT)
        return error("cannot inspect %s: %s", e->saved, strerror(errno));
    char *target = has_path && S_ISLNK(st.st_mode) ? read_link(e->path) : NULL;
    int ours = target && strcmp(base_name(target), "litifut-ld") == 0;
    int rc = 0;
    e->current = 0;
    if (!has_path) {
        e->state = has_saved ? MOVED : ABSENT;
    } else if (ours) {
        if (has_saved) {
            e->state = INSTALLED;
            e->current = strcmp(target, self) == 0;
        } else {
            rc = error("%s links to litifut-ld but the linker it replaced (%s) is gone; "
                       "not touching it", e->path, e->saved);
        }
    } else if (has_saved) {
        if (st.st_dev == saved_st.st_dev && st.st_ino == saved_st.st_ino)
            e->state = HALF_SAVED;
        else
            rc = error("%s exists but %s is not litifut-ld's link (binutils reinstalled?); "
                       "not touching them", e->saved, e->path);
    } else if (probe && !is_gnu_ld(e->path)) {
        rc = error("%s is not GNU ld (%s --version does not say so); not replacing it",
                   e->path, e->path);
    } else {
        e->state = ORIGINAL;
    }
    free(target);
    return rc;
}

/* A symlink to `self` under a temporary name beside `path` (a symlink
 * cannot be made with mkstemp; our pid makes the name ours, and a
 * leftover of a dead process with the same pid is replaced). */
static char *make_link(const char *path, const char *self)
{
    char *tmp = xasprintf("%s.litifut-new-%ld", path, (long)getpid());
    int rc = symlink(self, tmp);
    if (rc != 0 && errno == EEXIST && unlink(tmp) == 0)
        rc = symlink(self, tmp);
    if (rc != 0) {
        change_error("create a symlink beside", path);
        free(tmp);
        return NULL;
    }
    return tmp;
}

static int install_entry(const struct entry *e, const char *self)
{
    if (e->state == ABSENT || (e->state == INSTALLED && e->current))
        return 0;                   /* nothing to do: installing twice is no change */
    char *tmp = make_link(e->path, self);
    if (!tmp)
        return -1;
    int rc = 0, moved = 0;
    if (e->state == ORIGINAL && link(e->path, e->saved) != 0) {
        /* a file system without hard links for us: rename instead
         * (P is missing for a moment) */
        if (errno == EACCES || errno == EEXIST || errno == ENOENT || rename(e->path, e->saved) != 0)
            rc = change_error("save the linker as", e->saved);
        else
            moved = 1;
    }
    if (rc == 0 && rename(tmp, e->path) != 0) {
        rc = change_error("replace", e->path);
        if (moved)
            rename(e->saved, e->path);
        else if (e->state == ORIGINAL)
            unlink(e->saved);       /* a second name of the original: nothing lost */
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

static int uninstall_entry(const struct entry *e)
{
    switch (e->state) {
    case ABSENT:
    case ORIGINAL:
        return 0;                   /* not installed: nothing to undo */
    case HALF_SAVED:
        if (unlink(e->saved) != 0)
            return change_error("remove", e->saved);
        return 0;
    case INSTALLED:
    case MOVED:
        /* one step: our link is replaced by the original */
        if (rename(e->saved, e->path) != 0)
            return change_error("put back", e->path);
        return 0;
    }
    return 0;
}

/* Install or uninstall, for TRIPLE-gcc's ld and its sibling ld.bfd. */
static int change_toolchain(const char *triple, int install)
{
    if (check_triple(triple) != 0)
        return -1;
    char *self = realpath("/proc/self/exe", NULL);
    if (!self)
        return error("cannot find this program (/proc/self/exe): %s", strerror(errno));
    if (install && strcmp(base_name(self), "litifut-ld") != 0) {
        /* --uninstall knows our links by that name */
        error("%s: only a program named litifut-ld can install itself", self);
        free(self);
        return -1;
    }
    char *ld = toolchain_linker(triple);
    if (!ld) {
        free(self);
        return -1;
    }
    struct entry e[2];
    int n = 1;
    e[0].path = ld;
    if (strcmp(base_name(ld), "ld.bfd") != 0) {
        e[1].path = xasprintf("%.*sld.bfd", (int)(base_name(ld) - ld), ld);
        n = 2;
    }
    int rc = 0;
    for (int i = 0; i < n; i++)
        e[i].saved = xasprintf("%s" SAVED_SUFFIX, e[i].path);
    for (int i = 0; i < n && rc == 0; i++)
        rc = classify(&e[i], self, install);
    if (rc == 0 && install && e[0].state == ABSENT)
        rc = error("%s: no such file", ld);

    /* No signal between saving a linker and putting the link in its
     * place: they are noted, and act once all is done. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGQUIT);
    sigprocmask(SIG_BLOCK, &block, &old);
    for (int i = 0; i < n && rc == 0; i++)
        rc = install ? install_entry(&e[i], self) : uninstall_entry(&e[i]);
    sigprocmask(SIG_SETMASK, &old, NULL);

    for (int i = 0; i < n; i++) {
        free(e[i].path);
        free(e[i].saved);
    }
    free(self);
    return rc;
}

int install_wrapper(const char *triple)
{
    return change_toolchain(triple, 1);
}

int uninstall_wrapper(const char *triple)
{
    return change_toolchain(triple, 0);
}

void print_usage(void)
{
    fputs("Usage: litifut-ld --install TRIPLE\n"
          "       litifut-ld --uninstall TRIPLE\n"
          "  --install TRIPLE    make TRIPLE-gcc link through litifut-ld (root, for /usr):\n"
          "                      its ld (TRIPLE-gcc -print-prog-name=ld) and ld.bfd become\n"
          "                      symlinks to this program, the originals stay as\n"
          "                      ld.litifut-real and ld.bfd.litifut-real beside them\n"
          "  --uninstall TRIPLE  put TRIPLE-gcc's linkers back as they were\n"
          "Run as ld or TRIPLE-ld (installed, gcc -B, or in PATH) it is the linker: with\n"
          "LITIFUT=1 it instruments the program, otherwise it runs the real ld with the same\n"
          "arguments (so TRIPLE-ld --help prints ld's options).  It is silent on success;\n"
          "LITIFUT_VERBOSE=1 prints a summary line per link on stderr, LITIFUT_LOG=FILE\n"
          "appends it to FILE.  Other settings: LITIFUT_KEEP=1, LITIFUT_REAL_LD, LITIFUT_CC,\n"
          "LITIFUT_LIBDIR (see README.md).\n"
          "Targets:", stdout);
    for (const struct arch_triple *t = arch_triples; t->triple; t++)
        printf(" %s", t->triple);
    printf("\n");
}
