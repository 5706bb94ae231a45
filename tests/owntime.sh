# Owntime: with no setting at all but LITIFUT=1, --profile's times are
# the program's own.  tests/progs/owntime.c times its functions with
# CLOCK_MONOTONIC at entry and exit (two threads, recursion, a loop
# after the last call, a sleep, short calls through a pointer) and
# prints calls, total and self per function; the trace's --profile of
# the same run must agree: calls exactly, total and self within 5%, plus
# a constant per call for the clock reads the program makes inside its
# own frame (two traced clock_gettime calls: under qemu-user some
# microseconds each) and one per function for qemu translating code on
# its first run (outside the program's clock, inside the call).  The
# program's self includes its own clock_gettime calls, the trace's does
# not (they are callees): the trace's self is compared with its
# clock_gettime callees' time (--graph) added, so a clock read that a
# busy host stretched to milliseconds counts on both sides.
# Cases per arch (arm; armhf: Thumb-2; mips): pie, static, and shlib
# (the functions in an instrumented shared library, main in a PIE).
# A busy machine can stretch any one window: up to three tries.

OWNTIME_PER_CALL_NS=20000
OWNTIME_PER_FUNC_NS=2000000

# owntime_compare OUT PROFILE_TSV GRAPH_TSV: empty if they agree, else
# what differs
owntime_compare() {
    awk -F '\t' -v per_call="$OWNTIME_PER_CALL_NS" -v per_func="$OWNTIME_PER_FUNC_NS" '
        function off(got, want, calls) {
            d = got - want; if (d < 0) d = -d
            return d > want * 0.05 + calls * per_call + per_func
        }
        FILENAME == ARGV[1] { split($0, w, " "); calls[w[2]] = w[3]; total[w[2]] = w[4]; self[w[2]] = w[5]; next }
        FILENAME == ARGV[2] { if ($3 == "clock_gettime") reads[$1] += $6; next }
        FNR > 1 && ($9 ~ /\/(prog|libowntime\.so)$/) && ($8 in calls) {
            seen[$8] = 1
            if ($1 != calls[$8]) bad = bad sprintf(" %s: %s calls, program %s;", $8, $1, calls[$8])
            else if (off($2, total[$8], $1) || off($3 + reads[$8], self[$8], $1))
                bad = bad sprintf(" %s: total %.2f ms self %.2f ms (with its clock reads), program %.2f ms %.2f ms;", $8,
                                  $2 / 1e6, ($3 + reads[$8]) / 1e6, total[$8] / 1e6, self[$8] / 1e6)
        }
        END {
            for (f in calls) if (!(f in seen)) bad = bad " " f ": not in the profile;"
            printf "%s", bad
        }' "$1" "$3" "$2"
}

owntime_case() {    # owntime_case ARCH MODE [counter]: counter: under $COUNTER_QEMU's qemu
    set_arch "$1"
    local mode=$2 name=owntime/$1/$2 clocks='monotonic|counter'
    local d=$WORK/build/owntime/$1-$2 src=$ROOT/tests/progs/owntime.c
    if [ "${3:-}" = counter ]; then
        name=counters/$1/owntime-$2 clocks=counter QEMU=$COUNTER_QEMU/$QEMU
        d=$WORK/build/counters/owntime-$1-$2
    fi
    local flags=(-O2 -Wall -pthread) qemu_env=()
    mkdir -p "$d"
    case $mode in
    pie)    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" "${flags[@]}" -pie -o "$d/prog" "$src" ;;
    static) LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" "${flags[@]}" -static -o "$d/prog" "$src" ;;
    shlib)
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" "${flags[@]}" -fPIC -shared -DOWNTIME_LIB \
            -o "$d/libowntime.so" "$src" &&
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" "${flags[@]}" -pie -DOWNTIME_MAIN \
            -o "$d/prog" "$src" -L"$d" -lowntime
        qemu_env=(-E "LD_LIBRARY_PATH=$d") ;;
    esac 2> "$d/build.err"
    if [ $? != 0 ] || [ -s "$d/build.err" ]; then
        fail "$name: build: $(head -c 300 "$d/build.err")"
        return
    fi
    local r=$WORK/runs/$name try bad=
    for try in 1 2 3; do
        run_in "$r" "$d/prog" "${qemu_env[@]}" --
        if [ "$(cat "$r/rc")" != 0 ] || [ -s "$r/err" ]; then
            bad=" the run failed (exit $(cat "$r/rc")): $(head -c 300 "$r/err")"
            break
        fi
        if ! "$BIN/litifut-postproc" --profile --format=tsv "$r" > "$r/prof" 2> "$r/prof.err" ||
           [ -s "$r/prof.err" ] ||
           ! "$BIN/litifut-postproc" --graph --format=tsv "$r" > "$r/graph" 2> "$r/prof.err" ||
           [ -s "$r/prof.err" ]; then
            bad=" --profile: $(head -c 300 "$r/prof.err")"
            break
        fi
        bad=$(owntime_compare "$r/out" "$r/prof" "$r/graph")
        [ -z "$bad" ] && break
    done
    local info
    info=$("$BIN/litifut-postproc" --info "$r" 2> /dev/null | grep -E "^(clock|returns)=" | paste -sd' ')
    check "$name: no settings ($info): --profile's calls, total and self as the program's own clock says${bad:+ (try $try:$bad)}" \
        eval '[ -z "$bad" ] && [[ $info =~ ^clock=($clocks).*\ returns=exact$ ]]'
}

test_owntime() {
    local arch mode
    for arch in $ARCHES; do
        case $arch in mipsel) [ "${TEST_FULL:-0}" = 1 ] || continue ;; esac
        for mode in pie static shlib; do echo "$arch $mode"; done
    done | parallel owntime_case
}
