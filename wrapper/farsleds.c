/*
 * Far sleds: a rewritten call must reach a sled (ARM: bl +-32 MB,
 * Thumb-2 blx +-16 MB, Thumb-1 blx +-4 MB), and the tracer's own sled
 * lies at the end of the code.  So in a larger program the wrapper
 * links far-sled.o among the inputs, one before the first and one
 * after every far_sled_spacing bytes of their code (the arch's row,
 * lib/arch.h; 0: the arch has none), in pass 1 already: pass 2 then
 * moves nothing (the check after it proves that).
 * The code each input brings is estimated before ld runs, from the
 * files alone: an object's executable sections; an archive's whole
 * size (ld takes only some members; too much only puts sleds closer).
 * Archives ld finds by -l are not counted, nor is what one archive
 * brings in one piece: a call that still reaches no sled fails the
 * link with one line naming it (src/rewrite.c).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wrapper/farsleds.h"
#include "lib/error.h"

static uint32_t get32(const unsigned char *p, int big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint16_t get16(const unsigned char *p, int big)
{
    return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

/* The executable sections of an ELF32 relocatable object. */
static unsigned long long object_code(int fd, const unsigned char *eh, off_t file_size)
{
    int big = eh[5] == 2;
    uint32_t shoff = get32(eh + 32, big);
    uint16_t shentsize = get16(eh + 46, big), shnum = get16(eh + 48, big);
    if (eh[4] != 1 || get16(eh + 16, big) != 1 /* ET_REL */ || shentsize < 40 ||
        (unsigned long long)shoff + (unsigned long long)shnum * shentsize > (unsigned long long)file_size)
        return 0;
    size_t len = (size_t)shnum * shentsize;
    unsigned char *sh = malloc(len ? len : 1);
    unsigned long long code = 0;
    if (sh && pread(fd, sh, len, shoff) == (ssize_t)len)
        for (unsigned i = 0; i < shnum; i++) {
            const unsigned char *s = sh + (size_t)i * shentsize;
            uint32_t type = get32(s + 4, big), flags = get32(s + 8, big);
            if (type == 1 /* PROGBITS */ && (flags & 6) == 6 /* ALLOC|EXECINSTR */)
                code += get32(s + 20, big) + 8;     /* + alignment, at most about */
        }
    free(sh);
    return code;
}

unsigned long long input_code_bytes(const char *path)
{
    struct stat st;
    unsigned char head[52];
    unsigned long long code = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;                       /* (a FIFO is left for ld alone to open) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head) {
        if (memcmp(head, "\177ELF", 4) == 0)
            code = object_code(fd, head, st.st_size);
        else if (memcmp(head, "!<arch>\n", 8) == 0)
            code = (unsigned long long)st.st_size;
    }
    close(fd);
    return code;
}

unsigned char *far_sleds_place(const struct arch_ops *arch, const struct link_args *la,
                               int *before_first)
{
    unsigned long long spacing = arch->far_sled_spacing;
    *before_first = 0;
    if (!spacing)
        return NULL;
    unsigned long long *code = xcalloc((size_t)la->args.n + 1, sizeof *code), total = 0;
    for (int i = 0; i < la->args.n; i++)
        if (la->input[i] && !la->drop[i])
            total += code[i] = input_code_bytes(la->args.v[i]);
    if (total < spacing) {
        free(code);
        return NULL;
    }
    unsigned char *after = xcalloc((size_t)la->args.n + 1, 1);
    unsigned long long since = 0;
    for (int i = 0; i < la->args.n; i++) {
        if (!la->input[i] || la->drop[i])
            continue;
        *before_first = 1;
        since += code[i];
        if (since >= spacing) {
            after[i] = 1;
            since = 0;
        }
    }
    free(code);
    return after;
}
