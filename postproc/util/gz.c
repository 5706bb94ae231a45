/*
 * Compressed traces (zlib): a trace or maps file that begins with
 * gzip's magic is read as what it inflates to, whatever its name
 * (`gzip -r` on the device or the host: litifut.*.trace.gz, .maps.gz);
 * outputs whose name ends in .gz are written compressed.
 *
 * A trace is read by offset (each thread's chunks), so it is inflated,
 * streaming, into an unlinked temporary file ($TMPDIR, else /tmp) that
 * the reader then takes as the raw file; maps are small and inflate in
 * memory.  Compressed input comes from a device or a USB stick: a
 * damaged or cut stream is one warning line, and what inflated before
 * the damage is kept (the trace reader copes with a cut trace);
 * several gzip members one after another (cat a.gz b.gz) are read as
 * one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "postproc/util/gz.h"
#include "lib/error.h"

#define IN_SIZE  (256u << 10)
#define OUT_SIZE (1u << 20)

int gz_magic(int fd)
{
    unsigned char m[2];
    return pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

int gz_magic_bytes(const unsigned char *data, size_t size)
{
    return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Where inflated bytes go: a file, or memory up to max bytes. */
struct sink {
    int fd;                             /* a file, or -1: memory */
    unsigned char *buf;
    size_t n, cap, max;
};

static int put(struct sink *s, const unsigned char *p, size_t n)
{
    if (s->fd >= 0)
        return write_all(s->fd, p, n);
    if (n > s->max - s->n)
        return -1;
    if (s->n + n > s->cap) {
        s->cap = (s->n + n) * 2 < s->max ? (s->n + n) * 2 : s->max;
        s->buf = xrealloc(s->buf, s->cap);
    }
    memcpy(s->buf + s->n, p, n);
    s->n += n;
    return 0;
}

/* Inflates the gzip data of in_fd (from its start), or of in_mem,
 * into s, member after member: 0, or 1 after one warning about damage
 * (what came before it is in s), or -1 with one error line if s could
 * not take it. */
static int inflate_all(const char *path, int in_fd, const unsigned char *in_mem, size_t in_size,
                       struct sink *s)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return error("%s: zlib: cannot start inflating", path);
    unsigned char *in = in_mem ? NULL : xmalloc(IN_SIZE), *out = xmalloc(OUT_SIZE);
    uint64_t in_off = 0;
    int rc = 0, at_start = 1, eof = 0;
    const char *damage = NULL;
    for (;;) {
        if (z.avail_in == 0 && !eof) {
            if (in_mem) {
                z.next_in = (unsigned char *)in_mem;
                z.avail_in = (uInt)in_size;
                eof = 1;
            } else {
                ssize_t got = pread(in_fd, in, IN_SIZE, (off_t)in_off);
                if (got < 0) {
                    damage = strerror(errno);
                    break;
                }
                in_off += (uint64_t)got;
                z.next_in = in;
                z.avail_in = (uInt)got;
                eof = got == 0;
            }
        }
        if (z.avail_in == 0 && eof) {
            if (!at_start)
                damage = "the compressed data ends early (cut short)";
            break;
        }
        z.next_out = out;
        z.avail_out = OUT_SIZE;
        int zr = inflate(&z, Z_NO_FLUSH);
        if (put(s, out, OUT_SIZE - z.avail_out) != 0) {
            rc = error(s->fd >= 0 ? "%s: cannot write its inflated copy to a temporary file: %s"
                                  : "%s: inflates to more than %s", path,
                       s->fd >= 0 ? strerror(errno) : "a maps file can hold");
            break;
        }
        at_start = 0;
        if (zr == Z_STREAM_END) {
            /* another member may follow; trailing zeros (a padded copy) end it */
            if (z.avail_in == 0 && eof)
                break;
            if (z.avail_in && z.next_in[0] != 0x1f) {
                if (z.next_in[0] != 0)
                    damage = "data after the compressed stream";
                break;
            }
            inflateReset(&z);
            at_start = 1;
        } else if (zr == Z_BUF_ERROR && z.avail_in == 0) {
            continue;                   /* more input wanted */
        } else if (zr != Z_OK) {
            damage = z.msg ? z.msg : "damaged compressed data";
            break;
        }
    }
    if (damage && rc == 0) {
        warning("%s: %s after %llu bytes inflated; reading what came before", path, damage,
                (unsigned long long)z.total_out);
        rc = 1;
    }
    inflateEnd(&z);
    free(in);
    free(out);
    return rc;
}

