/*
 * The end of the tracer's .eh_frame: a zero word, as crtend.o's.  The
 * wrapper links the tracer after crtend.o, and GNU ld drops a zero
 * terminator that has entries after it; a static program's unwinder
 * (libgcc_eh, registered by crtbeginT.o) walks .eh_frame up to a zero
 * word, so without this one it would walk off the section's end.
 * Linked last of the tracer's objects (arch.mk: TRACER_OBJS_riscv64).
 */
    .section .eh_frame, "a", %progbits
    .balign 4
    .4byte  0
    .section .note.GNU-stack, "", %progbits
