/*
 * The tracer module's sled: at the end of the program's code (the
 * tracer module is linked last).  See sled.S.
 */
#include "sled.S"

    SLED_COPY .text.litifut_sled, litifut_sled, litifut_mips
    BRIDGE_TEMPLATE litifut_bridge_template

/*
 * __wrap_vfork, __wrap_clone, __wrap___clone_internal: the wrapper
 * links the program's calls of these (and static glibc's) here with
 * ld --wrap.  Each tells the tracer (litifut_before_spawn: a child
 * sharing this memory must not record), then goes on to the real
 * function with a0-a3, ra, gp, sp and the stacked arguments as the
 * caller left them (so vfork returns straight to the caller) and t9 =
 * the real function's address, as PIC callees expect.  a0-a3 are kept
 * in the caller's argument save area, which o32 reserves for this.
 */
    .macro SPAWN_WRAPPER name
    .abicalls
    .set noreorder
    .set noat
    .set nomacro
    .text
    .global __wrap_\name
    .hidden __wrap_\name
    .type __wrap_\name, @function
    .weak __real_\name
__wrap_\name:
    addiu   $sp, $sp, -32           /* 16-byte argument area, gp, ra */
    sw      $ra, 28($sp)
    sw      $gp, 24($sp)
    sw      $a0, 32($sp)
    sw      $a1, 36($sp)
    sw      $a2, 40($sp)
    sw      $a3, 44($sp)
    OWN_GP
    lw      $t9, %call16(litifut_before_spawn)($gp)
    jalr    $t9
    addiu   $a0, $sp, 32            /* (delay slot) arg: the caller's sp */
    lw      $t9, %call16(__real_\name)($gp)
    lw      $a0, 32($sp)
    lw      $a1, 36($sp)
    lw      $a2, 40($sp)
    lw      $a3, 44($sp)
    lw      $gp, 24($sp)
    lw      $ra, 28($sp)
    jr      $t9
    addiu   $sp, $sp, 32            /* (delay slot) */
    .size __wrap_\name, . - __wrap_\name
    .endm

    SPAWN_WRAPPER vfork
    SPAWN_WRAPPER clone
    SPAWN_WRAPPER __clone_internal

    .section .note.GNU-stack, "", @progbits
