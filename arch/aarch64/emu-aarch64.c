/*
 * AArch64 for litifut-emu's plugin (emu/emu-arch.h): BL, BLR and the
 * pointer-authenticating BLRAA/BLRAB(Z) calls, RET(AA/AB) returns.
 */
#include "emu/emu-arch.h"
#include "litifut/trace-format.h"

static unsigned a64_block_isas(const struct emu_insn *in, size_t n, int big_endian)
{
    (void)in, (void)n, (void)big_endian;
    return 1;
}

static void a64_block_end(unsigned isa, const struct emu_insn *in, size_t n, int big_endian,
                          struct emu_end *e)
{
    (void)isa;
    const struct emu_insn *last = &in[n - 1];
    uint32_t w = emu_word(last, big_endian);
    uint64_t a = last->vaddr;
    *e = (struct emu_end){ .kind = EMU_FALL, .site = a, .ra = a + 4, .fall = a + 4 };
    if ((w & 0xfc000000u) == 0x94000000u) {                         /* BL */
        e->kind = EMU_CALL, e->direct = 1;
        e->target = a + (uint64_t)(emu_sext(w, 26) << 2);
    } else if ((w & 0xfffffc1fu) == 0xd63f0000u || (w & 0xfffff800u) == 0xd63f0800u ||
               (w & 0xfffff800u) == 0xd73f0800u) {                  /* BLR, BLRAA(Z), BLRAB(Z) */
        e->kind = EMU_CALL;
    } else if ((w & 0xfffffc1fu) == 0xd65f0000u || w == 0xd65f0bffu || w == 0xd65f0fffu) {
        e->kind = EMU_RETURN;                                       /* RET, RETAA, RETAB */
    } else if ((w & 0xfffffc1fu) == 0xd61f0000u || (w & 0xfefff800u) == 0xd61f0800u) {
        e->kind = EMU_JUMP;                                         /* BR, BRAA(Z), BRAB(Z) */
    } else if ((w & 0xfc000000u) == 0x14000000u) {                  /* B */
        e->jump = 1, e->target = a + (uint64_t)(emu_sext(w, 26) << 2);
    } else if ((w & 0xff000010u) == 0x54000000u || (w & 0x7e000000u) == 0x34000000u) {
        e->jump = 1, e->target = a + (uint64_t)(emu_sext(w >> 5, 19) << 2);   /* B.cond, CBZ, CBNZ */
    } else if ((w & 0x7e000000u) == 0x36000000u) {                  /* TBZ, TBNZ */
        e->jump = 1, e->target = a + (uint64_t)(emu_sext(w >> 5, 14) << 2);
    }
}

const struct emu_arch emu_arch_aarch64 = {
    .target_name = "aarch64", .trace_arch = LITIFUT_ARCH_AARCH64, .word_size = 8,
    .big_endian = 0, .elf_machine = 183 /* EM_AARCH64 */,
    .sys_rt_sigaction = 134, .sys_rt_sigreturn = 139, .sys_sigreturn = -1,
    .sys_execve = 221, .sys_execveat = 281, .sys_exit_group = 94, .sys_clone = 220,
    .sys_clone3 = 435, .sigaction_handler_offset = 0,
    .block_isas = a64_block_isas, .block_end = a64_block_end,
};
