/*
 * What the tracer learns from /proc: small files read whole, the file
 * its own code was mapped from, what a descriptor names.  No libc.
 */
#include <stdint.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"

extern const char litifut_sled[] HIDDEN;

char *read_proc_file(const char *path, unsigned long *len)
{
    char *buf = map_aside(PROC_FILE_MAX, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sys_mmap_failed(buf))
        return NULL;
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) {
        sys_munmap(buf, PROC_FILE_MAX);
        return NULL;
    }
    long n;
    *len = 0;
    while (*len < PROC_FILE_MAX - 1 &&
           (n = sys_read(fd, buf + *len, PROC_FILE_MAX - 1 - *len)) > 0)
        *len += (unsigned long)n;
    sys_close(fd);
    buf[*len] = 0;
    return buf;
}

void free_proc_file(char *buf)
{
    sys_munmap(buf, PROC_FILE_MAX);
}

uint32_t auxv_value(uint32_t type)
{
    unsigned long len;
    uintptr_t *auxv = (uintptr_t *)read_proc_file("/proc/self/auxv", &len);  /* word pairs */
    uint32_t v = 0;
    for (unsigned long i = 0; auxv && i + 1 < len / sizeof *auxv; i += 2)
        if (auxv[i] == type)
            v = (uint32_t)auxv[i + 1];
    if (auxv)
        free_proc_file((char *)auxv);
    return v;
}

/* From the maps line "start-end perms offset dev inode   path". */
int own_path(char *out, unsigned long size)
{
    uintptr_t self = (uintptr_t)litifut_sled;
    unsigned long len;
    int found = 0;
    char *buf = read_proc_file("/proc/self/maps", &len);
    for (const char *line = buf; buf && *line && !found;) {
        const char *p = line;
        uintptr_t start = str_parse_hex(&p);
        p++;
        uintptr_t end = str_parse_hex(&p);
        if (self >= start && self < end) {
            for (int field = 0; field < 4 && *p && *p != '\n'; field++) {
                while (*p == ' ')
                    p++;
                while (*p && *p != ' ' && *p != '\n')
                    p++;
            }
            while (*p == ' ')
                p++;
            unsigned long i = 0;
            while (*p && *p != '\n' && i < size - 1)
                out[i++] = *p++;
            out[i] = 0;
            found = out[0] == '/';
        }
        while (*line && *line != '\n')
            line++;
        if (*line)
            line++;
    }
    if (buf)
        free_proc_file(buf);
    return found;
}

int fd_path(int fd, char *out, unsigned long size)
{
    char link[32];
    str_put_uint(str_put(link, link + sizeof link, "/proc/self/fd/"), link + sizeof link,
                 (uint32_t)fd);
    long n = sys_readlink(link, out, size - 1);
    if (n <= 0)
        return 0;
    out[n] = 0;
    return 1;
}
