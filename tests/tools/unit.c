/*
 * unit: small tests of the encoders and decoders both ends must agree
 * on, without a target: DB site words and redirects (each arch, both
 * sled halves), the DB's page table and checksum as built and as read
 * back, the trace's record words, and the kinds of site rules; and the
 * post-processor's estimate marks (which traces' figures are estimates,
 * what the views say, durations with '~'); the reader's threads of a
 * ring (chunks out of file order, a gap, the open calls); traces of
 * word size 8 and 4 (targets, load biases, return addresses and pairs
 * of the word size; a target cut by the chunk's end; a word size
 * refused); a 64-bit ELF file opened (the host's /bin/true); the
 * profile's duration histogram (buckets, percentiles within their
 * bound against exact ones, counters that widen).  One line per check, "ok NAME" or
 * "FAIL NAME: what", as tests/unit.sh expects; exit 1 if any failed.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/arch.h"
#include "lib/arch-read.h"
#include "lib/db.h"
#include "lib/sites.h"
#include "src/arch-rewrite.h"
#include "src/db.h"
#include "src/rules.h"
#include "src/callsites.h"
#include "lib/error.h"
#include "litifut/db-format.h"
#include "postproc/views/estimates.h"
#include "postproc/views/histogram.h"
#include "postproc/views/args.h"
#include "postproc/reader/trace.h"
#include "postproc/reader/callstack.h"
#include "postproc/reader/names.h"
#include "postproc/view.h"
#include "litifut/trace-format.h"
#include "arch/aarch64/host-aarch64.h"

static int failures;

static void check(int ok, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void check(int ok, const char *name, const char *fmt, ...)
{
    if (ok) {
        printf("ok %s\n", name);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures++;
}

/* One call site of `arch` at addr with the original instruction insn:
 * classify it as the scanner does (capstone), then its site word must
 * give back `target` (fixed) or the register slot `reg_word`, and its
 * redirect to entry k must decode as a call into the sled at k. */
static void site_case_isa(const struct arch_ops *arch, unsigned isa, const char *name,
                          uint32_t addr, uint32_t insn, uint32_t next, int fixed, uint32_t want,
                          uint32_t sled, unsigned k)
{
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arch);
    const struct arch_read_ops *rd = arch_read_ops(arch);
    struct elf_image img;
    memset(&img, 0, sizeof img);
    img.machine = arch->elf_machine;
    img.big_endian = 0;
    csh cs;
    if (arch->disasm_open(&img, isa, &cs) != 0) {
        check(0, name, "capstone");
        return;
    }
    uint8_t code[8];
    for (int i = 0; i < 4; i++) {
        code[i] = (uint8_t)(insn >> (8 * i));
        code[4 + i] = (uint8_t)(next >> (8 * i));
    }
    cs_insn *ci = NULL;
    size_t n = cs_disasm(cs, code, 4, addr, 1, &ci);
    struct call_site site = { 0 };
    struct scan_stats st;
    memset(&st, 0, sizeof st);
    void *state = arch->scan_begin ? arch->scan_begin(&img) : NULL;
    int is_call = n == 1 && arch->classify(state, &ci[0], isa, insn, next, 1, &site, &st);
    if (arch->scan_end) {
        struct site_list none = { NULL, 0 };
        arch->scan_end(state, &img, &none, &st);
    }
    scan_stats_free(&st);
    if (n)
        cs_free(ci, n);
    cs_close(&cs);
    if (!is_call) {
        check(0, name, "0x%08" PRIx32 " not classified as a call", insn);
        return;
    }
    site.addr = addr;
    uint32_t word_addr = 0x00800000;            /* the DB: after the code */
    uint32_t w = rw->site_word(&site, word_addr, 0);
    int got_fixed = w >= LITIFUT_DB_INDIRECT;
    uint32_t got = got_fixed ? word_addr + w : w;
    check(got_fixed == fixed && got == want, name,
          "site word 0x%08" PRIx32 ": %s 0x%08" PRIx32 ", want %s 0x%08" PRIx32, w,
          got_fixed ? "target" : "register slot", got, fixed ? "target" : "register slot",
          want);

    struct sled_set sleds = { .base = { sled }, .n = 1, .fixed_address = 1 };
    uint32_t redirect;
    int bridged;
    unsigned got_k = ~0u;
    char rname[128];
    snprintf(rname, sizeof rname, "%s, redirect", name);
    int ok = rw->encode_redirect(&site, k, &sleds, 0, &redirect, &bridged) == 0 &&
             rd->decode_redirect(&img, &(struct call_site){ addr, redirect, site.kind, 0, 0, 0 }, &sleds,
                                 &got_k);
    uint32_t entry = sled + arch->sled_entry_size * (k + (fixed ? 0 : arch->sled_entries));
    uint64_t reached = 0;
    if (ok && !rd->call_target(&(struct call_site){ addr, redirect, site.kind, 0, 0, 0 }, &reached))
        ok = 0;
    check(ok && got_k == k && (reached & ~1u) == entry, rname,
          "0x%08" PRIx32 " decodes as entry %u (0x%08" PRIx64 "), want %u of the %s half (0x%08"
          PRIx32 ")", redirect, got_k, reached, k, fixed ? "first" : "second", entry);
}

static void site_case(const struct arch_ops *arch, const char *name, uint32_t addr,
                      uint32_t insn, uint32_t next, int fixed, uint32_t want,
                      uint32_t sled, unsigned k)
{
    site_case_isa(arch, ISA_MAIN, name, addr, insn, next, fixed, want, sled, k);
}

static void test_site_words(void)
{
    const struct arch_ops *arm = arch_by_name("arm"), *mips = arch_by_name("mips");
    /* ARM: bl +0x100 from 0x8000; blx (to Thumb, H=1); blx r3 */
    site_case(arm, "arm: bl", 0x8000, 0xeb00003e, 0, 1, 0x8000 + 8 + 0xf8, 0x9000, 5);
    site_case(arm, "arm: blx imm (Thumb, H)", 0x8000, 0xfb00003e, 0, 1,
              (0x8000 + 8 + 0xf8 + 2) | 1, 0x9000, 0);
    site_case(arm, "arm: blx r3", 0x8000, 0xe12fff33, 0, 0, 12, 0x9000, 255);
    /* Thumb (halfwords little-endian, first low): bl +0x100 at a
     * halfword address; bl -4 MB; blx to ARM from a halfword address
     * (the offset counts from the word below addr + 4); sleds within
     * and at the edge of blx range */
    site_case_isa(arm, ISA_ALT, "thumb: bl", 0x8002, 0xf880f000, 0, 1, (0x8002 + 4 + 0x100) | 1,
                  0x9000, 7);
    site_case_isa(arm, ISA_ALT, "thumb: bl backwards", 0x408000, 0xf800f400, 0, 1,
                  (0x408000 + 4 - 0x400000) | 1, 0x7f0000, 255);
    site_case_isa(arm, ISA_ALT, "thumb: blx imm", 0x8002, 0xe880f000, 0, 1, 0x8004 + 0x100,
                  0x1008000, 0);
    /* MIPS: jal 0x00400100 from 0x00400000; bal +16; jalr t9 (saved by
     * the hot path); jalr s0 (not: + 1) */
    site_case(mips, "mips: jal", 0x00400000, 0x0c100040, 0, 1, 0x00400100, 0x00401000, 3);
    site_case(mips, "mips: bal", 0x00400000, 0x04110004, 0, 1, 0x00400004 + 16, 0x00401000, 1);
    site_case(mips, "mips: jalr t9", 0x00400000, 0x0320f809, 0, 0, 4 * 25, 0x00401000, 127);
    site_case(mips, "mips: jalr s0", 0x00400000, 0x0200f809, 0, 0, 4 * 16 + 1, 0x00401000, 0);
    /* ... with madd.d $f0,$f2,$f4,$f6 in its delay slot (COP1X: writes
     * no general register, so t9 is the target still) */
    site_case(mips, "mips: jalr t9, madd.d in the delay slot", 0x00400000, 0x0320f809, 0x4c462021,
              0, 4 * 25, 0x00401000, 127);
    /* AArch64: bl +0x100; bl -64 MB to a sled 128 MB - 8 KB away; blr
     * x3 (its word: x3's); blr x29 */
    const struct arch_ops *a64 = arch_by_name("aarch64");
    site_case(a64, "aarch64: bl", 0x400000, 0x94000040, 0, 1, 0x400100, 0x401000, 5);
    site_case(a64, "aarch64: bl backwards, sled at the edge", 0x8400000, 0x97000000, 0, 1,
              0x4400000, 0x8400000 - 0x8000000 + 0x1000, 255);
    site_case(a64, "aarch64: blr x3", 0x400000, 0xd63f0060, 0, 0, 12, 0x401000, 255);
    site_case(a64, "aarch64: blr x29", 0x400000, 0xd63f03a0, 0, 0, 4 * 29, 0x3ff000, 0);
}

/* Scans a fake AArch64 image: `n` words (little-endian) at file offset
 * 0, its sections and symbols; -1 (a failed check `name`) if the scan
 * fails. */
static int scan_fake_a64(const char *name, const uint32_t *words, size_t n, unsigned char *bytes,
                         struct elf_section *secs, size_t n_secs, struct elf_symbol *syms,
                         size_t n_syms, struct site_list *sites, struct scan_stats *st)
{
    const struct arch_ops *a64 = arch_by_name("aarch64");
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++)
            bytes[4 * i + b] = (unsigned char)(words[i] >> (8 * b));
    struct elf_image img;
    memset(&img, 0, sizeof img);
    img.path = "fake";
    img.data = bytes;
    img.size = 4 * n;
    img.machine = a64->elf_machine;
    img.word_size = 8;
    img.e_type = ET_EXEC;
    img.sections = secs;
    img.n_sections = n_secs;
    img.symbols = syms;
    img.n_symbols = n_syms;
    img.has_symtab = 1;
    if (find_call_sites(a64, &img, NULL, sites, st) != 0) {
        check(0, name, "find_call_sites failed");
        return -1;
    }
    return 0;
}

/* AArch64 as the scan sees it: a fake image of one .text section, its
 * $x and $d mapping symbols, every call kind and what is left alone. */
