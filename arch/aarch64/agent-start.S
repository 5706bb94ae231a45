/*
 * litifut-agent's entry point (agent/agent.c), for a static program
 * built without a C library: the kernel starts it with sp at argc, then
 * argv's pointers, a NULL, the environment (sp 16-byte aligned, as
 * AAPCS64 wants at a call).  agent_entry gets that address and never
 * returns (it calls exit_group).
 */
#include "property.h"
    .text
    .globl  _start
    .type   _start, %function
_start:
    bti     c
    mov     x29, #0
    mov     x30, #0
    mov     x0, sp
    bl      agent_entry
1:  b       1b
    .size   _start, . - _start
    .section .note.GNU-stack, "", %progbits
