/* Whole-file reads and all-or-nothing writes. */
#ifndef LITIFUT_FILES_H
#define LITIFUT_FILES_H

#include <stddef.h>

/* Reads all of `path`; reports an error naming it and returns -1 on failure. */
int read_file(const char *path, unsigned char **data, size_t *size);
/* Writes `data` to a temporary file next to `path`, then renames it
 * over `path`: readers see the old file or the new one, never a part.
 * `mode` is the new file's permission bits. */
int write_file_atomic(const char *path, const void *data, size_t size, unsigned mode);

#endif
