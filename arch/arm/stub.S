/*
 * ARM tracer entry: the sled that rewritten calls branch to.
 *
 * The rewriter turns each call site `bl<c> f`, `blx f` or `blx<c> rM`
 * into `bl<c> litifut_sled + 8*k`, where k is the site's position among
 * the call sites of its 1 KB page (include/litifut/db-format.h).  So at
 * sled entry k:
 *   lr  = the original return address (the rewritten bl set it)
 *   every other register, the flags and sp are as the call left them.
 *
 * Entry k saves r0-r3, r12 and lr and calls the common code with bl, so
 * the common code gets k back from its own lr.  The common code saves
 * r4-r11 and the flags, calls litifut_enter(frame, sled_lr) in C, which
 * looks the site up, records the call and returns the real target,
 * then restores everything and jumps there with `ldr pc, [sp], #4`
 * (which interworks, so Thumb targets work).  The callee sees every
 * register as the original call would have left it, lr included.
 *
 * Stack: 56 bytes of frame below the caller's sp, then litifut_enter's
 * own frame on an 8-byte aligned sp.  Nothing is ever stored below sp,
 * so a signal may arrive at any instruction.
 */
    .syntax unified
    .arm
    .text
    .section .text.litifut_sled, "ax", %progbits

#define SLED_ENTRIES 256        /* = LITIFUT_DB_PAGE_SIZE / 4: at most one call per word */
#define FRAME_LR     (13 * 4)   /* offset of the saved lr in struct arch_frame */

    .p2align 3
    .global litifut_sled
    .hidden litifut_sled
    .type litifut_sled, %function
litifut_sled:
    .rept SLED_ENTRIES
    push    {r0, r1, r2, r3, r12, lr}
    bl      litifut_arm_common
    .endr
    .size litifut_sled, . - litifut_sled
    .global litifut_sled_end
    .hidden litifut_sled_end
litifut_sled_end:

    .type litifut_arm_common, %function
litifut_arm_common:
    push    {r4, r5, r6, r7, r8, r9, r10, r11}  @ frame = r4..r11, r0..r3, r12, lr
    mrs     r4, APSR                @ flags: the C code may change them
    mov     r5, sp                  @ frame pointer; r4/r5 survive the C call
    bic     sp, sp, #7              @ AAPCS: 8-byte aligned sp for C
    mov     r0, r5                  @ arg 0: struct arch_frame *
    mov     r1, lr                  @ arg 1: litifut_sled + 8*k + 8
    bl      litifut_enter           @ r0 = where the call must go
    mov     sp, r5
    msr     APSR_nzcvq, r4
    ldr     lr, [sp, #FRAME_LR]     @ lr = the call's return address
    str     r0, [sp, #FRAME_LR]     @ its slot now holds the target
    pop     {r4, r5, r6, r7, r8, r9, r10, r11}
    pop     {r0, r1, r2, r3, r12}
    ldr     pc, [sp], #4            @ jump to the target, sp as at the call
    .size litifut_arm_common, . - litifut_arm_common

/*
 * __wrap_vfork, __wrap_clone, __wrap___clone_internal: the wrapper
 * links the program's calls of these (and static glibc's) here with
 * ld --wrap.  Each tells the tracer (litifut_before_spawn: a child
 * sharing this memory must not record), then goes on to the real
 * function with r0-r3, r12, lr, sp and the stacked arguments as the
 * caller left them, so vfork returns straight to the caller.
 */
    .macro SPAWN_WRAPPER name
    .text
    .global __wrap_\name
    .hidden __wrap_\name
    .type __wrap_\name, %function
    .weak __real_\name
__wrap_\name:
    push    {r0, r1, r2, r3, r12, lr}   @ 24 bytes: sp stays 8-byte aligned
    add     r0, sp, #24                 @ arg: the caller's sp
    bl      litifut_before_spawn
    pop     {r0, r1, r2, r3, r12, lr}
    b       __real_\name
    .size __wrap_\name, . - __wrap_\name
    .endm

    SPAWN_WRAPPER vfork
    SPAWN_WRAPPER clone
    SPAWN_WRAPPER __clone_internal

    .section .note.GNU-stack, "", %progbits
