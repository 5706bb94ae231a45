/*
 * litifut-agent's entry point (agent/agent.c), for a static program
 * built without a C library: the kernel starts it with sp at argc, then
 * argv's pointers, a NULL, the environment.  agent_entry gets that
 * address and never returns (it calls exit_group).  ARM state; the
 * AAPCS wants sp 8-byte aligned at a call.
 */
    .syntax unified
    .arm
    .text
    .globl  _start
    .type   _start, %function
_start:
    mov     r0, sp
    bic     sp, sp, #7
    bl      agent_entry
1:  b       1b
    .size   _start, . - _start
    .section .note.GNU-stack, "", %progbits