static void test_aarch64_scan(void)
{
    static const uint32_t code[] = {
        0x94000010,             /* 0x1000 bl +0x40: a site */
        0xd63f0060,             /* 0x1004 blr x3: a site */
        0xd63f0200,             /* 0x1008 blr x16: untraced */
        0xd63f03c0,             /* 0x100c blr x30: untraced */
        0xd73f0a20,             /* 0x1010 blraa x17, x0: untraced */
        0xd63f0c7f,             /* 0x1014 blrabz x3: untraced */
        0x94000001,             /* 0x1018 bl .+4 */
        0xaa1e03e0,             /* 0x101c   mov x0, x30: it read the pc, untraced */
        0x94000001,             /* 0x1020 bl .+4 */
        0xa9bf7bfd,             /* 0x1024   stp x29, x30, [sp, #-16]!: a call, a site */
        0x90000000,             /* 0x1028 adrp x0, ... */
        0xf9400c01,             /* 0x102c ldr x1, [x0, #24] */
        0x91006000,             /* 0x1030 add x0, x0, #0x18 */
        0xd63f0020,             /* 0x1034 blr x1: a TLS descriptor call */
        0x94000000,             /* 0x1038 $d: data that looks like bl */
        0xd503201f,             /* 0x103c $x: nop */
        0x97fffff0,             /* 0x1040 bl -0x40: a site */
    };
    unsigned char bytes[sizeof code];
    struct elf_section secs[2] = {
        { 0 },
        { ".text", 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, sizeof code, 0, 0, 0, 0 },
    };
    struct elf_symbol syms[] = {
        { "$x", 0x1000, 0, 1, STT_NOTYPE, STB_LOCAL, 0 },
        { "$d.1", 0x1038, 0, 1, STT_NOTYPE, STB_LOCAL, 0 },
        { "$x.2", 0x103c, 0, 1, STT_NOTYPE, STB_LOCAL, 0 },
    };
    struct site_list sites;
    struct scan_stats st;
    if (scan_fake_a64("aarch64 scan", code, sizeof code / 4, bytes, secs, 2, syms,
                      sizeof syms / sizeof syms[0], &sites, &st) != 0)
        return;
    static const uint64_t want[] = { 0x1000, 0x1004, 0x1020, 0x1040 };
    static const unsigned want_kind[] = { KIND_BL, KIND_BLR, KIND_BL, KIND_BL };
    int ok = sites.n == 4;
    for (size_t i = 0; ok && i < 4; i++)
        ok = sites.v[i].addr == want[i] && sites.v[i].kind == want_kind[i];
    check(ok, "aarch64 scan: bl, blr, a bl to the function after it", "%zu sites, first at 0x%"
          PRIx64, sites.n, sites.n ? sites.v[0].addr : 0);
    static const uint64_t untraced[] = { 0x1008, 0x100c, 0x1010, 0x1014, 0x1018 };
    ok = st.n_untraced == 5;
    for (size_t i = 0; ok && i < 5; i++)
        ok = st.untraced[i].addr == untraced[i];
    check(ok && strstr(st.untraced[2].why, "blraa") && st.untraced[2].why == st.untraced[3].why,
          "aarch64 scan: untraced blr x16, blr x30, blraa, blrabz, bl .+4 reading x30",
          "%zu untraced", st.n_untraced);
    int tls = 0, data = 0;
    for (unsigned i = 0; i < st.n_skipped; i++) {
        tls |= strcmp(st.skipped[i].what, "TLS descriptor call") == 0 && st.skipped[i].count == 1;
        data |= strcmp(st.skipped[i].what, "data in code") == 0 && st.skipped[i].bytes == 4;
    }
    check(tls && data && st.bytes_scanned == sizeof code - 4,
          "aarch64 scan: a TLS descriptor call, $d data", "tls %d, data %d, %" PRIu64 " bytes",
          tls, data, st.bytes_scanned);
    site_list_free(&sites);
    scan_stats_free(&st);
}

/* AArch64, a BTI program (its GNU property note says so): a bl to a
 * landing pad is a site, and so is a bl to code without one (the
 * tracer goes on to a fixed target with `ret x16` there). */
static void test_aarch64_bti(void)
{
    static const uint32_t words[] = {
        0x94000003,             /* 0x1000 bl 0x100c (paciasp): a site */
        0x94000003,             /* 0x1004 bl 0x1010 (add): a site too */
        0xd65f03c0,             /* 0x1008 ret */
        0xd503233f,             /* 0x100c paciasp */
        0x11000400,             /* 0x1010 add w0, w0, #1 */
        /* .note.gnu.property at 0x1014 (file offset 20): "GNU",
         * NT_GNU_PROPERTY_TYPE_0, AArch64 feature 1 AND: BTI */
        4, 16, 5, 0x00554e47, 0xc0000000, 4, 1, 0,
    };
    unsigned char bytes[sizeof words];
    struct elf_section secs[3] = {
        { 0 },
        { ".text", 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, 20, 0, 0, 0, 0 },
        { ".note.gnu.property", 2, SHT_NOTE, SHF_ALLOC, 0x1014, 32, 20, 0, 0, 0 },
    };
    struct elf_symbol sym = { "$x", 0x1000, 0, 1, STT_NOTYPE, STB_LOCAL, 0 };
    struct site_list sites;
    struct scan_stats st;
    if (scan_fake_a64("aarch64 scan, BTI", words, sizeof words / 4, bytes, secs, 3, &sym, 1,
                      &sites, &st) != 0)
        return;
    check(sites.n == 2 && sites.v[0].addr == 0x1000 && sites.v[1].addr == 0x1004 &&
              st.n_untraced == 0,
          "aarch64 scan, BTI program: a bl to code without a landing pad is a site too",
          "%zu sites, %zu untraced", sites.n, st.n_untraced);
    site_list_free(&sites);
    scan_stats_free(&st);
}

/* AArch64 decoders: bl's reach, the PLT entries (plain, pac-plt) and
 * ld's veneer. */
static void test_aarch64_decoders(void)
{
    check(a64_bl_encode(0x8000000, 0) == 0x96000000 && a64_bl_encode(0, 0x8000000) == 0 &&
          a64_bl_encode(0, 0x7fffffc) == 0x95ffffff && a64_bl_encode(0, 2) == 0 &&
          a64_branch_offset(0x96000000) == -0x8000000 && a64_branch_offset(0x95ffffff) == 0x7fffffc,
          "aarch64: bl reach +-128 MB", "0x%08" PRIx32, a64_bl_encode(0x8000000, 0));
    /* blr x3, br x3; blraa x17, x0; blrab x1, x2; blraaz x5; blrabz x3;
     * braa x17, x0 */
    check(a64_is_blr(0xd63f0060) && !a64_is_blr(0xd61f0060) && !a64_is_blr(0xd73f0a20) &&
          a64_is_blra(0xd73f0a20) && a64_is_blra(0xd73f0c22) && a64_is_blra(0xd63f08bf) &&
          a64_is_blra(0xd63f0c7f) && !a64_is_blra(0xd63f0060) && !a64_is_blra(0xd71f0a20),
          "aarch64: blr, blraa/blrab(z) masks", "mismatch");
    /* __libc_start_main@plt at 0x690: adrp x16, 0x20000; ldr x17, [x16, #8];
     * add x16, x16, #8; br x17 */
    uint64_t got = 0, target = 0;
    const uint32_t plt[5] = { 0x90000110, 0xf9400611, 0x91002210, 0xd61f0220, 0xd503201f };
    unsigned size = a64_plt_entry(plt, 0x690, &got);
    check(size == 16 && got == 0x20008, "aarch64: PLT entry", "size %u, GOT 0x%" PRIx64, size, got);
    const uint32_t pac[5] = { 0x90000110, 0xf9400611, 0x91002210, A64_AUTIA1716, 0xd61f0220 };
    size = a64_plt_entry(pac, 0x690, &got);
    check(size == 20 && got == 0x20008, "aarch64: PLT entry (pac-plt)", "size %u, GOT 0x%" PRIx64,
          size, got);
    const uint32_t other[5] = { 0x90000110, 0xf9400611, 0x91004210, 0xd61f0220, 0 };
    check(a64_plt_entry(other, 0x690, &got) == 0, "aarch64: not a PLT entry (add != ldr)",
          "decoded");
    /* ___veneer at 0x400690: adrp x16, 0x10000000; add x16, x16, #0x10; br x16 */
    const uint32_t veneer[3] = { 0x9007e010, 0x91004210, 0xd61f0200 };
    check(a64_veneer(veneer, 0x400690, &target) && target == 0x10000010 &&
          !a64_veneer(plt, 0x690, &target), "aarch64: veneer", "target 0x%" PRIx64, target);
}

/* A Thumb 16-bit blx r3 after `ldr r3, [r3, #4]` (the pair, at
 * 0x8000 / 0x8002): its site word is r3's slot, its redirect a Thumb bl
 * to its thunk's entry, and the thunk holds the ldr, bx pc, the blx,
 * then an ARM b to the register half's entry k. */
static void test_thumb_pair(void)
{
    const struct arch_ops *arm = arch_by_name("arm");
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arm);
    unsigned kind;
    for (kind = 0; kind < arm->n_kinds && strcmp(arm->kinds[kind].name, "t_blx_pair"); kind++)
        ;
    struct call_site site = { 0x8002, 0x685b | 0x4798u << 16, (uint8_t)kind, 0, 0, 0 };
    uint32_t sled = 0x9000, thunk = 0xa000, word, b;
    unsigned k = 9;
    struct sled_set sleds = { .base = { sled }, .n = 1, .fixed_address = 1,
                              .thunks = thunk, .thunks_size = 12 };
    uint8_t t[12];
    int bridged;
    check(kind < arm->n_kinds && arm->kinds[kind].ra_offset == 2 &&
          arm->kinds[kind].patch_offset == -2 && arm->kinds[kind].thunk_size == 12,
          "thumb pair: kind", "return address +%u, patch %d, thunk %u",
          arm->kinds[kind].ra_offset, arm->kinds[kind].patch_offset, arm->kinds[kind].thunk_size);
    check(rw->site_word(&site, 0x20000, 0) == 12, "thumb pair: site word", "0x%08" PRIx32,
          rw->site_word(&site, 0x20000, 0));
    int ok = rw->encode_redirect(&site, k, &sleds, thunk, &word, &bridged) == 0 &&
             rw->encode_thunk(&site, k, &sleds, thunk, t) == 0;
    /* bl from 0x8000 to 0xa002: offset 0x1ffe */
    check(ok && word == (0xf001u | 0xffffu << 16), "thumb pair: redirect", "0x%08" PRIx32, word);
    b = t[8] | t[9] << 8 | t[10] << 16 | (uint32_t)t[11] << 24;
    uint32_t entry = sled + arm->sled_entry_size * (k + arm->sled_entries);
    uint32_t reached = thunk + 8 + 8 + (uint32_t)((int32_t)(b << 8) >> 6);
    check(ok && t[2] == 0x5b && t[3] == 0x68 && t[4] == 0x78 && t[5] == 0x47 && t[6] == 0x98 &&
          t[7] == 0x47 && (b >> 24) == 0xea && reached == entry, "thumb pair: thunk",
          "b at +8 reaches 0x%08" PRIx32 ", want 0x%08" PRIx32, reached, entry);

    /* after a 32-bit instruction: ldr.w r3, [r3, #4] at 0x8000, blx r3
     * at 0x8004; the bl replaces the ldr.w, the thunk sets lr right */
    struct call_site s32 = { 0x8004, 0x3004f8d3, (uint8_t)(kind + 1), 0x4798, 0, 0 };
    uint8_t u[16];
    ok = strcmp(arm->kinds[kind + 1].name, "t_blx_pair32") == 0 &&
         rw->site_word(&s32, 0x20000, 0) == 12 &&
         rw->encode_redirect(&s32, k, &sleds, thunk, &word, &bridged) == 0 &&
         rw->encode_thunk(&s32, k, &sleds, thunk, u) == 0;
    /* bl from 0x8000 to 0xa000: offset 0x1ffc */
    check(ok && word == (0xf001u | 0xfffeu << 16), "thumb pair32: redirect", "0x%08" PRIx32, word);
    b = u[12] | u[13] << 8 | u[14] << 16 | (uint32_t)u[15] << 24;
    reached = thunk + 12 + 8 + (uint32_t)((int32_t)(b << 8) >> 6);
    uint32_t p = u[0] | u[1] << 8 | u[2] << 16 | (uint32_t)u[3] << 24;
    uint32_t add = u[4] | u[5] << 8 | u[6] << 16 | (uint32_t)u[7] << 24;
    check(ok && p == 0x3004f8d3 && add == 0x0e02f10e && u[8] == 0x78 && u[9] == 0x47 &&
          u[10] == 0x98 && u[11] == 0x47 && reached == entry, "thumb pair32: thunk",
          "b at +12 reaches 0x%08" PRIx32 ", want 0x%08" PRIx32, reached, entry);
}

/* The kind of `arch` named `name` (n_kinds if none). */
static unsigned kind_named(const struct arch_ops *arch, const char *name)
{
    unsigned k = 0;
    while (k < arch->n_kinds && strcmp(arch->kinds[k].name, name))
        k++;
    return k;
}

/* RISC-V as the scan sees it: a fake image of one .text section at
 * 0x1000 (halfwords, little-endian: riscv64-linux-gnu-as's bytes of the
 * instructions named), its function and mapping symbols: every call
 * form, the c.jalr pairs, and what is left alone. */
