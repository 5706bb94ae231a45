/* Whole-file reads and all-or-nothing writes. */
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
int read_file(const char *path, unsigned char **data, size_t *size);
/* Writes `data` to a temporary file next to `path`, then renames it
 * over `path`: readers see the old file or the new one, never a part.
 * `mode` is the new file's permission bits.  A character device or FIFO
 * at `path` (ld -o /dev/null) is written to instead, and stays. */
int write_file_atomic(const char *path, const void *data, size_t size, unsigned mode);

#endif
