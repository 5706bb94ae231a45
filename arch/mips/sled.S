/*
 * The MIPS sled and its common code, as macros: arch/mips/stub.S puts a
 * copy at the end of the program's code (in the tracer module),
 * arch/mips/island.S one at its start, and the tracer writes entries
 * like these into run-time bridges (arch/mips/bridge.c).
 *
 * A rewritten call branches, with link, to entry k of a sled (k: the
 * site's position in its 512-byte page); its delay slot has run.  So
 * at entry k: ra = the call's return address, every other register as
 * the call left it.
 *
 * Entry k (16 bytes):
 *     addiu sp, sp, -FRAME    ; struct arch_frame: r[32], hi, lo
 *     sw    ra, F_RA(sp)
 *     bal   common            ; ra = entry + 16: tells k
 *     sw    t9, F_T9(sp)      ; (delay slot) jalr $25 targets are in t9
 *
 * Common: saves the other registers, hi and lo, gets its own gp (the C
 * code is PIC), calls litifut_enter(frame, entry + 16) on an 8-byte
 * aligned sp with the o32 16-byte argument area below it, restores
 * everything and jumps to the returned target through t9, so that the
 * callee has t9 = its own address, as PIC callees expect.  Every other
 * register, hi, lo and sp are as the original call left them.
 * Nothing is stored below sp.
 */
#define FRAME 136               /* 34 words */
#define F_R(n) ((n) * 4)
#define F_RA F_R(31)
#define F_T9 F_R(25)
#define F_HI 128
#define F_LO 132

    .macro SLED name, common
    .p2align 11
    .global \name
    .hidden \name
    .type \name, @function
\name:
    .rept 128
    addiu   $sp, $sp, -FRAME
    sw      $ra, F_RA($sp)
    bal     \common
    sw      $t9, F_T9($sp)
    .endr
    .size \name, . - \name
    .endm

/* gp for this module's PIC code, from our own address (clobbers ra). */
    .macro OWN_GP
    bal     1f                      /* ra = 1f: our address, for _gp_disp */
    nop
1:  lui     $gp, %hi(_gp_disp)
    addiu   $gp, $gp, %lo(_gp_disp)
    addu    $gp, $gp, $ra
    .endm

    .macro SAVE r
    sw      $\r, F_R(\r)($sp)
    .endm
    .macro RESTORE r
    lw      $\r, F_R(\r)($sp)
    .endm

    .macro COMMON name
    .global \name
    .hidden \name
    .type \name, @function
\name:
    SAVE 1
    SAVE 2
    SAVE 3
    SAVE 4
    SAVE 5
    SAVE 6
    SAVE 7
    SAVE 8
    SAVE 9
    SAVE 10
    SAVE 11
    SAVE 12
    SAVE 13
    SAVE 14
    SAVE 15
    SAVE 16
    SAVE 17
    SAVE 18
    SAVE 19
    SAVE 20
    SAVE 21
    SAVE 22
    SAVE 23
    SAVE 24
    SAVE 28
    SAVE 30
    mfhi    $t0
    sw      $t0, F_HI($sp)
    mflo    $t0
    sw      $t0, F_LO($sp)
    move    $a0, $sp                /* arg 0: the frame */
    move    $a1, $ra                /* arg 1: entry + 16 */
    move    $s0, $sp                /* callee-saved: the frame across the call */
    OWN_GP
    lw      $t9, %call16(litifut_enter)($gp)
    li      $at, -8
    and     $sp, $sp, $at
    addiu   $sp, $sp, -16           /* o32 argument area */
    jalr    $t9
    nop
    move    $sp, $s0
    move    $t9, $v0                /* the target */
    lw      $t0, F_HI($sp)
    mthi    $t0
    lw      $t0, F_LO($sp)
    mtlo    $t0
    RESTORE 1
    RESTORE 2
    RESTORE 3
    RESTORE 4
    RESTORE 5
    RESTORE 6
    RESTORE 7
    RESTORE 8
    RESTORE 9
    RESTORE 10
    RESTORE 11
    RESTORE 12
    RESTORE 13
    RESTORE 14
    RESTORE 15
    RESTORE 16
    RESTORE 17
    RESTORE 18
    RESTORE 19
    RESTORE 20
    RESTORE 21
    RESTORE 22
    RESTORE 23
    RESTORE 24
    RESTORE 28
    RESTORE 30
    RESTORE 31
    jr      $t9
    addiu   $sp, $sp, FRAME         /* (delay slot) */
    .size \name, . - \name
    .endm

/* A whole sled copy: its entries and its common code, in `section`. */
    .macro SLED_COPY section, name, common
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .section \section, "ax", @progbits
    SLED \name, \common
    COMMON \common
    .section .note.GNU-stack, "", @progbits
    .endm

/*
 * The run-time bridge's code page, as a template the tracer copies to
 * offset 0x0e000000 of each 256 MB region that far call sites need
 * (arch/mips/bridge.c).  One bridge serves every object with far sites
 * in its region: its 128 entries are a sled's, and their common code is
 * a dispatcher that finds, in the table on the page after it
 * (BRIDGE_TABLE), the object whose code holds the call's return
 * address, and goes on to that object's common code with ra = entry +
 * 16 (so k is found as in any sled).  It uses at and v0 as scratch and
 * puts them back (their frame slots are free until the common code
 * saves them); t9 was saved by the entry.  A return address in no
 * object (impossible unless the table is damaged) ends in `break`.
 * Table entries: lo, hi (the object's code, runtime), common; lo = 0
 * ends the table, hi = lo is a removed entry.
 */
#define BRIDGE_TABLE 4096           /* from the bridge's start */
    .macro BRIDGE_TEMPLATE name
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .section .rodata.litifut_bridge, "a", @progbits
    .p2align 11
    .global \name
    .hidden \name
\name:
    .rept 128
    addiu   $sp, $sp, -FRAME
    sw      $ra, F_RA($sp)
    bal     2f
    sw      $t9, F_T9($sp)
    .endr
2:  sw      $at, F_R(1)($sp)
    sw      $v0, F_R(2)($sp)
    lw      $at, F_RA($sp)          /* the call's return address */
    addiu   $v0, $ra, -16           /* entry k */
    ori     $v0, $v0, 2047
    xori    $v0, $v0, 2047          /* the bridge's start (2 KB aligned, entries first) */
    addiu   $v0, $v0, BRIDGE_TABLE
3:  lw      $t9, 0($v0)             /* lo */
    beqz    $t9, 5f
    sltu    $t9, $at, $t9           /* (delay slot) below lo? */
    bnez    $t9, 4f
    lw      $t9, 4($v0)             /* (delay slot) hi */
    sltu    $t9, $at, $t9
    bnez    $t9, 6f
    nop
4:  b       3b
    addiu   $v0, $v0, 12            /* (delay slot) */
5:  break   7
6:  lw      $t9, 8($v0)             /* the object's common code */
    lw      $at, F_R(1)($sp)
    jr      $t9
    lw      $v0, F_R(2)($sp)        /* (delay slot) */
    .global \name\()_end
    .hidden \name\()_end
\name\()_end:
    .section .note.GNU-stack, "", @progbits
    .endm
