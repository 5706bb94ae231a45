# Helpers shared by the test scripts (sourced by tests/run.sh).
#
# Every check prints one line, "ok   <name>" or "FAIL <name>: why", and
# is counted in $RESULTS.  Programs run under qemu-user; the call oracle
# (../shared/tools/calltrace.c) runs on the relinked program before its
# call sites were rewritten (OUTPUT.litifut/unrewritten), which has the
# same layout, so the two runs must see the same calls.

# The target triples' rows of lib/arches.def (the one list): per test
# name (arm, armhf, mips, mipsel) its triple, arch folder, qemu,
# dynamic linker and musl's multiarch name; ALL_ARCHES the test names
# in the table's order, of the triples whose arch has a runtime
# (arch/<folder>/stub.S, as the Makefile builds tracer modules for):
# riscv64's host side is tested on its own (rvscan) until it has one.
declare -A ARCH_ROWS=()
ALL_ARCHES=
while IFS=$'\t' read -r name row; do
    ARCH_ROWS[$name]=$row
    folder=$(cut -f2 <<< "$row")
    [ -e "$ROOT/arch/$folder/stub.S" ] && ALL_ARCHES=${ALL_ARCHES:+$ALL_ARCHES }$name
done < <(awk -F'"' '/^TRIPLE[(]/ { folder = $3; gsub(/[ ,]/, "", folder)
                                   print $4 "\t" $2 "\t" folder "\t" $6 "\t" $8 "\t" $12 }' "$ROOT/lib/arches.def")

# With LIBC=musl or uclibc, the arch's musl or uClibc-ng toolchain
# instead (tests/libc.sh: TCC is a musl-gcc-style script, TCXX empty).
set_arch() {
    ARCH=$1
    if [ -z "$ARCH" ] || [ -z "${ARCH_ROWS[$ARCH]:-}" ]; then echo "unknown arch $ARCH" >&2; return 1; fi
    IFS=$'\t' read -r TRIPLE ARCH_DIR QEMU LDSO MUSL <<< "${ARCH_ROWS[$ARCH]}"
    SYSROOT=/usr/$TRIPLE
    TCC=$TRIPLE-gcc             # armhf: Thumb-2, its default, as its libc
    TCXX=$TRIPLE-g++
    case ${LIBC:-glibc} in
    musl) musl_toolchain || return 1 ;;
    uclibc) uclibc_toolchain || return 1 ;;
    esac
    ORACLE=calltrace.so,outfile=calls.txt
    # the oracle decodes Thumb calls too (ARM-only programs: the same calls)
    [ "$ARCH_DIR" = arm ] && ORACLE=$ORACLE,thumb=on
    return 0
}

# tail_jumps_traced: 0 if $ARCH's link rewrites tail jumps (docs/DESIGN.md
# "Tail jumps"; RISC-V's does not yet)
tail_jumps_traced() {
    [ "$ARCH_DIR" != riscv64 ]
}

pass() { echo "ok   ${NAME_PREFIX:-}$*"; echo "ok" >> "$RESULTS"; }
fail() { echo "FAIL ${NAME_PREFIX:-}$*"; echo "FAIL ${NAME_PREFIX:-}$*" >> "$RESULTS"; }

