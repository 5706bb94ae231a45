/*
 * litifut-agent's entry point (agent/agent.c), for a static program
 * built without a C library (-mno-abicalls: no $gp to set up): the
 * kernel starts it with $sp at argc, then argv's pointers, a NULL, the
 * environment.  agent_entry gets that address and never returns (it
 * calls exit_group).  o32 wants $sp 8-byte aligned and 16 bytes of
 * argument slots for the callee.
 */
    .text
    .set    noreorder
    .globl  __start
    .globl  _start
    .ent    _start
__start:
_start:
    move    $a0, $sp
    li      $t0, -8
    and     $sp, $sp, $t0
    jal     agent_entry
    addiu   $sp, $sp, -16
1:  b       1b
    nop
    .end    _start
    .section .note.GNU-stack, "", %progbits
