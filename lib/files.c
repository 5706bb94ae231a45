#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/error.h"
#include "lib/files.h"

/* What a path that is not a regular file is, for the message. */
static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "something else";
}

/* Opening a FIFO blocks until a writer comes, and a device may never
 * reach its end: so open without waiting, look at what it is, and keep
 * regular files only.  O_NONBLOCK is cleared again so that reads are
 * plain ones (it means nothing for a regular file, but says so).  -1
 * with errno set, and *kind the file's type if it is not regular. */
static int open_regular(const char *path, mode_t *kind)
{
    *kind = S_IFREG;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : 0;
    if (!e && !S_ISREG(st.st_mode)) {
        *kind = st.st_mode & S_IFMT;
        e = EINVAL;
    }
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int try_open_regular_file(const char *path)
{
    mode_t kind;
    return open_regular(path, &kind);
}

int open_regular_file(const char *path)
{
    mode_t kind;
    int fd = open_regular(path, &kind);
    if (fd >= 0)
        return fd;
    if (!S_ISREG(kind))
        return error("%s: not a regular file (%s)", path, file_kind(kind));
    return error("%s: %s", path, strerror(errno));
}

int read_file(const char *path, unsigned char **data, size_t *size)
{
    int fd = open_regular_file(path);
    if (fd < 0)
        return -1;
    struct stat st;
    size_t cap = fstat(fd, &st) == 0 ? (size_t)st.st_size : 0, len = 0;
    unsigned char *buf = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) {               /* the file grew while we read it */
            cap = cap * 2 + 4096;
            buf = xrealloc(buf, cap + 1);
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            free(buf);
            return error("%s: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = 0;
    *data = buf;
    *size = len;
    return 0;
}

int write_all(int fd, const void *data, size_t size)
{
    const unsigned char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

int copy_fd(int from, int to)
{
    unsigned char buf[65536];
    for (;;) {
        ssize_t n = read(from, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return 0;
        int err = write_all(to, buf, (size_t)n);
        if (err)
            return err;
    }
}

int unlink_if_ordinary(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
        return -1;
    return unlink(path);
}

/* Into the node that is there (ld -o /dev/null): opened without
 * waiting, so that a FIFO nobody reads is an error, not a hang; never
 * created, so that nothing new appears if it went away meanwhile. */
static int write_through(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    int err = fd < 0 || fstat(fd, &st) != 0 ? errno : 0;
    if (!err && S_ISREG(st.st_mode)) {
        close(fd);
        return error("%s: became a file while it was linked; not written", path);
    }
    if (!err) {
        int flags = fcntl(fd, F_GETFL);
        if (flags >= 0)
            fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        err = write_all(fd, data, size);
    }
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno;
    if (err)
        return error("%s: cannot write: %s", path, strerror(err));
    return 0;
}

int write_file_atomic(const char *path, const void *data, size_t size, unsigned mode)
{
    /* Something that is not a file (ld -o /dev/null, a FIFO), also
     * through a symlink, is written into, as ld does: renaming over it
     * would replace it with a file, and a temporary file must not
     * appear next to a device. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return write_through(path, data, size);
    char *tmp = xasprintf("%s.litifut-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        error("%s: cannot create a temporary file next to it: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int err = write_all(fd, data, size);
    if (!err && fchmod(fd, mode) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        error("%s: cannot write: %s", path, strerror(err));
    }
    free(tmp);
    return err ? -1 : 0;
}
