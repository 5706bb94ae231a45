/*
 * What litifut-emu's QEMU plugin (emu/plugin.c) must know of a guest
 * architecture: how a translation block ends (a call, a return, another
 * indirect jump), which instruction sets a block may be in, and the
 * system calls it watches.  Each arch/<arch>/emu-<arch>.c fills one
 * struct emu_arch; emu/emu-arch.c lists them.  Pure functions of the
 * instruction bytes: no libelf, no capstone (the plugin is loaded into
 * qemu and keeps to libc).
 */
#ifndef LITIFUT_EMU_ARCH_H
#define LITIFUT_EMU_ARCH_H

#include <stddef.h>
#include <stdint.h>

/* One guest instruction as QEMU translated it. */
struct emu_insn {
    uint64_t vaddr;
    uint32_t size;              /* bytes (2 or 4) */
    uint8_t bytes[4];           /* as in guest memory */
};

/* How a block ends, read in one instruction set. */
enum emu_end_kind {
    EMU_FALL,                   /* no call, no indirect jump: it falls or branches on */
    EMU_CALL,                   /* a call: at `site`, returning to `ra` */
    EMU_RETURN,                 /* a return-like indirect jump (bx lr, pop {pc}, jr $ra, ret) */
    EMU_JUMP,                   /* another indirect jump (a tail call, a switch) */
};

struct emu_end {
    uint8_t kind;               /* enum emu_end_kind */
    uint8_t conditional;        /* a call that may not be taken: not one if execution
                                   goes on at `fall` */
    uint8_t direct;             /* a call with a fixed target: `target` */
    uint8_t slot_next;          /* its delay slot (at site + 4) runs as a block of its own
                                   (MIPS: a page boundary split them): where it went is
                                   the block after that one */
    uint8_t jump;               /* EMU_FALL: it ends in a direct jump or branch (site: the
                                   jumping instruction) that goes to `target` when taken */
    uint64_t site, ra, target, fall;
};

struct emu_arch {
    const char *target_name;    /* QEMU's qemu_info_t.target_name */
    uint8_t trace_arch;         /* LITIFUT_ARCH_* */
    uint8_t word_size;          /* of a guest address: 4 or 8 */
    uint8_t big_endian;
    uint16_t elf_machine;       /* EM_*: the guest's files among the host's */
    uint64_t isa_bits;          /* what of a code address (a symbol, a handler) is no
                                   address: ARM's Thumb bit; 0: none */
    /* System call numbers (-1: none on this ABI). */
    int64_t sys_rt_sigaction, sys_rt_sigreturn, sys_sigreturn;
    int64_t sys_execve, sys_execveat, sys_exit_group, sys_clone, sys_clone3;
    unsigned sigaction_handler_offset;  /* of the handler in the kernel's struct sigaction */
    /* The instruction sets the block could be in (bit i: ISA i); the
     * arch's main one is bit 0.  Called at translation. */
    unsigned (*block_isas)(const struct emu_insn *insns, size_t n, int big_endian);
    /* How the block ends if its code is in `isa`. */
    void (*block_end)(unsigned isa, const struct emu_insn *insns, size_t n, int big_endian,
                      struct emu_end *out);
    /* 1 if a block at `pc` is the kernel's helper code that returns to
     * its caller without an instruction of the guest's (ARM's kuser
     * helpers); NULL: none. */
    int (*helper_page)(uint64_t pc);
    /* An instrumented object's rewritten call that enters a thunk
     * (litifut_thunks) at `entry` and returns to `ra` stands for the
     * call at the address this gives (ARM: the 16-bit blx of a Thumb
     * pair, before ra or at it); NULL: the arch has no thunks. */
    uint64_t (*thunk_site)(uint64_t entry, uint64_t ra);
    /* What a thunk whose first `n` bytes are `bytes`, entered by a
     * rewritten jump at `jump_site`, stands for: EMU_THUNK_CALL, a call
     * at *site returning to *ra (ARM: a Thumb pair whose first
     * instruction reads lr: the thunk sets lr itself); EMU_THUNK_JUMP, a
     * tail jump at *site (ARM: a Thumb bx rM rewritten with the
     * instruction before it, where the b.w is); 0: a tail jump at the
     * jump's own site.  NULL: only the last. */
    int (*jump_thunk)(const uint8_t *bytes, size_t n, int big_endian, uint64_t jump_site,
                      uint64_t *site, uint64_t *ra);
};
enum { EMU_THUNK_CALL = 1, EMU_THUNK_JUMP };

/* The arch QEMU names `target_name`; NULL if none. */
const struct emu_arch *emu_arch_by_target(const char *target_name);

/* Helpers for the arch files. */
static inline uint32_t emu_word(const struct emu_insn *in, int big_endian)
{
    const uint8_t *b = in->bytes;
    if (in->size == 2)
        return big_endian ? (uint32_t)b[0] << 8 | b[1] : (uint32_t)b[1] << 8 | b[0];
    return big_endian ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
                      : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static inline int64_t emu_sext(uint64_t v, unsigned bits)
{
    uint64_t m = 1ull << (bits - 1);
    v &= (m << 1) - 1;
    return (int64_t)((v ^ m) - m);
}

#endif
