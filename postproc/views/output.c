/*
 * -o FILE: the output of any view goes into FILE, whole or not at all,
 * as ld writes its output: into a temporary file beside it (mkstemp,
 * same directory, so the rename is atomic and never goes through a
 * symlink at FILE, which it replaces), renamed over FILE only when the
 * view is done and every write went through.  A name ending in .gz is
 * written gzip-compressed (Perfetto UI opens .json.gz as it is).  An
 * existing device or FIFO (-o /dev/stdout) is written directly,
 * uncompressed: it is never replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "postproc/util/gz.h"
#include "postproc/views/output.h"
#include "lib/error.h"

int output_begin(struct output *out, const char *path)
{
    memset(out, 0, sizeof *out);
    out->path = path;
    struct stat st;
    if (lstat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
            return error("%s: cannot open: %s", path, strerror(errno));
        close(fd);
        out->path = NULL;               /* nothing to rename */
        return 0;
    }
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return error("%s: is a directory", path);
    size_t n = strlen(path);
    out->gz = n > 3 && strcmp(path + n - 3, ".gz") == 0;
    out->tmp = xasprintf("%s.XXXXXX", path);
    int fd = mkstemp(out->tmp);
    if (fd < 0) {
        int e = errno;
        free(out->tmp);
        out->tmp = NULL;
        return error("%s: cannot write a file beside it: %s", path, strerror(e));
    }
    fflush(stdout);
    if (dup2(fd, STDOUT_FILENO) < 0) {
        int e = errno;
        close(fd);
        output_finish(out, 0);
        return error("%s: %s", path, strerror(e));
    }
    close(fd);
    return 0;
}

int output_finish(struct output *out, int ok)
{
    if (!out->tmp)
        return 0;
    int rc = 0;
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = error("%s: cannot write: %s", out->path, strerror(errno));
    else if (ok && out->gz) {
        char *gz = xasprintf("%s.XXXXXX", out->path);
        int in = open(out->tmp, O_RDONLY | O_CLOEXEC), fd = mkstemp(gz);
        if (in < 0 || fd < 0)
            rc = error("%s: cannot compress: %s", out->path, strerror(errno));
        else
            rc = gz_deflate_file(in, fd, out->path);
        if (fd >= 0 && close(fd) != 0 && rc == 0)
            rc = error("%s: cannot write: %s", out->path, strerror(errno));
        if (in >= 0)
            close(in);
        unlink(out->tmp);
        free(out->tmp);
        out->tmp = fd >= 0 ? gz : (free(gz), NULL);
    }
    /* the permissions a new file gets (mkstemp made it 0600) */
    mode_t mask = umask(0);
    umask(mask);
    if (rc == 0 && ok && out->tmp && chmod(out->tmp, 0666 & ~mask) != 0)
        rc = error("%s: %s", out->path, strerror(errno));
    if (rc == 0 && ok && out->tmp && rename(out->tmp, out->path) != 0)
        rc = error("%s: cannot write: %s", out->path, strerror(errno));
    if (out->tmp && (rc != 0 || !ok))
        unlink(out->tmp);
    free(out->tmp);
    out->tmp = NULL;
    return rc;
}
