/* Whole-file reads, all-or-nothing writes, and the few other file
 * operations the tools share (copying, removing an output as ld does). */
#ifndef LITIFUT_FILES_H
#define LITIFUT_FILES_H

#include <stddef.h>

/* Files that come from a target may be anything: a FIFO (opening it
 * would wait for a writer forever), a device (reading it may never
 * end).  So these open `path` without blocking and go on only if it is
 * a regular file; anything else is one error line naming the file
 * ("not a regular file (a FIFO)"), and -1.  open_regular_file returns
 * the descriptor (O_RDONLY, O_CLOEXEC, blocking again), which the
 * caller closes; read_file reads all of the file. */
int open_regular_file(const char *path);
/* The same without a message: -1 with errno set (EINVAL: not a
 * regular file), for files that are looked at only if they can be. */
int try_open_regular_file(const char *path);
int read_file(const char *path, unsigned char **data, size_t *size);
/* Writes `data` to a temporary file next to `path` (created with
 * mkstemp: never through a symlink), then renames it over `path`:
 * readers see the old file or the new one, never a part, and a symlink
 * at `path` is replaced, not followed.  `mode` is the new file's
 * permission bits.  Something at `path` that is not a regular file,
 * itself or at the end of a symlink (ld -o /dev/null, a FIFO), is
 * written into instead, as ld does, and stays what it is: no temporary
 * file is made next to it, and it is never created (a FIFO that no one
 * reads is an error, not a wait). */
int write_file_atomic(const char *path, const void *data, size_t size, unsigned mode);
/* All of `size` bytes to `fd`; copy_fd: all of `from` (from where it
 * is) to `to`.  0, or the errno of the failure. */
int write_all(int fd, const void *data, size_t size);
int copy_fd(int from, int to);
/* libiberty's unlink_if_ordinary, which GNU ld runs on its output
 * before writing it and after a failed link: removes `path` only if it
 * is a regular file or a symlink (not what it points to), never a
 * device, FIFO, socket or directory.  0 if it removed it, else -1. */
int unlink_if_ordinary(const char *path);

#endif
