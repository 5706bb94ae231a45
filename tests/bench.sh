#!/usr/bin/env bash
# `make bench`: the cost of tracing with litifut, next to the cost of
# -finstrument-functions and of -pg, measured in guest instructions
# (counted by ../shared/tools/insncount.c under qemu: deterministic) and
# system calls (tests/tools/syscount.c, a QEMU plugin loaded in the same
# run: qemu_plugin_register_vcpu_syscall_cb, every system call the guest
# makes) on a call-heavy synthetic program and four real ones from
# Debian source packages (`make sources`), each built by its own build
# system (tests/bench/programs.sh):
#
#   callheavy  tests/progs/callheavy.c (recursion, a dispatch table)
#   zlib       minigzip compressing zlib's ChangeLog; pie and static
#              with libz.a, shared: libz.so and minigzipsh, both
#              instrumented (most calls are inside libz.so)
#   bzip2      bzip2 -c compressing its manual.ps (libbz2.a linked in)
#   lua        the Lua 5.4 interpreter running tests/bench/bench.lua
#   sqlite     SQLite's speedtest1 (sqlite3's test/speedtest1.c,
#              against the package's libsqlite3), --size 2 on a
#              database file
#
# One table per architecture: arm (arm-linux-gnueabi, armv5te), armv7
# (the same toolchain, every compilation -march=armv7-a -marm), armhf
# (arm-linux-gnueabihf as it comes: Thumb-2, and a Thumb-2 libc), mips
# (mips-linux-gnu), mipsel (mipsel-linux-gnu), aarch64
# (aarch64-linux-gnu as it comes, armv8-a; Debian's qemu-aarch64).
#
# It opens with the Targets: for each program and build, per traced
# call with its return, the extra guest instructions (a system call
# counts as one), the extra system calls (apart) and the trace bytes
# of
#   litifut default   LITIFUT_RETURNS=1 LITIFUT_CLOCK=auto: exact
#                     returns and a time per call from the clock auto
#                     picks (the table names the one the trace got)
#   litifut default, clock counter
#                     the same under a qemu whose processor counter user
#                     space reads, where auto picks the counter: ARM's
#                     and MIPS's of `make qemu-counters` ($COUNTER_QEMU;
#                     Debian's qemu-user traps ARM's), AArch64's Debian's
#                     own qemu-aarch64 (CNTVCT_EL0 readable: there the
#                     default above got the counter already)
#   calls only        LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks
#   off               LITIFUT_TRACE=0
#   timed ring        -finstrument-functions with tests/bench/cyg-timed.c:
#                     entry and exit each with clock_gettime(CLOCK_MONOTONIC)
#                     into a per-thread ring (the competitor to beat)
#   minimal ring      -finstrument-functions with tests/bench/cyg-ringbuf.c:
#                     entry and exit into a per-thread ring, no time
#   -pg               glibc's mcount
# Every litifut configuration has its settings spelled out (the
# tracer's defaults may change; the bench means the same before and
# after), the other litifut runs below too (calls only, but for what
# they measure).
#
# Then, for each program and build: calls traced; guest instructions
# of the plain build, of the instrumented one tracing calls only and
# with LITIFUT_TRACE=0, of -finstrument-functions with the minimal ring
# and of -pg, each as a ratio to plain and as extra instructions per
# traced call; trace bytes per call; DB bytes and all added loaded bytes
# per rewritten site; link time, plain and instrumented (wall clock,
# best of 3); the instrumented build's cost, system calls and trace
# bytes per call with a time per call (LITIFUT_CLOCK=monotonic) and
# with exact returns too; the cost and the whole trace's bytes of
# LITIFUT_MODE=count and dedup.  The legend at the end says exactly
# what each column is.  Every run's output must equal the plain run's
# (speedtest1's: but its elapsed times), or the bench fails.
#
# Then the post-processor's speed and memory: litifut-postproc --profile
# on traces of tests/bench/callmix.c (10 calls per iteration, nested,
# direct, through a table and into libc) made under qemu-arm, of 5.5 and
# 55 million calls: wall-clock seconds (best of 3), calls per second and
# peak resident memory (/usr/bin/time), which must not grow with the
# trace (BENCH_PP_ITERS: the larger trace's iterations, default 5500000).
#
# Environment: ARCHES (default "arm armv7 armhf mips mipsel aarch64"),
# BENCH_ROWS (PROGRAM:BUILD words, default all of the above;
# sqlite:static too if asked), BENCH_QUICK=1 (ARCHES "arm mips
# aarch64", rows callheavy:pie bzip2:static sqlite:pie), JOBS (make -j,
# default: number of CPUs),
# BENCH_SECTIONS (the tables to make, default all: targets postproc
# link budget ring jumps args emu), BENCH_OUT (where the raw numbers go, one TSV per arch, columns named
# in its first line; default build/bench), KEEP_WORK=1 (keep the
# scratch directory; it is kept anyway after a failure).  BIN, PLUGINS
# (insncount.so, syscount.so: `make test-tools`), SOURCES: as `make
# bench` sets them.
set -eu
shopt -s inherit_errexit
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/build/bin}
PLUGINS=${PLUGINS:-$ROOT/build/tools}
SOURCES=${SOURCES:-$ROOT/build/src}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
    ARCHES=${ARCHES:-arm mips aarch64}
    ROWS=${BENCH_ROWS:-callheavy:pie bzip2:static sqlite:pie}
else
    ARCHES=${ARCHES:-arm armv7 armhf mips mipsel aarch64}
    ROWS=${BENCH_ROWS:-callheavy:pie zlib:pie zlib:static zlib:shared bzip2:pie bzip2:static lua:pie lua:static sqlite:pie}
fi
JOBS=${JOBS:-$(nproc)}
OUT=${BENCH_OUT:-$ROOT/build/bench}
# nothing of the caller's litifut settings: builds are plain unless
# LITIFUT=1 is given here, and every run says what it traces (below)
for v in $(compgen -v LITIFUT); do unset "$v"; done
# The tracer's settings of each configuration, all explicit, so that
# the bench means the same whatever the tracer's defaults are:
# calls only, as the tracer's defaults were when this was written (the
# "on" run, the modes, the budget, the post-processor's trace)
CALLS_ONLY=(LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks)
# litifut's default configuration in the Targets table: exact returns
# and a time per call from the clock LITIFUT_CLOCK=auto picks (the
# table names the one the trace got)
DEFAULT_CONFIG=(LITIFUT_RETURNS=1 LITIFUT_CLOCK=auto)
W=$(mktemp -d "${TMPDIR:-/tmp}/litifut-bench.XXXXXX")
cleanup() {
    local rc=$?
    if [ "$rc" != 0 ] || [ "${KEEP_WORK:-0}" = 1 ]; then
        echo "bench: scratch files kept in $W" >&2
    else
        rm -rf "$W"
    fi
}
trap cleanup EXIT
WORK=$W             # for tests/lib.sh
. "$ROOT/tests/lib.sh"
. "$ROOT/tests/bench/programs.sh"
. "$ROOT/tests/bench/stream.sh"

die() { echo "bench: $*" >&2; exit 1; }

