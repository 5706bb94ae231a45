# Returns: each test program, and a program with shared libraries,
# traced with exact returns (the default; LITIFUT_RETURNS=1 said)
# must behave as the plain build and record exactly the calls and
# returns the oracle (calltrace.so returns=on) sees at rewritten sites,
# thread by thread; C++ programs may have returns in another order
# where an exception unwound frames (the oracle closes those late).
# The same run with calls only (LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks:
# returns inferred) is compared too, and the line says how many returns
# the inference puts elsewhere.
# Static C++ too: the unwinder a static link brings in is left alone
# (src/linkmap.c), as a dynamic program's libgcc_s is.

returns_modes() {
    case $1 in
    armhf) echo pie static marm-pie ;;
    mipsel) [ "${TEST_FULL:-0}" = 1 ] && echo pie static || echo pie ;;   # (mips's, other byte order)
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
    # (AArch64 glibc's longjmp goes back with `br x30`, which the oracle
    # takes for a return: its returns compare in order too)
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
    LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks run_in "$r/inferred" "$d/prog" --
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

# returns_shlib ARCH: shmain with its instrumented libraries (C and C++
# with exceptions, a dlopened plugin, threads; tests/shlib.sh builds
# them), exact returns against the oracle; a library the oracle's run
# had elsewhere is moved (the program writes where each one was).
returns_shlib() {
    set_arch "$1"
    local name=returns/$ARCH/shlib b=$WORK/build/$ARCH/shlib-O2
    [ -e "$b/ok" ] || shlib_build "$ARCH" O2 > /dev/null
    if [ ! -e "$b/ok" ]; then
        fail "$name: the shared libraries did not build (see $b)"
        return
    fi
    local r=$WORK/runs/$name run
    run_in "$r/plain" "$b/plain/shmain" -E LD_LIBRARY_PATH="$b/plain" -- loadmap.txt
    LITIFUT_RETURNS=1 run_in "$r/exact" "$b/inst/shmain" -E LD_LIBRARY_PATH="$b/inst" -- loadmap.txt
    LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks run_in "$r/inferred" "$b/inst/shmain" \
        -E LD_LIBRARY_PATH="$b/inst" -- loadmap.txt
    run_in "$r/oracle" "$b/inst/shmain.litifut/unrewritten" -plugin "$PLUGINS/$ORACLE,returns=on" \
        -E LD_LIBRARY_PATH="$b/oracle" -- loadmap.txt
    for run in exact inferred oracle; do
        if ! same_run "$r/plain" "$r/$run"; then
            fail "$name: the $run run differs from the plain one: $(head -c 300 "$r/$run/err")"
            return
        fi
    done
    local exact inferred
    if ! exact=$("$PLUGINS/returns-compare" --unordered $(returns_moves "$r" exact) \
                 "$r/exact"/litifut.*.trace "$r/oracle/calls.txt" 2>&1); then
        fail "$name: exact returns differ from the oracle: $(head -c 600 <<< "$exact")"
        return
    fi
    if ! inferred=$("$PLUGINS/returns-compare" --inferred $(returns_moves "$r" inferred) \
                    "$r/inferred"/litifut.*.trace "$r/oracle/calls.txt" 2>&1); then
        fail "$name: inferred returns: $(head -c 600 <<< "$inferred")"
        return
    fi
    pass "$name: ${exact#returns-compare: }; inferred: ${inferred#returns-compare: }"
}

# returns_moves DIR RUN: --moved arguments for the objects the oracle's
# run had elsewhere than DIR/RUN (each run loads the plugin where mmap
# leaves room: the exact run maps shadow stacks)
returns_moves() {
    local obj ob olo ohi tb tlo thi
    while read -r obj ob olo ohi; do
        read -r tb tlo thi < <(awk -v o="$obj" '$1 == o { print $2, $3, $4 }' "$1/$2/loadmap.txt")
        [ -n "$tlo" ] && [ "$tlo" != "$olo" ] &&
            echo "--moved $olo $(printf %x $((0x$ohi - 0x$olo))) $tlo"
    done < "$1/oracle/loadmap.txt"
}

