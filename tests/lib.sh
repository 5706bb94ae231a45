# Helpers shared by the test scripts (sourced by tests/run.sh).
#
# Every check prints one line, "ok   <name>" or "FAIL <name>: why", and
# is counted in $RESULTS.  Programs run under qemu-user; the call oracle
# (../shared/tools/calltrace.c) runs on the relinked program before its
# call sites were rewritten (OUTPUT.litifut/unrewritten), which has the
# same layout, so the two runs must see the same calls.

set_arch() {
    ARCH=$1
    case $ARCH in
    arm)    TRIPLE=arm-linux-gnueabi; QEMU=qemu-arm;    LDSO=lib/ld-linux.so.3 ;;
    armhf)  TRIPLE=arm-linux-gnueabihf; QEMU=qemu-arm;  LDSO=lib/ld-linux-armhf.so.3 ;;
    mips)   TRIPLE=mips-linux-gnu;    QEMU=qemu-mips;   LDSO=lib/ld.so.1 ;;
    mipsel) TRIPLE=mipsel-linux-gnu;  QEMU=qemu-mipsel; LDSO=lib/ld.so.1 ;;
    *) echo "unknown arch $ARCH" >&2; return 1 ;;
    esac
    SYSROOT=/usr/$TRIPLE
    TCC=$TRIPLE-gcc
    TCXX=$TRIPLE-g++
    if [ "$ARCH" = armhf ]; then
        # ARM state: Thumb-2 (armhf's default) is not rewritten yet
        TCC=$(arm_state_driver "$TRIPLE-gcc")
        TCXX=$(arm_state_driver "$TRIPLE-g++")
    fi
}

# arm_state_driver DRIVER: a script that runs DRIVER -marm (gcc still
# names itself DRIVER to the linker, through COLLECT_GCC).
arm_state_driver() {
    local script=$WORK/drivers/$1-marm
    if [ ! -x "$script" ]; then
        mkdir -p "$WORK/drivers"
        printf '#!/bin/sh\nexec %s -marm "$@"\n' "$1" > "$script.$BASHPID"
        chmod +x "$script.$BASHPID"
        mv "$script.$BASHPID" "$script"
    fi
    echo "$script"
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
# every run of a program sees the same argv[0] and environment.  stdin
# from $STDIN (default /dev/null), stdout to DIR/out, stderr to DIR/err,
# exit status to DIR/rc; traces go to DIR.  With VIA_LDSO=1 the
# dynamic linker is run explicitly, which loads the program at an
# address of its choosing (not a 256 MB boundary under qemu).
run_in() {
    local dir=$1 prog=$2 qemu_args=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do qemu_args+=("$1"); shift; done
    shift
    rm -rf "$dir"; mkdir -p "$dir"
    cp "$prog" "$dir/prog"
    local launch=()
    [ "${VIA_LDSO:-0}" = 1 ] && launch=("$SYSROOT/$LDSO")
    (cd "$dir" && LITIFUT_DIR=. timeout 600 "$QEMU" "${qemu_args[@]}" -L "$SYSROOT" "${launch[@]}" \
        ./prog "$@" > out 2> err < "${STDIN:-/dev/null}"
     echo $? > rc)
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
    run_in "$dir" "$prog" -plugin "$PLUGINS/calltrace.so,outfile=calls.txt" -- "$@"
}

same_run() {    # same_run DIR1 DIR2: same stdout and exit status
    cmp -s "$1/out" "$2/out" && cmp -s "$1/rc" "$2/rc"
}

# check_traced NAME PLAIN PROG ARGS...: PLAIN is the normal build, PROG
# the instrumented one (linked with LITIFUT_KEEP=1).  Checks that PROG
# behaves as PLAIN traced and untraced, that its trace equals the
# oracle's calls at rewritten sites, and that the trace post-processes
# without a warning.
check_traced() {
    local name=$1 plain=$2 prog=$3; shift 3
    local d=$WORK/runs/$name
    run_target "$d/plain" "$plain" "$@"
    run_target "$d/traced" "$prog" "$@"
    LITIFUT_TRACE=0 run_target "$d/off" "$prog" "$@"
    run_oracle "$d/oracle" "$prog.litifut/unrewritten" "$@"
    if ! same_run "$d/plain" "$d/traced"; then
        fail "$name: traced run differs from the plain one (exit $(cat "$d/plain/rc") vs" \
             "$(cat "$d/traced/rc"); see $d)"
        return
    fi
    if ! same_run "$d/plain" "$d/off" || ls "$d/off"/litifut.* > /dev/null 2>&1; then
        fail "$name: LITIFUT_TRACE=0 run differs or left a trace (see $d/off)"
        return
    fi
    if ! same_run "$d/plain" "$d/oracle"; then
        fail "$name: oracle run differs from the plain one (see $d/oracle)"
        return
    fi
    if ! "$BIN/litifut-postproc" --format=tsv "$d/traced" > "$d/trace.tsv" 2> "$d/postproc.err" ||
       [ -s "$d/postproc.err" ]; then
        fail "$name: post-processing: $(head -c 300 "$d/postproc.err")"
        return
    fi
    local bias
    "$BIN/litifut-postproc" --info "$d/traced" > "$d/info"
    bias=$(sed -n 's/^load_bias=0x//p' "$d/info" | head -1)
    if "$PLUGINS/oracle-compare" "$prog.litifut/sites.tsv" "$bias" "$d/oracle/calls.txt" \
         "$d/trace.tsv" > "$d/compare.out" 2>&1; then
        pass "$name: same output and exit status; $(sed 's/^oracle-compare: //' "$d/compare.out")"
    else
        fail "$name: trace differs from the oracle: $(head -c 600 "$d/compare.out")"
    fi
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
