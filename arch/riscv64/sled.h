/*
 * RISC-V (RV64GC, LP64D) sled, frame and DB geometry: the one place
 * these numbers live.  Included by the host modules (arch-riscv64.c,
 * read-riscv64.c, rewrite-riscv64.c) and, once the runtime exists, by
 * the runtime (stub.S, tracer-arch.h): only #defines, so assembly can
 * include this.
 *
 * A sled has three halves (SLED_HALVES) of SLED_ENTRIES entries: the
 * first for calls with a fixed target (`jal ra`, and the `jalr ra` of
 * an `auipc` + `jalr` pair), the second for calls through a register
 * (`jalr ra, 0(rs)`, c.jalr pairs), the third for calls through t1.
 * A rewritten call is `jal ra, litifut_sled + SLED_ENTRY_SIZE * (k +
 * half * SLED_ENTRIES)`: 4 bytes, the same return address as the call
 * it replaces.  Entry k of the first two halves is
 *     addi t1, zero, 4k
 *     jal  zero, <the half's code for the sled mode>
 * so that code starts with ra = the call's return address and t1 = 4k,
 * every other register as the call left it.  Only t1 may change before
 * the callee runs: it is the register the linker's PLT entries and
 * `tail` clobber (jalr t1, t3), and GCC keeps no value in a
 * caller-saved register across a call (GCC 12 has no -fipa-ra on
 * RISC-V).  A call through t1 comes to the third half, whose entries
 * load 4k into t3 instead (SLED_REG_T1): t3 has no meaning at a call
 * (PLT entries clobber it too), unlike t2, the static chain, which
 * gccgo passes with every call of a closure.
 *
 * Return addresses are 2-byte aligned (the C extension), but a
 * rewritten call is 4 bytes, so a 1 KB page holds at most 256 sites.
 */
#ifndef LITIFUT_ARCH_RISCV64_SLED_H
#define LITIFUT_ARCH_RISCV64_SLED_H

#define DB_PAGE_SHIFT     10    /* 1 KB pages of code */
#define SLED_ENTRIES      256   /* per half: one per 4-byte call a page can hold */
#define SLED_ENTRY_SIZE   8
#define RA_OFFSET         4     /* return address - call address (jal, jalr) */

/* The register the sled entries load 4k into (x6, t1); the third half's
 * (x28, t3). */
#define SLED_REG          6
#define SLED_REG_T1       28
#define SLED_HALVES       3

/* A DB site word below LITIFUT_DB_INDIRECT is a `jalr ra, 0(rs)`:
 * SITE_REG_WORD(rs), rs in 2..31. */
#define SITE_REG_WORD(n)  (4 * (n))
#define SITE_WORD_REG(w)  ((w) / 4)

/* The runtime's slow-path frame (struct arch_frame, tracer-arch.h):
 * x0..x31 (x0's slot: 4k; x2's: sp at the call), right below the
 * call's sp. */
#define FRAME_X(n)        (8 * (n))
#define FRAME_SIZE        256

/* Far sleds (far-sled.S): one every FAR_SLED_SPACING bytes of the
 * inputs' code (half jal's reach: the wrapper's estimate may run
 * short); their relays enter the main sled's far entries
 * (litifut_sled_far, stub.S), FAR_ENTRY_SIZE bytes per half. */
#define FAR_SLED_SPACING  (512u << 10)
#define FAR_ENTRY_SIZE    16

/* What a tail jump's thunk pushes below the call's sp: none (tail
 * jumps are not rewritten on RISC-V yet). */
#define JUMP_PUSHED       0

/* jal's reach: +-1 MB */
#define JAL_REACH         (1 << 20)

#endif