# set_bench_arch NAME: set_arch, plus XFLAGS (every compilation and
# link), WALL_CLOCK_QEMU_ARGS (qemu's options for the runs whose wall
# clock a table shows) and the table's title
set_bench_arch() {
    WALL_CLOCK_QEMU_ARGS=()
    case $1 in
    armv7)
        set_arch arm
        XFLAGS="-march=armv7-a -marm"
        TITLE="armv7: $TRIPLE, every compilation $XFLAGS" ;;
    arm)
        set_arch arm
        XFLAGS=
        TITLE="arm: $TRIPLE, armv5te (the compiler's default)" ;;
    armhf)
        set_arch armhf
        XFLAGS=
        TITLE="armhf: $TRIPLE, armv7-a Thumb-2 (the compiler's default)" ;;
    mips|mipsel)
        set_arch "$1"
        XFLAGS=
        TITLE="$1: $TRIPLE, mips32r2 (the compiler's default)" ;;
    aarch64)
        set_arch aarch64
        XFLAGS=
        # the tracer's C is built -mbranch-protection=standard: qemu's
        # QARMA (the architected pointer-authentication algorithm, the
        # default CPU's) takes microseconds per paciasp and autiasp, a
        # processor a few cycles; the implementation-defined one is
        # cheap (the instructions run are the same)
        WALL_CLOCK_QEMU_ARGS=(-cpu max,pauth-impdef=on)
        TITLE="aarch64: $TRIPLE, armv8-a (the compiler's default), under Debian's $QEMU" ;;
    *) die "unknown arch $1 (arm armv7 armhf mips mipsel aarch64)" ;;
    esac
    BENCH_ARCH=$1
}

# counter_qemu: the qemu-user of the arch (set_arch) under which user
# space reads the processor's counter, or nothing: for ARM and MIPS the
# one of `make qemu-counters` ($COUNTER_QEMU, if set and built there;
# Debian's traps ARM's counter and keeps MIPS's at 0), for AArch64
# Debian's own qemu-aarch64 (its CNTVCT_EL0 is readable)
counter_qemu() {
    if [ "$ARCH_DIR" = aarch64 ]; then
        command -v "$QEMU"
    elif [ -n "${COUNTER_QEMU:-}" ] && [ -x "$COUNTER_QEMU/$QEMU" ]; then
        echo "$COUNTER_QEMU/$QEMU"
    fi
}

best_time() {   # best_time COMMAND...: best wall-clock seconds of 3 runs
    local best='' t0 t1 t _
    for _ in 1 2 3; do
        t0=$(date +%s.%N)
        "$@" > /dev/null 2>&1 || return 1
        t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    printf '%.3f' "$best"
}

loaded_bytes() {   # loaded_bytes FILE...: text + data + bss of all
    "$TRIPLE-size" "$@" | awk 'NR > 1 { n += $4 } END { print n }'
}

# run_insns DIR EXE LIB TRACE [VAR=VALUE...]: runs a copy of EXE, as
# ./prog, under qemu in the fresh directory DIR ($RUN_ARGS, stdin from
# $RUN_STDIN, stdout to DIR/out, stderr to DIR/err), with a copy of LIB
# (if set) under its soname beside it; writes the number of guest
# instructions to DIR/insns (insncount.so) and the system calls to
# DIR/syscalls (syscount.so: the total, then per number), both from
# the same run; fails unless EXE exits with 0.  The environment is only
# LITIFUT_DIR=., LITIFUT_TRACE=TRACE (1 or 0), the VAR=VALUE given
# (the tracer's settings) and, with LIB, the guest's
# LD_LIBRARY_PATH=. (qemu -E): every run of every kind starts with the
# same argv and environment, the same stack, whoever runs the bench.
# (Under qemu-user the tracer reads qemu's /proc/self/environ: the
# LITIFUT_ variables are qemu's, which the guest inherits.)
run_insns() {
    local dir=$1 exe=$2 lib=$3 trace=$4 rc=0 soname qemu genv=()
    shift 4
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$exe" "$dir/prog"
    if [ -n "$lib" ]; then
        soname=$("$TRIPLE-readelf" -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
        cp "$lib" "$dir/${soname:-${lib##*/}}"
        genv=(-E LD_LIBRARY_PATH=.)
    fi
    qemu=$(command -v "$QEMU")
    (cd "$dir" && env -i LITIFUT_DIR=. LITIFUT_TRACE="$trace" "$@" \
        "$qemu" -plugin "$PLUGINS/insncount.so,outfile=insns" \
        -plugin "$PLUGINS/syscount.so,outfile=syscalls" "${genv[@]}" -L "$SYSROOT" \
        ./prog "${RUN_ARGS[@]}" < "$RUN_STDIN" > out 2> err) || rc=$?
    [ "$rc" = 0 ] || die "$exe exits with $rc (see $dir)"
    if [ ! -s "$dir/insns" ] || [ ! -s "$dir/syscalls" ]; then
        die "no counts from the plugins (see $dir)"
    fi
}

# run RUN KIND TRACE [VAR=VALUE...]: run_insns of measure's KIND build
# in $d/run-RUN; sets n[RUN] (guest instructions) and s[RUN] (system
# calls) of measure
run() {
    local run=$1 kind=$2
    shift 2
    run_insns "$d/run-$run" "${exe[$kind]}" "${lib[$kind]}" "$@"
    n[$run]=$(cat "$d/run-$run/insns")
    s[$run]=$(head -1 "$d/run-$run/syscalls")
}

# ring_bytes DIR: the bytes the -finstrument-functions handlers wrote
# into their rings in the run in DIR (their "NAME: N records of SIZE
# bytes" lines on stderr, one per object holding a handler)
ring_bytes() {
    awk '/^cyg-[a-z]+: [0-9]+ records of [0-9]+ bytes$/ { b += $2 * $5; n++ }
         END { if (n) printf "%d\n", b; else exit 1 }' "$1/err"
}

# run_out RUN: the part of RUN's output that every run must repeat
run_out() {
    if declare -F "${prog}_out" > /dev/null; then "${prog}_out" "$d/run-$1/out"; else cat "$d/run-$1/out"; fi
}

# info_value DIR KEY: KEY= of litifut-postproc --info of the trace in DIR
# same_calls A B: call counts equal within 1 in 10^4
same_calls() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d * 10000 <= b) }'
}

info_value() {
    sed -n "s/^$2=//p" "$1/info" | head -1
}

