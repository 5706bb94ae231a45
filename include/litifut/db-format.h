/*
 * The instruction DB: what the rewriter tells the tracer about every
 * rewritten call site.  The rewriter emits it as C (see src/db.c); the
 * target compiler compiles it and the wrapper links it into pass 2.
 * The post-processor reads it back out of the final binary.
 *
 * One hidden array of 32-bit words, `litifut_db`, in .rodata (no
 * relocations, so its size never moves code; the linker places .rodata
 * after all code, and the DB object is the link's last input, so its
 * address is the same in both passes):
 *
 *   struct litifut_db_header            LITIFUT_DB_HEADER_WORDS words
 *   pages[n_pages]                      per code page, the byte offset
 *                                       from sites[0] of the page's first
 *                                       site; page i is the page numbered
 *                                       first_page + i (page number =
 *                                       return address >> page_shift)
 *   sites[n_sites]                      per site, in address order, its
 *                                       site word (below)
 *
 * A rewritten call enters a sled at entry k, where k is the site's
 * position among the sites of the page its *return address* is in.  So
 * the tracer finds the site without a search:
 *   word = *(sites + pages[(ra >> page_shift) - first_page] + 4 * k)
 * (at run time both page numbers move by the load bias >> page_shift:
 * the bias is a multiple of the system page size).
 *
 * The site word says where the call goes, in the form that costs the
 * tracer least:
 *   w < LITIFUT_DB_INDIRECT   a call through a register: w names it (an
 *                             offset into the arch's register frame,
 *                             arch/<arch>/sled.h); with LITIFUT_DB_JUMP_REG
 *                             set, a tail jump through it (its thunk
 *                             pushed the jumper's return address: the
 *                             tracer goes on through the arch's
 *                             continuation for that register)
 *   otherwise                 a call with a fixed target: the target is
 *                             &word + w (link time and run time alike;
 *                             bit 0 set: a Thumb target)
 * No direct target can lie within LITIFUT_DB_INDIRECT bytes after its
 * own site word (that is the DB), so the two never meet.
 *
 * Fields are 32 bits, on 64-bit targets too: site words are offsets
 * (a DB lies within +-2 GB of its object's code) and the link-time
 * addresses of an instrumented object lie below 4 GB (the rewriter
 * refuses an object linked higher, with one line); run-time addresses,
 * which the load bias moves anywhere, are never stored here.  Shared
 * by host and target code.
 */
#ifndef LITIFUT_DB_FORMAT_H
#define LITIFUT_DB_FORMAT_H

#define LITIFUT_DB_MAGIC      0x4244544cu   /* "LTDB" read as a little-endian word */
#define LITIFUT_DB_VERSION    3u
#define LITIFUT_DB_INDIRECT   128     /* (no suffix: assembly includes this) */
#define LITIFUT_DB_JUMP_REG   2       /* (a bit no register's word has) */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct litifut_db_header {
    uint32_t magic;
    uint32_t version;
    uint32_t arch;          /* LITIFUT_ARCH_* */
    uint32_t n_sites;
    uint32_t n_pages;
    uint32_t page_shift;    /* log2 of the page size */
    uint32_t first_page;    /* link-time page number of pages[0] */
    uint32_t sled_vaddr;    /* link-time address of litifut_sled */
    uint32_t bridge;        /* MIPS: offset in every 256 MB region of the run-time
                               bridge that far call sites jump to; 0: none */
    uint32_t db_vaddr;      /* link-time address of litifut_db (the site words
                               are relative to it) */
    uint32_t checksum;      /* FNV-1a of the whole DB, this field counted as 0 */
};
#define LITIFUT_DB_HEADER_WORDS (sizeof(struct litifut_db_header) / 4)

/* FNV-1a over 32-bit words, so host and target agree whatever their
 * byte order. */
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

/*
 * The call-site table, `.litifut_callsites`: a section the program does
 * not load (no address depends on it), written by the rewriter with the
 * DB, for LITIFUT_EXCLUDE_CALLEE at run time (stub/skip.c): the tracer
 * reads it from the object's file and puts the original instruction
 * back at each site of a named callee, so that those calls cost nothing
 * and are not recorded.  Words in the target's byte order:
 *
 *   struct litifut_callsites_header
 *   callees[n_callees]                  struct litifut_callsite_callee
 *   sites[n_sites]                      struct litifut_callsite, a
 *                                       callee's together, by address
 *   names[names_size]                   NUL-terminated strings
 *
 * A callee is the function a site's link-fixed target lies in, or the
 * PLT entry (veneer) it is, named before its '@', or (MIPS) the function
 * of another object whose GOT slot a `jalr $t9` loads: the names
 * LITIFUT_EXCLUDE_CALLEE matches at link time (src/rules.c).  Calls
 * through a register with no such callee are not in it.
 */
#define LITIFUT_CALLSITES_SECTION ".litifut_callsites"
#define LITIFUT_CALLSITES_MAGIC   0x5343544cu   /* "LTCS" read as a little-endian word */
#define LITIFUT_CALLSITES_VERSION 1u

struct litifut_callsites_header {
    uint32_t magic;
    uint32_t version;
    uint32_t db_checksum;   /* the DB's: the table is that DB's */
    uint32_t n_callees;
    uint32_t n_sites;
    uint32_t names_size;    /* bytes */
};
struct litifut_callsite_callee {
    uint32_t name;          /* offsets into names: the symbol, */
    uint32_t full;          /* ... its demangled name (C++: with parameters), */
    uint32_t bare;          /* ... and without (both the symbol's when not C++) */
    uint32_t first;         /* its sites: sites[first .. first + count) */
    uint32_t count;
};
struct litifut_callsite {
    uint32_t index;         /* the site's index in the DB */
    uint32_t patch;         /* link-time address of the word its redirect replaced */
    uint32_t insn;          /* that word as it was (Thumb: first halfword low) */
};

#endif /* __ASSEMBLER__ */
#endif
