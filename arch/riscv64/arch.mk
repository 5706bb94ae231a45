# RISC-V's part of the Makefile (included once; its triples: lib/arches.def).
# eh-end.o last: the tracer's .eh_frame ends with a terminator of its own
# (a static program's unwinder walks to one; the tracer comes after crtend.o).
TRACER_OBJS_riscv64 := sleds.o stub.o unwind.o memset.o eh-end.o
AGENT_FLAGS_riscv64 :=
# (no further modules: no far sleds yet)
define arch_modules_riscv64
endef