# measure PROGRAM BUILD: builds the five kinds, times the plain and
# instrumented links, runs the twelve configurations, checks them, and
# appends one row to $TSV
measure() {
    local prog=$1 build=$2 d=$W/$BENCH_ARCH/$1-$2 kind k
    local -A exe=() lib=() n=() s=()
    echo "bench: $BENCH_ARCH $prog $build" >&2
    "${prog}_run"
    for kind in plain litifut finstr timed pg; do
        "${prog}_build" "$build" "$kind" "$d/$kind"
        exe[$kind]=$EXE lib[$kind]=$LIB
    done
    local link_plain link_litifut
    link_plain=$(best_time "${prog}_relink" "$build" plain "$d/plain") ||
        die "relinking failed in $d/plain (see its build.log)"
    link_litifut=$(best_time "${prog}_relink" "$build" litifut "$d/litifut") ||
        die "relinking failed in $d/litifut (see its build.log)"

    run plain plain 1
    # the Targets table: litifut's default, calls only, off; the
    # -finstrument-functions handlers, timed and minimal; -pg
    run default litifut 1 "${DEFAULT_CONFIG[@]}"
    # the default again under a qemu with the processor's counter
    # readable (counter_qemu): there auto picks the counter
    local counter_qemu_path
    counter_qemu_path=$(counter_qemu)
    if [ -n "$counter_qemu_path" ]; then
        QEMU=$counter_qemu_path run counter litifut 1 "${DEFAULT_CONFIG[@]}"
    fi
    run on litifut 1 "${CALLS_ONLY[@]}"
    run off litifut 0
    run finstr finstr 1
    run timed timed 1
    run pg pg 1
    # a time per call, and exact returns (with it)
    run clock litifut 1 LITIFUT_RETURNS=0 LITIFUT_CLOCK=monotonic
    run returns litifut 1 LITIFUT_RETURNS=1 LITIFUT_CLOCK=monotonic
    # the modes
    run count litifut 1 "${CALLS_ONLY[@]}" LITIFUT_MODE=count
    run dedup litifut 1 "${CALLS_ONLY[@]}" LITIFUT_MODE=dedup
    # recording off all along: the paused path counts each call
    run paused litifut 1 "${CALLS_ONLY[@]}" LITIFUT_RECORD=off

    # the same work in every run, and each kind what it says it is
    for k in default on off finstr timed pg clock returns count dedup paused ${n[counter]:+counter}; do
        cmp -s <(run_out plain) <(run_out "$k") ||
            die "the $k run's output differs from the plain run's (see $d)"
    done
    ! compgen -G "$d/run-off/litifut.*" > /dev/null ||
        die "the LITIFUT_TRACE=0 run left a trace (see $d/run-off)"
    for k in finstr timed; do
        "$TRIPLE-nm" "${exe[$k]}" | grep -q ' __cyg_profile_func_enter$' ||
            die "${exe[$k]} has no __cyg_profile_func_enter"
    done
    local -A ring=()
    for k in finstr:ringbuf timed:timed; do
        if ! grep -q "^cyg-${k#*:}: " "$d/run-${k%:*}/err" || ! ring[${k%:*}]=$(ring_bytes "$d/run-${k%:*}"); then
            die "the ${k%:*} run's handler did not report (see $d/run-${k%:*}/err)"
        fi
    done
    [ -s "$d/run-pg/gmon.out" ] || die "the -pg run wrote no gmon.out (see $d/run-pg)"
    for k in default on clock returns count dedup ${n[counter]:+counter}; do
        "$BIN/litifut-postproc" --info "$d/run-$k" > "$d/run-$k/info" 2> "$d/run-$k/info.err" ||
            die "litifut-postproc --info: $(head -c 300 "$d/run-$k/info.err")"
    done
    for k in default:exact returns:exact on:inferred clock:inferred ${n[counter]:+counter:exact}; do
        [ "$(info_value "$d/run-${k%:*}" returns)" = "${k#*:}" ] ||
            die "the ${k%:*} run's returns are not ${k#*:} (see $d/run-${k%:*}/info)"
    done
    # (lua seeds its string hashes with time and stack addresses: its
    # string table, and so a few calls of its own, differ from run to
    # run; 1 in 10^4 is more than that and far less than a lost chunk)
    for k in default clock returns count ${n[counter]:+counter}; do
        same_calls "$(info_value "$d/run-$k" calls)" "$(info_value "$d/run-on" calls)" ||
            die "the $k run recorded other calls than the on run (see $d)"
    done
    local calls sites added
    calls=$(info_value "$d/run-on" calls)
    sites=$(info_value "$d/run-on" sites)
    if [ "${calls:-0}" = 0 ] || [ "${sites:-0}" = 0 ]; then
        die "no calls or no sites in the trace (see $d/run-on/info)"
    fi
    added=$(( $(loaded_bytes "${exe[litifut]}" ${lib[litifut]:+"${lib[litifut]}"}) -
              $(loaded_bytes "${exe[plain]}" ${lib[plain]:+"${lib[plain]}"}) ))
    local fields=(
        "$BENCH_ARCH" "$prog" "$build" "$calls"
        "${n[plain]}" "${n[on]}" "${n[off]}" "${n[finstr]}" "${n[pg]}"
        "$(info_value "$d/run-on" record_bytes)" "$sites" "$(info_value "$d/run-on" db_bytes)"
        "$added" "$link_plain" "$link_litifut"
        "${n[clock]}" "${n[returns]}" "$(info_value "$d/run-clock" record_bytes)"
        "$(info_value "$d/run-returns" record_bytes)"
        "${n[count]}" "${n[dedup]}" "$(info_value "$d/run-count" record_bytes)"
        "$(info_value "$d/run-dedup" record_bytes)" "$(info_value "$d/run-dedup" pairs)"
        "${n[paused]}"
        "${n[default]}" "$(info_value "$d/run-default" record_bytes)"
        "$(info_value "$d/run-default" clock)" "${n[timed]}" "${ring[finstr]}" "${ring[timed]}")
    for k in plain default on off finstr timed pg clock returns count dedup paused; do
        fields+=("${s[$k]}")
    done
    if [ -n "${n[counter]:-}" ]; then
        fields+=("${n[counter]}" "$(info_value "$d/run-counter" record_bytes)"
                 "$(info_value "$d/run-counter" clock)" "${s[counter]}")
    else
        fields+=("" "" "" "")
    fi
    (IFS=$'\t'; echo "${fields[*]}") >> "$TSV"
    [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$d"
}

source_tree() {    # source_tree PACKAGE: the unpacked Debian tree $SOURCES/PACKAGE-*
    local d
    for d in "$SOURCES/$1"-*/; do
        [ -d "$d" ] && { echo "${d%/}"; return; }
    done
    die "no $1 source in $SOURCES (make sources)"
}

# sources: the Debian trees, those with their build system restored once
for row in $ROWS; do
    prog=${row%%:*}
    declare -F "${prog}_build" > /dev/null || die "unknown program $prog (in $row)"
    case $prog in
    zlib)
        [ -n "$ZLIB_SRC" ] || ZLIB_SRC=$(source_tree zlib) ;;
    bzip2)
        if [ -z "$BZIP2_SRC" ]; then
            src=$(source_tree bzip2)
            bzip2_prepare "$src" "$W/src-bzip2"
        fi ;;
    lua)
        if [ -z "$LUA_SRC" ]; then
            src=$(source_tree lua5.4)
            lua_prepare "$src" "$W/src-lua"
        fi ;;
    sqlite)
        [ -n "$SQLITE_SRC" ] || SQLITE_SRC=$(source_tree sqlite3) ;;
    esac
done

