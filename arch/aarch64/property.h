/*
 * The GNU property note every AArch64 assembly file of litifut emits:
 * the object supports BTI and PAC (GNU_PROPERTY_AARCH64_FEATURE_1_AND).
 * ld marks its output only if every input has it, so a file without it
 * would silently take BTI away from a program linked with the tracer.
 * Assembly only.
 */
#ifndef LITIFUT_ARCH_AARCH64_PROPERTY_H
#define LITIFUT_ARCH_AARCH64_PROPERTY_H

    .pushsection .note.gnu.property, "a"
    .p2align 3
    .word   4                       /* namesz */
    .word   16                      /* descsz */
    .word   5                       /* NT_GNU_PROPERTY_TYPE_0 */
    .asciz  "GNU"
    .word   0xc0000000              /* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
    .word   4
    .word   3                       /* BTI | PAC */
    .word   0
    .popsection

#endif
