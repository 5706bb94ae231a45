# litifut: link-time function call tracer for embedded Linux.
#
#   make deps    install every dependency (apt-get; root or sudo)
#   make         build the host tools and the tracer modules into build/
#   make demo    deps + build + trace a sample program under qemu
#                (DEMO_TRIPLE=mips-linux-gnu or mipsel-linux-gnu for MIPS)
#   make test    deps + build + all tests
#   make bench   instruction and system call counts (litifut,
#                -finstrument-functions, -pg), sizes and link times
#                (BENCH_QUICK=1: a short run)
#   make fuzz    the libFuzzer harnesses, FUZZ_SECONDS each (fuzz/README.md)
#
# Host tools: build/bin/{litifut-ld,litifut-rewrite,litifut-postproc,litifut-recv},
# with build/bin/ld and build/bin/<triple>-ld linked to litifut-ld.
# Tracer modules (target code): build/lib/litifut/<triple>/tracer.o
# (executables) and tracer-shared.o (shared libraries); the streaming
# agent: build/lib/litifut/<triple>/litifut-agent (a static program).

BUILD    ?= build

# The architectures (arch/<arch>/) and target triples: lib/arches.def,
# the one list (its ARCH( and TRIPLE( lines).  Per triple T: ARCH_T (its
# arch folder), FLAGS_T (its tracer modules' flags), QEMU_T, MUSL_T (the
# multiarch name of its musl).
ARCHES_DEF := lib/arches.def
lparen := (
comma  := ,
ARCH_DIRS  := $(shell sed -n 's/^ARCH(\([A-Za-z0-9_]*\)).*/\1/p' $(ARCHES_DEF))
TRIPLES    := $(shell awk -F'"' '/^TRIPLE[$(lparen)]/ { print $$2 }' $(ARCHES_DEF))
# triple_field TRIPLE N: the Nth '"'-separated field of TRIPLE's row
triple_field = $(shell awk -F'"' '/^TRIPLE[$(lparen)]/ && $$2 == "$(1)" { print $$$(2) }' $(ARCHES_DEF))
$(foreach t,$(TRIPLES),$(eval ARCH_$(t) := $(strip $(subst $(comma),,$(call triple_field,$(t),3)))) \
                       $(eval QEMU_$(t) := $(call triple_field,$(t),6)) \
                       $(eval FLAGS_$(t) := $(call triple_field,$(t),10)) \
                       $(eval MUSL_$(t) := $(call triple_field,$(t),12)))
CC       ?= cc
CFLAGS   ?= -O2 -g
SANITIZE ?=

ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif
# includes are spelled from the repository root ("lib/elfimage.h");
# include/ holds the formats shared with the target code ("litifut/...")
HOST_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra $(CFLAGS) $(SAN_FLAGS) \
               -I. -Iinclude -MMD -MP
# libiberty: C++ names demangled (the rewriter's LITIFUT_EXCLUDE rules, the post-processor)
HOST_LDLIBS := -lelf -lcapstone -liberty
# the post-processor also reads DWARF lines (libdw) and gzip files (zlib)
POSTPROC_LDLIBS := -ldw -lz

# lib/: the model of a traced program every host tool shares (ELF
# images, the instruction DB, call sites and sleds, files, errors), the
# per-arch registry and each arch's part for all tools (arch-<arch>.c)
# and for readers (read-<arch>.c); src/: the rewriter, with each arch's
# part for it (rewrite-<arch>.c).  The post-processor links lib/ only.
LIB_SRC      := lib/error.c lib/files.c lib/elfimage.c lib/arch.c lib/arch-read.c \
                lib/db.c lib/sites.c \
                $(foreach a,$(ARCH_DIRS),arch/$(a)/arch-$(a).c arch/$(a)/read-$(a).c)
REWRITER_SRC := src/linkmap.c src/rules.c src/site-report.c src/db.c src/callsites.c src/rewrite.c src/entries.c src/rewriter.c \
                src/arch-rewrite.c $(foreach a,$(ARCH_DIRS),arch/$(a)/rewrite-$(a).c)
WRAPPER_SRC  := wrapper/main.c wrapper/linkargs.c wrapper/toolchain.c wrapper/instrument.c \
                wrapper/install.c wrapper/process.c wrapper/farsleds.c wrapper/libsearch.c
# postproc/: the driving loop and main (top), the reader (trace, symbols,
# names, call stack), the views, and helpers both use
POSTPROC_READER_SRC := $(wildcard postproc/reader/*.c postproc/util/*.c)
POSTPROC_SRC := $(wildcard postproc/*.c postproc/views/*.c) $(POSTPROC_READER_SRC)

host_obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

BIN := $(BUILD)/bin
TOOLS := $(BIN)/litifut-rewrite $(BIN)/litifut-ld $(BIN)/litifut-recv $(BIN)/litifut-emu
ifneq ($(POSTPROC_SRC),)
TOOLS += $(BIN)/litifut-postproc
endif

# The tracer modules each triple gets (build/lib/litifut/<triple>/):
# tracer.o, tracer-shared.o, db0.o, and what its arch adds (arch.mk)
LINKS   := $(BIN)/ld $(addprefix $(BIN)/,$(addsuffix -ld,$(TRIPLES)))
# (a triple whose arch has no runtime yet, arch/<arch>/stub.S, gets the
# host tools only: no tracer modules, no agent)
TRACER_TRIPLES := $(foreach t,$(TRIPLES),$(if $(wildcard arch/$(ARCH_$(t))/stub.S),$(t)))
TRACERS := $(foreach t,$(TRACER_TRIPLES),$(BUILD)/lib/litifut/$(t)/tracer.o \
                                  $(BUILD)/lib/litifut/$(t)/tracer-shared.o \
                                  $(BUILD)/lib/litifut/$(t)/db0.o)

# litifut-emu's QEMU plugin (emu/plugin.c): loaded into qemu-user, so
# position-independent, libc only, never sanitized (qemu is not)
EMU_PLUGIN     := $(BUILD)/lib/litifut/litifut-emu.so
EMU_PLUGIN_SRC := emu/plugin.c emu/emu-arch.c $(foreach a,$(ARCH_DIRS),arch/$(a)/emu-$(a).c)

all: $(TOOLS) $(LINKS) $(EMU_PLUGIN)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(BIN)/litifut-rewrite: $(call host_obj,src/main.c $(REWRITER_SRC) $(LIB_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

$(BIN)/litifut-ld: $(call host_obj,$(WRAPPER_SRC) $(REWRITER_SRC) $(LIB_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(HOST_LDLIBS)

$(BIN)/litifut-postproc: $(call host_obj,$(POSTPROC_SRC) $(LIB_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(POSTPROC_LDLIBS) $(HOST_LDLIBS)

# litifut-emu: runs a program under qemu-user with the plugin below
$(BIN)/litifut-emu: $(call host_obj,emu/main.c)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^

$(EMU_PLUGIN): $(EMU_PLUGIN_SRC) emu/*.h include/litifut/trace-format.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra $(CFLAGS) -I. -Iinclude -fPIC -shared \
	    -o $@ $(EMU_PLUGIN_SRC) -lpthread

# the host end of a stream (litifut-agent, below)
$(BIN)/litifut-recv: $(call host_obj,recv/main.c lib/error.c)
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^

$(LINKS): $(BIN)/litifut-ld
	ln -sf litifut-ld $@

# --- tracer modules: target code, built with the cross compilers ---

# The modules are linked into every instrumented object without their
# DWARF (three quarters of their bytes: about 370 KB a copy);
# TRACER_STRIP=0 keeps it (to debug the tracer itself).  Nothing at run
# time reads it: unwinding uses .eh_frame and .ARM.exidx, kept.
TRACER_STRIP_FLAGS := $(if $(filter 0,$(TRACER_STRIP)),,--strip-debug)
TRACER_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -fvisibility=hidden \
                 -fno-stack-protector -fno-builtin -fno-tree-loop-distribute-patterns \
                 -Iinclude -Istub

# tracer_rules TRIPLE ARCHDIR FLAGS OBJECTS VARIANT VARIANT_FLAGS OUTPUT [ORDER]:
# build/lib/litifut/TRIPLE/OUTPUT from stub/*.c and arch/ARCHDIR/{*.c,*.S}
# (objects in build/tracer/TRIPLE/VARIANT/); FLAGS pin the ABI.  Two
# variants: for executables (-fPIE, local-exec TLS) and for shared
# libraries (-fPIC, initial-exec TLS, LITIFUT_SHARED); each also built
# against musl's headers (tracers, below).  ORDER: made before any
# object is compiled.
define tracer_rules
$(BUILD)/tracer/$(1)/$(5)/%.o: stub/%.c stub/*.h arch/$(2)/*.h include/litifut/*.h | $(8)
	@mkdir -p $$(dir $$@)
	$(1)-gcc $(TRACER_CFLAGS) $(3) $(6) -Iarch/$(2) -c -o $$@ $$<
$(BUILD)/tracer/$(1)/$(5)/%.o: arch/$(2)/%.c stub/*.h arch/$(2)/*.h include/litifut/*.h | $(8)
	@mkdir -p $$(dir $$@)
	$(1)-gcc $(TRACER_CFLAGS) $$(UNWIND_$(2)_$$*) $(3) $(6) -Iarch/$(2) -c -o $$@ $$<
$(BUILD)/tracer/$(1)/$(5)/%.o: arch/$(2)/%.S arch/$(2)/*.S arch/$(2)/*.h stub/layout.h include/litifut/*.h
	@mkdir -p $$(dir $$@)
	$(1)-gcc $(3) $(6) -Iarch/$(2) -Istub -Iinclude -c -o $$@ $$<
$(BUILD)/lib/litifut/$(1)/$(7): $(addprefix $(BUILD)/tracer/$(1)/$(5)/,$(4))
	@mkdir -p $$(dir $$@)
	$(1)-ld -r -o $$@.tmp $$^
	$(1)-nm --defined-only -g $$@.tmp | \
	    awk '$$$$3 !~ /^(litifut_|__wrap_)/ { print $$$$3, "litifut_" $$$$3 }' > $$@.syms
	$(1)-objcopy $(TRACER_STRIP_FLAGS) --redefine-syms=$$@.syms $$@.tmp $$@
	rm -f $$@.tmp $$@.syms
endef
EXE_FLAGS    := -fPIE
SHARED_FLAGS := -fPIC -DLITIFUT_SHARED
# The C library's headers matter to the tracer where it takes the
# program's struct sigaction (stub/events.c), whose layout musl's MIPS
# headers give differently from glibc's (and the kernel's): so each
# module has a musl twin, NAME-musl.o, built with musl's headers (from
# Debian's multiarch musl-dev, through its musl-gcc.specs) and the
# kernel's (asm/, linux/: musl has none), which the wrapper links when
# the link's C library is musl (wrapper/toolchain.c).
# musl_flags TRIPLE
musl_flags = -specs /usr/lib/$(MUSL_$(1))/musl-gcc.specs -idirafter $(BUILD)/musl-kernel/$(1)
# musl_kernel_headers TRIPLE: asm/, asm-generic/ and linux/ of the
# triple's kernel headers, alone in a folder
define musl_kernel_headers
$(BUILD)/musl-kernel/$(1)/linux:
	@mkdir -p $$(dir $$@)
	ln -sfn /usr/$(1)/include/asm $$(dir $$@)asm
	ln -sfn /usr/$(1)/include/asm-generic $$(dir $$@)asm-generic
	ln -sfn /usr/$(1)/include/linux $$@
endef
# tracer_pair TRIPLE ARCHDIR FLAGS OBJECTS VARIANT VARIANT_FLAGS OUTPUT-BASE:
# OUTPUT-BASE.o and its musl twin OUTPUT-BASE-musl.o (if musl's
# headers are installed: make deps)
define tracer_pair
$(call tracer_rules,$(1),$(2),$(3),$(4),$(5),$(6),$(7).o)
$(if $(wildcard /usr/lib/$(MUSL_$(1))/musl-gcc.specs),$(call musl_twin,$(1),$(2),$(3),$(4),$(5),$(6),$(7)))
endef
define musl_twin
$(call tracer_rules,$(1),$(2),$(3),$(4),$(5)-musl,$(6) $(call musl_flags,$(1)),$(7)-musl.o,$(BUILD)/musl-kernel/$(1)/linux)
TRACERS += $(BUILD)/lib/litifut/$(1)/$(7)-musl.o
endef
# tracers TRIPLE ARCHDIR FLAGS OBJECTS-EXE OBJECTS-SHARED
define tracers
$(call musl_kernel_headers,$(1))
$(call tracer_pair,$(1),$(2),$(3),$(4),exe,$(EXE_FLAGS),tracer)
$(call tracer_pair,$(1),$(2),$(3),$(5),shared,$(SHARED_FLAGS),tracer-shared)
endef

STUB_OBJS  := call.o thread.o copy.o process.o tracefile.o events.o entries.o settings.o procfs.o skip.o args.o \
              fileid.o returns.o elfsym.o copyout.o control.o pairs.o budget.o recording.o aside.o
# The modules' global symbols are all litifut_* (or __wrap_*): their
# internal names (lock, warn, ...) get the prefix, so they never meet
# the program's.  (Hidden already; but a static link still resolves the
# program's `warn` to a hidden definition of that name.)
# Pass 1's placeholder DB, the same for every link of a triple (src/rewriter.c),
# with the tracer module's flags: made once here, not once per link
# placeholder_db TRIPLE ARCH FLAGS
define placeholder_db
$(BUILD)/lib/litifut/$(1)/db0.o: $(BIN)/litifut-rewrite
	@mkdir -p $$(dir $$@)
	$(BIN)/litifut-rewrite --placeholder $(2) --db $$@.s
	$(1)-gcc $(3) -c -o $$@ -x assembler $$@.s
	rm -f $$@.s $$@.s.bin
endef

# --- litifut-agent: the device-side streaming daemon (agent/agent.c) ---
# A static program without a C library (raw system calls,
# arch/<arch>/agent-arch.h; its entry point arch/<arch>/agent-start.S),
# a few tens of KB, one per triple: build/lib/litifut/<triple>/litifut-agent
AGENT_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Os -Wall -Wextra -ffreestanding -fno-builtin \
                -fno-stack-protector -fno-pic -fno-asynchronous-unwind-tables -Iinclude -Istub
AGENT_LDFLAGS := -nostdlib -static -Wl,--gc-sections -Wl,-e,_start -Wl,--build-id=none
AGENTS := $(foreach t,$(TRACER_TRIPLES),$(BUILD)/lib/litifut/$(t)/litifut-agent)
# agent_rules TRIPLE ARCHDIR FLAGS
define agent_rules
$(BUILD)/lib/litifut/$(1)/litifut-agent: agent/agent.c arch/$(2)/agent-start.S arch/$(2)/*.h \
        include/litifut/*.h
	@mkdir -p $$(dir $$@)
	$(1)-gcc $(AGENT_CFLAGS) $(3) -Iarch/$(2) $(AGENT_LDFLAGS) -o $$@ arch/$(2)/agent-start.S \
	    agent/agent.c -lgcc
	$(1)-strip $$@
endef

# Each arch's part: arch/<arch>/arch.mk sets TRACER_OBJS_<arch> (its
# tracer module's objects beyond stub/'s), AGENT_FLAGS_<arch> (the
# agent's flags beyond the triple's) and arch_modules_<arch> TRIPLE
# FLAGS (the rules of its further modules, added to TRACERS).
include $(foreach a,$(ARCH_DIRS),$(if $(wildcard arch/$(a)/stub.S),arch/$(a)/arch.mk))

# triple_rules TRIPLE: everything a triple's row builds
define triple_rules
$(call tracers,$(1),$(ARCH_$(1)),$(FLAGS_$(1)),$(STUB_OBJS) $(TRACER_OBJS_$(ARCH_$(1))),$(STUB_OBJS) $(TRACER_OBJS_$(ARCH_$(1))))
$(call placeholder_db,$(1),$(ARCH_$(1)),$(FLAGS_$(1)))
$(call agent_rules,$(1),$(ARCH_$(1)),$(strip $(FLAGS_$(1)) $(AGENT_FLAGS_$(ARCH_$(1)))))
$(call arch_modules_$(ARCH_$(1)),$(1),$(FLAGS_$(1)))
endef
$(foreach t,$(TRACER_TRIPLES),$(eval $(call triple_rules,$(t))))
all: $(TRACERS) $(AGENTS)

# --- test tools: the QEMU plugins from ../shared/tools, oracle-compare ---

SHARED ?= $(abspath ../shared)
TEST_TOOLS := $(BUILD)/tools/calltrace.so $(BUILD)/tools/insncount.so $(BUILD)/tools/oracle-compare \
              $(BUILD)/tools/unit $(BUILD)/tools/returns-compare $(BUILD)/tools/syscount.so

test-tools: $(TEST_TOOLS)

$(BUILD)/tools/calltrace.so $(BUILD)/tools/insncount.so: $(SHARED)/tools/calltrace.c $(SHARED)/tools/insncount.c
	@test -d $(SHARED)/tools || { echo "$(SHARED)/tools is missing (set SHARED=)"; exit 1; }
	$(MAKE) -C $(SHARED)/tools OUT=$(abspath $(BUILD)/tools)

# system calls counted, next to insncount.so in the same run (make bench)
$(BUILD)/tools/syscount.so: tests/tools/syscount.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -shared -fPIC -o $@ $<

$(BUILD)/tools/oracle-compare: tests/tools/oracle-compare.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $<

# calls and returns against the oracle's returns=on (tests/returns.sh)
# (--inferred: the post-processor's own call stack)
RETURNS_COMPARE_SRC := tests/tools/returns-compare.c $(POSTPROC_READER_SRC)
$(BUILD)/tools/returns-compare: $(call host_obj,$(RETURNS_COMPARE_SRC) $(LIB_SRC) $(REWRITER_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(POSTPROC_LDLIBS) $(HOST_LDLIBS)

# unit tests of the encoders and decoders, and the post-processor's
# estimate marks, duration histogram and call stack (tests/unit.sh)
$(BUILD)/tools/unit: $(call host_obj,tests/tools/unit.c postproc/views/estimates.c postproc/views/histogram.c \
                                     postproc/views/args.c \
                                     $(POSTPROC_READER_SRC) $(REWRITER_SRC) $(LIB_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $^ $(POSTPROC_LDLIBS) $(HOST_LDLIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# --- set-up, demo, tests, bench ---

DEB_PACKAGES := build-essential libcapstone-dev libelf-dev libdw-dev libiberty-dev zlib1g-dev \
                $(foreach t,$(TRIPLES),gcc-$(t) g++-$(t)) qemu-user \
                dpkg-dev bc time python3 tcl \
                meson ninja-build libglib2.0-dev pkg-config chromium
# musl (lib/arches.def's musl column: the tracer's musl modules and the
# libc tests) from Debian's multiarch packages, one per Debian
# architecture of those names (none for big-endian MIPS)
MUSL_DEB_ARCHES := armel armhf mipsel arm64
DEB_PACKAGES += $(foreach a,$(MUSL_DEB_ARCHES),musl-dev:$(a))
# uClibc-ng's source, built by the tests (make uclibc)
DEB_PACKAGES += uclibc-source
# fuzz/fuzz.mk: make fuzz-build, fuzz-smoke (part of make test), fuzz
include fuzz/fuzz.mk
DEB_PACKAGES += $(FUZZ_DEB_PACKAGES)
# the harnesses that link the post-processor need its libraries too
FUZZ_LDLIBS += $(POSTPROC_LDLIBS)

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Installs what is missing (apt-get), so it is quick when nothing is;
# adds the Debian architectures musl's packages need first.  (An index
# that fails to download, a mirror in sync, leaves the others usable.)
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    for a in $(MUSL_DEB_ARCHES); do \
	        [ "$$a" = "$$(dpkg --print-architecture)" ] || \
	        dpkg --print-foreign-architectures | grep -qx "$$a" || $(SUDO) dpkg --add-architecture $$a; \
	    done; \
	    echo "installing:" $$missing; \
	    $(SUDO) apt-get update -q || echo "apt-get update failed in part: installing all the same"; \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

# Debian source packages of the real programs the tests build (bzip2,
# lua5.4 and sqlite3: only `make bench`).
sources: deps
	tests/get-source.sh zlib $(BUILD)/src
	tests/get-source.sh xz-utils $(BUILD)/src
	tests/get-source.sh busybox $(BUILD)/src
	tests/get-source.sh bzip2 $(BUILD)/src
	tests/get-source.sh lua5.4 $(BUILD)/src
	tests/get-source.sh sqlite3 $(BUILD)/src
	tests/get-source.sh qemu $(BUILD)/src

# qemu-arm and qemu-mips (TEST_FULL=1: qemu-mipsel too) with the
# processors' counters readable from user space (tests/qemu/build.sh):
# the counter clock's tests
qemu-counters: sources
	tests/qemu/build.sh $(BUILD)/src $(BUILD)/qemu $(if $(filter 1,$(TEST_FULL)),mipsel)

DEMO_TRIPLE ?= arm-linux-gnueabi
DEMO_QEMU   := $(QEMU_$(DEMO_TRIPLE))
DEMO_DIR    := $(BUILD)/demo
# A program and its shared library, both instrumented, traced together.
demo: deps all
	@rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	@echo "== instrumenting a library and a program: LITIFUT=1 $(DEMO_TRIPLE)-gcc -B$(BIN)/ ..."
	LITIFUT=1 $(DEMO_TRIPLE)-gcc -B$(BIN)/ -O1 -shared -fPIC -o $(DEMO_DIR)/libwords.so \
	    tests/progs/demolib/words.c
	LITIFUT=1 $(DEMO_TRIPLE)-gcc -B$(BIN)/ -O1 -o $(DEMO_DIR)/demo tests/progs/demolib/main.c \
	    -L$(DEMO_DIR) -lwords
	@echo "== running it under $(DEMO_QEMU)"
	cd $(DEMO_DIR) && $(DEMO_QEMU) -L /usr/$(DEMO_TRIPLE) -E LD_LIBRARY_PATH=. ./demo
	@echo "== symbolized trace ($(BIN)/litifut-postproc $(DEMO_DIR))"
	@$(BIN)/litifut-postproc $(DEMO_DIR)
	@echo "== calls per function ($(BIN)/litifut-postproc --summary $(DEMO_DIR))"
	@$(BIN)/litifut-postproc --summary $(DEMO_DIR)

# Tests run the host tools built with ASan and UBSan (build/asan); the
# host tools' own groups run again against the release build (build/bin).
# (the builds on every core: each is a tree of independent compilations)
NPROC := $(shell nproc 2>/dev/null || echo 1)
# uClibc-ng for arm and mipsel, static (tests/uclibc/build.sh): the
# group libc's, built once into build/uclibc
UCLIBC_TRIPLES := arm-linux-gnueabi mipsel-linux-gnu
uclibc: deps
	tests/uclibc/build.sh $(BUILD)/uclibc $(UCLIBC_TRIPLES)

test: deps sources
	$(MAKE) -j$(NPROC) all test-tools
	$(MAKE) qemu-counters
	$(MAKE) uclibc
	$(MAKE) -j$(NPROC) BUILD=$(BUILD)/asan SANITIZE=1 LIB_FROM=$(abspath $(BUILD)/lib) sanitized-tools
	$(MAKE) -j$(NPROC) fuzz-build
	$(MAKE) fuzz-smoke
	BIN=$(abspath $(BUILD)/asan/bin) RELEASE_BIN=$(abspath $(BIN)) \
	    PLUGINS=$(abspath $(BUILD)/tools) SOURCES=$(abspath $(BUILD)/src) \
	    COUNTER_QEMU=$(abspath $(BUILD)/qemu/bin) UCLIBC=$(abspath $(BUILD)/uclibc) tests/run.sh

# The sanitized host tools use the release build's target code (the
# tracer modules are no host code: nothing to sanitize, and building
# them again took a minute of make test)
sanitized-tools: $(TOOLS) $(LINKS)
	@test -n "$(LIB_FROM)" || { echo "sanitized-tools: LIB_FROM is not set" >&2; exit 1; }
	rm -rf $(BUILD)/lib
	ln -s $(LIB_FROM) $(BUILD)/lib

bench: deps sources all test-tools qemu-counters
	BIN=$(abspath $(BIN)) PLUGINS=$(abspath $(BUILD)/tools) SOURCES=$(abspath $(BUILD)/src) \
	    COUNTER_QEMU=$(abspath $(BUILD)/qemu/bin) BENCH_OUT=$${BENCH_OUT:-$(abspath $(BUILD)/bench)} tests/bench.sh

clean:
	rm -rf $(BUILD)

.PHONY: all clean test-tools deps sources qemu-counters uclibc demo test bench sanitized-tools
