/*
 * MIPS32 (o32, either byte order) for litifut-emu's plugin
 * (emu/emu-arch.h): a call is followed by its delay slot, which QEMU
 * puts in the same block, so a block ends with the call one
 * instruction before its end (or at its end, where a page boundary
 * split the pair: the delay slot then runs as a block of its own, and
 * the block after it is where the call went); its return address is
 * the call's + 8.
 */
#include "emu/emu-arch.h"
#include "litifut/trace-format.h"

static unsigned mips_block_isas(const struct emu_insn *in, size_t n, int big_endian)
{
    (void)in, (void)n, (void)big_endian;
    return 1;
}

/* 1 if w is a jump, call or branch (it has a delay slot). */
static int mips_end_of(uint32_t w, uint64_t a, struct emu_end *e)
{
    unsigned op = w >> 26, rs = (w >> 21) & 31, rt = (w >> 16) & 31, funct = w & 63;
    *e = (struct emu_end){ .kind = EMU_FALL, .site = a, .ra = a + 8, .fall = a + 8 };
    if (op == 3) {                                          /* JAL */
        e->kind = EMU_CALL, e->direct = 1;
        e->target = ((a + 4) & 0xf0000000u) | (w & 0x3ffffffu) << 2;
    } else if (op == 0 && funct == 9) {                     /* JALR */
        e->kind = ((w >> 11) & 31) ? EMU_CALL : rs == 31 ? EMU_RETURN : EMU_JUMP;
    } else if (op == 0 && funct == 8) {                     /* JR */
        e->kind = rs == 31 ? EMU_RETURN : EMU_JUMP;
    } else if (op == 1 && rt >= 0x10 && rt <= 0x13) {       /* BLTZAL, BGEZAL (likely) */
        e->kind = EMU_CALL, e->direct = 1;
        e->conditional = !(rt == 0x11 && rs == 0);          /* BAL is always taken */
        e->target = (uint32_t)(a + 4 + (emu_sext(w, 16) << 2));
    } else if (op == 2) {                                   /* J */
        e->jump = 1;
        e->target = ((a + 4) & 0xf0000000u) | (w & 0x3ffffffu) << 2;
    } else if (op == 1 || (op >= 4 && op <= 7) || (op >= 20 && op <= 23)) {     /* branches */
        e->jump = 1;
        e->target = (uint32_t)(a + 4 + (emu_sext(w, 16) << 2));
    } else {                                                /* another jump or branch */
        return op == 17 && rs == 8;
    }
    return 1;
}

static void mips_block_end(unsigned isa, const struct emu_insn *in, size_t n, int big_endian,
                           struct emu_end *e)
{
    (void)isa;
    if (n >= 2 && mips_end_of(emu_word(&in[n - 2], big_endian), in[n - 2].vaddr, e))
        return;
    if (mips_end_of(emu_word(&in[n - 1], big_endian), in[n - 1].vaddr, e))
        e->slot_next = 1;           /* (its delay slot on the next page: a block of its own) */
}

#define MIPS_O32(name, be)                                                              \
    const struct emu_arch name = {                                                      \
        .target_name = be ? "mips" : "mipsel", .trace_arch = LITIFUT_ARCH_MIPS,         \
        .word_size = 4, .big_endian = be, .elf_machine = 8 /* EM_MIPS */,               \
        .sys_rt_sigaction = 4194, .sys_rt_sigreturn = 4193, .sys_sigreturn = 4119,      \
        .sys_execve = 4011, .sys_execveat = 4356, .sys_exit_group = 4246,               \
        .sys_clone = 4120, .sys_clone3 = 4435,                                          \
        .sigaction_handler_offset = 4,      /* after the o32 sa_flags */                \
        .block_isas = mips_block_isas, .block_end = mips_block_end,                     \
    }
MIPS_O32(emu_arch_mips, 1);
MIPS_O32(emu_arch_mipsel, 0);
