/*
 * Where this copy's sled entries go (sled.h: each entry's third word is
 * its branch), in both sled copies (the module's and the island's) and
 * in this object's entries of the run-time bridges: to the copy's slow
 * path (*_start) as linked, until the copy is ready; then to its hot
 * path (*_common), to a mode's path (*_dedup, *_count), while
 * recording is off to its paused path (*_paused: counts the call), or,
 * while the process records nothing, to its "off" code (*_off), which
 * only finds the target.  The sleds' pages are made writable while the branches
 * change; a thread running through an entry meanwhile takes the old
 * branch or the new one: both are right.
 */
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"

#define SLED_TARGETS(p)                                                         \
    extern const char p##_start[] WEAK, p##_common[] WEAK, p##_common_reg[] WEAK,   \
        p##_off[] WEAK, p##_off_reg[] WEAK, p##_start_t9[] WEAK,                   \
        p##_common_t9[] WEAK, p##_common_reg_t9[] WEAK, p##_off_t9[] WEAK,         \
        p##_off_reg_t9[] WEAK, p##_dedup[] WEAK, p##_dedup_reg[] WEAK, p##_dedup_t9[] WEAK, \
        p##_dedup_reg_t9[] WEAK, p##_count[] WEAK, p##_count_reg[] WEAK, p##_count_t9[] WEAK, \
        p##_count_reg_t9[] WEAK, p##_paused[] WEAK, p##_paused_reg[] WEAK,                   \
        p##_paused_t9[] WEAK, p##_paused_reg_t9[] WEAK;                             \
    TIMED_TARGETS(p, clock); TIMED_TARGETS(p, counter); TIMED_TARGETS(p, ret_marks); \
    TIMED_TARGETS(p, ret_clock); TIMED_TARGETS(p, ret_counter)
#define TIMED_TARGETS(p, m)                                                     \
    extern const char p##_##m[] WEAK, p##_##m##_reg[] WEAK, p##_##m##_t9[] WEAK,   \
        p##_##m##_reg_t9[] WEAK
/* the island (island.o) is in every MIPS object the wrapper links */
#define WEAK __attribute__((weak, visibility("hidden")))
extern const char litifut_sled[] HIDDEN;
extern const char litifut_island_sled[] WEAK;
SLED_TARGETS(litifut_mips);
SLED_TARGETS(litifut_island);

extern const char litifut_sled_jump[] HIDDEN;
extern const char litifut_mips_jump_ret_marks[] HIDDEN, litifut_mips_jump_ret_clock[] HIDDEN,
    litifut_mips_jump_ret_counter[] HIDDEN, litifut_mips_jump_any[] HIDDEN;
extern uint32_t litifut_mips_jump_paths[3] HIDDEN;   /* litifut_mips_jump_any's (stub.S) */

static enum sleds_mode sleds_mode = SLEDS_START;


/* A sled copy's code for a mode and a half (sled.h); with `_t9`, where a
 * bridge's dispatcher goes instead (it saved t9). */