mkdir -p "$OUT"
# BENCH_SECTIONS: which tables (default all): targets (the per-program
# tables), postproc, link, budget, ring, jumps, args, emu
SECTIONS=" ${BENCH_SECTIONS:-targets postproc link budget ring jumps args emu} "
section() { [[ $SECTIONS == *" $1 "* ]]; }
for arch in $ARCHES; do
    section targets || break
    set_bench_arch "$arch"
    mkdir -p "$W/$arch"
    # the -finstrument-functions handlers, minimal and timed, for
    # executables and for shared libraries
    read -r -a xf <<< "$XFLAGS"
    CYG_O=$W/$arch/cyg-ringbuf.o CYG_PIC_O=$W/$arch/cyg-ringbuf-pic.o
    CYG_TIMED_O=$W/$arch/cyg-timed.o CYG_TIMED_PIC_O=$W/$arch/cyg-timed-pic.o
    for h in ringbuf timed; do
        "$TCC" "${xf[@]}" -O2 -Wall -c -o "$W/$arch/cyg-$h.o" "$ROOT/tests/bench/cyg-$h.c"
        "$TCC" "${xf[@]}" -O2 -Wall -fPIC -DRING_IN_LIBRARY -c -o "$W/$arch/cyg-$h-pic.o" \
            "$ROOT/tests/bench/cyg-$h.c"
    done
    TSV=$OUT/bench-$arch.tsv
    printf '# arch\tprogram\tbuild\tcalls\tinsns_plain\tinsns_on\tinsns_off\tinsns_finstr\tinsns_pg\trecord_bytes\tsites\tdb_bytes\tadded_bytes\tlink_plain_s\tlink_litifut_s\tinsns_clock\tinsns_returns\trecord_bytes_clock\trecord_bytes_returns\tinsns_count\tinsns_dedup\trecord_bytes_count\trecord_bytes_dedup\tpairs\tinsns_paused\tinsns_default\trecord_bytes_default\tclock_default\tinsns_timed\tring_bytes_finstr\tring_bytes_timed\tsys_plain\tsys_default\tsys_on\tsys_off\tsys_finstr\tsys_timed\tsys_pg\tsys_clock\tsys_returns\tsys_count\tsys_dedup\tsys_paused\tinsns_counter\trecord_bytes_counter\tclock_counter\tsys_counter\n' > "$TSV"
    for row in $ROWS; do
        measure "${row%%:*}" "${row#*:}"
    done
    echo
    echo "== $TITLE"
    awk -f "$ROOT/tests/bench/tables.awk" "$TSV"
done

# callmix_trace DIR ITERS [VAR=VALUE...]: postproc_speed's callmix (in
# DIR's parent) run ITERS times under $QEMU in DIR with VAR=VALUE, and
# litifut-postproc --info of its trace in DIR/info; sets calls (the
# trace's) of postproc_speed
callmix_trace() {
    local n=$1 iters=$2
    shift 2
    mkdir -p "$n"
    (cd "$n" && env LITIFUT_DIR=. "$@" "$QEMU" -L "$SYSROOT" ../callmix "$iters" > out) ||
        die "callmix $iters under $QEMU failed (see $n)"
    "$BIN/litifut-postproc" --info "$n" > "$n/info" 2> "$n/info.err" ||
        die "litifut-postproc --info: $(head -c 300 "$n/info.err")"
    calls=$(info_value "$n" calls)
}

# build_callmix DIR: tests/bench/callmix.c for arm (LITIFUT=1) as DIR/callmix
build_callmix() {
    set_arch arm
    mkdir -p "$1"
    LITIFUT=1 "$TCC" -B"$BIN/" -O2 -o "$1/callmix" "$ROOT/tests/bench/callmix.c" ||
        die "cannot build tests/bench/callmix.c"
}

# postproc_speed: the post-processor's table (see the top)
postproc_speed() {
    local d=$W/postproc big=${BENCH_PP_ITERS:-5500000} iters n calls secs rss
    build_callmix "$d"
    echo
    echo "== post-processor: litifut-postproc --profile, tests/bench/callmix.c traced (calls only) under $QEMU"
    printf '%14s %10s %14s %14s\n' calls seconds "M calls/s" "peak RSS (MB)"
    for iters in $((big / 10)) "$big"; do
        n=$d/run-$iters
        callmix_trace "$n" "$iters" "${CALLS_ONLY[@]}"
        secs=$(best_time "$BIN/litifut-postproc" --profile "$n") ||
            die "litifut-postproc --profile $n failed"
        rss=$(/usr/bin/time -f %M "$BIN/litifut-postproc" --profile "$n" 2>&1 > /dev/null | tail -1)
        printf '%14s %10s %14.1f %14.1f\n' "$calls" "$secs" \
            "$(echo "$calls / $secs / 1000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
        printf 'postproc\t%s\t%s\t%s\n' "$calls" "$secs" "$rss" >> "$OUT/bench-postproc.tsv"
        rm -rf "$n"
    done
    # every view, on a trace of the default configuration (returns and
    # a time per call), output to /dev/null (the tool, not the disk)
    iters=$((big / 5))
    n=$d/views
    callmix_trace "$n" "$iters" "${DEFAULT_CONFIG[@]}"
    echo
    echo "== post-processor views: callmix, $calls calls with returns and a time each (LITIFUT_CLOCK=auto), output to /dev/null"
    printf '%-18s %10s %12s %14s %14s\n' view seconds "M calls/s" "peak RSS (MB)" "bytes/call out"
    local view args out_bytes
    for view in log tsv chrome folded profile graph; do
        case $view in
        log) args=() ;;
        tsv) args=(--format=tsv) ;;
        chrome) args=(--format=chrome) ;;
        folded) args=(--format=folded) ;;
        profile) args=(--profile) ;;
        graph) args=(--graph) ;;
        esac
        secs=$(best_time "$BIN/litifut-postproc" "${args[@]}" "$n") ||
            die "litifut-postproc ${args[*]} $n failed"
        rss=$(/usr/bin/time -f %M "$BIN/litifut-postproc" "${args[@]}" "$n" 2>&1 > /dev/null | tail -1)
        out_bytes=$("$BIN/litifut-postproc" "${args[@]}" "$n" | wc -c)
        printf '%-18s %10s %12.1f %14.1f %14.1f\n' "$view" "$secs" \
            "$(echo "$calls / $secs / 1000000" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
            "$(echo "$out_bytes / $calls" | bc -l)"
        printf '%s\t%s\t%s\t%s\n' "$view" "$calls" "$secs" "$rss" >> "$OUT/bench-postproc.tsv"
    done
    rm -rf "$n"
}
printf '# view\tcalls\tseconds\tpeak_rss_kb\n' > "$OUT/bench-postproc.tsv"
! section postproc || postproc_speed
stream_throughput

