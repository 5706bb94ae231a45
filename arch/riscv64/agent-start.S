/*
 * litifut-agent's entry point (agent/agent.c), for a static program
 * built without a C library: the kernel starts it with sp at argc, then
 * argv's pointers, a NULL, the environment (sp 16-byte aligned, as the
 * psABI wants at a call).  agent_entry gets that address and never
 * returns (it calls exit_group).  gp is not set: the agent's code
 * (-mno-relax) never uses it.
 */
    .text
    .globl  _start
    .type   _start, %function
_start:
    mv      s0, zero
    mv      ra, zero
    mv      a0, sp
    call    agent_entry
1:  j       1b
    .size   _start, . - _start
    .section .note.GNU-stack, "", %progbits