static const uint16_t rv_code[] = {
    0x00ef, 0x0400,             /* 0x1000 jal ra, +0x40: a site */
    0x1097, 0x0000,             /* 0x1004 auipc ra, 0x1 */
    0x80e7, 0x0100,             /* 0x1008 jalr ra, 16(ra): a site, to 0x2014 */
    0x80e7, 0x0007,             /* 0x100c jalr ra, 0(a5): a site */
    0x6782,                     /* 0x1010 c.ldsp a5, 0(sp) */
    0x9782,                     /* 0x1012 c.jalr a5: a site, with the c.ldsp */
    0xb503, 0x0085,             /* 0x1014 ld a0, 8(a1) */
    0x9782,                     /* 0x1018 c.jalr a5: a site, with the ld */
    0x8506,                     /* 0x101a c.mv a0, ra: reads ra */
    0x9782,                     /* 0x101c c.jalr a5: untraced */
    0x4501,                     /* 0x101e c.li a0, 0 */
    0x9782,                     /* 0x1020 c.jalr a5: untraced (the c.j goes to it) */
    0xbffd,                     /* 0x1022 c.j 0x1020 */
    0x00e7, 0x0003,             /* 0x1024 jalr ra, 0(t1): a site (the third half) */
    0x02ef, 0x0080,             /* 0x1028 jal t0, +8: untraced */
    0x80e7, 0x0087,             /* 0x102c jalr ra, 8(a5): untraced */
    0x9302,                     /* 0x1030 c.jalr t1: untraced (after a jalr) */
    0x9782, 0x9782,             /* 0x1032 $d: data that looks like c.jalr */
    0x0001,                     /* 0x1036 $x: c.nop */
    0xf0ef, 0xfc9f,             /* 0x1038 jal ra, -0x38: a site */
};

/* A fake RISC-V image: rv_code at 0x1000, then `more` bytes of zeros
 * (a thunk area), in `bytes`. */
static void fake_rv_image(struct elf_image *img, unsigned char *bytes, size_t more,
                          struct elf_section *secs, struct elf_symbol *syms, size_t n_syms)
{
    size_t n = sizeof rv_code / 2;
    for (size_t i = 0; i < n; i++) {
        bytes[2 * i] = (unsigned char)rv_code[i];
        bytes[2 * i + 1] = (unsigned char)(rv_code[i] >> 8);
    }
    memset(bytes + 2 * n, 0, more);
    secs[0] = (struct elf_section){ 0 };
    secs[1] = (struct elf_section){ ".text", 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000,
                                    2 * n, 0, 0, 0, 0 };
    secs[2] = (struct elf_section){ ".litifut_thunks", 2, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
                                    0x1000 + 2 * n, more, 2 * n, 0, 0, 0 };
    memset(img, 0, sizeof *img);
    img->path = "fake";
    img->data = bytes;
    img->size = 2 * n + more;
    img->machine = arch_by_name("riscv64")->elf_machine;
    img->word_size = 8;
    img->e_type = ET_EXEC;
    img->sections = secs;
    img->n_sections = more ? 3 : 2;
    img->symbols = syms;
    img->n_symbols = n_syms;
    img->has_symtab = 1;
}

static void test_riscv64_scan(void)
{
    const struct arch_ops *rv = arch_by_name("riscv64");
    unsigned char bytes[sizeof rv_code];
    struct elf_section secs[3];
    struct elf_symbol syms[] = {
        { "fn", 0x1000, sizeof rv_code, 1, STT_FUNC, STB_GLOBAL, 0 },
        { "$xrv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0", 0x1000, 0, 1, STT_NOTYPE, STB_LOCAL, 0 },
        { "$d", 0x1032, 0, 1, STT_NOTYPE, STB_LOCAL, 0 },
        { "$xrv64i2p1_m2p0_a2p1_f2p2_d2p2_c2p0", 0x1036, 0, 1, STT_NOTYPE, STB_LOCAL, 0 },
    };
    struct elf_image img;
    fake_rv_image(&img, bytes, 0, secs, syms, sizeof syms / sizeof syms[0]);
    struct site_list sites;
    struct scan_stats st;
    if (find_call_sites(rv, &img, NULL, &sites, &st) != 0) {
        check(0, "riscv64 scan", "find_call_sites failed");
        return;
    }
    static const uint64_t want[] = { 0x1000, 0x1008, 0x100c, 0x1012, 0x1018, 0x1024, 0x1038 };
    static const char *const want_kind[] = { "jal", "auipc_jalr", "jalr", "c_jalr_pair",
                                             "c_jalr_pair32", "jalr", "jal" };
    int ok = sites.n == 7;
    for (size_t i = 0; ok && i < 7; i++)
        ok = sites.v[i].addr == want[i] && sites.v[i].kind == kind_named(rv, want_kind[i]);
    check(ok && sites.v[1].target == 0x2014 && sites.v[3].insn == 0x97826782 &&
              sites.v[4].insn == 0x0085b503 && sites.v[4].insn2 == 0x9782,
          "riscv64 scan: jal, auipc + jalr, jalr (t1's too), the two c.jalr pairs",
          "%zu sites, first at 0x%" PRIx64, sites.n, sites.n ? sites.v[0].addr : 0);
    static const uint64_t untraced[] = { 0x101c, 0x1020, 0x1028, 0x102c, 0x1030 };
    ok = st.n_untraced == 5;
    for (size_t i = 0; ok && i < 5; i++)
        ok = st.untraced[i].addr == untraced[i];
    check(ok && strstr(st.untraced[0].why, "cannot move") && strstr(st.untraced[1].why, "jump") &&
              strstr(st.untraced[2].why, "millicode") && strstr(st.untraced[3].why, "offset"),
          "riscv64 scan: untraced c.jalr after ra's reader and at a jump's target, jal t0, "
          "jalr with an offset, c.jalr after it", "%zu untraced", st.n_untraced);
    int data = 0;
    for (size_t i = 0; i < st.n_skipped; i++)
        data |= strcmp(st.skipped[i].what, "data in code") == 0 && st.skipped[i].bytes == 4;
    check(data && st.bytes_scanned == sizeof rv_code - 4, "riscv64 scan: $d data, $xrv64... code",
          "data %d, %" PRIu64 " bytes", data, st.bytes_scanned);

    /* each site's word, redirect and thunk, read back as the site */
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(rv);
    const struct arch_read_ops *rd = arch_read_ops(rv);
    unsigned char tbytes[sizeof rv_code + 64];
    struct elf_section tsecs[3];
    struct elf_image timg;
    fake_rv_image(&timg, tbytes, 64, tsecs, syms, sizeof syms / sizeof syms[0]);
    uint64_t thunks = 0x1000 + sizeof rv_code;
    struct sled_set sleds = { .base = { 0x40000 }, .n = 1, .fixed_address = 1,
                              .thunks = thunks, .thunks_size = 64 };
    uint64_t thunk = thunks;
    static const uint32_t want_word[] = { 0x1040, 0x2014, 4 * 15, 4 * 15, 4 * 15, 4 * 6, 0x1000 };
    for (size_t i = 0; i < sites.n && i < 7; i++) {
        struct call_site site = sites.v[i];
        const struct call_kind *kind = &rv->kinds[site.kind];
        unsigned k = (unsigned)(i * 37 % 256);
        uint64_t word_addr = 0x80000;
        uint32_t w = rw->site_word(&site, word_addr, thunk), redirect;
        uint32_t got = w >= LITIFUT_DB_INDIRECT ? (uint32_t)(word_addr + w) : w;
        int bridged, ok1 = got == want_word[i] &&
                           rw->encode_redirect(&site, k, &sleds, thunk, &redirect, &bridged) == 0;
        if (ok1 && kind->thunk_size)
            ok1 = rw->encode_thunk(&site, k, &sleds, thunk, tbytes + (thunk - 0x1000)) == 0;
        /* the rewritten word, as the readers' scan finds it: a jal */
        struct call_site back = { site.addr + (uint64_t)(int64_t)kind->patch_offset, redirect,
                                  (uint8_t)kind_named(rv, "jal"), 0, 0, 0 };
        unsigned got_k = ~0u;
        ok1 = ok1 && rd->decode_redirect(&timg, &back, &sleds, &got_k) && got_k == k &&
              back.addr == site.addr &&
              (!kind->thunk_size || (back.kind == site.kind && back.insn == site.insn &&
                                     back.insn2 == site.insn2));
        char name[96];
        snprintf(name, sizeof name, "riscv64: %s at 0x%" PRIx64 ": word, redirect%s", kind->name,
                 site.addr, kind->thunk_size ? ", thunk" : "");
        check(ok1, name, "word 0x%08" PRIx32 " (want 0x%08" PRIx32 "), redirect 0x%08" PRIx32
              " decodes as %s at 0x%" PRIx64 " entry %u (want %u)", got, want_word[i], redirect,
              rv->kinds[back.kind].name, back.addr, got_k, k);
        thunk += kind->thunk_size;
    }
    site_list_free(&sites);
    scan_stats_free(&st);

    /* out of jal's reach: refused, in one line */
    struct site_list far = { &(struct call_site){ 0x1000, 0x040000ef, (uint8_t)kind_named(rv, "jal"),
                                                  0, 0, 0 }, 1 };
    struct sled_set distant = { .base = { 0x200000 }, .n = 1 };
    check(rw->check_reach(&far, &distant, "prog") != 0 &&
              rw->check_reach(&far, &sleds, "prog") == 0,
          "riscv64: a call beyond jal's +-1 MB of the sled is refused", "not refused");
}


/* A tail jump through a register (`kind`, the original words at
 * `site`) is rewritten to a jump to its thunk at 0x10000, whose bytes
 * go into an image with that thunk area: its site word names register
 * `reg` with LITIFUT_DB_JUMP_REG, and the reader's scan's kind
 * `scanned` of the redirect word decodes back to the site, its kind
 * and words, and entry k of the jump half (at 0x20000). */
static void reg_jump_case(const struct arch_ops *arch, int big_endian, const char *name,
                          struct call_site site, unsigned reg_word, const char *scanned)
{
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arch);
    const struct arch_read_ops *rd = arch_read_ops(arch);
    unsigned kind = site.kind, size = arch->kinds[kind].thunk_size, k = 7;
    uint64_t thunk = 0x10000;
    uint8_t bytes[64] = { 0 };
    struct sled_set sleds = { .base = { 0x30000 }, .n = 1, .fixed_address = 1, .thunks = thunk,
                              .thunks_size = size, .jump = 0x20000, .big_endian = big_endian };
    uint32_t word;
    int bridged;
    int ok = arch->kinds[kind].jump && size && size <= sizeof bytes &&
             rw->encode_redirect(&site, k, &sleds, thunk, &word, &bridged) == 0 &&
             rw->encode_thunk(&site, k, &sleds, thunk, bytes) == 0;
    uint32_t w = rw->site_word(&site, 0x40000, thunk);
    check(ok && w == (reg_word | LITIFUT_DB_JUMP_REG), name, "site word 0x%08" PRIx32, w);
    struct elf_section secs[2] = { { 0 }, { ".litifut_thunks", 1, SHT_PROGBITS,
                                            SHF_ALLOC | SHF_EXECINSTR, thunk, size, 0, 0, 0, 0 } };
    struct elf_image img;
    memset(&img, 0, sizeof img);
    img.machine = arch->elf_machine;
    img.big_endian = big_endian;
    img.word_size = arch->word_size;
    img.data = bytes;
    img.size = size;
    img.sections = secs;
    img.n_sections = 2;
    struct call_site got = { site.addr + (uint64_t)(int64_t)arch->kinds[kind].patch_offset, word,
                             (uint8_t)kind_named(arch, scanned), 0, 0, 0 };
    unsigned got_k = ~0u;
    char dname[128];
    snprintf(dname, sizeof dname, "%s, decoded", name);
    ok = ok && got.kind < arch->n_kinds && rd->decode_redirect(&img, &got, &sleds, &got_k);
    uint64_t target;
    check(ok && got.addr == site.addr && got.kind == kind && got.insn == site.insn &&
          got.insn2 == site.insn2 && got_k == k && !rd->call_target(&got, &target), dname,
          "0x%08" PRIx32 " decodes as %s at 0x%" PRIx64 ", insn 0x%08" PRIx32 ", entry %u", word,
          got.kind < arch->n_kinds ? arch->kinds[got.kind].name : "?", got.addr, got.insn, got_k);
}

