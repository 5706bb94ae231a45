# MIPS's part of the Makefile (included once; its triples: lib/arches.def).
TRACER_OBJS_mips := sleds.o bridge.o stub.o unwind.o eh-end.o
# the agent: no PIC calls, no small data (a static program of its own)
AGENT_FLAGS_mips := -mno-abicalls -G0
# MIPS: backtrace() from the program passes through the tracer's
# __wrap_backtrace (arch/mips/unwind.c): the unwinder must step over it
# (ARM's is in stub.S, with a personality routine of its own)
UNWIND_mips_unwind := -funwind-tables
# The second sled copy, linked first (its hot path is the variant's)
# arch_modules_mips TRIPLE FLAGS
define arch_modules_mips
TRACERS += $(BUILD)/lib/litifut/$(1)/island.o $(BUILD)/lib/litifut/$(1)/island-shared.o
$(BUILD)/lib/litifut/$(1)/island.o: $(BUILD)/tracer/$(1)/exe/island.o
	cp $$< $$@
$(BUILD)/lib/litifut/$(1)/island-shared.o: $(BUILD)/tracer/$(1)/shared/island.o
	cp $$< $$@
.SECONDARY: $(BUILD)/tracer/$(1)/exe/island.o $(BUILD)/tracer/$(1)/shared/island.o
endef
