#!/usr/bin/env bash
# litifut's tests: `make test` runs this after building everything.
#
#   tests/run.sh [GROUP...]     groups: unit a64scan rvscan programs passthrough linking inputs rules errors hostile install truncated
#                               postproc views report stacks tree clocks returns owntime entries counters fork signals sigjump spawn tracefiles memory
#                               copyout onoff modes ring limits tracedirs args daemon realprog busybox shlib stream sigevents emu libc
#
# BIN (the host tools under test, default build/bin), COUNTER_QEMU (the
# directory of tests/qemu/build.sh's qemu-arm, qemu-mips (qemu-mipsel),
# for the group counters), RELEASE_BIN (if set, the host-tool groups run
# again with these), PLUGINS (the QEMU plugins and oracle-compare,
# default build/tools), ARCHES (default every test name of
# lib/arches.def: "arm armhf mips mipsel aarch64"; armhf builds Thumb-2,
# its default), JOBS (default: number of CPUs), KEEP_WORK=1 (keep the
# scratch directory) and TEST_FULL=1 may be set in the environment.
#
# The default matrix keeps make test within its time: the groups that
# read or rewrite code (programs, returns, shlib, linking, views,
# realprog...) run on every arch, the groups of the tracer's run-time
# features on one arch per arch folder (tests/lib.sh, folder_arches:
# arm, mips, aarch64).  TEST_FULL=1 runs the whole matrix (about 15
# minutes more): the run-time groups on armhf and mipsel too, mipsel's
# programs in every link mode, -O0 for every program, armhf's ARM-state
# static programs, -O0 shared libraries on armhf and mipsel, armhf's
# ld.so, preload and dlhost and aarch64's preload shared-library cases,
# bigtext through ld.so beyond mips, the xz-utils build on mips too,
# mipsel's static returns, every return case in ARM state on armhf,
# fork storms on mips, every budget size, the
# release build's views on every arch.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/build/bin}
PLUGINS=${PLUGINS:-$ROOT/build/tools}
JOBS=${JOBS:-$(nproc)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/litifut-tests.XXXXXX")
RESULTS=$WORK/results
: > "$RESULTS"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# every tests/*.sh but this driver and the stand-alone scripts
for f in "$ROOT"/tests/*.sh; do
    case ${f##*/} in run.sh|bench.sh|get-source.sh) continue ;; esac
    . "$f"
done
ARCHES=${ARCHES:-$ALL_ARCHES}           # tests/lib.sh: lib/arches.def's test names

groups=${*:-unit a64scan rvscan programs passthrough linking inputs rules errors hostile install truncated postproc views report stacks tree clocks returns owntime entries counters fork signals sigjump spawn tracefiles memory copyout onoff modes ring limits tracedirs args daemon realprog busybox shlib stream sigevents emu libc}
# (each group's wall-clock seconds, to see where make test's time goes)
for g in $groups; do
    echo "== $g"
    start=$SECONDS
    if declare -F "test_$g" > /dev/null; then "test_$g"; else fail "no test group $g"; fi
    echo "== $g: $((SECONDS - start)) s"
done

# The host tools' groups again against the release build: a sanitizer
# can hide a crash or change it (an uninitialised pointer freed).
TOP_WORK=$WORK
if [ -n "${RELEASE_BIN:-}" ]; then
    WORK=$TOP_WORK/release                  # fresh scratch files: no leftovers
    mkdir -p "$WORK"
    for g in $groups; do
        case $g in
        errors|hostile|truncated|postproc)
            echo "== release/$g"
            BIN=$RELEASE_BIN NAME_PREFIX=release/ "test_$g" ;;
        views)                              # (its host code is the same on every arch)
            echo "== release/$g"
            ARCHES=arm BIN=$RELEASE_BIN NAME_PREFIX=release/ "test_$g" ;;
        esac
    done
fi

n_ok=$(grep -c '^ok' "$RESULTS")
n_fail=$(grep -c '^FAIL' "$RESULTS")
echo "== $n_ok passed, $n_fail failed"
if [ "$n_fail" -ne 0 ]; then
    grep '^FAIL' "$RESULTS"
    echo "(scratch files kept in $TOP_WORK)"
    exit 1
fi
[ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$TOP_WORK"
