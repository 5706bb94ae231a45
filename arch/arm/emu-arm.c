/*
 * ARM for litifut-emu's plugin (emu/emu-arch.h): ARM and Thumb-2
 * blocks, their calls and returns, and the EABI system calls it
 * watches.
 *
 * QEMU's plugin API does not say which instruction set a block is in.
 * A block with a 2-byte instruction or an address that is not a word's
 * is Thumb; one with a 4-byte instruction whose first halfword is below
 * 0xe800 is ARM (in Thumb state QEMU would have read that halfword as a
 * 16-bit instruction; the last one at page offset 0xffc proves nothing:
 * QEMU may have peeked past a 16-bit one there).  A block of words that
 * fit both is read both ways; the plugin keeps the reading that agrees
 * with where execution went next.  A Thumb call may sit in an IT block,
 * so every Thumb call is taken as conditional (not one when execution
 * goes on after it).
 */
#include "arch/arm/thunks.h"
#include "emu/emu-arch.h"
#include "litifut/trace-format.h"

enum { ISA_ARM, ISA_THUMB };

static unsigned arm_block_isas(const struct emu_insn *in, size_t n, int big_endian)
{
    (void)big_endian;
    int arm = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i].size != 4 || (in[i].vaddr & 3))
            return 1u << ISA_THUMB;
        unsigned first = in[i].bytes[0] | in[i].bytes[1] << 8;
        if (first < 0xe800 && !(i == n - 1 && (in[i].vaddr & 0xfff) == 0xffc))
            arm = 1;
    }
    return arm ? 1u << ISA_ARM : (1u << ISA_ARM) | (1u << ISA_THUMB);
}

static void arm_state_end(uint32_t w, uint64_t a, struct emu_end *e)
{
    unsigned cond = w >> 28;
    e->ra = e->fall = a + 4;
    if (cond != 0xf && (w & 0x0f000000) == 0x0b000000) {            /* BL */
        e->kind = EMU_CALL, e->direct = 1, e->conditional = cond != 0xe;
        e->target = (uint32_t)(a + 8 + (emu_sext(w, 24) << 2));
    } else if ((w & 0xfe000000) == 0xfa000000) {                    /* BLX imm */
        e->kind = EMU_CALL, e->direct = 1;
        e->target = (uint32_t)(a + 8 + (emu_sext(w, 24) << 2) + ((w >> 23) & 2));
    } else if (cond != 0xf && (w & 0x0ffffff0) == 0x012fff30) {     /* BLX reg */
        e->kind = EMU_CALL, e->conditional = cond != 0xe;
    } else if (cond != 0xf && (w & 0x0f000000) == 0x0a000000) {     /* B<c> */
        e->jump = 1;
        e->target = (uint32_t)(a + 8 + (emu_sext(w, 24) << 2));
    } else if (cond == 0xf) {
        return;
    } else if ((w & 0x0fffffff) == 0x012fff1e || (w & 0x0fffffff) == 0x01a0f00e ||
               (w & 0x0e108000) == 0x08108000 || (w & 0x0fffffff) == 0x049df004) {
        e->kind = EMU_RETURN;           /* bx lr, mov pc,lr, ldm {..pc}, ldr pc,[sp],#4 */
    } else if ((w & 0x0ffffff0) == 0x012fff10 || (w & 0x0c50f000) == 0x0410f000 ||
               (w & 0x0ffffff0) == 0x01a0f000 || (w & 0x0de0f000) == 0x0080f000) {
        e->kind = EMU_JUMP;             /* bx rN, ldr pc,..., mov pc,rN, add pc,... */
    }
}

static void thumb_state_end(const struct emu_insn *in, struct emu_end *e)
{
    uint64_t a = in->vaddr;
    unsigned hw1 = in->bytes[0] | in->bytes[1] << 8;
    e->ra = e->fall = a + in->size;
    if (in->size == 2) {
        if ((hw1 & 0xf800) == 0xe000)                               /* B (T2) */
            e->jump = 1, e->target = (uint32_t)(a + 4 + (emu_sext(hw1, 11) << 1));
        else if ((hw1 & 0xf000) == 0xd000 && (hw1 & 0x0e00) != 0x0e00)     /* B<c> (T1) */
            e->jump = 1, e->target = (uint32_t)(a + 4 + (emu_sext(hw1, 8) << 1));
        else if ((hw1 & 0xff87) == 0x4780)                          /* BLX reg */
            e->kind = EMU_CALL, e->conditional = 1;
        else if (hw1 == 0x4770 || (hw1 & 0xff00) == 0xbd00 || hw1 == 0x46f7)
            e->kind = EMU_RETURN;       /* bx lr, pop {..pc}, mov pc,lr */
        else if ((hw1 & 0xff87) == 0x4700 || (hw1 & 0xff87) == 0x4687)
            e->kind = EMU_JUMP;         /* bx rN, mov pc,rN */
        return;
    }
    unsigned hw2 = in->bytes[2] | in->bytes[3] << 8;
    if ((hw1 & 0xf800) == 0xf000 && (hw2 & 0xc000) == 0xc000) {    /* BL, BLX imm */
        uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
        uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
        uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3ff) << 12 | (hw2 & 0x7ff) << 1;
        uint64_t base = a + 4;
        if (!(hw2 & 0x1000))            /* BLX: to ARM code, from the aligned pc */
            base &= ~(uint64_t)3;
        e->kind = EMU_CALL, e->direct = 1, e->conditional = 1;
        e->target = (uint32_t)(base + emu_sext(imm, 25));
    } else if ((hw1 & 0xf800) == 0xf000 && (hw2 & 0xd000) == 0x9000) {    /* B.W (T4) */
        uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
        uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
        uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3ff) << 12 | (hw2 & 0x7ff) << 1;
        e->jump = 1, e->target = (uint32_t)(a + 4 + emu_sext(imm, 25));
    } else if ((hw1 & 0xf800) == 0xf000 && (hw2 & 0xd000) == 0x8000 && (hw1 & 0x0380) != 0x0380) {
        uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;   /* B<c>.W (T3) */
        uint32_t imm = s << 20 | j2 << 19 | j1 << 18 | (hw1 & 0x3f) << 12 | (hw2 & 0x7ff) << 1;
        e->jump = 1, e->target = (uint32_t)(a + 4 + emu_sext(imm, 21));
    } else if (((hw1 & 0xfe50) == 0xe810 && (hw2 & 0x8000)) || (hw1 == 0xf85d && hw2 == 0xfb04)) {
        e->kind = EMU_RETURN;           /* ldm(db) {..pc}, ldr.w pc,[sp],#4 */
    } else if (((hw1 & 0xffd0) == 0xf850 || (hw1 & 0xfff0) == 0xf8d0) && (hw2 & 0xf000) == 0xf000) {
        e->kind = EMU_JUMP;             /* ldr.w pc, ... */
    }
}

