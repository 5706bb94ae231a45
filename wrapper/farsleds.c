/*
 * Far sleds: a rewritten call must reach a sled (ARM: bl +-32 MB,
 * Thumb-2 blx +-16 MB, Thumb-1 blx +-4 MB; AArch64 bl +-128 MB), and the tracer's own sled
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
#include <gelf.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "wrapper/farsleds.h"
#include "lib/error.h"

/* The executable sections of an ELF relocatable object, 32- or 64-bit
 * (0 for anything else, or for section headers libelf cannot read). */
static unsigned long long object_code(Elf *elf)
{
    GElf_Ehdr eh;
    unsigned long long code = 0;
    int class = gelf_getclass(elf);
    size_t shentsize = class == ELFCLASS32 ? sizeof(Elf32_Shdr)
                     : class == ELFCLASS64 ? sizeof(Elf64_Shdr) : 0;
    if (!shentsize || !gelf_getehdr(elf, &eh) || eh.e_type != ET_REL ||
        eh.e_shentsize != shentsize)
        return 0;                       /* (ld rejects another e_shentsize too) */
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            return 0;
        if (sh.sh_type == SHT_PROGBITS &&
            (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR))
            code += sh.sh_size + 8;         /* + alignment, at most about */
    }
    return code;
}

unsigned long long input_code_bytes(const char *path)
{
    struct stat st;
    unsigned long long code = 0;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;                       /* (a FIFO is left for ld alone to open) */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return 0;
    /* ELF_C_READ: libelf reads the headers it is asked for (no mapping,
     * which a file truncated meanwhile would turn into SIGBUS) */
    elf_version(EV_CURRENT);
    Elf *elf = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    if (elf && elf_kind(elf) == ELF_K_ELF)
        code = object_code(elf);
    else if (elf && elf_kind(elf) == ELF_K_AR)
        code = (unsigned long long)st.st_size;
    elf_end(elf);
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
