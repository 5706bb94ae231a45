#!/usr/bin/env bash
# `make bench`: cost of tracing, measured (guest instructions counted by
# ../shared/tools/insncount.c under qemu; deterministic) on a call-heavy
# program and a real one (zlib's minigzip compressing its ChangeLog,
# linked statically with zlib, and minigzipsh with zlib as a shared
# library, both instrumented: most of its calls are inside libz.so).
#
# For each: guest instructions of the plain build, of the instrumented
# build with tracing off (LITIFUT_TRACE=0) and on; extra instructions
# per traced call; trace bytes per call; DB bytes per rewritten site and
# all bytes the instrumentation adds per site; link time, plain and
# instrumented (wall clock, best of 3).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$ROOT/build/bin}
PLUGINS=${PLUGINS:-$ROOT/build/tools}
SOURCES=${SOURCES:-$ROOT/build/src}
ARCHES=${ARCHES:-arm mips mipsel}
W=$(mktemp -d "${TMPDIR:-/tmp}/litifut-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
. "$ROOT/tests/lib.sh"

insns() {       # insns DIR PROG [ARGS]: guest instructions of one run in DIR
    local dir=$1 prog=$2; shift 2          # LIBDIR: where its shared libraries are
    (cd "$dir" && LITIFUT_DIR=. LD_LIBRARY_PATH=${LIBDIR:-} \
        "$QEMU" -plugin "$PLUGINS/insncount.so,outfile=n.txt" \
        -L "$SYSROOT" "$prog" "$@" < "${STDIN:-/dev/null}" > /dev/null && cat n.txt)
}

best_time() {   # best_time COMMAND...: best wall-clock seconds of 3 runs
    local best= t0 t1 t i
    for i in 1 2 3; do
        t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N)
        t=$(echo "$t1 - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    printf '%.3f' "$best"
}

loaded_bytes() {   # loaded_bytes FILE...: text + data + bss of all
    "$TRIPLE-size" "$@" | awk 'NR > 1 { n += $4 } END { print n }'
}

# bench NAME PLAIN PROG LINK_PLAIN LINK_INST [ARGS]: one table row.
# With PLAIN_LIB and INST_LIB (a shared library of each build, run from
# its directory), the library's calls and bytes count too.
bench() {
    local name=$1 plain=$2 prog=$3 link_plain=$4 link_inst=$5; shift 5
    local d="$W/run-$ARCH-$name"
    rm -rf "$d"
    mkdir -p "$d/plain" "$d/off" "$d/on"
    local n_plain n_off n_on
    local plain_lib=${PLAIN_LIB:-} inst_lib=${INST_LIB:-}
    n_plain=$(LIBDIR=${plain_lib%/*} insns "$d/plain" "$plain" "$@")
    n_off=$(LIBDIR=${inst_lib%/*} LITIFUT_TRACE=0 insns "$d/off" "$prog" "$@")
    n_on=$(LIBDIR=${inst_lib%/*} insns "$d/on" "$prog" "$@")
    local info calls rbytes sites dbbytes
    info=$("$BIN/litifut-postproc" --info "$d/on")
    calls=$(echo "$info" | sed -n 's/^calls=//p')
    rbytes=$(echo "$info" | sed -n 's/^record_bytes=//p')
    sites=$(echo "$info" | sed -n 's/^sites=//p')
    dbbytes=$(echo "$info" | sed -n 's/^db_bytes=//p')
    local added=$(( $(loaded_bytes "$prog" $inst_lib) - $(loaded_bytes "$plain" $plain_lib) ))
    printf '%-22s %9s %11s %11s %11s %8s %8s %7s %7s %6s %7s %7s %7s\n' "$name" "$calls" \
        "$n_plain" "$n_off" "$n_on" \
        "$(echo "scale=1; ($n_off - $n_plain) / $calls" | bc)" \
        "$(echo "scale=1; ($n_on - $n_plain) / $calls" | bc)" \
        "$(echo "scale=2; $rbytes / $calls" | bc)" "$sites" \
        "$(echo "scale=2; $dbbytes / $sites" | bc)" "$(echo "scale=1; $added / $sites" | bc)" \
        "$link_plain" "$link_inst"
}

header() {
    printf '%-22s %9s %11s %11s %11s %8s %8s %7s %7s %6s %7s %7s %7s\n' program calls \
        insns:plain insns:off insns:on "+/call" "+/call" "B/call" sites "DB B/" "added" \
        "link s" "link s"
    printf '%-22s %9s %11s %11s %11s %8s %8s %7s %7s %6s %7s %7s %7s\n' "" "traced" "" \
        "(traced)" "(tracing)" "(off)" "(on)" "trace" "" "site" "B/site" plain litifut
}

for arch in $ARCHES; do
    set_arch "$arch"
    echo "== $ARCH: guest instructions (qemu insncount), bytes, link time"
    header
    for opt in O2; do
        d=$W/build-$ARCH-callheavy
        mkdir -p "$d"
        src=$ROOT/tests/progs/callheavy.c
        lp=$(best_time "$TCC" -$opt -o "$d/plain" "$src")
        li=$(best_time env LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -$opt -o "$d/prog" "$src")
        bench "callheavy -$opt pie" "$d/plain" "$d/prog" "$lp" "$li"
    done
    zsrc=$(ls -d "$SOURCES"/zlib-*/ | head -1)
    for mode in pie static; do
        cflags=-O2
        [ $mode = static ] && cflags="-O2 -static"
        d=$W/build-$ARCH-zlib-$mode
        cp -r "$zsrc" "$d.plain"
        cp -r "$zsrc" "$d.inst"
        (cd "$d.plain" && CC=$TCC CFLAGS=$cflags ./configure --static > /dev/null && make minigzip > /dev/null 2>&1)
        (cd "$d.inst" && CC="$TCC -B$BIN/" CFLAGS=$cflags ./configure --static > /dev/null &&
         LITIFUT=1 LITIFUT_QUIET=1 make minigzip > /dev/null 2>&1)
        lp=$(cd "$d.plain" && best_time sh -c 'rm -f minigzip && make minigzip')
        li=$(cd "$d.inst" && best_time sh -c 'rm -f minigzip && LITIFUT=1 LITIFUT_QUIET=1 make minigzip')
        STDIN=$zsrc/ChangeLog bench "zlib minigzip $mode" "$d.plain/minigzip" "$d.inst/minigzip" "$lp" "$li"
    done
    # zlib as a shared library: libz.so and minigzipsh, both instrumented
    d=$W/build-$ARCH-zlib-shared
    cp -r "$zsrc" "$d.plain"
    cp -r "$zsrc" "$d.inst"
    (cd "$d.plain" && CC=$TCC CFLAGS=-O2 ./configure > /dev/null && make minigzipsh > /dev/null 2>&1)
    (cd "$d.inst" && CC="$TCC -B$BIN/" CFLAGS=-O2 ./configure > /dev/null &&
     LITIFUT=1 LITIFUT_QUIET=1 make minigzipsh > /dev/null 2>&1)
    lp=$(cd "$d.plain" && best_time sh -c 'rm -f libz.so.*.* && make $(sed -n "s/^SHAREDLIBV=//p" Makefile)')
    li=$(cd "$d.inst" && best_time sh -c 'rm -f libz.so.*.* && LITIFUT=1 LITIFUT_QUIET=1 make $(sed -n "s/^SHAREDLIBV=//p" Makefile)')
    PLAIN_LIB=$(ls "$d.plain"/libz.so.*.*) INST_LIB=$(ls "$d.inst"/libz.so.*.*) STDIN=$zsrc/ChangeLog \
        bench "zlib libz.so+minigzipsh" "$d.plain/minigzipsh" "$d.inst/minigzipsh" "$lp" "$li"
done
cat <<'EOT'

insns: guest instructions of one run: plain build; instrumented with
LITIFUT_TRACE=0; instrumented and tracing.  +/call: extra instructions
per traced call over the plain build.  B/call trace: trace file bytes
per call (records, time marks, chunk headers).  DB B/site: instruction
DB bytes per rewritten site.  added B/site: all loaded bytes the
instrumentation adds (DB and tracer module, text+data+bss) per site.
link s: wall-clock seconds of the link step, best of 3 (for
libz.so+minigzipsh: of linking libz.so).
EOT