static void test_register_jumps(void)
{
    const struct arch_ops *arm = arch_by_name("arm"), *a64 = arch_by_name("aarch64");
    const struct arch_ops *mips = arch_by_name("mips");
    /* ARM bxne r1 */
    reg_jump_case(arm, 0, "register jump: arm bx", (struct call_site){ 0x8000, 0x112fff11,
                  (uint8_t)kind_named(arm, "bx_jump"), 0, 0, 0 }, 4, "b_jump");
    /* Thumb str r2, [r3, #56]; bx r1 */
    reg_jump_case(arm, 0, "register jump: thumb pair", (struct call_site){ 0x8002,
                  0x639a | 0x4708u << 16, (uint8_t)kind_named(arm, "t_bx_pair_jump"), 0, 0, 0 }, 4,
                  "t_b_jump");
    /* Thumb orr.w r3, r3, #1; bx r3 */
    reg_jump_case(arm, 0, "register jump: thumb pair32", (struct call_site){ 0x8004, 0x0301f043,
                  (uint8_t)kind_named(arm, "t_bx_pair32_jump"), 0x4718, 0, 0 }, 12, "t_b_jump");
    /* br x16, br x3 */
    reg_jump_case(a64, 0, "register jump: aarch64 br x16", (struct call_site){ 0x8000, 0xd61f0200,
                  (uint8_t)kind_named(a64, "br_jump"), 0, 0, 0 }, 64, "b_jump");
    reg_jump_case(a64, 0, "register jump: aarch64 br x3", (struct call_site){ 0x8000, 0xd61f0060,
                  (uint8_t)kind_named(a64, "br_jump"), 0, 0, 0 }, 12, "b_jump");
    /* jr t9, big endian: the site word names v1 (the thunk's copy) */
    reg_jump_case(mips, 1, "register jump: mips jr t9", (struct call_site){ 0x8000, 0x03200008,
                  (uint8_t)kind_named(mips, "jr_jump"), 0, 0, 0 }, 12, "b_jump");
}

/* Which functions keep their jumps through a register (a computed
 * goto's): the ones two neighbouring data words name places inside; a
 * lone word that happens to (a string's bytes) does not count. */
static int jumps_kept(const uint32_t *words, size_t n)
{
    const struct arch_ops *mips = arch_by_name("mips");
    unsigned char data[64] = { 0 };
    struct elf_section secs[3] = {
        { 0 }, { ".text", 1, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x1000, 0x100, 0, 0, 0, 0 },
        { ".rodata", 2, SHT_PROGBITS, SHF_ALLOC, 0x2000, sizeof data, 0, 0, 0, 0 },
    };
    struct elf_symbol f = { "f", 0x1000, 0x100, 1, STT_FUNC, STB_GLOBAL, 0 };
    struct elf_image img;
    memset(&img, 0, sizeof img);
    img.machine = mips->elf_machine;
    img.big_endian = 1;
    img.word_size = 4;
    img.data = data;
    img.size = sizeof data;
    img.sections = secs;
    img.n_sections = 3;
    img.symbols = &f;
    img.n_symbols = 1;
    for (size_t i = 0; i < n && i < sizeof data / 4; i++)
        elf_put32(&img, data + 4 * i, words[i]);
    struct function_index fx;
    struct tail_targets tt;
    function_index_build(&img, &fx);
    tail_targets_build(&img, mips, &fx, &tt);
    int kept = !register_jump_at(&tt, 0x1080);
    tail_targets_free(&tt);
    function_index_free(&fx);
    return kept;
}

static void test_jumps_kept(void)
{
    static const uint32_t lone[] = { 0x00454348, 0x494c4400, 0x1010 },
                          table[] = { 7, 0x1010, 0x1040, 0x1010, 0 },
                          apart[] = { 0x1010, 0, 0x1040 },
                          starts[] = { 0x1000, 0x1000 };
    check(!jumps_kept(lone, 3), "jumps kept: a lone word naming a function's inside",
          "its register jumps were kept");
    check(jumps_kept(table, 5), "jumps kept: a table of a function's labels",
          "its register jumps were taken as tail jumps");
    check(!jumps_kept(apart, 3), "jumps kept: two words apart", "its register jumps were kept");
    check(!jumps_kept(starts, 2), "jumps kept: words naming the function's start",
          "its register jumps were kept");
}

/* The DB of four ARM sites over three pages: page table (by return
 * address), sled entries, checksum, and the C text the rewriter writes. */
static void test_db(void)
{
    const struct arch_ops *arm = arch_by_name("arm");
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(arm);
    struct call_site v[] = {
        { 0x10000, 0xeb000000, 0, 0, 0, 0 },      /* page 0x40 (return address 0x10004) */
        { 0x10008, 0xeb000000, 0, 0, 0, 0 },
        { 0x103fc, 0xeb000000, 0, 0, 0, 0 },      /* return address 0x10400: page 0x41 */
        { 0x10c00, 0xe12fff34, 2, 0, 0, 0 },      /* blx r4, page 0x43 */
    };
    struct site_list sites = { v, 4 };
    struct db db;
    if (db_build(arm, rw, &sites, 0x20000, 0, 0x30000, 0x20000, 0, &db) != 0) {
        check(0, "db: build", "failed");
        return;
    }
    const struct litifut_db_header *h = &db.header;
    check(h->first_page == 0x40 && h->n_pages == 4 && h->n_sites == 4, "db: pages by return address",
          "first page 0x%" PRIx32 ", %" PRIu32 " pages", h->first_page, h->n_pages);
    check(db.pages[0] == 0 && db.pages[1] == 2 && db.pages[2] == 3 && db.pages[3] == 3 &&
          db.pages[4] == 4, "db: page table", "%u %u %u %u %u", db.pages[0], db.pages[1],
          db.pages[2], db.pages[3], db.pages[4]);
    check(db_sled_index(arm, &db, &sites, 1) == 1 && db_sled_index(arm, &db, &sites, 2) == 0,
          "db: sled entry = position in the page", "%u %u", db_sled_index(arm, &db, &sites, 1),
          db_sled_index(arm, &db, &sites, 2));
    uint32_t t = 0;
    check(db_site_target(&db, 0, &t) && t == 0x10008 && !db_site_target(&db, 3, &t) &&
          db.words[3] == 16, "db: site words", "0x%08" PRIx32 " %" PRIu32, t, db.words[3]);
    check(db_checksum(&db) == h->checksum, "db: checksum", "0x%08" PRIx32, h->checksum);
    /* a target after the DB (a linker script with .rodata first): a
     * positive word; but not within 128 bytes of its word (0x30030,
     * after a header and one page), where it would read as a register */
    struct call_site after = { 0x40000, 0xeb000000, 0, 0, 0, 0 };
    struct site_list later = { &after, 1 };
    struct db db2;
    check(db_build(arm, rw, &later, 0x20000, 0, 0x30000, 0x20000, 0, &db2) == 0 &&
          db_site_target(&db2, 0, &t) && t == 0x40008, "db: a target after the DB",
          "0x%08" PRIx32, t);
    db_free(&db2);
    struct call_site close = { 0x2fff0, 0xeb000012, 0, 0, 0, 0 };  /* to 0x30040 */
    struct site_list bad = { &close, 1 };
    check(db_build(arm, rw, &bad, 0x20000, 0, 0x30000, 0x20000, 0, &db2) != 0,
          "db: a target right after its DB word is refused", "built");
    check(db_build(arm, rw, &bad, 0x20000, 0, 0x30000, 0x20000, 1, &db2) == 0,
          "db: but not in pass 1's provisional DB", "refused");
    db_free(&db2);
    db_free(&db);
}

static void test_records(void)
{
    uint32_t w = LITIFUT_REC_CALL_WORD(LITIFUT_SITE_ID_LIMIT - 1, LITIFUT_REC_CALL_TARGET);
    check(w != 0 && LITIFUT_REC_TAG(w) == LITIFUT_REC_CALL_TARGET &&
          LITIFUT_REC_SITE(w) == LITIFUT_SITE_ID_LIMIT - 1 && (w >> 24) == 0,
          "records: the largest site id", "0x%08" PRIx32, w);
    check(LITIFUT_REC_CALL_WORD(0, LITIFUT_REC_CALL) != 0, "records: site 0 is not the end",
          "0");
    uint32_t c = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OBJECT, 0xffff);
    check(LITIFUT_REC_TAG(c) == LITIFUT_REC_CONTROL && LITIFUT_REC_TYPE(c) == LITIFUT_REC_OBJECT &&
          LITIFUT_REC_PAYLOAD(c) == 0xffff && (c & 0xfc) == 0, "records: control word",
          "0x%08" PRIx32, c);
    /* a call's time delta lives in bits 31..24 and changes neither its
     * site nor its cache entry (with a clock per event, a hash of the site) */
    uint32_t plain = LITIFUT_REC_CALL_WORD(7, LITIFUT_REC_CALL_CACHED);
    uint32_t hit = plain | (uint32_t)(LITIFUT_REC_DELTA_LIMIT - 1) << LITIFUT_REC_DELTA_SHIFT;
    check(LITIFUT_CACHE_ENTRY_OF_SITE(hit) == LITIFUT_CACHE_ENTRY_OF_SITE(plain) &&
          LITIFUT_CACHE_ENTRY_OF_SITE(hit) < LITIFUT_TARGET_CACHE && LITIFUT_REC_SITE(hit) == 7 &&
          LITIFUT_REC_DELTA(hit) == LITIFUT_REC_DELTA_LIMIT - 1 &&
          LITIFUT_REC_TAG(hit) == LITIFUT_REC_CALL_CACHED,
          "records: a call's time delta", "0x%08" PRIx32, hit);
    uint32_t far = LITIFUT_REC_CALL_WORD(7 + LITIFUT_TARGET_CACHE, LITIFUT_REC_CALL);
    check(LITIFUT_CACHE_ENTRY_OF_SITE(far) == LITIFUT_CACHE_ENTRY_OF_SITE(plain),
          "records: sites 256 apart share a cache entry", "0x%08" PRIx32, far);
    /* clock marks: a cache hit names its entry, a hash of the target */
    uint32_t target = 0x76543210, e = LITIFUT_CACHE_ENTRY_OF_TARGET(target);
    uint32_t named = LITIFUT_REC_CALL_WORD(7, LITIFUT_REC_CALL_CACHED) | e << LITIFUT_REC_AUX_SHIFT;
    check(e < LITIFUT_TARGET_CACHE && LITIFUT_REC_CACHE_ENTRY(named) == e &&
          LITIFUT_REC_SITE(named) == 7, "records: a cache hit names its entry (clock marks)",
          "0x%08" PRIx32, named);
    uint32_t ret = LITIFUT_REC_RETURN_WORD | 5u << LITIFUT_REC_DELTA_SHIFT;
    check(LITIFUT_REC_TAG(ret) == LITIFUT_REC_CONTROL && LITIFUT_REC_IS_RETURN(ret) &&
          !LITIFUT_REC_IS_RETURN(c) && LITIFUT_REC_DELTA(ret) == 5,
          "records: a return word", "0x%08" PRIx32, ret);
    uint32_t st = LITIFUT_STATE_WORD(1, LITIFUT_STATE_BY_SIGNAL);
    uint32_t off = LITIFUT_STATE_WORD(0, LITIFUT_STATE_AT_START);
    check(LITIFUT_STATE_ON(st) && LITIFUT_STATE_WHY(st) == LITIFUT_STATE_BY_SIGNAL &&
          !LITIFUT_STATE_ON(off) && LITIFUT_STATE_WHY(off) == LITIFUT_STATE_AT_START,
          "records: a state word", "0x%08" PRIx32 " 0x%08" PRIx32, st, off);
}

