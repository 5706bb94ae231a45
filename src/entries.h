/*
 * The constructors and destructors a shared C library or the dynamic
 * linker calls (.preinit_array, .init_array, .fini_array): each array
 * word that names a function of the object's own gets a thunk of its
 * own in the thunk area, after the sites' thunks, and names the thunk
 * instead; the thunk enters the tracer (stub/entries.c litifut_entry),
 * which records the function's entry and goes on to it (#39).  Only
 * where the C library is a shared one (the wrapper says): a static
 * link's C library calls them through traced calls.
 */
#ifndef LITIFUT_SRC_ENTRIES_H
#define LITIFUT_SRC_ENTRIES_H

#include "lib/sites.h"

struct entry_word {
    uint64_t at;                /* link-time address of the array word */
    uint64_t fn;                /* the function it names (Thumb: bit 0 set) */
    int fini;                   /* .fini_array (a destructor) */
    int64_t addend_at;          /* file offset of its RELA relocation's addend, or -1 */
};

struct entry_words {
    struct entry_word *v;
    size_t n;
};

/* The words of `img` that get a thunk: in its arrays, naming an address
 * in its code that `ex` does not exclude (the tracer, the start files)
 * and no thunk of the thunk area, through no relocation (a fixed-
 * address program) or the arch's relative one (a symbol's relocation:
 * another object's function may stand there).  None if the arch has no
 * entry thunks. */
int entry_words_find(const struct arch_ops *arch, const struct elf_image *img,
                     const struct exclusions *ex, struct entry_words *out);
void entry_words_free(struct entry_words *w);
/* The thunks' bytes. */
uint32_t entry_thunks_size(const struct arch_ops *arch, const struct entry_words *w);
/* Their thunks into `bytes`, for the thunk area's address `area` (the
 * entry thunks from `area` on), and the array words (and RELA addends)
 * in `img` pointing at them; -1 with one error line if the image lacks
 * the tracer's entries or a thunk cannot reach them. */
int entry_words_rewrite(const struct arch_ops *arch, struct elf_image *img,
                        const struct entry_words *w, uint64_t area, uint8_t *bytes);

#endif