# link_times: the link-time table (see the legend): programs of the
# firmware's shape made by tests/bench/genprog.c, linked plain and with
# LITIFUT=1 (best of 3), and where the instrumented link's time went
link_times() {
    local d=$W/link sizes=${BENCH_LINK_SITES:-10000 50000 200000} arch n p objs plain lit line
    mkdir -p "$d"
    cc -O2 -o "$d/genprog" "$ROOT/tests/bench/genprog.c" || die "cannot build genprog"
    echo
    echo "== link time: tests/bench/genprog.c programs (-O1, C and C++), plain and LITIFUT=1, best of 3"
    printf '%-6s %9s %8s %8s %8s %6s  %s\n' arch sites "text MB" "plain s" "litifut s" ratio \
        "where the instrumented link's time went (s), peak memory"
    for arch in ${BENCH_LINK_ARCHES:-arm mips aarch64}; do
        set_arch "$arch"
        for n in $sizes; do
            p=$d/$arch-$n
            "$d/genprog" --sites "$n" --seed 1 "$p" > /dev/null || die "genprog $n failed"
            (cd "$p" && make -s -j"${JOBS:-2}" CC="$TCC" CXX="$TRIPLE-g++" \
                 $(sed -n 's/^OBJS = //p' Makefile) > build.log 2>&1) ||
                die "building the generated program $p failed (see $p/build.log)"
            read -ra objs <<< "$(sed -n 's/^OBJS = //p' "$p/Makefile")"
            plain=$(cd "$p" && best_time "$TRIPLE-g++" -o prog.plain "${objs[@]}") ||
                die "plain link of $p failed"
            lit=$(cd "$p" && best_time env LITIFUT=1 "$TRIPLE-g++" -B"$BIN/" -o prog "${objs[@]}") ||
                die "LITIFUT=1 link of $p failed"
            line=$(cd "$p" && LITIFUT=1 LITIFUT_VERBOSE=1 "$TRIPLE-g++" -B"$BIN/" -o prog \
                       "${objs[@]}" 2>&1 | sed -n 's/.*; link [0-9.]* s (//p' | sed 's/)$//')
            (cd "$p" && "$QEMU" -L "$SYSROOT" ./prog.plain 300 > out.plain &&
                 LITIFUT_DIR=. "$QEMU" -L "$SYSROOT" ./prog 300 > out.traced &&
                 cmp -s out.plain out.traced) || die "$p: the traced run differs from the plain one"
            printf '%-6s %9s %8.1f %8s %8s %6.2f  %s\n' "$arch" "$n" \
                "$(echo "$("$TRIPLE-size" "$p/prog.plain" | awk 'NR == 2 { print $1 }') / 1048576" | bc -l)" \
                "$plain" "$lit" "$(echo "$lit / $plain" | bc -l)" "$line"
            printf 'link\t%s\t%s\t%s\t%s\t%s\n' "$arch" "$n" "$plain" "$lit" "$line" >> "$OUT/bench-link.tsv"
            rm -rf "$p"
        done
    done
}
printf '# link\tarch\tsites\tplain_s\tlitifut_s\tphases\n' > "$OUT/bench-link.tsv"
! section link || link_times

# build_callheavy ARCH DIR: tests/progs/callheavy.c as DIR/plain and
# DIR/prog (LITIFUT=1), for ARCH (set_bench_arch)
build_callheavy() {
    build_bench_pair "$1" "$2" tests/progs/callheavy.c
}

# build_bench_pair ARCH DIR SOURCE: SOURCE (under the tree) built for
# ARCH (set_bench_arch) as DIR/plain and, with LITIFUT=1, DIR/prog
build_bench_pair() {
    set_bench_arch "$1"
    mkdir -p "$2"
    "$TCC" $XFLAGS -O2 -o "$2/plain" "$ROOT/$3" &&
        LITIFUT=1 "$TCC" $XFLAGS -B"$BIN/" -O2 -o "$2/prog" "$ROOT/$3" ||
        die "cannot build $3 for $1"
}

# budget_share: LITIFUT_BUDGET's table (see the legend): callheavy with
# 40 dispatch rounds (8 million calls), wall clock, best of 3
budget_share() {
    local d=$W/budget arch t k
    echo
    echo "== LITIFUT_BUDGET: tests/progs/callheavy.c 40 (8 million calls), seconds (best of 3)"
    printf '%-7s %7s %7s %7s %7s %7s %10s %10s %9s %7s %9s\n' arch plain off paused budget full \
        "share" "share/off" reckoned pauses "ns/call"
    printf '# arch\tbudget\tplain_s\toff_s\tpaused_s\tbudget_s\tfull_s\treckoned\tpauses\n' \
        > "$OUT/bench-budget.tsv"
    for arch in $ARCHES; do
        build_callheavy "$arch" "$d/$arch"
        declare -A t=()
        cd "$d/$arch"
        t[plain]=$(best_time "$QEMU" "${WALL_CLOCK_QEMU_ARGS[@]}" -L "$SYSROOT" ./plain 40) ||
            die "callheavy $arch"
        for k in off paused budget full; do
            local envs=(LITIFUT_DIR=. "${CALLS_ONLY[@]}")
            case $k in
            off) envs+=(LITIFUT_TRACE=0) ;;
            paused) envs+=(LITIFUT_RECORD=off) ;;
            budget) envs+=(LITIFUT_BUDGET=1ms/10ms) ;;
            esac
            t[$k]=$(best_time env "${envs[@]}" "$QEMU" "${WALL_CLOCK_QEMU_ARGS[@]}" -L "$SYSROOT" \
                        ./prog 40) || die "callheavy $arch $k"
            rm -f litifut.*
        done
        env LITIFUT_DIR=. "${CALLS_ONLY[@]}" LITIFUT_BUDGET=1ms/10ms "$QEMU" "${WALL_CLOCK_QEMU_ARGS[@]}" \
            -L "$SYSROOT" ./prog 40 > /dev/null
        local budget calls reckoned pauses
        budget=$("$BIN/litifut-postproc" --info . | sed -n 's/^budget=//p')
        calls=$("$BIN/litifut-postproc" --info . | sed -n 's/^calls=//p')
        reckoned=$(sed -n 's/.*(\([0-9.]*%\) of the run).*/\1/p' <<< "$budget")
        pauses=$(sed -n 's/.*, \([0-9]*\) pauses*$/\1/p' <<< "$budget")
        rm -f litifut.*
        cd "$ROOT"
        printf '%-7s %7s %7s %7s %7s %7s %9.1f%% %9.1f%% %9s %7s %9.1f\n' "$arch" "${t[plain]}" \
            "${t[off]}" "${t[paused]}" "${t[budget]}" "${t[full]}" \
            "$(echo "100 * (${t[budget]} - ${t[plain]}) / ${t[budget]}" | bc -l)" \
            "$(echo "100 * (${t[budget]} - ${t[paused]}) / ${t[budget]}" | bc -l)" \
            "$reckoned" "$pauses" "$(echo "(${t[full]} - ${t[plain]}) * 1000000000 / 8075024" | bc -l)"
        printf '%s\t1ms/10ms\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" "${t[plain]}" "${t[off]}" \
            "${t[paused]}" "${t[budget]}" "${t[full]}" "$reckoned" "$pauses" >> "$OUT/bench-budget.tsv"
        unset t
    done
}
! section budget || budget_share