static void test_rule_kinds(void)
{
    static const struct { const char *pattern; enum rule_kind kind; } cases[] = {
        { "libfoo.so", RULE_LIBRARY }, { "libfoo.so.1.2", RULE_LIBRARY },
        { "libfoo.so*", RULE_LIBRARY }, { "libfoo.a", RULE_ARCHIVE },
        { "libfoo.a(bar.o)", RULE_MEMBER }, { "lib*.a(*.o)", RULE_MEMBER },
        { "bar.o", RULE_OBJECT }, { "src/.libs/x.lo", RULE_OBJECT }, { "dir/x", RULE_OBJECT },
        { "main", RULE_FUNCTION }, { "bz_*", RULE_FUNCTION }, { "Foo::bar", RULE_FUNCTION },
        { "parse_sonames", RULE_FUNCTION }, { "do_so", RULE_FUNCTION },
        { "frame2(int)", RULE_FUNCTION }, { "Foo::operator()(int, char)", RULE_FUNCTION },
        { "*.a(x.o)", RULE_MEMBER },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "rules: %s", cases[i].pattern);
        enum rule_kind k = site_rule_kind(cases[i].pattern);
        check(k == cases[i].kind, name, "kind %d, not %d", (int)k, (int)cases[i].kind);
    }
}

/* A duration as the views print it. */
static void duration_case(uint64_t ns, int width, int estimate, const char *want)
{
    char got[64], name[96];
    format_duration(got, sizeof got, ns, width, estimate);
    snprintf(name, sizeof name, "estimates: %" PRIu64 " ns%s, width %d: \"%s\"", ns,
             estimate ? " estimated" : "", width, want);
    check(strcmp(got, want) == 0, name, "\"%s\"", got);
}

static void test_estimates(void)
{
    duration_case(80130000, 11, 0, "  80.130 ms");
    duration_case(80130000, 11, 1, " ~80.130 ms");
    duration_case(135268, 11, 1, "~135.268 us");      /* the log's widest: no wider */
    duration_case(999, 11, 1, "    ~999 ns");
    duration_case(0, 0, 1, "~0 ns");
    duration_case(218821000, 0, 0, "218.821 ms");
    duration_case(2500000000u, 12, 1, "   ~2.500  s");
    struct litifut_trace_header h;
    memset(&h, 0, sizeof h);
    h.mode = LITIFUT_MODE_FULL;
    h.clock = LITIFUT_CLOCK_MONOTONIC;
    h.flags = LITIFUT_TRACE_RETURNS;
    h.time_every = 256;
    unsigned exact = trace_estimates(&h);
    h.flags = 0;
    unsigned inferred = trace_estimates(&h);
    h.clock = LITIFUT_CLOCK_MARKS;
    unsigned both = trace_estimates(&h);
    h.flags = LITIFUT_TRACE_RETURNS;
    unsigned marks = trace_estimates(&h);
    h.flags = 0;
    h.mode = LITIFUT_MODE_COUNT;
    unsigned pairs = trace_estimates(&h);
    check(exact == 0 && inferred == ESTIMATE_RETURNS && marks == ESTIMATE_TIMES &&
          both == (ESTIMATE_TIMES | ESTIMATE_RETURNS) && pairs == 0,
          "estimates: per-call clock and returns measured, marks or inferred returns estimated, "
          "pairs none", "%u %u %u %u %u", exact, inferred, marks, both, pairs);
    char *t0 = estimates_text(0, 256), *t1 = estimates_text(ESTIMATE_TIMES, 256);
    char *t2 = estimates_text(ESTIMATE_RETURNS, 0), *t3 = estimates_text(both, 64);
    static const char returns[] = "returns inferred (a function's end is taken at its caller's "
                                  "next event): durations and self times are estimates";
    static const char marks64[] = "times interpolated between time marks every 64 records "
                                  "(estimates); ";
    check(!t0 && t1 && t2 && t3 &&
          !strcmp(t1, "times interpolated between time marks every 256 records (estimates)") &&
          !strcmp(t2, returns) && !strncmp(t3, marks64, sizeof marks64 - 1) &&
          !strcmp(t3 + sizeof marks64 - 1, returns),
          "estimates: what each kind says", "\"%s\" \"%s\" \"%s\"", t1 ? t1 : "", t2 ? t2 : "",
          t3 ? t3 : "");
    free(t1);
    free(t2);
    free(t3);
    /* traces grouped by kind, pids in order, the measured ones too */
    struct estimates e;
    memset(&e, 0, sizeof e);
    h.mode = LITIFUT_MODE_FULL;
    for (uint32_t pid = 100; pid < 100 + ESTIMATES_PIDS + 2; pid++) {
        h.pid = pid;
        h.clock = LITIFUT_CLOCK_MONOTONIC;
        h.flags = pid == 101 ? LITIFUT_TRACE_RETURNS : 0;
        estimates_add(&e, &h);
    }
    char *l0 = estimates_line(&e, 0), *l1 = e.n > 1 ? estimates_line(&e, 1) : NULL;
    static const char pids[] = "pid 100, 102, 103, 104, 105, 106, 107, 108 and 1 more: ";
    check(e.n == 2 && e.any == ESTIMATE_RETURNS && l1 && !strncmp(l0, pids, sizeof pids - 1) &&
          !strcmp(l0 + sizeof pids - 1, returns) &&
          !strcmp(l1, "pid 101: times and returns measured per call"),
          "estimates: traces grouped by kind", "%zu groups, \"%s\" \"%s\"", e.n, l0,
          l1 ? l1 : "");
    free(l0);
    free(l1);
    estimates_free(&e);
}

/* Writes the n words of a trace to a file and opens it (check `name`,
 * if not NULL, that it opens); the file is removed at once (the reader
 * keeps it open). */
static int open_words(const uint32_t *f, size_t n, struct trace_file *t, const char *name)
{
    char path[] = "/tmp/litifut-unit-XXXXXX";
    int fd = mkstemp(path);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    int written = out && fwrite(f, 4, n, out) == n;
    if (out)
        fclose(out);
    int opened = written && trace_open(path, t) == 0;
    if (fd >= 0)
        unlink(path);
    if (name)
        check(opened, name, "%s", written ? "trace_open failed" : "cannot write");
    return opened;
}

/* A ring's chunk: tid, index, and its CHUNK record (seq, words
 * before, depth, the return addresses), then `calls` calls of site 0. */
static size_t put_ring_chunk(uint32_t *w, uint32_t tid, uint32_t index, uint32_t seq,
                             const uint32_t *ra, uint32_t n_ra, uint32_t calls)
{
    size_t k = 0;
    w[k++] = LITIFUT_CHUNK_MAGIC;
    w[k++] = tid;
    w[k++] = index;
    w[k++] = 1024;
    w[k++] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 2);
    w[k++] = 1000 * (index + 1);
    w[k++] = 0;
    w[k++] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CHUNK, LITIFUT_CHUNK_REC_WORDS + n_ra);
    w[k++] = seq;
    w[k++] = 100 * seq;
    w[k++] = 0;
    w[k++] = n_ra + 3;
    for (uint32_t i = 0; i < n_ra; i++)
        w[k++] = ra[i];
    for (uint32_t i = 0; i < calls; i++)
        w[k++] = LITIFUT_REC_CALL_WORD(0, LITIFUT_REC_CALL);
    return 1024 / 4;
}

/* The header of a little-endian trace of word size `ws` (the rest zero). */
static void put_header(uint32_t *f, unsigned ws, uint8_t mode, uint8_t flags)
{
    struct litifut_trace_header *h = (struct litifut_trace_header *)f;
    memcpy(h->magic, LITIFUT_TRACE_MAGIC, 8);
    h->endian = LITIFUT_LITTLE_ENDIAN;
    /* (the reader takes every size from word_size, never from the arch) */
    h->arch = ws == 8 && arch_by_trace_arch(LITIFUT_ARCH_AARCH64) ? LITIFUT_ARCH_AARCH64
                                                                  : LITIFUT_ARCH_ARM;
    h->word_size = (uint8_t)ws;
    h->version = LITIFUT_TRACE_VERSION;
    h->header_size = 4096;
    h->chunk_size = 4096;
    h->pid = 7;
    h->clock = LITIFUT_CLOCK_MONOTONIC;
    h->clock_hz = 1000000000;
    h->mode = mode;
    h->flags = flags;
    h->ring_size = flags & LITIFUT_TRACE_RING ? 4096 : 0;
    memcpy(h->exe, "/prog", 6);
}

/* A run-time address of word size `ws` at w[*k]: one word, or two, low first. */
static void put_addr(uint32_t *w, size_t *k, unsigned ws, uint64_t a)
{
    w[(*k)++] = (uint32_t)a;
    if (ws == 8)
        w[(*k)++] = (uint32_t)(a >> 32);
}

/* The process's chunk (1024 bytes at w): the OBJECT record of /prog,
 * 3 sites from 0, loaded with `bias`. */
static size_t put_object_chunk(uint32_t *w, unsigned ws, uint64_t bias)
{
    size_t k = 0, extra = ws == 8;      /* the load bias's high half */
    w[k++] = LITIFUT_CHUNK_MAGIC;
    w[k++] = 0;
    w[k++] = 0;
    w[k++] = 1024;
    w[k++] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OBJECT, LITIFUT_OBJECT_RECORD_WORDS + extra + 2);
    size_t rec = k;
    w[rec + offsetof(struct litifut_object_record, n_sites) / 4] = 3;
    w[rec + offsetof(struct litifut_object_record, load_bias) / 4] = (uint32_t)bias;
    k += LITIFUT_OBJECT_RECORD_WORDS;
    if (extra)
        w[k++] = (uint32_t)(bias >> 32);
    memcpy(&w[k], "/prog", 6);
    return 1024 / 4;
}

/* What a cursor gives of thread `i`'s events: "C<site>" (a call),
 * "C<site>@<target>" (through a register), "R" (a return), one space
 * apart. */
static void events_text(struct trace_file *t, size_t i, char *out, size_t size)
{
    struct trace_cursor c;
    const struct trace_event *e;
    size_t n = 0;
    out[0] = 0;
    trace_cursor_open(&c, t, i);
    while ((e = trace_cursor_next(&c)) && n + 40 < size) {
        if (e->kind == TRACE_RETURN)
            n += (size_t)snprintf(out + n, size - n, "%sR", n ? " " : "");
        else if (e->has_target)
            n += (size_t)snprintf(out + n, size - n, "%sC%" PRIu32 "@%" PRIx64, n ? " " : "",
                                  e->site, e->target);
        else
            n += (size_t)snprintf(out + n, size - n, "%sC%" PRIu32, n ? " " : "", e->site);
    }
    trace_cursor_close(&c);
}

/* A full trace of word size `ws` (a ring: its thread's chunk starts
 * inside two calls): the object loaded at `bias`, calls through
 * registers to t1 and t2 (tag 1, tag 2 from the cache, tag 1), returns,
 * and a chunk whose last record's target is cut by the chunk's end. */
