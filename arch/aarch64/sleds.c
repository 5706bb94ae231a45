/*
 * Where this copy's sled entries go (sled.h: each entry's second word
 * is its branch): to litifut_a64_start (the slow path in C) as linked,
 * until the copy is ready; then to the hot path of the trace's clock,
 * with or without exact returns (stub.S), the mode's path (dedup, count,
 * paused), or, while the process records nothing, to litifut_a64_off,
 * which only finds the target.  Clock monotonic has no hot path here
 * (arm64 Linux lets every program read the counter, auto's choice): its
 * calls go to the slow path, which does everything.  The counter's paths come in two:
 * in units of 2^time_shift ticks, and in ticks when the shift is 0 (no
 * shift to read and apply: 2 instructions per event).  The sled's pages (of the system's
 * size: arm64 kernels have 4, 16 or 64 KB pages) are made writable
 * while the branches change; a thread running through an entry
 * meanwhile takes the old branch or the new one (replacing a `b` by a
 * `b` is a concurrent modification the architecture allows): both are
 * right.  The far sleds' calls come in through litifut_sled_far's two
 * entries (far-sled.S), written with the sled's.  A BTI-marked object's fixed halves end in `ret x16` instead
 * (stub.S: the target may have no landing pad).
 */
#include <stdint.h>
#include <elf.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"

/* (musl's elf.h has the note, not the property's names) */
#ifndef GNU_PROPERTY_AARCH64_FEATURE_1_AND
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000u
#define GNU_PROPERTY_AARCH64_FEATURE_1_BTI 1u
#endif

extern const char litifut_sled[] HIDDEN, litifut_sled_far[] HIDDEN;
extern uintptr_t litifut_sled_pages[] HIDDEN;  /* after them, the "off" code's (stub.S) */
extern const char litifut_a64_start[] HIDDEN;
extern const char litifut_a64_on[] HIDDEN, litifut_a64_on_reg[] HIDDEN;
extern const char litifut_a64_counter[] HIDDEN, litifut_a64_counter_reg[] HIDDEN;
extern const char litifut_a64_ret[] HIDDEN, litifut_a64_ret_reg[] HIDDEN;
extern const char litifut_a64_ret_counter[] HIDDEN, litifut_a64_ret_counter_reg[] HIDDEN;
extern const char litifut_a64_counter0[] HIDDEN, litifut_a64_counter0_reg[] HIDDEN;
extern const char litifut_a64_ret_counter0[] HIDDEN, litifut_a64_ret_counter0_reg[] HIDDEN;
extern const char litifut_a64_counter0_bti[] HIDDEN, litifut_a64_ret_counter0_bti[] HIDDEN;
extern const char litifut_a64_off[] HIDDEN, litifut_a64_off_reg[] HIDDEN;
extern const char litifut_a64_on_bti[] HIDDEN, litifut_a64_counter_bti[] HIDDEN;
extern const char litifut_a64_ret_bti[] HIDDEN, litifut_a64_ret_counter_bti[] HIDDEN;
extern const char litifut_a64_off_bti[] HIDDEN;
extern const char litifut_a64_dedup[] HIDDEN, litifut_a64_dedup_reg[] HIDDEN, litifut_a64_dedup_bti[] HIDDEN;
extern const char litifut_a64_count[] HIDDEN, litifut_a64_count_reg[] HIDDEN, litifut_a64_count_bti[] HIDDEN;
extern const char litifut_a64_paused[] HIDDEN, litifut_a64_paused_reg[] HIDDEN,
    litifut_a64_paused_bti[] HIDDEN;
