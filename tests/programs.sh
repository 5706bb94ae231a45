# The test programs (tests/progs/), each at -O2 in every link mode and
# at -O0 in the default one (the C library's calls are the same at both
# levels, so -O0 adds only the program's own), plain and instrumented: same behaviour, and a trace equal to
# the oracle's calls.  Modes: pie (the default), nopie (-no-pie), static;
# on MIPS also nopic (-no-pie -fno-pic: jal calls; Debian's -no-pie code
# is still PIC there); mipsel, whose code is mips's in the other byte
# order, only pie and static at -O2.  Every MIPS PIE runs a second time through
# the dynamic linker, which loads it at an address that is not a 256 MB
# boundary.  bigtext.c has call sites beyond bal range of both ends of
# the code: a MIPS PIE must reach them through the run-time bridge.
# thumb.c mixes ARM and Thumb functions, calling both ways.  armhf
# builds Thumb-2 (its default) and also ARM state (-marm) objects: the
# static ones mix them with the Thumb-2 C library.

program_modes() {
    [ -n "${PROGRAM_MODES:-}" ] && { echo "$PROGRAM_MODES"; return; }
    case $1 in
    arm) echo pie nopie static ;;
    armhf) [ "${TEST_FULL:-0}" = 1 ] && echo pie nopie static marm-pie marm-static ||
           echo pie static marm-pie ;;     # (arm has nopie)
    mipsel) [ "${TEST_FULL:-0}" = 1 ] || [ "${LIBC:-glibc}" = musl ] && echo pie nopie nopic static ||
            echo pie ;;             # (mips has the rest: only the byte order differs;
                                    # musl has no big-endian mips)
    aarch64) echo pie nopie static ;;   # (-fno-pic: MIPS's jal code; here the same as nopie)
    *) echo pie nopie nopic static ;;
    esac
}

program_case() {    # program_case ARCH SOURCE OPT MODE
    set_arch "$1"
    local src=$2 opt=$3 mode=$4
    local base=${src%.*} lang=${src##*.}
    local name=$ARCH/$base/$opt/$mode
    local d=$WORK/build/$ARCH/$base-$opt-$mode
    local cc=$TCC cflags=(-std=gnu11 "-$opt" -Wall -pthread) lflags=(-pthread)
    [ "$lang" = cc ] && cc=$TCXX cflags=(-std=gnu++17 "-$opt" -Wall -pthread)
    case $mode in
    marm-*) cflags+=(-marm) ;;
    esac
    case ${mode#marm-} in
    pie) lflags+=(-pie) ;;
    nopie) lflags+=(-no-pie) ;;
    nopic) cflags+=(-fno-pic) lflags+=(-no-pie) ;;
    static) lflags+=(-static) ;;
    esac
    mkdir -p "$d"
    # one object, linked plainly and instrumented (as a build system would)
    if ! cached_object "$d/prog.o" "$cc" "${cflags[@]}" "$ROOT/tests/progs/$src" 2> "$d/cc.err" ||
       ! "$cc" "${lflags[@]}" -o "$d/plain" "$d/prog.o" 2> "$d/plain.err"; then
        fail "$name: plain build: $(head -c 300 "$d/cc.err" "$d/plain.err")"
        return
    fi
    if ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$cc" -B"$BIN/" "${lflags[@]}" -o "$d/prog" \
         "$d/prog.o" 2> "$d/prog.err" || [ -s "$d/prog.err" ]; then
        fail "$name: instrumented build: $(head -c 300 "$d/prog.err")"
        return
    fi
    # (C++: the oracle closes the frames an exception left when the
    # catching function returns, so its tree is not the program's; the
    # group views checks the tree of a C++ program by its own log)
    local NO_TREE=
    [ "$lang" = cc ] && NO_TREE="exceptions"
    check_traced "$name" "$d/plain" "$d/prog"
    if [ "$ARCH" = armhf ] && [ "$mode" = static ] && [ "${LIBC:-glibc}" = glibc ]; then
        # the Thumb-2 libc has 16-bit blx rM calls that stay untraced:
        # each one is in untraced.tsv, and --info counts them per function
        local info=$WORK/runs/$name/info listed
        listed=$(grep -c '^0x' "$d/prog.litifut/untraced.tsv" 2> /dev/null)
        check "$name: untraced calls reported ($listed in untraced.tsv, --info: $(sed -n 's/^untraced=//p' "$info"))" \
            eval '[ "${listed:-0}" -gt 0 ] && [ "$(sed -n "s/^untraced=//p" "$info")" -ge "$listed" ] &&
                  [ "$(sed -n "s/^untraced_in=\([0-9]*\) .*/\1/p" "$info" | paste -sd+ | bc)" = "$(sed -n "s/^untraced=//p" "$info")" ]'
    fi
    if [ "$ARCH" = armhf ] && [ "$base" = thumb ]; then
        # GCC's switch over a table of words, its sibling calls through a
        # register and a jump through a table of labels are known jumps:
        # their functions' 16-bit blx rM go
        check "$name: 16-bit blx rM in functions with a word-table switch, a sibling call or a table of labels traced" \
            eval '! grep -E "^# [0-9]+	(switch_words|sibling|sibling_late|loaded_sibling|label_table)$" "$d/prog.litifut/untraced.tsv"'
    fi
    if [ "${ARCH#mips}" != "$ARCH" ] && [ "$mode" = pie ]; then
        VIA_LDSO=1 check_traced "$name/ld.so" "$d/plain" "$d/prog"
        local at
        at=$(sed -n 's/^load_bias=//p' "$WORK/runs/$name/ld.so/info" 2> /dev/null)
        check "$name/ld.so: loaded at $at, not a 256 MB boundary" \
            eval '[ -n "$at" ] && [ $((at % 0x10000000)) != 0 ]'
    fi
    if [ "${ARCH#mips}" != "$ARCH" ] && [ "$mode" = pie ] && [ "$base" = bigtext ]; then
        check "$name: far call sites go through the run-time bridge" \
            grep -q '^bridge=0x0e000000$' "$WORK/runs/$name/info"
    fi
    if [ "${ARCH#mips}" != "$ARCH" ] && [ "$opt" = O2 ] && [ "$base" = bigtext ] && [ "$mode" != nopic ]; then
        # (PIC code: its far callees are loaded from the GOT; jalr-got, the
        # oracle's calls above; -fno-pic code calls them with jal)
        local got
        got=$(grep -c '	jalr-got	' "$d/prog.litifut/sites.tsv")
        check "$name: calls through GOT slots the link fixed go as calls with a fixed target ($got jalr-got sites)" \
            [ "${got:-0}" -gt 0 ]
    fi
}

test_programs() {
    local arch src opt mode
    for arch in $ARCHES; do
        local sources="calls.c cxx.cc threads.c demo.c bigtext.c nesting.c"
        [ "${LIBC:-glibc}" != glibc ] && sources=${sources/cxx.cc /}     # (no libstdc++)
        [ "${arch#arm}" != "$arch" ] && sources="$sources thumb.c"
        for src in $sources; do
            # -O0: calls.c and cxx.cc (TEST_FULL: every program, mipsel too)
            if [ "${TEST_FULL:-0}" = 1 ] || { [ "$arch" != mipsel ] &&
                                             { [ "$src" = calls.c ] || [ "$src" = cxx.cc ]; }; }; then
                echo "$arch $src O0 $(program_modes "$arch" | cut -d' ' -f1)"     # (pie)
            fi
            for mode in $(program_modes "$arch"); do
                echo "$arch $src O2 $mode"
            done
        done
    done | parallel program_case
}