static void test_word_size_case(unsigned ws, uint64_t bias, uint64_t t1, uint64_t t2,
                                uint64_t ra1, uint64_t ra2)
{
    static uint32_t f[1024 + 3 * 256];
    memset(f, 0, sizeof f);
    put_header(f, ws, LITIFUT_MODE_FULL, LITIFUT_TRACE_RING);
    uint32_t *w = f + 1024;
    w += put_object_chunk(w, ws, bias);
    size_t k = 0;
    w[k++] = LITIFUT_CHUNK_MAGIC;
    w[k++] = 9;                         /* tid */
    w[k++] = 1;                         /* index */
    w[k++] = 1024;
    w[k++] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_TIME, 4);
    k += 2;                             /* ticks 0 */
    w[k++] = 0;                         /* ns */
    w[k++] = 0;
    w[k++] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CHUNK, LITIFUT_CHUNK_REC_WORDS + 2 * ws / 4);
    w[k++] = 1;                         /* seq: one chunk before */
    w[k++] = 200;                       /* words before */
    w[k++] = 0;
    w[k++] = 2;                         /* open calls */
    put_addr(w, &k, ws, ra1);
    put_addr(w, &k, ws, ra2);
    w[k++] = LITIFUT_REC_CALL_WORD(0, LITIFUT_REC_CALL) | 1u << LITIFUT_REC_DELTA_SHIFT;
    w[k++] = LITIFUT_REC_CALL_WORD(1, LITIFUT_REC_CALL_TARGET);
    put_addr(w, &k, ws, t1);
    w[k++] = LITIFUT_REC_CALL_WORD(1, LITIFUT_REC_CALL_CACHED);
    w[k++] = LITIFUT_REC_RETURN_WORD;
    w[k++] = LITIFUT_REC_CALL_WORD(2, LITIFUT_REC_CALL_TARGET);
    put_addr(w, &k, ws, t2);
    w[k++] = LITIFUT_REC_RETURN_WORD;
    w += 256;
    /* thread 9's next chunk: calls up to a tag 1 record whose target
     * does not fit (word size 8: its high word; 4: the whole) */
    k = 0;
    w[k++] = LITIFUT_CHUNK_MAGIC;
    w[k++] = 9;
    w[k++] = 2;
    w[k++] = 1024;
    w[k++] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_CHUNK, LITIFUT_CHUNK_REC_WORDS);
    w[k++] = 2;
    w[k++] = 216;
    w[k++] = 0;
    w[k++] = 0;
    while (k < 256 - ws / 4)
        w[k++] = LITIFUT_REC_CALL_WORD(0, LITIFUT_REC_CALL);
    w[k++] = LITIFUT_REC_CALL_WORD(2, LITIFUT_REC_CALL_TARGET);
    if (ws == 8)
        w[k] = 0x1000;                  /* its low word */
    w += 256;
    char name[64], text[2048], want[256];
    struct trace_file t;
    snprintf(name, sizeof name, "word size %u: opens", ws);
    if (!open_words(f, (size_t)(w - f), &t, name))
        return;
    const struct trace_object *o = t.n_objects == 1 ? &t.objects[0] : NULL;
    snprintf(name, sizeof name, "word size %u: the OBJECT record's load bias", ws);
    check(o && o->load_bias == bias && o->n_sites == 3 && strcmp(o->path, "/prog") == 0, name,
          "%zu objects, bias 0x%" PRIx64 ", %s", t.n_objects, o ? o->load_bias : 0,
          o ? o->path : "none");
    const struct trace_thread *th = t.n_threads == 1 ? &t.threads[0] : NULL;
    snprintf(name, sizeof name, "word size %u: the CHUNK record's return addresses", ws);
    check(th && th->open_depth == 2 && th->n_open_ra == 2 && th->open_ra[0] == ra1 &&
              th->open_ra[1] == ra2 && th->chunks_before == 1 && th->words_before == 200,
          name, "%zu return addresses: 0x%" PRIx64 " 0x%" PRIx64, th ? th->n_open_ra : 0,
          th && th->n_open_ra ? th->open_ra[0] : 0, th && th->n_open_ra > 1 ? th->open_ra[1] : 0);
    if (o && th) {
        t.objects[0].usable = 1;        /* (as programs_load marks it) */
        t.objects[0].db_sites = 3;
        events_text(&t, 0, text, sizeof text);
        /* the cut record's chunk: its calls of site 0 and nothing else */
        size_t whole = 256 - 9 - ws / 4;
        int n = snprintf(want, sizeof want, "C0 C1@%" PRIx64 " C1@%" PRIx64 " R C2@%" PRIx64 " R",
                         t1, t1, t2);
        char *rest = strncmp(text, want, (size_t)n) == 0 ? text + n : NULL;
        size_t zeros = 0;
        while (rest && strncmp(rest, " C0", 3) == 0) {
            zeros++;
            rest += 3;
        }
        snprintf(name, sizeof name, "word size %u: calls, targets from records and the cache", ws);
        check(rest && zeros == whole && !*rest, name, "\"%.120s\" ... (%zu calls of site 0 after)",
              text, zeros);
    }
    trace_free(&t);
}

/* A count trace of word size 8: struct litifut_pair64 entries. */
static void test_pairs64(void)
{
    static uint32_t f[1024 + 2 * 256];
    memset(f, 0, sizeof f);
    put_header(f, 8, LITIFUT_MODE_COUNT, 0);
    uint32_t *w = f + 1024;
    w += put_object_chunk(w, 8, UINT64_C(0x5500000000));
    w[0] = LITIFUT_CHUNK_MAGIC;
    w[1] = LITIFUT_PAIRS_TID;
    w[2] = 1;
    w[3] = 1024;
    struct litifut_pair64 p[2] = {
        { .site_plus1 = 3, .count = 5, .target = UINT64_C(0x5500020001), .ns_lo = 2000 },
        { .site_plus1 = 2, .count = 7, .target = UINT64_C(0x7fff00001000), .ns_lo = 1000 },
    };
    memcpy(w + 4, p, sizeof p);         /* (a little-endian host, as the header says) */
    w += 256;
    struct trace_file t;
    if (!open_words(f, (size_t)(w - f), &t, "pairs64: opens"))
        return;
    const struct trace_pair *a = t.n_pairs == 2 ? &t.pairs[0] : NULL, *b = a ? a + 1 : NULL;
    check(a && a->site == 1 && a->count == 7 && a->target == UINT64_C(0x7fff00001000) &&
              b->site == 2 && b->count == 5 && b->target == UINT64_C(0x5500020001) &&
              t.n_calls == 12,
          "pairs64: sites, counts and 64-bit targets, by time", "%zu pairs, first target 0x%" PRIx64,
          t.n_pairs, a ? a->target : 0);
    trace_free(&t);
}

/* Word sizes: 8 (addresses above 4 GB), 4 as before, and one no
 * tracer writes. */
static void test_word_sizes(void)
{
    test_word_size_case(8, UINT64_C(0x5500010000), UINT64_C(0x5500020001), UINT64_C(0x7fffffff0000),
                        UINT64_C(0x5500012340), UINT64_C(0x5500056780));
    test_word_size_case(4, 0x00010000, 0x00020001, 0xffff0000, 0x00012340, 0x00056780);
    test_pairs64();
    static uint32_t f[1024 + 256];
    memset(f, 0, sizeof f);
    put_header(f, 6, LITIFUT_MODE_FULL, 0);
    put_object_chunk(f + 1024, 4, 0);
    struct trace_file t;
    int opened = open_words(f, sizeof f / 4, &t, NULL);    /* (its one line on stderr) */
    if (opened)
        trace_free(&t);
    check(!opened, "word size 6: refused", "opened");
}

static void test_ring_reader(void)
{
    /* header, a process chunk with the object, then thread 7's chunks
     * in slots out of order: seq 9 (index 5), a gap, seq 11 and 12
     * (index 9 in a lower slot than index 8), and thread 8's only one */
    static uint32_t f[1024 + 5 * 256];
    memset(f, 0, sizeof f);
    put_header(f, 4, LITIFUT_MODE_FULL, LITIFUT_TRACE_RING);
    struct litifut_trace_header *h = (struct litifut_trace_header *)f;
    h->clock = LITIFUT_CLOCK_MARKS;
    h->time_every = 256;
    h->overwritten_chunks = 3;
    h->overwritten_bytes = 3072;
    uint32_t *w = f + 1024;
    w += put_object_chunk(w, 4, 0);
    static const uint32_t ra[2] = { 0x10010, 0x10020 };
    w += put_ring_chunk(w, 7, 9, 11, ra, 2, 3);
    w += put_ring_chunk(w, 7, 5, 9, NULL, 0, 4);
    w += put_ring_chunk(w, 7, 10, 12, NULL, 0, 5);
    w += put_ring_chunk(w, 8, 6, 4, ra, 1, 6);
    struct trace_file t;
    if (!open_words(f, (size_t)(w - f), &t, "ring reader: opens"))
        return;
    const struct trace_thread *b = t.n_threads == 2 ? &t.threads[0] : NULL;
    const struct trace_thread *a = t.n_threads == 2 ? &t.threads[1] : NULL;
    check(a && b && a->tid == 7 && b->tid == 8 && a->first_index == 9 && b->first_index == 6,
          "ring reader: threads by their first kept chunk", "%zu threads", t.n_threads);
    check(a && a->n_chunks == 2 && t.chunks[a->chunks[0]].index == 9 &&
              t.chunks[a->chunks[1]].index == 10 && a->n_calls == 8,
          "ring reader: a thread's chunks after its last gap, by index", "%zu chunks",
          a ? a->n_chunks : 0);
    check(a && a->chunks_before == 11 && a->words_before == 1100 && a->chunks_missing == 1,
          "ring reader: what is not there", "%" PRIu32 " before, %" PRIu32 " missing",
          a ? a->chunks_before : 0, a ? a->chunks_missing : 0);
    check(a && a->open_depth == 5 && a->n_open_ra == 2 && a->open_ra[0] == 0x10010 &&
              a->open_ra[1] == 0x10020 && b && b->n_open_ra == 1,
          "ring reader: the calls open at a thread's first chunk", "depth %" PRIu32,
          a ? a->open_depth : 0);
    char *history = trace_history_text(&t);
    check(history && strstr(history, "3 older chunks (3.0 KB) overwritten"),
          "ring reader: what was overwritten, for people", "%s", history ? history : "none");
    free(history);
    trace_free(&t);
}

/* A 64-bit ELF file (the host's /bin/true, x86-64 or another 64-bit
 * host) opens: word size 8, its .text found by name and by address,
 * and no arch of ours takes it (arch_of_image: ours are 32-bit). */
static void test_elf64(void)
{
    struct elf_image img;
    if (elf_image_open(&img, "/bin/true") != 0) {
        check(0, "elf64: opens /bin/true", "elf_image_open failed");
        return;
    }
    const struct elf_section *text = NULL;
    for (size_t i = 1; i < img.n_sections; i++)
        if (strcmp(img.sections[i].name, ".text") == 0)
            text = &img.sections[i];
    check(img.word_size == 8 && text && text->size &&
              elf_section_at(&img, text->addr + text->size - 1) == text &&
              elf_bytes_at(&img, text->addr, text->size) == img.data + text->offset,
          "elf64: /bin/true, word size 8, .text", "word size %u, .text %s at 0x%" PRIx64,
          img.word_size, text ? "found" : "missing", text ? text->addr : 0);
    check(arch_of_image(&img) == NULL, "elf64: no 32-bit arch takes it", "one does");
    elf_image_close(&img);
}

/* --- the duration histogram (postproc/histogram.c) --- */

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every bucket: its lowest and highest value map back to it, buckets
 * follow each other without a gap, the last ends at 2^64 - 1, and each
 * is at most 2^-6 of its lowest value wide (so half a bucket is 2^-7). */
static void test_histogram_buckets(void)
{
    char bad[160] = "";
    for (size_t b = 0; b < HISTOGRAM_BUCKETS && !*bad; b++) {
        uint64_t low = histogram_bucket_low(b), w = histogram_bucket_width(b);
        uint64_t high = low + (w - 1);
        if (histogram_bucket(low) != b || histogram_bucket(high) != b)
            snprintf(bad, sizeof bad, "bucket %zu: [%" PRIu64 ", %" PRIu64 "] maps to %zu, %zu", b,
                     low, high, histogram_bucket(low), histogram_bucket(high));
        else if (b && low != histogram_bucket_low(b - 1) + histogram_bucket_width(b - 1))
            snprintf(bad, sizeof bad, "bucket %zu starts at %" PRIu64 ", not after bucket %zu", b,
                     low, b - 1);
        else if (low >= HISTOGRAM_SUB && w > low >> HISTOGRAM_SUB_BITS)
            snprintf(bad, sizeof bad, "bucket %zu: width %" PRIu64 " at %" PRIu64, b, w, low);
        else if (b == HISTOGRAM_BUCKETS - 1 && high != UINT64_MAX)
            snprintf(bad, sizeof bad, "the last bucket ends at %" PRIu64, high);
    }
    check(!*bad, "histogram: buckets cover 0 .. 2^64-1 without gaps, each value's bucket holds it, "
          "widths at most 2^-6 of their values", "%s", bad);
    check(histogram_bucket(0) == 0 && histogram_bucket(63) == 63 && histogram_bucket(64) == 64 &&
              histogram_bucket(127) == 127 && histogram_bucket(128) == 128 &&
              histogram_bucket(129) == 128 && histogram_bucket(130) == 129 &&
              histogram_bucket(UINT64_MAX) == HISTOGRAM_BUCKETS - 1 &&
              histogram_bucket_low(HISTOGRAM_BUCKETS - 1) == UINT64_MAX - ((UINT64_C(1) << 57) - 1),
          "histogram: 0..127 exact, then pairs from 128, 2^64-1 in the last bucket",
          "128 -> %zu, 130 -> %zu, 2^64-1 -> %zu", histogram_bucket(128), histogram_bucket(130),
          histogram_bucket(UINT64_MAX));
}

