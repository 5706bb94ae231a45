# Returns: each test program traced with exact returns (LITIFUT_RETURNS=1)
# must behave as the plain build and record exactly the calls and
# returns the oracle (calltrace.so returns=on) sees at rewritten sites,
# thread by thread; C++ programs may have returns in another order
# where an exception unwound frames (the oracle closes those late).
# The same run without LITIFUT_RETURNS (inferred returns) is compared
# too, and the line says how many returns the inference puts elsewhere.
# Static C++ is not in the exact-return matrix: the unwinder linked into
# the program is itself traced, and unwinding through a hooked frame
# makes it look the trampoline up, so its own calls differ from the
# oracle's (ARM: other exidx searches) or it fails (MIPS)
# (docs/DESIGN.md, "Exact returns").

returns_modes() {
    case $1 in
    armhf) echo pie static marm-pie ;;
    *) echo pie static ;;
    esac
}

returns_case() {    # returns_case ARCH SOURCE MODE
    set_arch "$1"
    local src=$2 mode=$3
    local base=${src%.*} lang=${src##*.}
    local name=returns/$ARCH/$base/$mode
    local d=$WORK/build/returns/$ARCH/$base-$mode
    local cc=$TCC flags=(-std=gnu11 -O2 -Wall -pthread) unordered=()
    [ "$lang" = cc ] && cc=$TCXX flags=(-std=gnu++17 -O2 -Wall -pthread) unordered=(--unordered)
    case $mode in
    marm-*) flags+=(-marm) ;;
    esac
    case ${mode#marm-} in
    pie) flags+=(-pie) ;;
    static) flags+=(-static) ;;
    esac
    mkdir -p "$d"
    if ! "$cc" "${flags[@]}" -o "$d/plain" "$ROOT/tests/progs/$src" 2> "$d/plain.err" ||
       ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$cc" -B"$BIN/" "${flags[@]}" -o "$d/prog" \
         "$ROOT/tests/progs/$src" 2> "$d/prog.err" || [ -s "$d/prog.err" ]; then
        fail "$name: build: $(head -c 300 "$d/plain.err" "$d/prog.err")"
        return
    fi
    local r=$WORK/runs/$name
    run_in "$r/plain" "$d/plain" --
    LITIFUT_RETURNS=1 run_in "$r/exact" "$d/prog" --
    run_in "$r/inferred" "$d/prog" --
    run_in "$r/oracle" "$d/prog.litifut/unrewritten" -plugin "$PLUGINS/$ORACLE,returns=on" --
    local run
    for run in exact inferred oracle; do
        if ! same_run "$r/plain" "$r/$run"; then
            fail "$name: the $run run differs from the plain one (exit $(cat "$r/plain/rc") vs" \
                 "$(cat "$r/$run/rc"): $(head -c 300 "$r/$run/err"))"
            return
        fi
    done
    local exact inferred
    if ! exact=$("$PLUGINS/returns-compare" "${unordered[@]}" "$r/exact"/litifut.*.trace \
                 "$r/oracle/calls.txt" 2>&1); then
        fail "$name: exact returns differ from the oracle: $(head -c 600 <<< "$exact")"
        return
    fi
    if ! inferred=$("$PLUGINS/returns-compare" --inferred "$r/inferred"/litifut.*.trace \
                    "$r/oracle/calls.txt" 2>&1); then
        fail "$name: inferred returns: $(head -c 600 <<< "$inferred")"
        return
    fi
    pass "$name: ${exact#returns-compare: }; inferred: ${inferred#returns-compare: }"
}

test_returns() {
    local arch src mode
    for arch in $ARCHES; do
        for src in calls.c cxx.cc threads.c; do
            for mode in $(returns_modes "$arch"); do
                [ "$src" = cxx.cc ] && [ "$mode" = static ] && continue
                echo "$arch $src $mode"
            done
        done
    done | parallel returns_case
}
