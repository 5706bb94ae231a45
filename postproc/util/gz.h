/*
 * Compressed traces, maps and outputs (gzip, through zlib): gz.c.
 */
#ifndef LITIFUT_POSTPROC_GZ_H
#define LITIFUT_POSTPROC_GZ_H

#include <stddef.h>
#include <sys/types.h>

/* Whether the file open at fd, or the bytes, begin with gzip's magic. */
int gz_magic(int fd);
int gz_magic_bytes(const unsigned char *data, size_t size);

/* An unlinked temporary file ($TMPDIR, else /tmp) holding what the gzip
 * file open at fd inflates to: its descriptor, or -1 with one error
 * line.  Damage is one warning (and *damaged 1); what inflated before it
 * is kept. */
int gz_inflate_to_temp(int fd, const char *path, int *damaged);

/* What `data` inflates to, at most `max` bytes, in *out (malloc'ed):
 * 0, or -1 with one error line.  Damage as above. */
int gz_inflate_buffer(const char *path, const unsigned char *data, size_t size, size_t max,
                      unsigned char **out, size_t *out_size);

/* The first n bytes (fewer if it has fewer) the gzip file open at fd
 * inflates to, into buf, quietly: how many, or -1. */
ssize_t gz_read_prefix(int fd, unsigned char *buf, size_t n);

/* The file open at in_fd (from its start) compressed into out_fd: 0,
 * or -1 with one error line naming `path`. */
int gz_deflate_file(int in_fd, int out_fd, const char *path);

#endif