/* The histogram's percentiles of v[0..n) against the exact nearest
 * rank: within 2^-7 of it, inside [min, max], rank 1 and the last
 * exact; the buckets histogram_next lists add up to n.  Returns "" or
 * what went wrong. */
static const char *histogram_against_exact(uint64_t *v, size_t n, char *bad, size_t size)
{
    static const unsigned ps[] = { 0, 1, 100, 2500, 5000, 9000, 9900, 9990, 9999, 10000 };
    struct histogram *h = histogram_new();
    for (size_t i = 0; i < n; i++)
        histogram_add(h, v[i]);
    qsort(v, n, sizeof *v, u64_cmp);
    *bad = 0;
    for (size_t k = 0; k < sizeof ps / sizeof *ps && !*bad; k++) {
        uint64_t rank = ((uint64_t)n * ps[k] + 9999) / 10000;
        rank = rank < 1 ? 1 : rank;
        uint64_t want = v[rank - 1], got = histogram_percentile(h, ps[k]);
        uint64_t err = got > want ? got - want : want - got;
        int exact_wanted = rank == 1 || rank == n;
        if (err > want / 128 || (exact_wanted && err) || got < v[0] || got > v[n - 1])
            snprintf(bad, size, "n %zu, %u/10000: %" PRIu64 ", exact %" PRIu64, n, ps[k], got, want);
    }
    size_t b = 0;
    uint64_t low, width, count, sum = 0, last_low = 0;
    int ordered = 1;
    while (histogram_next(h, &b, &low, &width, &count)) {
        ordered &= sum == 0 || low > last_low;
        last_low = low;
        sum += count;
    }
    if (!*bad && (sum != n || !ordered || h->count != n))
        snprintf(bad, size, "n %zu: buckets listed hold %" PRIu64 "%s", n, sum,
                 ordered ? "" : ", out of order");
    histogram_free(h);
    return bad;
}

static void test_histogram(void)
{
    test_histogram_buckets();
    struct histogram *h = histogram_new();
    int empty = histogram_percentile(h, 5000) == 0;
    for (int i = 0; i < 10; i++)
        histogram_add(h, 0);
    check(empty && histogram_percentile(h, 5000) == 0 && histogram_percentile(h, 9900) == 0 &&
              h->min == 0 && h->max == 0,
          "histogram: empty gives 0; ten zeros give 0", "p50 %" PRIu64, histogram_percentile(h, 5000));
    histogram_free(h);

    size_t cap = 200000;
    uint64_t *v = malloc(cap * sizeof *v), seed = 0x9e3779b97f4a7c15u;
    char bad[200];
    /* random data of several shapes and sizes (1..4: kept exact; then
     * counters over one group, over many, with 256+ and 65536+ in one
     * bucket, which widens them) */
    static const size_t sizes[] = { 1, 2, 3, 4, 5, 7, 100, 1000, 70000, 200000 };
    const char *fail = "";
    char where[240] = "";
    for (int shape = 0; shape < 5 && !*fail; shape++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes && !*fail; s++) {
            size_t n = sizes[s];
            for (size_t i = 0; i < n; i++) {
                uint64_t r = xorshift(&seed);
                switch (shape) {
                case 0: v[i] = r >> (r % 64); break;                /* log-uniform over 2^0..2^64 */
                case 1: v[i] = 1000000 + r % 50000; break;          /* narrow: 1 ms +- */
                case 2: v[i] = 40000000; break;                     /* constant */
                case 3: v[i] = r % 200; break;                      /* small, exact buckets */
                default: v[i] = UINT64_MAX - r % 4096; break;       /* near 2^64 */
                }
            }
            fail = histogram_against_exact(v, n, bad, sizeof bad);
            if (*fail)
                snprintf(where, sizeof where, "shape %d: %s", shape, fail);
        }
    check(!*fail, "histogram: p0..p100 within 2^-7 of the exact nearest rank, in [min, max], min "
          "and max exact, on random data of 5 shapes and 1 to 200000 values (incl. near 2^64)",
          "%s", where);

    /* 0 and 2^64 - 1 together: every group's counters at once */
    h = histogram_new();
    for (int i = 0; i < 5; i++)
        histogram_add(h, i % 2 ? UINT64_MAX : 0);
    histogram_add(h, UINT64_C(1) << 63);
    uint64_t p50 = histogram_percentile(h, 5000), p99 = histogram_percentile(h, 9900);
    check(p50 <= (UINT64_C(1) << 63) / 128 && p99 == UINT64_MAX && h->n_groups == HISTOGRAM_GROUPS,
          "histogram: 0, 2^63 and 2^64-1 in one histogram (all 59 groups)",
          "p50 %" PRIu64 ", p99 %" PRIu64 ", %u groups", p50, p99, (unsigned)h->n_groups);
    histogram_free(h);

    /* counters widen: 70000 values in one bucket need 4 bytes */
    h = histogram_new();
    for (int i = 0; i < 70000; i++)
        histogram_add(h, 5000);
    histogram_add(h, 10);
    check(h->width == 4 && histogram_percentile(h, 5000) == 5000 && histogram_percentile(h, 0) == 10,
          "histogram: counters widen from 1 to 4 bytes past 65535 in one bucket",
          "width %u, p50 %" PRIu64, (unsigned)h->width, histogram_percentile(h, 5000));
    histogram_free(h);
    free(v);
}

/* Toolchain triples of any vendor and C library: the row whose
 * modules they get (lib/arch.c, arch_row_triple). */
