# ARM's part of the Makefile (included once; its triples: lib/arches.def).
TRACER_OBJS_arm := sleds.o stub.o unwind.o
AGENT_FLAGS_arm :=
# ARM also has variants for objects built for ARMv6K or later, whose hot
# path reads the thread register instead of calling the kernel helper;
# and far sleds, linked among a large program's inputs
# (wrapper/farsleds.c): position-independent, one object for executables
# and libraries.
# arch_modules_arm TRIPLE FLAGS
define arch_modules_arm
$(call tracer_pair,$(1),arm,$(2),$(STUB_OBJS) $(TRACER_OBJS_arm),exe-v6k,$(EXE_FLAGS) -DLITIFUT_ARM_V6K,tracer-v6k)
$(call tracer_pair,$(1),arm,$(2),$(STUB_OBJS) $(TRACER_OBJS_arm),shared-v6k,$(SHARED_FLAGS) -DLITIFUT_ARM_V6K,tracer-shared-v6k)
TRACERS += $(BUILD)/lib/litifut/$(1)/tracer-v6k.o $(BUILD)/lib/litifut/$(1)/tracer-shared-v6k.o \
           $(BUILD)/lib/litifut/$(1)/far-sled.o
$(BUILD)/lib/litifut/$(1)/far-sled.o: $(BUILD)/tracer/$(1)/exe/far-sled.o
	cp $$< $$@
.SECONDARY: $(BUILD)/tracer/$(1)/exe/far-sled.o
endef