extern const char litifut_sled_jump[] HIDDEN;
extern const char litifut_a64_jump_ret[] HIDDEN, litifut_a64_jump_ret_bti[] HIDDEN;
extern const char litifut_a64_jump_ret_counter[] HIDDEN, litifut_a64_jump_ret_counter_bti[] HIDDEN;
extern const char litifut_a64_jump_ret_counter0[] HIDDEN, litifut_a64_jump_ret_counter0_bti[] HIDDEN;
extern const char litifut_a64_jump_any[] HIDDEN;
extern uintptr_t litifut_a64_jump_paths[2] HIDDEN;   /* litifut_a64_jump_any's (stub.S) */
extern const char __ehdr_start[] __attribute__((weak, visibility("hidden")));

/* Whether this object is BTI-marked (stub.S's slow path reads it): -1
 * not known yet, then 0 or 1. */
HIDDEN int litifut_a64_bti = -1;

/* Its PT_GNU_PROPERTY notes: the AArch64 feature's BTI bit (the kernel
 * or ld.so guards the object's pages by it). */
static int bti_marked(void)
{
    if (!__ehdr_start)
        return 0;
    const ELF(Ehdr) *eh = (const ELF(Ehdr) *)__ehdr_start;
    const ELF(Phdr) *ph = (const ELF(Phdr) *)(__ehdr_start + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_GNU_PROPERTY)
            continue;
        const uint8_t *p = (const uint8_t *)(ph[i].p_vaddr + object_load_bias());
        const uint8_t *end = p + ph[i].p_filesz;
        while (p + 12 <= end) {
            const uint32_t *n = (const uint32_t *)p;        /* namesz, descsz, type */
            const uint8_t *desc = p + 12 + ((n[0] + 3) & ~3u);
            const uint8_t *desc_end = desc + n[1];
            for (const uint8_t *q = desc; n[2] == NT_GNU_PROPERTY_TYPE_0 && q + 8 <= desc_end;) {
                const uint32_t *pr = (const uint32_t *)q;   /* type, size, data */
                if (pr[0] == GNU_PROPERTY_AARCH64_FEATURE_1_AND && pr[1] >= 4 && q + 12 <= desc_end)
                    return pr[2] & GNU_PROPERTY_AARCH64_FEATURE_1_BTI;
                q += 8 + ((pr[1] + 7) & ~7u);
            }
            p = desc + ((n[1] + 7) & ~7u);
        }
    }
    return 0;
}

/* `b to` at address `b` (imm26: +-128 MB, the sled and its code are in
 * one section). */
static uint32_t branch(uintptr_t b, const char *to)
{
    return 0x14000000u | (uint32_t)((((uintptr_t)to - b) >> 2) & 0x03ffffffu);
}