static void test_row_triples(void)
{
    static const char *const cases[][2] = {
        { "arm-linux-gnueabi", "arm-linux-gnueabi" },
        { "arm-linux-gnueabihf", "arm-linux-gnueabihf" },
        { "mipsel-openwrt-linux-musl", "mipsel-linux-gnu" },
        { "mips-openwrt-linux-musl", "mips-linux-gnu" },
        { "arm-buildroot-linux-uclibcgnueabi", "arm-linux-gnueabi" },
        { "arm-buildroot-linux-uclibcgnueabihf", "arm-linux-gnueabihf" },
        { "armv7a-unknown-linux-musleabihf", "arm-linux-gnueabihf" },
        { "arm-openwrt-linux-muslgnueabi", "arm-linux-gnueabi" },
        { "aarch64-linux-musl", "aarch64-linux-gnu" },
        { "aarch64-buildroot-linux-uclibc", "aarch64-linux-gnu" },
        { "mipsel-linux-musl", "mipsel-linux-gnu" },
        { "armeb-linux-gnueabi", NULL },             /* big-endian ARM: none */
        { "mips64el-linux-gnuabi64", NULL },
        { "x86_64-linux-gnu", NULL },
        { "arm-none-eabi", NULL },                   /* not Linux */
        { "riscv64-linux-gnu", "riscv64-linux-gnu" },
        { "riscv64-buildroot-linux-musl", "riscv64-linux-gnu" },
        { "riscv32-linux-gnu", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = arch_row_triple(cases[i][0]), *want = cases[i][1];
        char name[96];
        snprintf(name, sizeof name, "row triple of %s", cases[i][0]);
        check(want ? got && strcmp(got, want) == 0 : !got, name, "%s, not %s",
              got ? got : "none", want ? want : "none");
    }
}

/* The call stack's accounting of the tracer's own time (OWN_TIME,
 * trace_event.own_ns): frames end that much earlier for the part of it
 * inside them.  main (synthetic) calls f at 0; at 500 f calls g, with
 * 300 ns of the tracer's time before it (in f); g returns at 600, f at
 * 1000, the thread ends at 1000.  f: 1000 - 300 = 700 ns, 100 of them
 * g's; g: 100; main: 700. */
struct popped { uint32_t fid; uint64_t dur, child; };
struct own_view { struct view v; struct popped p[8]; size_t n; };

static void own_pop(struct view *v, struct callstack *s, struct frame *f,
                    uint64_t end_ns)
{
    (void)s;
    struct own_view *o = (struct own_view *)v;
    if (o->n < 8)
        o->p[o->n++] = (struct popped){ f->fid, end_ns - f->start_ns, f->child_ns };
}

static void test_own_time(void)
{
    static const struct view_ops ops = { .pop = own_pop };
    struct own_view ov;
    memset(&ov, 0, sizeof ov);
    struct func fv[3];
    memset(fv, 0, sizeof fv);
    struct func_table ft;
    memset(&ft, 0, sizeof ft);
    ft.v = fv;
    ft.n = 3;
    view_init(&ov.v, &ops, NULL, &ft);
    struct trace_file t;
    memset(&t, 0, sizeof t);
    t.header.flags = LITIFUT_TRACE_RETURNS;
    struct trace_thread th;
    memset(&th, 0, sizeof th);
    struct stack_filters flt = { 0, 0, UINT32_MAX, 0, UINT64_MAX };
    struct callstack s;
    int warned = 0;
    callstack_init(&s, &ov.v, &flt, &ft, &t, &th, &warned);
    struct trace_event e[4] = {
        { .kind = TRACE_CALL, .time_ns = 0 },
        { .kind = TRACE_CALL, .time_ns = 500, .own_ns = 300 },
        { .kind = TRACE_RETURN, .time_ns = 600 },
        { .kind = TRACE_RETURN, .time_ns = 1000 },
    };
    const uint32_t caller[4] = { 0, 1, 0, 0 }, callee[4] = { 1, 2, 0, 0 };
    for (int i = 0; i < 4; i++) {
        s.own_ns += e[i].own_ns;            /* (as callstack_feed does) */
        if (e[i].kind == TRACE_CALL)
            callstack_call(&s, caller[i], callee[i], &e[i]);
        else
            callstack_return(&s, e[i].time_ns);
    }
    callstack_end(&s, 1000);
    callstack_free(&s);
    int ok = ov.n == 3 && ov.p[0].fid == 2 && ov.p[0].dur == 100 && ov.p[1].fid == 1 &&
             ov.p[1].dur == 700 && ov.p[1].child == 100 && ov.p[2].fid == 0 && ov.p[2].dur == 700;
    char got[256] = "";
    for (size_t i = 0, n = 0; i < ov.n; i++)
        n += (size_t)snprintf(got + n, sizeof got - n, " f%u %" PRIu64 "/%" PRIu64, ov.p[i].fid,
                              ov.p[i].dur, ov.p[i].child);
    check(ok, "callstack: the tracer's own time is in no frame", "popped:%s", got);
    char *own = own_time_text(1234567, 3);
    check(own && strstr(own, "1.235 ms in 3 new trace chunks") && !own_time_text(0, 0),
          "estimates: the own time's sentence", "%s", own ? own : "(none)");
    free(own);
}

/* --- the call-site table (src/callsites.c; read by stub/skip.c) --- */

/* arm-demo as pass 2 linked it (before the rewrite): its sites' table
 * read back as the tracer reads it: every site with a link-fixed callee
 * once, under the name of the function or PLT entry its original call
 * goes to, with the word the redirect replaces. */
static void test_callsites(const char *root)
{
    char *path = xasprintf("%s/fuzz/corpus/elfdb/arm-demo.unrewritten", root);
    struct elf_image img;
    if (elf_image_open(&img, path) != 0) {
        check(0, "callsites: opens the ARM demo", "%s", path);
        free(path);
        return;
    }
    free(path);
    const struct arch_ops *arm = arch_of_image(&img);
    struct site_list sites = { NULL, 0 };
    struct scan_stats st;
    memset(&st, 0, sizeof st);
    if (!arm || find_call_sites(arm, &img, NULL, &sites, &st) != 0) {
        check(0, "callsites: the demo's sites", "no scan");
        elf_image_close(&img);
        return;
    }
    size_t len = 0;
    unsigned char *t = callsites_build(arm, &img, &sites, 0x12345678, &len);
    struct litifut_callsites_header h;
    memcpy(&h, t, sizeof h);
    const unsigned char *callees = t + sizeof h;
    const unsigned char *site = callees + h.n_callees * sizeof(struct litifut_callsite_callee);
    const char *names = (const char *)(site + h.n_sites * sizeof(struct litifut_callsite));
    struct plt_entry *plt = NULL;
    size_t n_plt = 0;
    arch_read_ops(arm)->plt_entries(&img, &plt, &n_plt);
    struct function_index fx;
    function_index_build(&img, &fx);
    /* each fixed-target site under each name of its callee: a PLT
     * entry's, or every function symbol starting where its function does */
    size_t bad = 0, seen = 0, named = 0, entries = 0;
    for (size_t i = 0; i < sites.n; i++) {
        uint64_t to = 0;
        if (!arch_read_ops(arm)->call_target(&sites.v[i], &to) || !to)
            continue;
        named++;
        to &= ~(uint64_t)1;
        int in_plt = 0;
        for (size_t j = 0; j < n_plt; j++)
            in_plt |= plt[j].name && to - plt[j].addr < plt[j].size;
        const struct indexed_function *f = in_plt ? NULL : function_index_find(&fx, to);
        size_t names_here = in_plt;
        for (size_t j = 0; f && j < fx.n; j++) {
            int again = 0;
            for (size_t q = 0; q < j && fx.v[j].start == f->start; q++)
                again |= fx.v[q].start == f->start && !strcmp(fx.v[q].sym->name, fx.v[j].sym->name);
            names_here += fx.v[j].start == f->start && !again && fx.v[j].sym->name[0];
        }
        entries += names_here;
    }
    for (uint32_t c = 0; c < h.n_callees; c++) {
        struct litifut_callsite_callee ce;
        memcpy(&ce, callees + c * sizeof ce, sizeof ce);
        const char *name = names + ce.name;
        for (uint32_t k = ce.first; k < ce.first + ce.count && k < h.n_sites; k++, seen++) {
            struct litifut_callsite cs;
            memcpy(&cs, site + k * sizeof cs, sizeof cs);
            const struct call_site *s = cs.index < sites.n ? &sites.v[cs.index] : NULL;
            uint64_t to = 0;
            if (!s || cs.insn != s->insn || cs.patch != s->addr + arm->kinds[s->kind].patch_offset ||
                !arch_read_ops(arm)->call_target(s, &to)) {
                bad++;
                continue;
            }
            to &= ~(uint64_t)1;
            const char *at = NULL;
            for (size_t j = 0; j < n_plt; j++)
                if (plt[j].name && to - plt[j].addr < plt[j].size)
                    at = plt[j].name;
            const struct indexed_function *f = at ? NULL : function_index_find(&fx, to);
            int alias = 0;
            for (size_t j = 0; f && j < fx.n; j++)
                alias |= fx.v[j].start == f->start && !strcmp(fx.v[j].sym->name, name);
            if (!alias && (!at || strncmp(at, name, strlen(name)) != 0 ||
                           (at[strlen(name)] && at[strlen(name)] != '@')))
                bad++;
        }
    }
    check(h.magic == LITIFUT_CALLSITES_MAGIC && h.version == LITIFUT_CALLSITES_VERSION &&
              h.db_checksum == 0x12345678 && h.n_callees > 5 && seen == h.n_sites &&
              h.n_sites == entries && !bad && len % 4 == 0 && !names[h.names_size - 1],
          "callsites: the ARM demo's table: each site with a fixed callee under each of its callee's names (aliases too), with its original word",
          "%" PRIu32 " callees, %" PRIu32 " entries for %zu sites with a fixed target (%zu expected), %zu wrong",
          h.n_callees, h.n_sites, named, entries, bad);
    for (size_t j = 0; j < n_plt; j++)
        free(plt[j].name);
    free(plt);
    function_index_free(&fx);
    free(t);
    scan_stats_free(&st);
    site_list_free(&sites);
    elf_image_close(&img);
}

/* LITIFUT_ARGS' values as the views print them (postproc/views/args.c),
 * from the words the reader keeps: integers small and large, negative
 * on 32 and 64 bits, a string cut short, a memory window, a bad pointer,
 * NULL; the names --auto-args gives open's; doubles and floats. */
static void test_args_text(void)
{
    /* 32-bit: open("/etc/x", 0, 0x1b6): which 1, 3 values */
    uint32_t w[32];
    unsigned k = 0;
    w[k++] = LITIFUT_ARGS_CALL | 3u << 8;
    w[k++] = LITIFUT_VALUE_STRING | 1u << 8 | 6u << 16;
    w[k++] = 0x40001000u;
    memcpy(&w[k], "/etc/x\0\0", 8);
    k += 2;
    w[k++] = LITIFUT_VALUE_INT | 2u << 8;
    w[k++] = 0;
    w[k++] = LITIFUT_VALUE_INT | 3u << 8;
    w[k++] = 0x40001000u;
    char out[1024];
    struct func open_fn = { .symbol = "open", .bare = "open" };
    struct args_names an;
    check(args_names_of(&open_fn, &an), "args: the built-in table knows open", "%s", "no");
    args_text(out, w, k, 4, LITIFUT_ARCH_ARM, NULL);
    check(strcmp(out, "\"/etc/x\", 0, 0x40001000") == 0, "args: a string and integers", "%s", out);
    args_text(out, w, k, 4, LITIFUT_ARCH_ARM, &an);
    check(strcmp(out, "pathname=\"/etc/x\", flags=O_RDONLY, mode=010000010000") == 0,
          "args: --auto-args names open's and shows them as their types", "%s", out);
    /* open's flags per arch (MIPS spells them its own way) */
    w[k - 3] = 01101;               /* O_WRONLY|O_CREAT|O_TRUNC, generic */
    w[k - 1] = 0644;
    args_text(out, w, k, 4, LITIFUT_ARCH_ARM, &an);
    check(strcmp(out, "pathname=\"/etc/x\", flags=O_WRONLY|O_CREAT|O_TRUNC, mode=0644") == 0,
          "args: open's flags by name (ARM)", "%s", out);
    w[k - 3] = 0x301 | 0x40000000;  /* O_WRONLY|O_CREAT|O_TRUNC on MIPS, and a bit unknown */
    args_text(out, w, k, 4, LITIFUT_ARCH_MIPS, &an);
    check(strcmp(out, "pathname=\"/etc/x\", flags=O_WRONLY|O_CREAT|O_TRUNC|0x40000000, mode=0644") == 0,
          "args: open's flags by name (MIPS), an unknown bit in hex", "%s", out);
    /* an int returned in a 64-bit register: its low half, signed */
    uint32_t i64[4] = { LITIFUT_ARGS_RETURN | 1u << 8, LITIFUT_VALUE_INT, 0xffffffffu, 0 };
    args_text(out, i64, 4, 8, LITIFUT_ARCH_AARCH64, &an);
    check(strcmp(out, "-1") == 0, "args: open's int return value on AArch64 (w0)", "%s", out);
    args_text(out, i64, 4, 8, LITIFUT_ARCH_AARCH64, NULL);
    check(strcmp(out, "0xffffffff") == 0, "args: without a type, the register", "%s", out);
    /* a return value -1 (32-bit), then one of 64 bits */
    uint32_t r32[3] = { LITIFUT_ARGS_RETURN | 1u << 8, LITIFUT_VALUE_INT, 0xffffffffu };
    args_text(out, r32, 3, 4, LITIFUT_ARCH_ARM, NULL);
    check(strcmp(out, "-1") == 0, "args: -1 (32-bit)", "%s", out);
    uint32_t r64[4] = { LITIFUT_ARGS_RETURN | 1u << 8, LITIFUT_VALUE_INT, 0xfffffffbu, 0xffffffffu };
    args_text(out, r64, 4, 8, LITIFUT_ARCH_AARCH64, NULL);
    check(strcmp(out, "-5") == 0, "args: -5 (64-bit)", "%s", out);
    /* a cut string with a quote, a window, a bad pointer, NULL */
    k = 0;
    w[k++] = LITIFUT_ARGS_CALL | 4u << 8;
    w[k++] = (LITIFUT_VALUE_STRING | LITIFUT_VALUE_CUT) | 1u << 8 | 3u << 16;
    w[k++] = 0x1000;
    memcpy(&w[k++], "a\"\n\0", 4);
    w[k++] = LITIFUT_VALUE_MEMORY | 2u << 8 | 2u << 16;
    w[k++] = 0x2000;
    memcpy(&w[k++], "\x01\xff\0\0", 4);
    w[k++] = LITIFUT_VALUE_UNREADABLE | 3u << 8;
    w[k++] = 1;
    w[k++] = LITIFUT_VALUE_UNREADABLE | 4u << 8;
    w[k++] = 0;
    args_text(out, w, k, 4, LITIFUT_ARCH_ARM, NULL);
    check(strcmp(out, "\"a\\\"\\n\"..., 0x2000 [01 ff], 0x1 (unreadable), NULL") == 0,
          "args: a cut string, a window, a bad pointer, NULL", "%s", out);
    check(strlen(out) < args_text_max(k), "args: the text fits args_text_max", "%zu", strlen(out));
    /* floating-point registers: 0.1 and 1e300 (doubles), 1.5f, a
     * float that needs 9 digits; 64-bit value words */
    double d1 = 0.1, d2 = 1e300;
    float f1 = 1.5f, f2 = 16777217.0f / 3.0f;
    uint64_t u;
    k = 0;
    w[k++] = LITIFUT_ARGS_CALL | 4u << 8;
    memcpy(&u, &d1, 8);
    w[k++] = LITIFUT_VALUE_FLOAT | 1u << 8 | 8u << 16, w[k++] = 0, w[k++] = 0;
    w[k++] = (uint32_t)u, w[k++] = (uint32_t)(u >> 32);
    memcpy(&u, &d2, 8);
    w[k++] = LITIFUT_VALUE_FLOAT | 2u << 8 | 8u << 16, w[k++] = 0, w[k++] = 0;
    w[k++] = (uint32_t)u, w[k++] = (uint32_t)(u >> 32);
    w[k++] = LITIFUT_VALUE_FLOAT | 3u << 8 | 4u << 16, w[k++] = 0, w[k++] = 0;
    memcpy(&w[k++], &f1, 4);
    w[k++] = LITIFUT_VALUE_FLOAT | 4u << 8 | 4u << 16, w[k++] = 0, w[k++] = 0;
    memcpy(&w[k++], &f2, 4);
    args_text(out, w, k, 8, LITIFUT_ARCH_AARCH64, &an);
    check(strcmp(out, "0.1, 1e+300, 1.5, 5592405.5") == 0,
          "args: doubles and floats, in the fewest digits, never named as integers", "%s", out);
}

int main(int argc, char **argv)
{
    test_args_text();
    test_callsites(argc > 1 ? argv[1] : ".");
    test_own_time();
    test_row_triples();
    test_elf64();
    test_ring_reader();
    test_word_sizes();
    test_site_words();
    test_thumb_pair();
    test_register_jumps();
    test_jumps_kept();
    test_aarch64_scan();
    test_aarch64_bti();
    test_aarch64_decoders();
    test_riscv64_scan();
    test_db();
    test_records();
    test_rule_kinds();
    test_estimates();
    test_histogram();
    return failures ? 1 : 0;
}
