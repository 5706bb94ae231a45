# AArch64's part of the Makefile (included once; its triples: lib/arches.def).
# eh-end.o last: the tracer's .eh_frame ends with a terminator of its own
# (a static program's unwinder walks to one; the tracer comes after crtend.o).
TRACER_OBJS_aarch64 := sleds.o stub.o unwind.o memset.o eh-end.o
# the agent is a static program of its own, with BTI and PAC as the
# tracer.  Without RELRO (it has nothing to protect after start) ld need
# not end its data segment at a 64 KB boundary (arm64's largest page),
# and without separate code it pads nothing: 15 KB instead of 66 KB,
# still a read-only code segment and a data segment apart, each loadable
# at any page size.
AGENT_FLAGS_aarch64 := -Wl,-z,norelro -Wl,-z,noseparate-code
# Far sleds, linked among a large program's inputs (wrapper/farsleds.c):
# position-independent, one object for executables and libraries.
# arch_modules_aarch64 TRIPLE FLAGS
define arch_modules_aarch64
TRACERS += $(BUILD)/lib/litifut/$(1)/far-sled.o
$(BUILD)/lib/litifut/$(1)/far-sled.o: $(BUILD)/tracer/$(1)/exe/far-sled.o
	cp $$< $$@
.SECONDARY: $(BUILD)/tracer/$(1)/exe/far-sled.o
endef