int arch_sleds_select(enum sleds_mode mode)
{
    /* per mode, the first row that fits: the fixed half's path, the
     * register half's, the fixed half's in a BTI-marked object; the
     * counter's in ticks where the process's time_shift is 0 (most
     * counters run at 19.2 to 62.5 MHz), else in units of 2^shift ticks */
    /* (and in the full modes the jump half's, plain and BTI: stub.S;
     * the others' goes through litifut_a64_jump_any) */
    static const struct { enum sleds_mode mode; int only_shift0; const char *to[5]; } paths[] = {
        { SLEDS_ON, 0, { litifut_a64_on, litifut_a64_on_reg, litifut_a64_on_bti,
                         litifut_a64_jump_ret, litifut_a64_jump_ret_bti } },
        { SLEDS_ON_COUNTER, 1, { litifut_a64_counter0, litifut_a64_counter0_reg, litifut_a64_counter0_bti,
                                 litifut_a64_jump_ret_counter0, litifut_a64_jump_ret_counter0_bti } },
        { SLEDS_ON_COUNTER, 0, { litifut_a64_counter, litifut_a64_counter_reg, litifut_a64_counter_bti,
                                 litifut_a64_jump_ret_counter, litifut_a64_jump_ret_counter_bti } },
        { SLEDS_ON_RET, 0, { litifut_a64_ret, litifut_a64_ret_reg, litifut_a64_ret_bti,
                             litifut_a64_jump_ret, litifut_a64_jump_ret_bti } },
        { SLEDS_ON_RET_COUNTER, 1, { litifut_a64_ret_counter0, litifut_a64_ret_counter0_reg,
                                     litifut_a64_ret_counter0_bti, litifut_a64_jump_ret_counter0,
                                     litifut_a64_jump_ret_counter0_bti } },
        { SLEDS_ON_RET_COUNTER, 0, { litifut_a64_ret_counter, litifut_a64_ret_counter_reg,
                                     litifut_a64_ret_counter_bti, litifut_a64_jump_ret_counter,
                                     litifut_a64_jump_ret_counter_bti } },
        { SLEDS_OFF, 0, { litifut_a64_off, litifut_a64_off_reg, litifut_a64_off_bti } },
        { SLEDS_DEDUP, 0, { litifut_a64_dedup, litifut_a64_dedup_reg, litifut_a64_dedup_bti } },
        { SLEDS_COUNT, 0, { litifut_a64_count, litifut_a64_count_reg, litifut_a64_count_bti } },
        { SLEDS_PAUSED, 0, { litifut_a64_paused, litifut_a64_paused_reg, litifut_a64_paused_bti } },
    };
    if (litifut_a64_bti < 0)
        litifut_a64_bti = bti_marked();
    int shift0 = litifut_copy.proc && litifut_copy.proc->time_shift == 0;
    const char *to[3] = { litifut_a64_start, litifut_a64_start, litifut_a64_start };
    for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++)      /* per half (sled.h) */
        if (paths[i].mode == mode && (shift0 || !paths[i].only_shift0)) {
            to[0] = paths[i].to[litifut_a64_bti ? 2 : 0];   /* `ret x16` (stub.S) */
            to[1] = paths[i].to[1];
            to[2] = paths[i].to[3] ? paths[i].to[litifut_a64_bti ? 4 : 3] : litifut_a64_jump_any;
            break;
        }
    static uintptr_t page;          /* the system's: 4, 16 or 64 KB on arm64 */
    if (!page && !(page = auxv_value(6 /* AT_PAGESZ */)))
        page = 4096;
    /* the sled, then litifut_sled_far's two entries (far sleds come in there) */
    uintptr_t start = (uintptr_t)litifut_sled;
    uintptr_t end = (uintptr_t)litifut_sled_jump + SLED_ENTRIES * SLED_ENTRY_SIZE;
    uintptr_t lo = start & ~(page - 1);
    uintptr_t hi = ((uintptr_t)(litifut_a64_jump_paths + 2) + page - 1) & ~(page - 1);
    if (arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo),
                      PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0))
        return 0;
    /* (before any entry goes there; a thread there meanwhile takes the
     * old path or the new one: both are right) */
    ((volatile uintptr_t *)litifut_a64_jump_paths)[0] = (uintptr_t)to[0];
    ((volatile uintptr_t *)litifut_a64_jump_paths)[1] = (uintptr_t)litifut_a64_start;
    for (unsigned i = 0; i < 2 * SLED_ENTRIES; i++) {
        uintptr_t b = start + i * SLED_ENTRY_SIZE + 4;
        *(volatile uint32_t *)b = branch(b, to[i / SLED_ENTRIES]);
    }
    for (unsigned half = 0; half < 2; half++) {
        uintptr_t b = (uintptr_t)litifut_sled_far + half * SLED_ENTRY_SIZE + 4;
        *(volatile uint32_t *)b = branch(b, to[half]);
    }
    for (unsigned i = 0; i < SLED_ENTRIES; i++) {
        uintptr_t b = (uintptr_t)litifut_sled_jump + i * SLED_ENTRY_SIZE + 4;
        *(volatile uint32_t *)b = branch(b, to[2]);
    }
    *(volatile uintptr_t *)litifut_sled_pages = litifut_copy.pages;     /* (made by now) */
    arch_flush_icache(start, end);
    arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo), PROT_READ | PROT_EXEC, 0, 0, 0);
    return 1;
}
