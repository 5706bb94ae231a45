/*
 * Run-time bridges for MIPS PIEs.  A call site that no sled copy is
 * within bal range of was rewritten to `jal bridge + 16k` (arch-mips.c):
 * jal keeps the top 4 bits of the address of its delay slot, so it
 * lands at offset `bridge` of whatever 256 MB region the code was
 * loaded into.  Before any of the program's code runs, this maps a page
 * there in every region the call sites span, with the sled's entries
 * and a jump to the common code.
 *
 * .preinit_array runs first: the dynamic linker calls it (after
 * relocation, before any library's constructors, so calls that a
 * library makes into the program early are covered too).  Only IFUNC
 * resolvers of the program itself run earlier.
 */
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/db-format.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif
#define BCACHE 3

extern const struct litifut_db_header litifut_db_header HIDDEN;
extern const char litifut_mips_common[] HIDDEN;

static void die(const char *msg, uintptr_t addr)
{
    static const char hex[] = "0123456789abcdef";
    char buf[160], *p = buf;
    for (const char *m = "litifut: cannot map the call bridge at 0x"; *m; m++)
        *p++ = *m;
    for (int i = 0; i < 8; i++)
        *p++ = hex[(addr >> (28 - 4 * i)) & 15];
    *p++ = ':';
    *p++ = ' ';
    while (*msg && p < buf + sizeof buf - 1)
        *p++ = *msg++;
    *p++ = '\n';
    sys_write(2, buf, (unsigned long)(p - buf));
    arch_syscall6(__NR_exit_group, 127, 0, 0, 0, 0, 0);
}

/* The entries (as in sled.S) and, after them, the jump to the common code. */
static void fill_bridge(uint32_t *w, uintptr_t common)
{
    for (uint32_t k = 0; k < 128; k++) {
        uint32_t *e = w + 4 * k;
        e[0] = 0x27bdff78u;                             /* addiu sp, sp, -136 */
        e[1] = 0xafbf007cu;                             /* sw ra, 124(sp) */
        e[2] = 0x04110000u | ((512 - (4 * k + 3)) & 0xffff);   /* bal w + 2048 */
        e[3] = 0xafb90064u;                             /* sw t9, 100(sp) */
    }
    w[512] = 0x3c190000u | (uint32_t)(common >> 16);   /* lui t9, %hi(common) */
    w[513] = 0x37390000u | (uint32_t)(common & 0xffff);/* ori t9, t9, %lo(common) */
    w[514] = 0x03200008u;                               /* jr t9 */
    w[515] = 0;                                         /* nop */
}

static void map_bridges(void)
{
    const struct litifut_db_header *db = &litifut_db_header;
    if (!db->bridge || !db->n_sites)
        return;
    uintptr_t bias = object_load_bias();
    /* jal's region is its delay slot's: site + 4 */
    uintptr_t first = db->key_origin - 8 + 4 + bias;
    uintptr_t last = db->key_origin - 8 + 4 + (db->n_pages << db->page_shift) + bias;
    for (uintptr_t region = first >> 28; region <= last >> 28; region++) {
        uintptr_t at = region << 28 | db->bridge;
        void *p = sys_mmap((void *)at, 4096, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (sys_mmap_failed(p) || (uintptr_t)p != at)
            die("the address is taken", at);
        fill_bridge(p, (uintptr_t)litifut_mips_common);
        arch_syscall6(__NR_cacheflush, (long)p, 4096, BCACHE, 0, 0, 0);
        if (arch_syscall6(__NR_mprotect, (long)p, 4096, PROT_READ | PROT_EXEC, 0, 0, 0) != 0)
            die("mprotect failed", at);
    }
}

__attribute__((section(".preinit_array"), used))
static void (*const litifut_preinit)(void) = map_bridges;