int gz_inflate_to_temp(int fd, const char *path, int *damaged)
{
    *damaged = 0;
    const char *dir = getenv("TMPDIR");
    char *tmpl = xasprintf("%s/litifut-postproc.XXXXXX", dir && *dir ? dir : "/tmp");
    int out = mkstemp(tmpl);
    if (out < 0) {
        error("%s: cannot make a temporary file in %s to inflate it: %s", path,
              dir && *dir ? dir : "/tmp", strerror(errno));
        free(tmpl);
        return -1;
    }
    unlink(tmpl);                       /* nothing stays behind, whatever happens */
    free(tmpl);
    struct sink s = { .fd = out };
    int rc = inflate_all(path, fd, NULL, 0, &s);
    if (rc < 0) {
        close(out);
        return -1;
    }
    *damaged = rc == 1;
    return out;
}

int gz_inflate_buffer(const char *path, const unsigned char *data, size_t size, size_t max,
                      unsigned char **out, size_t *out_size)
{
    struct sink s = { .fd = -1, .max = max };
    int rc = inflate_all(path, -1, data, size, &s);
    if (rc < 0) {
        free(s.buf);
        return -1;
    }
    *out = s.buf ? s.buf : xmalloc(1);
    *out_size = s.n;
    return 0;
}

int gz_deflate_file(int in_fd, int out_fd, const char *path)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return error("%s: zlib: cannot start compressing", path);
    unsigned char *in = xmalloc(IN_SIZE), *out = xmalloc(OUT_SIZE);
    int rc = 0, flush = Z_NO_FLUSH;
    uint64_t in_off = 0;
    while (rc == 0) {
        if (z.avail_in == 0 && flush == Z_NO_FLUSH) {
            ssize_t got = pread(in_fd, in, IN_SIZE, (off_t)in_off);
            if (got < 0) {
                rc = error("%s: cannot read back the output: %s", path, strerror(errno));
                break;
            }
            in_off += (uint64_t)got;
            z.next_in = in;
            z.avail_in = (uInt)got;
            if (got == 0)
                flush = Z_FINISH;
        }
        z.next_out = out;
        z.avail_out = OUT_SIZE;
        int zr = deflate(&z, flush);
        if (write_all(out_fd, out, OUT_SIZE - z.avail_out) != 0)
            rc = error("%s: cannot write: %s", path, strerror(errno));
        else if (zr == Z_STREAM_END)
            break;
        else if (zr != Z_OK && zr != Z_BUF_ERROR)
            rc = error("%s: zlib: compressing failed", path);
    }
    deflateEnd(&z);
    free(in);
    free(out);
    return rc;
}

ssize_t gz_read_prefix(int fd, unsigned char *buf, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return -1;
    unsigned char in[16 << 10];
    uint64_t off = 0;
    z.next_out = buf;
    z.avail_out = (uInt)n;
    while (z.avail_out) {
        if (z.avail_in == 0) {
            ssize_t got = pread(fd, in, sizeof in, (off_t)off);
            if (got <= 0)
                break;
            off += (uint64_t)got;
            z.next_in = in;
            z.avail_in = (uInt)got;
        }
        if (inflate(&z, Z_NO_FLUSH) != Z_OK)
            break;
    }
    inflateEnd(&z);
    return (ssize_t)(n - z.avail_out);
}
