# RISC-V's part of the Makefile (included once; its triples: lib/arches.def).
# eh-end.o last: the tracer's .eh_frame ends with a terminator of its own
# (a static program's unwinder walks to one; the tracer comes after crtend.o).
TRACER_OBJS_riscv64 := sleds.o stub.o unwind.o memset.o eh-end.o
AGENT_FLAGS_riscv64 :=
# Far sleds, linked among a large program's inputs (wrapper/farsleds.c):
# position-independent, one object for executables and libraries.
# arch_modules_riscv64 TRIPLE FLAGS
define arch_modules_riscv64
TRACERS += $(BUILD)/lib/litifut/$(1)/far-sled.o
$(BUILD)/lib/litifut/$(1)/far-sled.o: $(BUILD)/tracer/$(1)/exe/far-sled.o
	cp $$< $$@
.SECONDARY: $(BUILD)/tracer/$(1)/exe/far-sled.o
endef
