# libFuzzer harnesses (fuzz/README.md).  Included by the Makefile:
#
#   make fuzz-build              build every harness into $(BUILD)/fuzz/
#   make fuzz-smoke              each harness a fixed number of runs over its
#                                seed corpus (part of `make test`)
#   make fuzz [FUZZ_SECONDS=N]   each harness for N seconds (default 60), on a
#                                corpus copy in $(BUILD)/fuzz/corpus; prints
#                                executions and crashes per harness
#
# Harnesses: fuzz/<name>.c, each linked with the host tools' code it
# exercises (FUZZ_SRC_<name>), built with clang
# -fsanitize=fuzzer,address,undefined.

FUZZ_DEB_PACKAGES := clang libclang-rt-dev

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
# concurrent harnesses in `make fuzz` (default: the number of CPUs)
FUZZ_JOBS    ?=
FUZZ_HARNESSES := linkmap elfdb postproc
# runs per harness in fuzz-smoke (10-20 s each on an idle core)
FUZZ_SMOKE_RUNS := linkmap:600 elfdb:5000 postproc:1000

FUZZ_OUT    := $(BUILD)/fuzz
FUZZ_CFLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
               -fno-omit-frame-pointer -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra \
               -I. -Iinclude -MMD -MP
FUZZ_LDLIBS := -lelf -lcapstone -liberty
# the code under test, per harness, as the tools link it (lib/ and
# what uses it; postproc/main.c is kept, as litifut_postproc_main)
FUZZ_SRC_linkmap  := $(LIB_SRC) src/linkmap.c src/rules.c
FUZZ_SRC_elfdb    := $(LIB_SRC) $(REWRITER_SRC) $(POSTPROC_SRC)
FUZZ_SRC_postproc := $(LIB_SRC) $(POSTPROC_SRC)
fuzz_obj  = $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(1))
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/,$(FUZZ_HARNESSES))

$(FUZZ_OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_DEFS) -c -o $@ $<

$(FUZZ_OUT)/obj/postproc/main.o: FUZZ_DEFS := -Dmain=litifut_postproc_main
$(FUZZ_OUT)/obj/fuzz/%.o: FUZZ_DEFS := -DFUZZ_CORPUS_DIR='"$(abspath fuzz/corpus)"'

# capstone's calls of string functions without the sanitizers' hooks
# (see the file); not instrumented
$(FUZZ_OUT)/obj/capstone-calls.o: fuzz/capstone-calls.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -O2 -g -fno-builtin -Wall -Wextra -MMD -MP -c -o $@ $<

$(foreach h,$(FUZZ_HARNESSES),$(eval $(FUZZ_OUT)/$(h): $(call fuzz_obj,$(FUZZ_SRC_$(h)))))
$(FUZZ_BINS): $(FUZZ_OUT)/%: $(FUZZ_OUT)/obj/fuzz/%.o $(FUZZ_OUT)/obj/capstone-calls.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(FUZZ_LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz-smoke: fuzz-build
	fuzz/run.sh smoke $(FUZZ_OUT) $(FUZZ_SMOKE_RUNS)

fuzz: fuzz-build
	FUZZ_JOBS=$(FUZZ_JOBS) fuzz/run.sh fuzz $(FUZZ_OUT) $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

-include $(shell find $(FUZZ_OUT)/obj -name '*.d' 2>/dev/null)

.PHONY: fuzz fuzz-build fuzz-smoke
