/*
 * Helpers shared by the libFuzzer harnesses in fuzz/: a scratch
 * directory per fuzzing process, files written from input bytes, and
 * where the seed programs are.
 */
#ifndef LITIFUT_FUZZ_COMMON_H
#define LITIFUT_FUZZ_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* The seed corpora (fuzz/corpus): $LITIFUT_FUZZ_CORPUS, else the
 * directory the build compiled in.  The harnesses use the seed
 * programs (elfdb/) and link maps (linkmap/) as fixed data too. */
#ifndef FUZZ_CORPUS_DIR
#define FUZZ_CORPUS_DIR "fuzz/corpus"
#endif

/* The tracer objects as the seed link maps name them (make-seeds.sh):
 * what litifut-ld leaves alone besides the crt objects. */
static const char *const fuzz_tracer_objects[] = {
    "/litifut/lib/litifut/arm-linux-gnueabi/tracer.o",
    "/litifut/lib/litifut/mips-linux-gnu/tracer.o",
    "/litifut/lib/litifut/mips-linux-gnu/island.o",
    "/litifut/lib/litifut/mipsel-linux-gnu/tracer.o",
    "/litifut/lib/litifut/mipsel-linux-gnu/island.o",
    NULL,
};

static inline const char *fuzz_corpus_dir(void)
{
    const char *d = getenv("LITIFUT_FUZZ_CORPUS");
    return d && *d ? d : FUZZ_CORPUS_DIR;
}

/* "<corpus>/<name>", allocated. */
static inline char *fuzz_corpus_file(const char *name)
{
    size_t n = strlen(fuzz_corpus_dir()) + strlen(name) + 2;
    char *p = malloc(n);
    if (!p)
        abort();
    snprintf(p, n, "%s/%s", fuzz_corpus_dir(), name);
    return p;
}

/* The harness's own messages go to the stderr it started with: the
 * runs close the tools' stderr (-close_fd_mask=2, they print an error
 * line for most inputs), which LLVMFuzzerInitialize still precedes. */
static int fuzz_stderr = 2;

void fuzz_capstone_calls_init(void);   /* fuzz/capstone-calls.c */

/* What every LLVMFuzzerInitialize does first. */
static inline void fuzz_init(void)
{
    fuzz_capstone_calls_init();
    int fd = fcntl(2, F_DUPFD_CLOEXEC, 10);
    if (fd >= 0)
        fuzz_stderr = fd;
}

/* A failed check: the message, then abort() (libFuzzer saves the input). */
static inline void fuzz_fail(const char *msg)
{
    dprintf(fuzz_stderr, "fuzz harness: %s\n", msg);
    abort();
}

static inline void fuzz_die(const char *what, const char *path)
{
    dprintf(fuzz_stderr, "fuzz harness: %s %s: %s\n", what, path, strerror(errno));
    abort();
}

/* Writes `size` bytes to `path` (created or truncated). */
static inline void fuzz_write_file(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        fuzz_die("cannot create", path);
    const unsigned char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fuzz_die("cannot write", path);
        p += n;
        size -= (size_t)n;
    }
    close(fd);
}

/* A file made with mkstemp holding the input; the caller unlinks it. */
static inline void fuzz_temp_file(char *path, size_t cap, const void *data, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, cap, "%s/litifut-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        fuzz_die("mkstemp", path);
    close(fd);
    fuzz_write_file(path, data, size);
}

/* The process's scratch directory (made on first use, removed with
 * everything in it at exit; one level of files, no subdirectories). */
static char fuzz_dir_path[4096];

static inline void fuzz_remove_dir(void)
{
    DIR *d = opendir(fuzz_dir_path);
    if (!d)
        return;
    struct dirent *e;
    char p[8192];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", fuzz_dir_path, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(fuzz_dir_path);
}

static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/litifut-fuzz.XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(fuzz_dir_path))
            fuzz_die("mkdtemp", fuzz_dir_path);
        atexit(fuzz_remove_dir);
    }
    return fuzz_dir_path;
}

/* "<scratch dir>/<name>", in a static buffer per call site's `buf`. */
static inline const char *fuzz_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", fuzz_dir(), name);
    return buf;
}

/* Copies every regular file of `from` into directory `to`; returns how many. */
static inline int fuzz_copy_dir(const char *from, const char *to)
{
    DIR *d = opendir(from);
    if (!d)
        fuzz_die("cannot open the directory", from);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char src[8192], dst[8192];
        snprintf(src, sizeof src, "%s/%s", from, e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", to, e->d_name);
        struct stat st;
        FILE *f = e->d_name[0] != '.' && stat(src, &st) == 0 && S_ISREG(st.st_mode)
                      ? fopen(src, "rb") : NULL;
        if (!f)
            continue;
        size_t cap = 1 << 16, len = 0;
        unsigned char *buf = malloc(cap);
        for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
            len += got;
            if (len == cap)
                buf = realloc(buf, cap *= 2);
        }
        fclose(f);
        if (!buf)
            fuzz_die("out of memory copying", src);
        fuzz_write_file(dst, buf, len);
        free(buf);
        n++;
    }
    closedir(d);
    return n;
}

#endif