# ring_cost: the flight recorder's cost per call next to the full
# trace's (see the legend): callheavy with 10 dispatch rounds,
# guest instructions (insncount) and system calls
ring_cost() {
    local d=$W/ring arch k calls
    echo
    echo "== LITIFUT_MODE=ring: tests/progs/callheavy.c 10 (2 million calls), per traced call"
    printf '%-7s %-10s %12s %12s %12s %12s\n' arch settings "full insns" "ring insns" \
        "full sys" "ring sys"
    printf '# arch\tsettings\tcalls\tplain_insns\tfull_insns\tring_insns\tplain_sys\tfull_sys\tring_sys\tfull_bytes\tring_bytes\n' \
        > "$OUT/bench-ring.tsv"
    for arch in $ARCHES; do
        build_callheavy "$arch" "$d/$arch"
        local RUN_ARGS=(10) RUN_STDIN=/dev/null
        run_insns "$d/$arch/plain-run" "$d/$arch/plain" "" 1
        local -A n=() sys=() bytes=()
        for k in default:"${DEFAULT_CONFIG[*]}" calls-only:"${CALLS_ONLY[*]}"; do
            local name=${k%%:*} cfg
            read -r -a cfg <<< "${k#*:}"
            run_insns "$d/$arch/full" "$d/$arch/prog" "" 1 "${cfg[@]}"
            run_insns "$d/$arch/ring" "$d/$arch/prog" "" 1 "${cfg[@]}" LITIFUT_MODE=ring \
                LITIFUT_RING=1M
            calls=$("$BIN/litifut-postproc" --info "$d/$arch/full" | sed -n 's/^calls=//p')
            [ "${calls:-0}" -gt 0 ] || die "no calls in $d/$arch/full"
            for r in full ring; do
                n[$r]=$(cat "$d/$arch/$r/insns")
                sys[$r]=$(head -1 "$d/$arch/$r/syscalls")
                bytes[$r]=$(stat -c %s "$d/$arch/$r"/litifut.*.trace)
            done
            local pn ps
            pn=$(cat "$d/$arch/plain-run/insns")
            ps=$(head -1 "$d/$arch/plain-run/syscalls")
            printf '%-7s %-10s %12.1f %12.1f %12.3f %12.3f\n' "$arch" "$name" \
                "$(echo "(${n[full]} - $pn) / $calls" | bc -l)" \
                "$(echo "(${n[ring]} - $pn) / $calls" | bc -l)" \
                "$(echo "(${sys[full]} - $ps) / $calls" | bc -l)" \
                "$(echo "(${sys[ring]} - $ps) / $calls" | bc -l)"
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arch" "$name" "$calls" "$pn" \
                "${n[full]}" "${n[ring]}" "$ps" "${sys[full]}" "${sys[ring]}" "${bytes[full]}" \
                "${bytes[ring]}" >> "$OUT/bench-ring.tsv"
        done
    done
}
! section ring || ring_cost

# jump_cost: what a traced tail jump costs next to a traced call (see
# the legend): tests/bench/jumpcost.c, default settings, guest
# instructions (insncount)
jump_cost() {
    local d=$W/jumps arch m k n
    echo
    echo "== Tail jumps: tests/bench/jumpcost.c, extra guest instructions per traced call or jump (default settings)"
    printf '%-7s %10s %14s %14s\n' arch call "direct jump" "register jump"
    printf '# arch\tmode\tplain_0\tplain_n\tlitifut_0\tlitifut_n\tn\n' > "$OUT/bench-jumps.tsv"
    for arch in $ARCHES; do
        build_bench_pair "$arch" "$d/$arch" tests/bench/jumpcost.c
        local -A per=()
        for m in 0 1 2; do
            local v=()
            for k in plain prog; do
                for n in 0 20000; do
                    local RUN_ARGS=("$n" "$m") RUN_STDIN=/dev/null
                    run_insns "$d/$arch/$k-$m-$n" "$d/$arch/$k" "" 1 "${DEFAULT_CONFIG[@]}"
                    v+=("$(cat "$d/$arch/$k-$m-$n/insns")")
                done
            done
            cmp -s "$d/$arch/plain-$m-20000/out" "$d/$arch/prog-$m-20000/out" ||
                die "jumpcost $arch $m: the traced output differs from the plain one"
            per[$m]=$(echo "((${v[3]} - ${v[2]}) - (${v[1]} - ${v[0]})) / 20000" | bc -l)
            printf '%s\t%s\t%s\t%s\t%s\t%s\t20000\n' "$arch" "$m" "${v[@]}" >> "$OUT/bench-jumps.tsv"
        done
        # (each iteration: 0, two calls; 1, a call and a direct jump; 2, a
        # call and a jump through a register)
        printf '%-7s %10.1f %14.1f %14.1f\n' "$arch" "$(echo "${per[0]} / 2" | bc -l)" \
            "$(echo "${per[1]} - ${per[0]} / 2" | bc -l)" "$(echo "${per[2]} - ${per[0]} / 2" | bc -l)"
    done
}
! section jumps || jump_cost

# args_cost: what LITIFUT_ARGS costs a call (see the legend):
# tests/bench/argscost.c, default settings, guest instructions
# (insncount): a traced call without LITIFUT_ARGS, with a rule that
# selects nothing (the calls not selected), and selected
args_cost() {
    local d=$W/args arch k n
    echo
    echo "== LITIFUT_ARGS: tests/bench/argscost.c, extra guest instructions per traced call (default settings)"
    printf '%-7s %10s %14s %16s %16s\n' arch traced "not selected" "3 ints, retval" "string, retval"
    printf '# arch\trun\tplain_0\tplain_n\tlitifut_0\tlitifut_n\tn\n' > "$OUT/bench-args.tsv"
    local -A spec=([traced]="" [unselected]="LITIFUT_ARGS=no_such_function"
                   [ints]="LITIFUT_ARGS=add3@arg1,arg2,arg3,retval" [string]="LITIFUT_ARGS=name_len@arg1/s,retval")
    for arch in $ARCHES; do
        build_bench_pair "$arch" "$d/$arch" tests/bench/argscost.c
        local -A per=() pv=()
        local RUN_STDIN=/dev/null
        for n in 0 20000; do
            local RUN_ARGS=("$n")
            run_insns "$d/$arch/plain-$n" "$d/$arch/plain" "" 1
            pv[$n]=$(cat "$d/$arch/plain-$n/insns")
        done
        for k in traced unselected ints string; do
            local v=() cfg=()
            [ -z "${spec[$k]}" ] || cfg=("${spec[$k]}")
            for n in 0 20000; do
                local RUN_ARGS=("$n")
                run_insns "$d/$arch/$k-$n" "$d/$arch/prog" "" 1 "${DEFAULT_CONFIG[@]}" "${cfg[@]}"
                v+=("$(cat "$d/$arch/$k-$n/insns")")
            done
            cmp -s "$d/$arch/plain-20000/out" "$d/$arch/$k-20000/out" ||
                die "argscost $arch $k: the traced output differs from the plain one"
            # (each iteration: two traced calls, add3 and name_len; one of them selected)
            per[$k]=$(echo "((${v[1]} - ${v[0]}) - (${pv[20000]} - ${pv[0]})) / 20000" | bc -l)
            printf '%s\t%s\t%s\t%s\t%s\t%s\t20000\n' "$arch" "$k" "${pv[0]}" "${pv[20000]}" \
                "${v[@]}" >> "$OUT/bench-args.tsv"
        done
        printf '%-7s %10.1f %14.1f %16.1f %16.1f\n' "$arch" "$(echo "${per[traced]} / 2" | bc -l)" \
            "$(echo "${per[unselected]} / 2" | bc -l)" \
            "$(echo "${per[ints]} - ${per[traced]} / 2" | bc -l)" \
            "$(echo "${per[string]} - ${per[traced]} / 2" | bc -l)"
    done
}
! section args || args_cost

