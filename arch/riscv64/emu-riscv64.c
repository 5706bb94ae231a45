/*
 * RISC-V for litifut-emu's plugin (emu/emu-arch.h): as the call oracle
 * reads it, a call is a jal or jalr whose rd is ra or t0, or a c.jalr;
 * a return is a jalr zero or c.jr through ra or t0; any other jalr zero
 * or c.jr is an indirect jump.  Instructions of 2 and 4 bytes.
 */
#include "emu/emu-arch.h"
#include "litifut/trace-format.h"

static unsigned rv_block_isas(const struct emu_insn *in, size_t n, int big_endian)
{
    (void)in, (void)n, (void)big_endian;
    return 1;
}

static int link_reg(unsigned r)
{
    return r == 1 || r == 5;            /* ra, t0 */
}

static void rv_block_end(unsigned isa, const struct emu_insn *in, size_t n, int big_endian,
                         struct emu_end *e)
{
    (void)isa;
    const struct emu_insn *last = &in[n - 1];
    uint32_t w = emu_word(last, big_endian);
    uint64_t a = last->vaddr, next = a + last->size;
    *e = (struct emu_end){ .kind = EMU_FALL, .site = a, .ra = next, .fall = next };
    if (last->size == 2) {
        unsigned rs1 = (w >> 7) & 31;
        if ((w & 0xf07f) == 0x9002 && rs1)                          /* c.jalr */
            e->kind = EMU_CALL;
        else if ((w & 0xf07f) == 0x8002 && rs1)                     /* c.jr */
            e->kind = link_reg(rs1) ? EMU_RETURN : EMU_JUMP;
        else if ((w & 0xe003) == 0xa001) {                          /* c.j */
            uint32_t imm = ((w >> 12) & 1) << 11 | ((w >> 11) & 1) << 4 | ((w >> 9) & 3) << 8 |
                           ((w >> 8) & 1) << 10 | ((w >> 7) & 1) << 6 | ((w >> 6) & 1) << 7 |
                           ((w >> 3) & 7) << 1 | ((w >> 2) & 1) << 5;
            e->jump = 1, e->target = a + (uint64_t)emu_sext(imm, 12);
        } else if ((w & 0xc003) == 0xc001) {                        /* c.beqz, c.bnez */
            uint32_t imm = ((w >> 12) & 1) << 8 | ((w >> 10) & 3) << 3 | ((w >> 5) & 3) << 6 |
                           ((w >> 3) & 3) << 1 | ((w >> 2) & 1) << 5;
            e->jump = 1, e->target = a + (uint64_t)emu_sext(imm, 9);
        }
        return;
    }
    unsigned rd = (w >> 7) & 31, rs1 = (w >> 15) & 31;
    if ((w & 0x7f) == 0x6f) {                                       /* jal */
        uint32_t imm = ((w >> 31) & 1) << 20 | ((w >> 21) & 0x3ff) << 1 |
                       ((w >> 20) & 1) << 11 | ((w >> 12) & 0xff) << 12;
        uint64_t to = a + (uint64_t)emu_sext(imm, 21);
        if (link_reg(rd))
            e->kind = EMU_CALL, e->direct = 1, e->target = to;
        else
            e->jump = 1, e->target = to;
    } else if ((w & 0x707f) == 0x67) {                              /* jalr */
        if (link_reg(rd))
            e->kind = EMU_CALL;
        else if (rd == 0)
            e->kind = link_reg(rs1) ? EMU_RETURN : EMU_JUMP;
    } else if ((w & 0x7f) == 0x63) {                                /* branches */
        uint32_t imm = ((w >> 31) & 1) << 12 | ((w >> 25) & 0x3f) << 5 | ((w >> 8) & 0xf) << 1 |
                       ((w >> 7) & 1) << 11;
        e->jump = 1, e->target = a + (uint64_t)emu_sext(imm, 13);
    }
}

/* A rewritten c.jalr pair (host-riscv64.h) enters its thunk from the
 * jal before the c.jalr: it stands for the c.jalr, the 2 bytes before
 * its return address. */
static uint64_t rv_thunk_site(uint64_t entry, uint64_t ra)
{
    (void)entry;
    return ra - 2;
}

const struct emu_arch emu_arch_riscv64 = {
    .target_name = "riscv64", .trace_arch = LITIFUT_ARCH_RISCV64, .word_size = 8,
    .big_endian = 0, .elf_machine = 243 /* EM_RISCV */,
    .sys_rt_sigaction = 134, .sys_rt_sigreturn = 139, .sys_sigreturn = -1,
    .sys_execve = 221, .sys_execveat = 281, .sys_exit_group = 94, .sys_clone = 220,
    .sys_clone3 = 435, .sigaction_handler_offset = 0,
    .block_isas = rv_block_isas, .block_end = rv_block_end, .thunk_site = rv_thunk_site,
};
