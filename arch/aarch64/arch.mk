# AArch64's part of the Makefile (included once; its triples: lib/arches.def).
# eh-end.o last: the tracer's .eh_frame ends with a terminator of its own
# (a static program's unwinder walks to one; the tracer comes after crtend.o).
TRACER_OBJS_aarch64 := sleds.o stub.o unwind.o memset.o eh-end.o
# the agent is a static program of its own: no BTI/PAC, and one segment
# (-N): ld aligns a separate data segment to 64 KB in the file (arm64's
# largest page), which a few initialised words would cost; one segment
# loads at any page size.  14 KB instead of 66 KB.
AGENT_FLAGS_aarch64 := -mbranch-protection=none -Wl,-N -Wl,--no-warn-rwx-segments
# arch_modules_aarch64 TRIPLE FLAGS: no further modules
define arch_modules_aarch64
endef