# emu_compare: litifut-emu's profile next to the device mode's (see the
# legend): callheavy and (with bzip2 among the rows) bzip2 -c of its
# manual.ps, static; the emulator on the plain build, the device mode
# on the instrumented one with its default settings under the qemu
# whose counter user space reads (counter_qemu; else Debian's)
emu_compare() {
    local d=$W/emu arch prog
    echo
    echo "== litifut-emu (no device) next to the device mode: per function"
    printf '# arch\tprogram\tfunction\temu_calls\tdevice_calls\temu_self_insns\temu_self_pct\tdevice_self_ns\tdevice_self_pct\n' \
        > "$OUT/bench-emu.tsv"
    for arch in $ARCHES; do
        set_bench_arch "$arch"
        local progs=(callheavy)
        [ -n "$BZIP2_SRC" ] && progs+=(bzip2)
        for prog in "${progs[@]}"; do
            local b=$d/$arch/$prog plain exe args=() stdin=/dev/null
            if [ "$prog" = callheavy ]; then
                build_callheavy "$arch" "$b"
                plain=$b/plain exe=$b/prog args=(2)
            else
                mkdir -p "$b"
                bzip2_build static plain "$b/plain-src" || die "bzip2 plain build failed"
                plain=$b/plain-src/bzip2
                bzip2_build static litifut "$b/prog-src" || die "bzip2 litifut build failed"
                exe=$b/prog-src/bzip2 args=(-c "$BZIP2_SRC/manual.ps")
            fi
            # the emulator, twice (the same profile), and the plain run's own count
            local e
            for e in emu emu2; do
                rm -rf "$b/$e"; mkdir -p "$b/$e"
                (cd "$b/$e" && env -i PATH="$PATH" "$BIN/litifut-emu" -o . -L "$SYSROOT" "$plain" \
                    "${args[@]}" < "$stdin" > out 2> err) || die "litifut-emu $plain failed (see $b/$e)"
                "$BIN/litifut-postproc" --profile --format=tsv "$b/$e" > "$b/$e.tsv"
            done
            cmp -s "$b/emu.tsv" "$b/emu2.tsv" || die "two litifut-emu runs of $plain differ"
            local emu_s plain_s
            emu_s=$(best_time env -i PATH="$PATH" "$BIN/litifut-emu" -o "$b/emu2" -L "$SYSROOT" \
                    "$plain" "${args[@]}" < "$stdin")
            plain_s=$(best_time "$QEMU" -L "$SYSROOT" "$plain" "${args[@]}" < "$stdin")
            (cd "$b" && "$QEMU" -plugin "$PLUGINS/insncount.so,outfile=insns" -L "$SYSROOT" \
                "$plain" "${args[@]}" < "$stdin" > /dev/null)
            # the device mode: the instrumented build, default settings
            local q
            q=$(counter_qemu)
            [ -n "$q" ] || q=$(command -v "$QEMU")
            rm -rf "$b/device"; mkdir -p "$b/device"
            (cd "$b/device" && env -i LITIFUT_DIR=. "$q" -L "$SYSROOT" "$exe" "${args[@]}" \
                < "$stdin" > out 2> err) || die "$exe failed (see $b/device)"
            "$BIN/litifut-postproc" --profile --format=tsv "$b/device" > "$b/device.tsv"
            "$BIN/litifut-postproc" --info "$b/device" > "$b/device/info"
            local clock
            clock=$(info_value "$b/device" clock)
            echo "-- $arch $prog: the emulator took $emu_s s, plain qemu $plain_s s; the" \
                 "plain run executes $(cat "$b/insns") instructions; device clock: $clock"
            # the functions both profiles have (the device's: the instrumented
            # program's calls), by the emulator's self instructions
            awk -F'\t' -v arch="$arch" -v prog="$prog" -v tsv="$OUT/bench-emu.tsv" '
                FNR == 1 { file++; next }
                file == 1 { ec[$8] = $1; es[$8] = $3; ep[$8] = $7; order[n++] = $8; next }
                { dc[$8] = $1; ds[$8] = $3; dp[$8] = $7 }
                END {
                    printf "%-24s %10s %10s %14s %8s %14s %8s\n", "function", "emu calls",
                        "dev calls", "emu self (in)", "emu %", "device self", "dev %"
                    for (i = 0; i < n; i++) {
                        f = order[i]
                        if (!(f in dc)) continue
                        both++; same += (ec[f] == dc[f])
                        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", arch, prog, f, ec[f],
                            dc[f], es[f], ep[f], ds[f], dp[f] >> tsv
                        if (shown++ < 8)
                            printf "%-24s %10s %10s %14s %8s %11.3f ms %8s\n", substr(f, 1, 24),
                                ec[f], dc[f], es[f], ep[f], ds[f] / 1e6, dp[f]
                    }
                    printf "%d functions in both profiles, %d with the same number of calls", both, same
                    for (i = 0; i < n; i++) {
                        f = order[i]
                        if ((f in dc) && ec[f] != dc[f])
                            printf "; %s %s vs %s", f, ec[f], dc[f]
                    }
                    printf "\n"
                }' "$b/emu.tsv" "$b/device.tsv"
        done
    done
}
! section emu || emu_compare

cat <<'EOT'

