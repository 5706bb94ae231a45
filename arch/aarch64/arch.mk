# AArch64's part of the Makefile (included once; its triples: lib/arches.def).
# eh-end.o last: the tracer's .eh_frame ends with a terminator of its own
# (a static program's unwinder walks to one; the tracer comes after crtend.o).
TRACER_OBJS_aarch64 := sleds.o stub.o unwind.o memset.o eh-end.o
AGENT_FLAGS_aarch64 :=
# arch_modules_aarch64 TRIPLE FLAGS: no further modules
define arch_modules_aarch64
endef
