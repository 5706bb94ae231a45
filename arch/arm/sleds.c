/*
 * Where this copy's sled entries go (sled.h: each entry's third word is
 * its branch): to litifut_arm_start (the slow path in C) as linked, until
 * the copy is ready; then to the hot path (litifut_arm_common, or one
 * that reads a clock per call), to a mode's path (litifut_arm_dedup,
 * litifut_arm_count), while recording is off to litifut_arm_paused
 * (which counts the call), or, while the process records nothing, to
 * litifut_arm_off, which only finds the target; and the two branches
 * that the far sleds (far-sled.S) go through, one per half, with them;
 * and the tail jumps' half (litifut_sled_jump): the full modes' jump
 * paths, the others' through litifut_arm_jump_any.
 * The sled's pages are
 * made writable while the branches change; a thread running through an
 * entry meanwhile takes the old branch or the new one: both are right.
 */
#include <stdint.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"

extern const char litifut_sled[] HIDDEN;
extern uint32_t litifut_sled_pages[] HIDDEN;   /* after the sled, the "off" code's (stub.S) */
extern const char litifut_arm_start[] HIDDEN;
extern const char litifut_arm_common[] HIDDEN, litifut_arm_common_reg[] HIDDEN;
extern const char litifut_arm_common_clock[] HIDDEN, litifut_arm_common_reg_clock[] HIDDEN;
extern const char litifut_arm_common_counter[] HIDDEN, litifut_arm_common_reg_counter[] HIDDEN;
extern const char litifut_arm_off[] HIDDEN, litifut_arm_off_reg[] HIDDEN;
extern const char litifut_arm_dedup[] HIDDEN, litifut_arm_dedup_reg[] HIDDEN;
extern const char litifut_arm_count[] HIDDEN, litifut_arm_count_reg[] HIDDEN;
extern const char litifut_arm_paused[] HIDDEN, litifut_arm_paused_reg[] HIDDEN;
extern const char litifut_arm_ret_marks[] HIDDEN, litifut_arm_ret_reg_marks[] HIDDEN;
extern const char litifut_arm_ret_clock[] HIDDEN, litifut_arm_ret_reg_clock[] HIDDEN;
extern const char litifut_arm_ret_counter[] HIDDEN, litifut_arm_ret_reg_counter[] HIDDEN;
extern const char litifut_sled_jump[] HIDDEN;
extern const char litifut_arm_jump_marks[] HIDDEN, litifut_arm_jump_clock[] HIDDEN;
extern const char litifut_arm_jump_counter[] HIDDEN, litifut_arm_jump_any[] HIDDEN;
extern uint32_t litifut_arm_jump_paths[2] HIDDEN;     /* litifut_arm_jump_any's (stub.S) */

/* The branch word of entry `b`'s third instruction to `to`. */
static uint32_t branch(uintptr_t b, const char *to)
{
    return 0xea000000u | ((((uintptr_t)to - (b + 8)) >> 2) & 0x00ffffffu);
}

int arch_sleds_select(enum sleds_mode mode)
{
    const char *to[3];          /* per half (sled.h): fixed target, register, tail jump */
    switch (mode) {
    case SLEDS_ON:         to[0] = litifut_arm_common;         to[1] = litifut_arm_common_reg; break;
    case SLEDS_ON_CLOCK:   to[0] = litifut_arm_common_clock;   to[1] = litifut_arm_common_reg_clock; break;
    case SLEDS_ON_COUNTER: to[0] = litifut_arm_common_counter; to[1] = litifut_arm_common_reg_counter; break;
    case SLEDS_OFF:        to[0] = litifut_arm_off;            to[1] = litifut_arm_off_reg; break;
    case SLEDS_DEDUP:      to[0] = litifut_arm_dedup;          to[1] = litifut_arm_dedup_reg; break;
    case SLEDS_COUNT:      to[0] = litifut_arm_count;          to[1] = litifut_arm_count_reg; break;
    case SLEDS_PAUSED:     to[0] = litifut_arm_paused;         to[1] = litifut_arm_paused_reg; break;
    case SLEDS_ON_RET:     to[0] = litifut_arm_ret_marks;      to[1] = litifut_arm_ret_reg_marks; break;
    case SLEDS_ON_RET_CLOCK: to[0] = litifut_arm_ret_clock;    to[1] = litifut_arm_ret_reg_clock; break;
    case SLEDS_ON_RET_COUNTER: to[0] = litifut_arm_ret_counter; to[1] = litifut_arm_ret_reg_counter; break;
    default:               to[0] = to[1] = litifut_arm_start; break;
    }
    /* tail jumps: the full modes' jump paths (stub.S), with exact
     * returns or without; else the dispatcher, to the mode's path of a
     * fixed target or (through a register) the slow path */
    to[2] = mode == SLEDS_ON_RET || mode == SLEDS_ON ? litifut_arm_jump_marks
          : mode == SLEDS_ON_RET_CLOCK || mode == SLEDS_ON_CLOCK ? litifut_arm_jump_clock
          : mode == SLEDS_ON_RET_COUNTER || mode == SLEDS_ON_COUNTER ? litifut_arm_jump_counter
          : to[0] == litifut_arm_start ? litifut_arm_start : litifut_arm_jump_any;
    /* the entries, then the far sleds' way in: one branch per half
     * (stub.S, far-sled.S) */
    uintptr_t start = (uintptr_t)litifut_sled, far = start + 2 * SLED_ENTRIES * SLED_ENTRY_SIZE;
    uintptr_t end = (uintptr_t)litifut_sled_jump + SLED_ENTRIES * SLED_ENTRY_SIZE;
    uintptr_t lo = start & ~4095u, hi = ((uintptr_t)(litifut_arm_jump_paths + 2) + 4095) & ~4095u;
    if (arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo),
                      PROT_READ | PROT_WRITE | PROT_EXEC, 0, 0, 0))
        return 0;
    /* (before any entry goes there; a thread there meanwhile takes the
     * old path or the new one: both are right) */
    ((volatile uint32_t *)litifut_arm_jump_paths)[0] = (uint32_t)(uintptr_t)to[0];
    ((volatile uint32_t *)litifut_arm_jump_paths)[1] = (uint32_t)(uintptr_t)litifut_arm_start;
    for (unsigned i = 0; i < 2 * SLED_ENTRIES; i++) {
        uintptr_t b = start + i * SLED_ENTRY_SIZE + 8;
        *(volatile uint32_t *)b = branch(b, to[i / SLED_ENTRIES]);
    }
    for (unsigned half = 0; half < 2; half++)
        *(volatile uint32_t *)(far + 4 * half) = branch(far + 4 * half, to[half]);
    for (unsigned i = 0; i < SLED_ENTRIES; i++) {
        uintptr_t b = (uintptr_t)litifut_sled_jump + i * SLED_ENTRY_SIZE + 8;
        *(volatile uint32_t *)b = branch(b, to[2]);
    }
    *(volatile uint32_t *)litifut_sled_pages = (uint32_t)litifut_copy.pages;   /* (made by now) */
    arch_flush_icache(start, end);
    arch_syscall6(__NR_mprotect, (long)lo, (long)(hi - lo), PROT_READ | PROT_EXEC, 0, 0, 0);
    return 1;
}