#define PICK_AS(p, m, half, t9)                                                 \
    ((m) == SLEDS_ON ? ((half) ? p##_common_reg##t9 : p##_common##t9)           \
     : (m) == SLEDS_ON_CLOCK ? ((half) ? p##_clock_reg##t9 : p##_clock##t9)     \
     : (m) == SLEDS_ON_COUNTER ? ((half) ? p##_counter_reg##t9 : p##_counter##t9) \
     : (m) == SLEDS_ON_RET ? ((half) ? p##_ret_marks_reg##t9 : p##_ret_marks##t9) \
     : (m) == SLEDS_ON_RET_CLOCK ? ((half) ? p##_ret_clock_reg##t9 : p##_ret_clock##t9) \
     : (m) == SLEDS_ON_RET_COUNTER ? ((half) ? p##_ret_counter_reg##t9           \
                                             : p##_ret_counter##t9)             \
     : (m) == SLEDS_OFF ? ((half) ? p##_off_reg##t9 : p##_off##t9)              \
     : (m) == SLEDS_DEDUP ? ((half) ? p##_dedup_reg##t9 : p##_dedup##t9)        \
     : (m) == SLEDS_COUNT ? ((half) ? p##_count_reg##t9 : p##_count##t9)        \
     : (m) == SLEDS_PAUSED ? ((half) ? p##_paused_reg##t9 : p##_paused##t9)     \
     : p##_start##t9)
#define PICK(p, m, half) PICK_AS(p, m, half, )

/* The tail jumps' half (the module's copy): in the full modes its own
 * paths (not hooked: sled.S JUMP_PATHS), in the others through
 * litifut_mips_jump_any (stub.S). */
static int retarget_jumps(enum sleds_mode mode)
{
    const char *to = mode == SLEDS_ON_RET || mode == SLEDS_ON ? litifut_mips_jump_ret_marks
                   : mode == SLEDS_ON_RET_CLOCK || mode == SLEDS_ON_CLOCK ? litifut_mips_jump_ret_clock
                   : mode == SLEDS_ON_RET_COUNTER || mode == SLEDS_ON_COUNTER
                       ? litifut_mips_jump_ret_counter
                   : mode == SLEDS_START ? PICK(litifut_mips, mode, 0) : litifut_mips_jump_any;
    /* (litifut_mips_jump_any's words, before any entry goes there) */
    litifut_mips_jump_paths[0] = (uint32_t)(uintptr_t)PICK_AS(litifut_mips, mode, 0, _t9);
    litifut_mips_jump_paths[1] = (uint32_t)(uintptr_t)litifut_mips_start_t9;
    litifut_mips_jump_paths[2] = (uint32_t)litifut_copy.pages;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uintptr_t start = (uintptr_t)litifut_sled_jump, end = start + SLED_ENTRIES * SLED_ENTRY_SIZE;
    uintptr_t lo = start & ~4095u, hi = (end + 4095) & ~4095u;
    if (arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo),
                      PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0))
        return 0;
    for (unsigned i = 0; i < SLED_ENTRIES; i++) {         /* the third word: b */
        uintptr_t b = start + i * SLED_ENTRY_SIZE + 8;
        *(volatile uint32_t *)b = 0x10000000u | ((((uintptr_t)to - (b + 4)) >> 2) & 0xffffu);
    }
    arch_flush_icache(start, end);
    arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo), PROT_READ | PROT_EXEC, 0, 0, 0);
    return 1;
}

static int retarget(uintptr_t start, const char *fixed, const char *reg)
{
    uintptr_t end = start + SLED_BYTES;
    uintptr_t lo = start & ~4095u, hi = (end + 4095) & ~4095u;
    if (arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo),
                      PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0))
        return 0;
    for (unsigned i = 0; i < 2 * SLED_ENTRIES; i++) {     /* the third word: b */
        uintptr_t b = start + i * SLED_ENTRY_SIZE + 8;
        uintptr_t to = (uintptr_t)(i < SLED_ENTRIES ? fixed : reg);
        *(volatile uint32_t *)b = 0x10000000u | (((to - (b + 4)) >> 2) & 0xffffu);
    }
    arch_flush_icache(start, end);
    arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo), PROT_READ | PROT_EXEC, 0, 0, 0);
    return 1;
}

int arch_sleds_select(enum sleds_mode mode)
{
    enum sleds_mode was = sleds_mode;
    if (!retarget((uintptr_t)litifut_sled, PICK(litifut_mips, mode, 0),
                  PICK(litifut_mips, mode, 1)))
        return 0;
    if (!retarget_jumps(mode)) {
        retarget((uintptr_t)litifut_sled, PICK(litifut_mips, was, 0), PICK(litifut_mips, was, 1));
        return 0;
    }
    if (litifut_island_sled &&
        !retarget((uintptr_t)litifut_island_sled, PICK(litifut_island, mode, 0),
                  PICK(litifut_island, mode, 1))) {
        retarget((uintptr_t)litifut_sled, PICK(litifut_mips, was, 0), PICK(litifut_mips, was, 1));
        return 0;
    }
    sleds_mode = mode;
    bridges_retarget((uint32_t)(uintptr_t)PICK_AS(litifut_mips, mode, 0, _t9),
                     (uint32_t)(uintptr_t)PICK_AS(litifut_mips, mode, 1, _t9));
    return 1;
}