# check NAME COMMAND...: passes if COMMAND succeeds.
check() {
    local name=$1; shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# run_in DIR PROG QEMU-ARGS... -- ARGS...: copies PROG to DIR/prog (DIR
# is created afresh) and runs ./prog there under qemu-user, so that
# every run of a program sees the same argv[0] and environment ($RUN_NAME,
# if set, instead of prog: BusyBox must be called busybox).  stdin
# from $STDIN (default /dev/null), stdout to DIR/out, stderr to DIR/err,
# exit status to DIR/rc; traces go to DIR.  $OUT_FILTER, if set, is a
# sed -E script for DIR/out (what differs from run to run, such as
# elapsed times, taken out before outputs are compared).  With VIA_LDSO=1 the
# dynamic linker is run explicitly, which loads the program at an
# address of its choosing (not a 256 MB boundary under qemu).
run_in() {
    local dir=$1 prog=$2 qemu_args=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do qemu_args+=("$1"); shift; done
    shift
    local name=${RUN_NAME:-prog}
    rm -rf "$dir"; mkdir -p "$dir"
    cp "$prog" "$dir/$name"
    local launch=()
    [ "${VIA_LDSO:-0}" = 1 ] && launch=("$SYSROOT/$LDSO")
    (cd "$dir" && LITIFUT_DIR=. timeout 600 "$QEMU" "${qemu_args[@]}" -L "$SYSROOT" "${launch[@]}" \
        "./$name" "$@" > out 2> err < "${STDIN:-/dev/null}"
     echo $? > rc)
    if [ -n "${OUT_FILTER:-}" ]; then sed -i -E "$OUT_FILTER" "$dir/out"; fi
}

# run_target DIR PROG ARGS...: PROG under qemu-user.
run_target() {
    local dir=$1 prog=$2; shift 2
    run_in "$dir" "$prog" -- "$@"
}

# run_oracle DIR PROG ARGS...: PROG under qemu with the call oracle;
# the calls go to DIR/calls.txt.
run_oracle() {
    local dir=$1 prog=$2; shift 2
    run_in "$dir" "$prog" -plugin "$PLUGINS/$ORACLE" -- "$@"
}

# but_unrecorded_signals < WARNINGS: the post-processor's warnings but the
# count of signal deliveries that came while the tracer worked (counted,
# not recorded: the one a program with asynchronous signals may get)
but_unrecorded_signals() {
    grep -v ': [0-9]* signal deliver[a-z]* not recorded, nor \(its\|their\) handler' || true
}

same_run() {    # same_run DIR1 DIR2: same stdout and exit status
    cmp -s "$1/out" "$2/out" && cmp -s "$1/rc" "$2/rc"
}

# traced_runs NAME DIR PLAIN PLAIN_ENV PROG PROG_ENV ORACLE ORACLE_ENV ARGS...:
# the runs a trace is checked with, each in its own directory: DIR/plain
# (PLAIN), DIR/traced (PROG), DIR/off (PROG with LITIFUT_TRACE=0),
# DIR/oracle (ORACLE under the call oracle, returns=on).  *_ENV: variables for the
# guest, as qemu -E takes them (VAR=VALUE[,VAR=VALUE]...), or empty.
# Checks that the four give the same output and exit status (with
# EXPECT_RC set, the plain run must exit with it), that the off run
# leaves no trace, and that the trace post-processes without a warning
# into DIR/trace.tsv; DIR/info is its --info (stderr: DIR/info.err).
# Returns 1 after a fail.
traced_runs() {
    local name=$1 d=$2 plain=$3 plain_env=$4 prog=$5 prog_env=$6 oracle=$7 oracle_env=$8
    shift 8
    local pe=() te=() oe=()
    [ -n "$plain_env" ] && pe=(-E "$plain_env")
    [ -n "$prog_env" ] && te=(-E "$prog_env")
    [ -n "$oracle_env" ] && oe=(-E "$oracle_env")
    run_in "$d/plain" "$plain" "${pe[@]}" -- "$@"
    run_in "$d/traced" "$prog" "${te[@]}" -- "$@"
    LITIFUT_TRACE=0 run_in "$d/off" "$prog" "${te[@]}" -- "$@"
    run_in "$d/oracle" "$oracle" -plugin "$PLUGINS/$ORACLE,returns=on" "${oe[@]}" -- "$@"
    if [ -n "${EXPECT_RC:-}" ] && [ "$(cat "$d/plain/rc")" != "$EXPECT_RC" ]; then
        fail "$name: the plain run exits with $(cat "$d/plain/rc"), not $EXPECT_RC:" \
             "$(head -c 300 "$d/plain/out") $(head -c 300 "$d/plain/err") (see $d/plain)"
        return 1
    fi
    if ! same_run "$d/plain" "$d/traced"; then
        fail "$name: traced run differs from the plain one (exit $(cat "$d/plain/rc") vs" \
             "$(cat "$d/traced/rc"); see $d)"
        return 1
    fi
    if ! same_run "$d/plain" "$d/off" || ls "$d/off"/litifut.* > /dev/null 2>&1; then
        fail "$name: LITIFUT_TRACE=0 run differs or left a trace (see $d/off)"
        return 1
    fi
    if ! same_run "$d/plain" "$d/oracle"; then
        fail "$name: oracle run differs from the plain one (see $d/oracle)"
        return 1
    fi
    # (the one line a link with LITIFUT_EXCLUDE_CALLEE gets: what it left out)
    if ! "$BIN/litifut-postproc" --format=tsv "$d/traced" > "$d/trace.tsv" 2> "$d/postproc.err" ||
       grep -v ': linked with LITIFUT_EXCLUDE_CALLEE=.*: calls of these functions are not traced$' \
           "$d/postproc.err" | grep -q .; then
        fail "$name: post-processing: $(head -c 300 "$d/postproc.err")"
        return 1
    fi
    "$BIN/litifut-postproc" --info "$d/traced" > "$d/info" 2> "$d/info.err"
}

# tree_mode DIR: --tree for oracle-compare (the call tree the views
# draw, from the calls TSV's parent column, must be the oracle's) when
# the trace of DIR/info has its returns and $NO_TREE (why not: a C++
# program whose exceptions the oracle closes late) is not set
tree_mode() {
    [ -z "${NO_TREE:-}" ] && grep -qx 'returns=exact' "$1/info" && echo --tree
}

# check_traced NAME PLAIN PROG ARGS...: PLAIN is the normal build, PROG
# the instrumented one (linked with LITIFUT_KEEP=1).  Checks that PROG
# behaves as PLAIN traced and untraced, that its trace equals the
# oracle's calls at rewritten sites (and, with returns, the tree the
# views draw the oracle's: tree_mode), and that the trace post-processes
# without a warning.
check_traced() {
    local name=$1 plain=$2 prog=$3; shift 3
    local d=$WORK/runs/$name
    traced_runs "$name" "$d" "$plain" "" "$prog" "" "$prog.litifut/unrewritten" "" "$@" || return
    local bias
    bias=$(sed -n 's/^load_bias=0x//p' "$d/info" | head -1)
    if "$PLUGINS/oracle-compare" $(tree_mode "$d") "$prog.litifut/sites.tsv" "$bias" "$d/oracle/calls.txt" \
         "$d/trace.tsv" > "$d/compare.out" 2>&1; then
        pass "$name: same output and exit status; $(sed 's/^oracle-compare: //' "$d/compare.out")"
    else
        fail "$name: trace differs from the oracle: $(head -c 600 "$d/compare.out")"
    fi
}

# check_traced_objects NAME PLAIN PLAIN_LIBS PROG PROG_LIBS ORACLE_LIBS LIBS ARGS...:
# check_traced for a process with several instrumented objects.  PLAIN
# runs with its libraries from the directory PLAIN_LIBS, PROG (plain or
# instrumented with LITIFUT_KEEP=1) from PROG_LIBS, the oracle run
# (PROG.litifut/unrewritten, or PROG if it is plain) from ORACLE_LIBS,
# which holds each instrumented library's OBJECT.litifut/unrewritten
# under its file name (same layout, same addresses); the guest finds
# them through LD_LIBRARY_PATH (and $GUEST_ENV, if set, is added to the
# guest's environment of every run: qemu -E's VAR=VALUE[,...]).  LIBS:
# the file names of the instrumented libraries of PROG_LIBS the process
# must load; the trace must hold exactly these objects (and the
# program, if PROG is instrumented, as "prog"), each with its sites.tsv's
# number of sites.  Each object's bias comes from --info's object= lines.
# If the program writes loadmap.txt in its run directory
# (tests/progs/shlib/loadmap.h), the traced run's must give each object
# the bias the trace says, and an object that the oracle's run had
# elsewhere (loaded with dlopen after the tracer mapped its files) is
# compared at the traced run's addresses.
check_traced_objects() {
    local name=$1 plain=$2 plain_libs=$3 prog=$4 prog_libs=$5 oracle_libs=$6 libs=$7
    shift 7
    local d=$WORK/runs/$name oracle=$prog extra=${GUEST_ENV:+,$GUEST_ENV}
    [ -e "$prog.litifut/unrewritten" ] && oracle=$prog.litifut/unrewritten
    traced_runs "$name" "$d" "$plain" "LD_LIBRARY_PATH=$plain_libs$extra" \
        "$prog" "LD_LIBRARY_PATH=$prog_libs$extra" "$oracle" "LD_LIBRARY_PATH=$oracle_libs$extra" \
        "$@" || return
    if [ -s "$d/info.err" ]; then
        fail "$name: post-processing --info: $(head -c 300 "$d/info.err")"
        return
    fi
    # the objects expected: file name in the trace, sites.tsv
    local -A sites=() seen=()
    local obj
    [ -e "$prog.litifut/sites.tsv" ] && sites[prog]=$prog.litifut/sites.tsv
    for obj in $libs; do sites[$obj]=$prog_libs/$obj.litifut/sites.tsv; done
    for obj in "${!sites[@]}"; do
        [ -s "${sites[$obj]}" ] || { fail "$name: no ${sites[$obj]} (LITIFUT_KEEP=1)"; return; }
    done
    local base n bias path key args=() first=()
    while read -r base n bias path; do
        key=${path##*/}
        if [ -z "${sites[$key]+set}" ]; then
            fail "$name: the trace has an object that is not expected: $path"
            return
        fi
        if [ -n "${seen[$key]+set}" ]; then
            fail "$name: the trace has $key twice"
            return
        fi
        seen[$key]=$bias
        if [ "$n" != $(($(wc -l < "${sites[$key]}") - 1)) ]; then
            fail "$name: $key has $n sites in the trace, ${sites[$key]} has" \
                 "$(($(wc -l < "${sites[$key]}") - 1))"
            return
        fi
        if [ ${#first[@]} = 0 ]; then first=("${sites[$key]}" "${bias#0x}")
        else args+=("${sites[$key]}" "${bias#0x}"); fi
    done < <(sed -n 's/^object=//p' "$d/info")
    for obj in "${!sites[@]}"; do
        if [ -z "${seen[$obj]+set}" ]; then
            fail "$name: $obj is not among the trace's objects (--info: $(grep '^object=' "$d/info" |
                  tr '\n' ' '))"
            return
        fi
    done
    # objects the oracle's run had elsewhere; the load map's biases
    local moved="" obias olo ohi tbias tlo thi
    if [ -s "$d/traced/loadmap.txt" ] && [ -s "$d/oracle/loadmap.txt" ]; then
        for obj in "${!seen[@]}"; do
            read -r tbias tlo thi < <(awk -v o="$obj" '$1 == o { print $2, $3, $4 }' \
                                      "$d/traced/loadmap.txt")
            if [ $((0x${tbias:-1})) != $((${seen[$obj]})) ]; then
                fail "$name: $obj: the trace says load bias ${seen[$obj]}, the program" \
                     "(dl_iterate_phdr) 0x${tbias:-?}"
                return
            fi
        done
        while read -r obj obias olo ohi; do
            read -r tbias tlo thi < <(awk -v o="$obj" '$1 == o { print $2, $3, $4 }' \
                                      "$d/traced/loadmap.txt")
            [ -n "$tlo" ] && [ "$tlo" != "$olo" ] || continue
            args+=(--moved "$olo" "$(printf %x $((0x$ohi - 0x$olo)))" "$tlo")
            moved+=" $obj"
        done < "$d/oracle/loadmap.txt"
    fi
    if [ ${#first[@]} = 0 ]; then
        fail "$name: no instrumented object in the trace"
    elif "$PLUGINS/oracle-compare" $(tree_mode "$d") "${first[@]}" "$d/oracle/calls.txt" "$d/trace.tsv" \
         "${args[@]}" > "$d/compare.out" 2>&1; then
        pass "$name: same output and exit status; $(sed 's/^oracle-compare: //' "$d/compare.out")${moved:+ (loaded elsewhere in the oracle run:$moved)}"
    else
        fail "$name: trace differs from the oracle: $(head -c 600 "$d/compare.out")"
    fi
}

# cached_object OUT CC FLAGS... SOURCE: OUT becomes a link to the
# object CC FLAGS -c SOURCE makes, compiled once per test run for all
# cases that ask for the same (a link mode changes no code: -pie,
# -no-pie and -static objects are the same bytes; bigtext.c takes 15 s
# to compile).  Compiler messages go to stderr.  Safe in parallel.
cached_object() {
    local out=$1; shift
    local dir=$WORK/objects key
    key=$(printf '%s\0' "$@" | md5sum | cut -c1-32)
    mkdir -p "$dir"
    (
        flock 9
        [ -f "$dir/$key.o" ] || { "$@" -c -o "$dir/$key.o.tmp" && mv -f "$dir/$key.o.tmp" "$dir/$key.o"; }
    ) 9> "$dir/$key.lock" || return 1
    ln -sf "$dir/$key.o" "$out"
}

# build_pair DIR SOURCE LINK: tests/progs/SOURCE at -O2 with $TCC
# (DIR/prog.o, cached_object), linked plainly (DIR/plain) and
# instrumented (DIR/prog, with LITIFUT_KEEP=1); LINK: pie or static.
build_pair() {
    local d=$1 src=$2 flags=(-pthread)
    [ "$3" = static ] && flags+=(-static)
    mkdir -p "$d"
    cached_object "$d/prog.o" "$TCC" -std=gnu11 -O2 -Wall -pthread "$ROOT/tests/progs/$src" &&
        "$TCC" "${flags[@]}" -o "$d/plain" "$d/prog.o" &&
        LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" "${flags[@]}" -o "$d/prog" \
            "$d/prog.o"
}

# lua_build SRC DIR KIND: Lua's interpreter (DIR/src/lua) from SRC, a
# copy of Debian's source with its build patches reversed, by its own
# Makefile with $TCC; KIND litifut: instrumented (LITIFUT_KEEP=1).  Its
# log: DIR/build.log.
lua_build() {
    local src=$1 dir=$2 env=()
    [ "$3" = litifut ] && env=(LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1)
    rm -rf "$dir"
    cp -r "$src" "$dir"
    (cd "$dir" && env "${env[@]}" make -j2 -C src linux ALL=lua \
         CC="$TCC ${env:+-B$BIN/ }-std=gnu99" AR="$TRIPLE-ar rcu" RANLIB="$TRIPLE-ranlib" \
         MYCFLAGS="-include $ROOT/tests/bench/lua-seed.h" > build.log 2>&1)
}

# lua_source DEST: Debian's lua5.4 source (make sources) copied to DEST
# with its build patches reversed (Lua's own Makefile, as make bench
# builds it).
lua_source() {
    local lua
    lua=$(ls -d "${SOURCES:-$ROOT/build/src}"/lua5.4-*/ 2> /dev/null | head -1)
    [ -n "$lua" ] || return 1
    rm -rf "$1"
    mkdir -p "$(dirname "$1")"
    cp -r "${lua%/}" "$1" &&
        (cd "$1" && patch -s -R -p1 -i debian/patches/0002-lua-modules-paths.patch &&
         patch -s -R -p1 -i debian/patches/0001-build-system.patch)
}

# each_arch FUNC: FUNC ARCH for every arch of $ARCHES, $JOBS at a time
# (each arch's case works in directories of its own)
each_arch() {
    local a
    for a in $ARCHES; do echo "$a"; done | parallel "$1"
}

# folder_arches: of $ARCHES, the first test name of each arch folder
# (arm, mips, aarch64); with TEST_FULL=1 all of them.  The groups of the
# tracer's run-time features (recording on and off, modes, the ring,
# streaming, copy-out, fork, signals, limits) run on these: armhf's and
# mipsel's tracer is arm's and mips's code, built for the other float
# ABI and byte order, and the groups that read or rewrite code
# (programs, returns, shlib, views, realprog...) run on every arch.
folder_arches() {
    local a triple folder rest
    local -A seen=()
    for a in $ARCHES; do
        IFS=$'\t' read -r triple folder rest <<< "${ARCH_ROWS[$a]}"
        [ "${TEST_FULL:-0}" = 1 ] || [ -z "${seen[$folder]:-}" ] || continue
        seen[$folder]=1
        echo "$a"
    done
}

# each_folder FUNC: each_arch over folder_arches only
each_folder() {
    folder_arches | parallel "$1"
}

# parallel FUNC: runs FUNC once per line of stdin (the line's words are
# its arguments), at most $JOBS at a time.
parallel() {
    local func=$1 args
    while read -r -a args; do
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
        "$func" "${args[@]}" &
    done
    wait
}

# words_changed READELF BEFORE AFTER [SKIP]: how many 4-byte words of a
# rewritten program (AFTER) differ from the link it came from (BEFORE),
# outside the DB and the thunk area (which pass 2 wrote, the thunk area
# moving the DB) and the call-site table (not loaded; the rewrite writes
# it again with the final DB's checksum and pass 2's original words),
# and outside SKIP's "OFFSET SIZE" byte ranges of the file
words_changed() {
    local readelf=$1 before=$2 after=$3 skip="${4:-}" v n sa so sz cs
    while read -r v n; do
        while read -r sa so sz; do
            (( 16#$v >= 16#$sa && 16#$v < 16#$sa + 16#$sz )) &&
                skip="$skip $((16#$v - 16#$sa + 16#$so)) $n"
        done < <($readelf -SW "$before" | sed -n 's/^ *\[ *[0-9]*\] *[^ ]* *[^ ]* *\([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2 \3/p')
    done < <($readelf -sW "$before" | awk '$8 == "litifut_db" || $8 == "litifut_thunks" { print $2, $3 }')
    cs=$($readelf -SW "$before" |
         sed -n 's/^ *\[ *[0-9]*\] *\.litifut_callsites *[^ ]* *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p')
    [ -n "$cs" ] && read -r so sz <<< "$cs" && skip="$skip $((16#$so)) $((16#$sz))"
    skip=$(echo $skip)          # (one space between numbers, none around)
    cmp -l "$before" "$after" |
        awk -v skip="$skip" 'BEGIN { n = split(skip, s, /[ \n]+/); for (i = 1; i < n; i += 2) { lo[i] = s[i]; hi[i] = s[i] + s[i + 1] } }
             { o = $1 - 1; for (i in lo) if (o >= lo[i] && o < hi[i]) next; w[int(o / 4)] = 1 }
             END { print length(w) }'
}

# scan_link_by_hand TRIPLE DIR NAME GCC-ARGS...: the wrapper's passes by
# hand, with DIR's stand-in sled (sled.o) and placeholder DB (db0.o):
# pass 1 (DIR/NAME.p1), its sites (NAME.tsv, the summary NAME.sum) and
# DB, pass 2 (NAME.p2) rewritten into NAME.out; one failed check named
# ARCH/scan/NAME and 1 if any step fails.  (Where the thunk area lies
# before code, .fini in a static link, pass 2 moved that code: the
# wrapper's pass 3, the same link, is rewritten for its own sites.)
scan_link_by_hand() {
    local triple=$1 d=$2 name=$3 what="${1%%-*}/scan/$3"; shift 3
    local c=$triple-gcc
    if ! $c -o "$d/$name.p1" "$@" "$d/sled.o" "$d/db0.o" ||
       ! "$BIN/litifut-rewrite" --sites "$d/$name.tsv" --db "$d/$name.db.s" "$d/$name.p1" \
           > "$d/$name.sum" ||
       ! $c -c -o "$d/$name.db.o" -x assembler "$d/$name.db.s" ||
       ! $c -o "$d/$name.p2" "$@" "$d/sled.o" "$d/$name.db.o"; then
        fail "$what: pass 1, DB, pass 2 and the rewrite"
        return 1
    fi
    if ! "$BIN/litifut-rewrite" -q --expect "$d/$name.tsv" -o "$d/$name.out" "$d/$name.p2" \
         2> "$d/$name.err" &&
       ! { grep -q "pass 2 moved code" "$d/$name.err" &&
           "$BIN/litifut-rewrite" -q --sites "$d/$name.tsv" -o "$d/$name.out" "$d/$name.p2"; }; then
        fail "$what: pass 1, DB, pass 2 and the rewrite: $(head -c 300 "$d/$name.err")"
        return 1
    fi
}
