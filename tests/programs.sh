# The test programs (tests/progs/), each at -O0 and -O2, linked as PIE,
# -no-pie and -static, plain and instrumented: same behaviour, and a
# trace equal to the oracle's calls.

program_case() {    # program_case ARCH SOURCE OPT MODE
    set_arch "$1"
    local src=$2 opt=$3 mode=$4
    local base=${src%.*} lang=${src##*.}
    local name=$ARCH/$base/$opt/$mode
    local d=$WORK/build/$ARCH/$base-$opt-$mode
    local cc=$TCC flags=(-std=gnu11 "-$opt" -Wall -pthread)
    [ "$lang" = cc ] && cc=$TCXX flags=(-std=gnu++17 "-$opt" -Wall -pthread)
    case $mode in
    pie) flags+=(-pie) ;;
    nopie) flags+=(-no-pie) ;;
    static) flags+=(-static) ;;
    esac
    mkdir -p "$d"
    if ! "$cc" "${flags[@]}" -o "$d/plain" "$ROOT/tests/progs/$src" 2> "$d/plain.err"; then
        fail "$name: plain build: $(head -c 300 "$d/plain.err")"
        return
    fi
    if ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$cc" -B"$BIN/" "${flags[@]}" -o "$d/prog" \
         "$ROOT/tests/progs/$src" 2> "$d/prog.err" || [ -s "$d/prog.err" ]; then
        fail "$name: instrumented build: $(head -c 300 "$d/prog.err")"
        return
    fi
    check_traced "$name" "$d/plain" "$d/prog"
}

test_programs() {
    local arch src opt mode
    for arch in $ARCHES; do
        for src in calls.c cxx.cc threads.c demo.c; do
            for opt in O0 O2; do
                for mode in pie nopie static; do
                    echo "$arch $src $opt $mode"
                done
            done
        done
    done | parallel program_case
}