Builds: pie: the toolchain's default (zlib and bzip2 with their static
library linked in, sqlite's library in speedtest1); static: -static, so
libc's own calls are traced too; shared (zlib): libz.so and minigzipsh,
both instrumented, one trace.  Each built by its own build system, five
times: plain; litifut (CC="<triple>-gcc -B build/bin/", LITIFUT=1);
finst: everything compiled -finstrument-functions, with
tests/bench/cyg-ringbuf.c linked in (stores function and call site into
a per-thread ring buffer on entry and on exit: 8 bytes a record, 16 on
aarch64); timed: the same with tests/bench/cyg-timed.c (function, call
site and clock_gettime(CLOCK_MONOTONIC) seconds and nanoseconds: 16
bytes a record, 24 on aarch64); pg: everything compiled and linked -pg (glibc's mcount;
gmon.out written at exit).  (sqlite: configured once per arch, its
library compiled once for plain and litifut and once for finst and
timed, whose objects are the same; each kind links speedtest1.)  Every
run is a copy run as ./prog with the same environment but the tracer's
settings, and its output equals the plain run's (speedtest1's elapsed
times left out).
calls traced: litifut-postproc --info calls= of the calls-only run
(all objects).  Every "per traced call" divides by it, for finst,
timed and pg too: the same call count, so the columns compare
(-finstrument-functions calls its handler at every entry and exit of
compiled code, inlined functions included, not in libc; -pg calls
mcount at every entry of compiled code).
Targets: extra insns: (guest instructions - plain's) per traced call,
a system call counted as one instruction; system calls: (system calls
- plain's) per traced call (syscount.so); trace B/call: the trace
file's bytes per call (records, returns, time marks, chunk headers),
for the rings the bytes their records took (the handler's count at
exit times the record's size: a ring keeps only its last 4096).
litifut default: LITIFUT_RETURNS=1 LITIFUT_CLOCK=auto, the clock the
trace got in parentheses (marks: times interpolated between marks;
monotonic: a clock_gettime system call per call; counter: the
processor's); litifut default, clock counter: the same under the qemu
of `make qemu-counters` (COUNTER_QEMU; Debian's qemu-user traps ARM's
counter and keeps MIPS's at 0), where auto picks the counter, as on a
device whose counter user space may read (the row is left out without
it); on aarch64 under Debian's qemu-aarch64, which lets user space read
CNTVCT_EL0 (there the default's clock is the counter too); calls only: LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks (the
"on" run below); off: LITIFUT_TRACE=0.  Under qemu-user 7.2 glibc's
clock_gettime finds no vDSO: each is a system call (on a device with a
vDSO, none, and more instructions).
Guest instructions of one run (qemu insncount; deterministic, but for
what follows the host's clock: on's time marks and pg's SIGPROF ticks,
a few hundred at most): plain; on: litifut, calls only; off: litifut
with LITIFUT_TRACE=0; finst; pg.  Ratio: to plain.
Extra per traced call: (instructions - plain) / calls traced.
trace B/call: trace file bytes per call (records, time marks, chunk
headers).  sites: rewritten call sites (all objects).  DB B/site:
instruction DB bytes per site.  added B/site: all loaded bytes the
instrumentation adds (DB and tracer module, text+data+bss, program and
library) per site.
link s: wall-clock seconds of the link step (make relinking the
program, for zlib shared libz.so; callheavy: gcc linking its object),
plain and litifut, best of 3.
With a time per call: the litifut build run with LITIFUT_RETURNS=0
LITIFUT_CLOCK=monotonic (a clock_gettime system call per call; qemu-user
traps the ARM counter and keeps the MIPS one at 0), then with
LITIFUT_RETURNS=1 too (every return recorded, in the hot paths;
anything unusual through the slow path): extra instructions per traced call (a system call counts
as one instruction), system calls and trace bytes per call.
Modes: the litifut build run calls only with LITIFUT_MODE=count and
=dedup: extra instructions per traced call (its calls counted must
equal on's), the distinct (caller site, callee) pairs, and the trace's
bytes for the whole run (chunk headers and pairs; no maps file).
paused: calls only, recording off all along (LITIFUT_RECORD=off): each
call counted, not recorded.
EOT
cat <<'EOT'
LITIFUT_BUDGET=1ms/10ms (10% of the time for the tracer): callheavy, a
call every few instructions, run plain; litifut (calls only) with
LITIFUT_TRACE=0 (off); recording off all along (paused: every call
through the paused path, counted); with the budget; tracing in full.
share: (budget - plain) / budget, all the tracer's time, the paused
path's included; share/off: (budget - paused) / budget, the time
recording took beyond the paused path, which the budget bounds.
reckoned: the tracer's own estimate (recorded calls at its calibrated
cost, --info budget=).  ns/call: (full - plain) per call, what
recording everything costs here.  aarch64's runs: qemu-aarch64 -cpu
max,pauth-impdef=on (the tracer's C is built with branch protection:
qemu's QARMA takes microseconds per paciasp and autiasp, a processor a
few cycles; the implementation-defined algorithm is cheap).
EOT
cat <<'EOT'
LITIFUT_MODE=ring (LITIFUT_RING=1M): callheavy 10 run with the full
trace and with the flight recorder, each with litifut's default
settings and calls only: extra guest instructions and system calls
per traced call over the plain run (a system call counts as one
instruction).  The ring takes over chunks (a punched hole per chunk)
where the full trace claims new ones: the file stays at the ring's
size (bench-ring.tsv has both files' bytes).
EOT
cat <<'EOT'
Post-processor: seconds of one litifut-postproc --profile run (wall
clock, best of 3; the trace in the page cache), calls in the trace per
second, and the run's peak resident memory: the reader holds one chunk
at a time, the call stack and the per-function tables, so the memory
does not grow with the trace.
EOT
cat <<'EOT'
Link time: tests/bench/genprog.c (deterministic, seeded) writes a
program of the firmware's shape: translation units of small functions
calling each other directly, through function tables, into libc and
(one unit in eight, C++) through virtual methods, about 9 call sites per
function; compiled -O1 once, then linked with g++ plain and with
LITIFUT=1 (wall clock, best of 3); ratio = litifut / plain.  The phases
are LITIFUT_VERBOSE's: pass 1 (ld, with a map), scan 1 (the call sites),
DB (assembling it), pass 2 (ld again), rewrite (scan 2, the DB, the
file); peak memory of the wrapper and of the largest ld.  The run's
output (300 functions' calls) must equal the plain build's.  Sizes:
BENCH_LINK_SITES (default 10000 50000 200000), arches
BENCH_LINK_ARCHES (default arm mips aarch64).  The million-site case by hand:
README, "Firmware scale".
EOT
cat <<'EOT'
litifut-emu: the plain build run under litifut-emu (guest
instructions as the clock: its profile's self and total are
instructions, "in"), twice, the two --profile --format=tsv outputs
byte-identical or the bench fails; the instrumented build in the
device mode (default settings, under the qemu whose processor counter
user space reads: its times are that counter's, which qemu advances
with the host's clock).  Per function both profiles have, by the
emulator's self instructions: calls in each (they must agree: both
record every call of the program's own code), the emulator's self
instructions and share, the device's self time and share.  The line
above each table: the emulator's wall clock next to plain qemu's (best
of 3), and the plain run's instructions (insncount), which the
emulator's profile adds up to.
EOT
cat <<'EOT'
Tail jumps: tests/bench/jumpcost.c, 20000 iterations of a call from
main that calls on (call), jumps on directly (direct jump) or jumps on
through a register (register jump), plain and instrumented, default
settings; the instructions of 0 iterations taken from those of 20000.
Per traced call: half the call form's extra instructions per iteration;
per jump: the jump form's less one call.  A traced jump writes a call
record and no return of its own (the return of the call it ends closes
both), so it costs less than a call.
EOT
cat <<'EOT'
LITIFUT_ARGS: tests/bench/argscost.c, 20000 iterations of two calls
from main (add3 with three integers, name_len with a string), plain
and instrumented, default settings; the instructions of 0 iterations
taken from those of 20000.  traced: per call without LITIFUT_ARGS; not
selected: the same with a rule that selects nothing (equal to traced:
the calls not selected pay nothing more); 3 ints, retval and string,
retval: the selected call's (add3@arg1,arg2,arg3,retval;
name_len@arg1/s,retval), the other call still traced only.
EOT
echo "Raw numbers: $OUT/bench-ARCH.tsv, $OUT/bench-postproc.tsv, $OUT/bench-budget.tsv, $OUT/bench-link.tsv, $OUT/bench-ring.tsv, $OUT/bench-jumps.tsv, $OUT/bench-args.tsv, $OUT/bench-emu.tsv."