static void arm_block_end(unsigned isa, const struct emu_insn *in, size_t n, int big_endian,
                          struct emu_end *e)
{
    const struct emu_insn *last = &in[n - 1];
    *e = (struct emu_end){ .kind = EMU_FALL, .site = last->vaddr };
    if (isa == ISA_THUMB)
        thumb_state_end(last, e);
    else
        arm_state_end(emu_word(last, big_endian), last->vaddr, e);
}

/* The kuser helpers (__kuser_cmpxchg, __kuser_get_tls, ...): QEMU runs
 * them by trapping at their address and resuming at lr. */
static int arm_helper_page(uint64_t pc)
{
    return pc >= 0xffff0000u && pc < 0xffff1000u;
}

/* A Thumb pair's thunk (arch/arm/host-arm.h): after a 16-bit P the bl
 * replaced both and enters at the thunk's + 2, and the blx was the
 * halfword before the return address; after a 32-bit P the bl replaced
 * P only and enters at + 0, and the blx stays at the return address. */
static uint64_t arm_thunk_site(uint64_t entry, uint64_t ra)
{
    return entry & 2 ? ra - 2 : ra;
}

/* A thunk entered by a Thumb b.w at P's address (thunks.h): a pair's
 * whose P reads lr (the call is the blx after P, returning after it),
 * or a tail jump's through a register (the jump is the bx after P); a
 * direct tail jump's starts with push {lr}, ldr.w lr, add lr, pc too,
 * but has no bx or blx in its next halfwords. */
static int arm_jump_thunk(const uint8_t *b, size_t n, int big_endian, uint64_t jump_site,
                          uint64_t *site, uint64_t *ra)
{
    if (big_endian || n < REGJUMP_SIZE || n < PAIRB32_SIZE)
        return 0;                       /* (no big-endian ARM target) */
    uint16_t h[REGJUMP_SIZE / 2];
    for (unsigned i = 0; i < REGJUMP_SIZE / 2; i++)
        h[i] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
    uint16_t ldr_lo = T_LDR_LR_PC12 & 0xFFFF, ldr_hi = T_LDR_LR_PC12 >> 16;
    unsigned p;
    if (h[1] == ldr_lo && h[2] == ldr_hi && h[3] == T_ADD_LR_PC && h[4] == T_BX_PC &&
        (h[PAIRB_BLX / 2] & 0xFF87) == 0x4780) {
        p = 2;                          /* a pair's, P 16-bit */
    } else if (h[2] == ldr_lo && h[3] == ldr_hi && h[4] == T_ADD_LR_PC && h[5] == T_NOP &&
               h[6] == T_BX_PC && (h[PAIRB32_BLX / 2] & 0xFF87) == 0x4780) {
        p = 4;                          /* ... P 32-bit */
    } else if ((p = regjump_t_thunk_p(h))) {
        *site = jump_site + p;          /* a jump through a register */
        return EMU_THUNK_JUMP;
    } else {
        return 0;                       /* (a direct tail jump's: push {lr} and a nop) */
    }
    *site = jump_site + p;
    *ra = jump_site + p + 2;
    return EMU_THUNK_CALL;
}

const struct emu_arch emu_arch_arm = {
    .target_name = "arm", .trace_arch = LITIFUT_ARCH_ARM, .word_size = 4, .big_endian = 0,
    .elf_machine = 40 /* EM_ARM */, .isa_bits = 1,
    .sys_rt_sigaction = 174, .sys_rt_sigreturn = 173, .sys_sigreturn = 119,
    .sys_execve = 11, .sys_execveat = 387, .sys_exit_group = 248, .sys_clone = 120,
    .sys_clone3 = 435, .sigaction_handler_offset = 0,
    .block_isas = arm_block_isas, .block_end = arm_block_end, .helper_page = arm_helper_page,
    .thunk_site = arm_thunk_site, .jump_thunk = arm_jump_thunk,
};