# returns_fate ARCH SOURCE MODE: programs whose frames end in ways a
# shadow stack must survive (tests/progs: pexit.c, contexts.c,
# deeprec.c, backtrace.c) run exactly as the plain build with exact
# returns; pexit's and deeprec's returns equal the oracle's, contexts'
# frames left on another stack are closed early and counted in --info.
returns_fate() {
    set_arch "$1"
    local src=$2 mode=$3 base=${2%.c}
    local name=returns/$ARCH/$base/$mode d=$WORK/build/returns/$ARCH/$base-$mode
    local flags=(-pthread) r=$WORK/runs/returns/$ARCH/$base/$mode
    [ "$base" = backtrace ] && flags+=(-rdynamic)
    [ "$mode" = static ] && flags+=(-static) || flags+=(-pie)
    mkdir -p "$d"
    if ! cached_object "$d/prog.o" "$TCC" -std=gnu11 -O2 -Wall -pthread -funwind-tables \
             "$ROOT/tests/progs/$src" 2> "$d/cc.err" ||
       ! "$TCC" "${flags[@]}" -o "$d/plain" "$d/prog.o" 2> "$d/plain.err" ||
       ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" "${flags[@]}" -o "$d/prog" \
         "$d/prog.o" 2> "$d/prog.err" || [ -s "$d/prog.err" ]; then
        fail "$name: build: $(head -c 300 "$d/cc.err" "$d/plain.err" "$d/prog.err")"
        return
    fi
    run_in "$r/plain" "$d/plain" --
    LITIFUT_RETURNS=1 run_in "$r/exact" "$d/prog" --
    if ! same_run "$r/plain" "$r/exact"; then
        fail "$name: the exact-returns run differs from the plain one (exit $(cat "$r/plain/rc") vs" \
             "$(cat "$r/exact/rc"): $(head -c 300 "$r/exact/err"))"
        return
    fi
    local info
    info=$("$BIN/litifut-postproc" --info "$r/exact" 2>&1 | sed -n 's/^returns=//p')
    case $base in
    pexit|deeprec)
        local exact
        run_in "$r/oracle" "$d/prog.litifut/unrewritten" -plugin "$PLUGINS/$ORACLE,returns=on" --
        if exact=$("$PLUGINS/returns-compare" "$r/exact"/litifut.*.trace \
                   "$r/oracle/calls.txt" 2>&1); then
            pass "$name: runs as the plain build; ${exact#returns-compare: }"
        else
            fail "$name: exact returns differ from the oracle: $(head -c 600 <<< "$exact")"
        fi
        [ "$base" = deeprec ] && [ "$mode" = pie ] && returns_deep_views "$name" "$r/exact" ;;
    contexts)
        check "$name: runs as the plain build; frames on another stack closed early ($info)" \
            eval '[[ $info =~ ^exact,\ [0-9]+\ frames\ closed\ early ]]' ;;
    *)
        check "$name: runs as the plain build (its backtrace() frames: $(grep -c '^(' "$r/plain/out"))" \
            eval '[ "$(grep -c "^(" "$r/plain/out")" -ge 3 ] && [ "$info" = exact ]' ;;
    esac
}

# returns_deep_views NAME DIR: the views of deeprec's trace (a stack
# 100000 frames deep, returns recorded) stay small (postproc/view.h,
# VIEW_DEPTH_CAP): log lines no longer than the indentation of 256
# frames and a depth mark, folded paths of 256 frames and one
# "[deeper than 256 frames]", which keeps the self time of the rest;
# and the post-processor keeps the whole stack (no warning).
returns_deep_views() {
    local name=$1 dir=$2 pp=$BIN/litifut-postproc longest deepest frames
    read -r longest deepest < <("$pp" "$dir" 2> "$dir.views.err" |
        awk '{ if (length > m) m = length; if (match($0, /\[depth [0-9]+\] /)) {
                   d = substr($0, RSTART + 7, RLENGTH - 9) + 0; if (d > dm) dm = d } }
             END { print m + 0, dm + 0 }')
    "$pp" --format=folded "$dir" > "$dir.folded" 2>> "$dir.views.err"
    "$pp" --profile --format=tsv "$dir" > "$dir.prof" 2>> "$dir.views.err"
    frames=$(awk '{ n = gsub(/;/, ";") + 1; if (n > m) m = n } END { print m + 0 }' "$dir.folded")
    check "$name: views of a stack $deepest deep: log lines of $longest characters at most, folded paths of $frames frames, the profile's self time" \
        eval '[ ! -s "$dir.views.err" ] && [ "$longest" -le 700 ] && [ "$deepest" -ge 100000 ] &&
              [ "$frames" = 257 ] && grep -q ";\[deeper than 256 frames\] [0-9]*$" "$dir.folded" &&
              [ "$(views_folded "$dir.folded")" = "$(views_self_total "$dir.prof")" ]'
}

returns_one() {     # returns_one ARCH SOURCE MODE, or ARCH shlib
    case $2 in
    shlib) returns_shlib "$1" ;;
    pexit.c|contexts.c|deeprec.c|backtrace.c) returns_fate "$@" ;;
    *) returns_case "$@" ;;
    esac
}

test_returns() {
    local arch src mode
    for arch in $ARCHES; do
        # (mipsel: mips's code, the other byte order: calls.c and
        # threads.c, PIE; TEST_FULL: every case)
        [ "$arch" != mipsel ] || [ "${TEST_FULL:-0}" = 1 ] && echo "$arch shlib"
        for src in calls.c cxx.cc threads.c; do
            [ "$arch" = mipsel ] && [ "$src" = cxx.cc ] && [ "${TEST_FULL:-0}" != 1 ] && continue
            for mode in $(returns_modes "$arch"); do
                # ARM-state code on armhf: calls.c's cases (TEST_FULL: all)
                [ "$mode" = marm-pie ] && [ "$src" != calls.c ] && [ "${TEST_FULL:-0}" != 1 ] && continue
                echo "$arch $src $mode"
            done
        done
        if [ "$arch" != mipsel ] || [ "${TEST_FULL:-0}" = 1 ]; then
            echo "$arch pexit.c pie"
            echo "$arch contexts.c pie"
            echo "$arch deeprec.c pie"
            echo "$arch backtrace.c pie"
            echo "$arch backtrace.c static"
            echo "$arch contexts.c static"
            echo "$arch deeprec.c static"
        fi
    done | if [ "${LIBC:-glibc}" = musl ]; then     # (no C++, ucontext or backtrace())
        grep -Ev ' (shlib|cxx\.cc|contexts\.c|backtrace\.c)( |$)'
    else
        cat
    fi | parallel returns_one
}
