/*
 * The instruction DB: what the rewriter tells the tracer about every
 * rewritten call site.  The rewriter emits it as C (see src/db.c); the
 * target compiler compiles it and the wrapper links it into pass 2.
 * The post-processor reads it back out of the final binary.
 *
 * Layout (all hidden symbols, no relocations, so its size never moves
 * code; it lives in .rodata, which the linker places after all code):
 *
 *   litifut_db_header   struct litifut_db_header
 *   litifut_db_pages    uint32_t[n_pages + 1]: index of the first site of
 *                       each page (a page is 1 << page_shift
 *                       bytes of text, counted from key_origin)
 *   litifut_db_insns    uint32_t[n_sites]: per site, in address order,
 *                       the original call instruction, which the tracer
 *                       emulates (arch_calc_next_pc)
 *
 * A rewritten call enters a sled at entry k, where k is the site's
 * position among the sites of its page.  The tracer finds the site as
 *   page  = (return_address - bias - key_origin) >> page_shift
 *   index = litifut_db_pages[page] + k
 * which is O(1): no search, and no per-site key is stored.  The page
 * size is the architecture's: a sled has one entry per instruction
 * slot of a page.
 *
 * Fields are 32 bits: targets are 32-bit.  Shared by host and target code.
 */
#ifndef LITIFUT_DB_FORMAT_H
#define LITIFUT_DB_FORMAT_H

#include <stdint.h>

#define LITIFUT_DB_MAGIC      0x4244544cu   /* "LTDB" read as a little-endian word */
#define LITIFUT_DB_VERSION    2u

struct litifut_db_header {
    uint32_t magic;
    uint32_t version;
    uint32_t arch;          /* LITIFUT_ARCH_* */
    uint32_t n_sites;
    uint32_t n_pages;
    uint32_t page_shift;    /* log2 of the page size */
    uint32_t key_origin;    /* link-time address; see above */
    uint32_t sled_vaddr;    /* link-time address of litifut_sled */
    uint32_t bridge;        /* MIPS: offset in every 256 MB region of the run-time
                               bridge that far call sites jump to; 0: none */
    uint32_t checksum;      /* litifut_db_checksum() of all of the above */
};

/* FNV-1a over 32-bit words, so host and target agree whatever their
 * byte order.  The header's own checksum field counts as zero. */
static inline uint32_t litifut_fnv1a_words(uint32_t h, const uint32_t *w,
                                           uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = w[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 16777619u;
        }
    }
    return h;
}

#endif
