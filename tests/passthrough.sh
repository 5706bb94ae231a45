# Without LITIFUT=1 the wrapper is invisible: given the same arguments
# it makes exactly what the real linker makes.  The arguments are the
# ones gcc passes to ld with -B (from `gcc -###`): the comparison must
# use the very same command line, because GNU ld's MIPS output depends
# even on the length of an (empty) -L directory that -B adds.
# Relocatable links always pass through.

# ld_args CC ARGS...: the ld command line of `CC -BBIN/ ARGS...`, into LD_ARGS.
ld_args() {
    mapfile -t LD_ARGS < <("$@" -### 2>&1 | grep '/collect2 ' | xargs printf '%s\n')
    LD_ARGS=("${LD_ARGS[@]:1}")
}

# same_link NAME ENV...: the wrapper ($BIN/ld) with LD_ARGS and the
# environment ENV makes the same output as the real linker.
same_link() {
    local name=$1; shift
    local d=$WORK/passthrough/$ARCH out=$WORK/passthrough/$ARCH/out
    rm -f "$out" "$d/ref"
    "$TRIPLE-ld" "${LD_ARGS[@]}" && mv "$out" "$d/ref"
    env "$@" "$BIN/ld" "${LD_ARGS[@]}"
    cmp -s "$d/ref" "$out"
}

passthrough_arch() {
    set_arch "$1"
    local d=$WORK/passthrough/$ARCH src=$ROOT/tests/progs/demo.c
    mkdir -p "$d"
    "$TCC" -O2 -c -fPIC -o "$d/demo.o" "$src"
    "$TCXX" -O2 -c -o "$d/cxx.o" "$ROOT/tests/progs/cxx.cc"
    local mode flags
    for mode in pie nopie static cxx shared; do
        case $mode in
        pie) ld_args "$TCC" -B"$BIN/" -pie -o "$d/out" "$d/demo.o" ;;
        nopie) ld_args "$TCC" -B"$BIN/" -no-pie -o "$d/out" "$d/demo.o" ;;
        static) ld_args "$TCC" -B"$BIN/" -static -o "$d/out" "$d/demo.o" ;;
        cxx) ld_args "$TCXX" -B"$BIN/" -o "$d/out" "$d/cxx.o" ;;
        shared) ld_args "$TCC" -B"$BIN/" -shared -o "$d/out" "$d/demo.o" ;;
        esac
        check "$ARCH/passthrough: $mode link is byte-identical (LITIFUT unset, =0, =yes)" \
            eval 'same_link $mode -u LITIFUT && same_link $mode LITIFUT=0 &&
                  same_link $mode LITIFUT=yes'
    done
    ld_args "$TCC" -B"$BIN/" -r -o "$d/out" "$d/demo.o"
    check "$ARCH/passthrough: -r with LITIFUT=1 is byte-identical" same_link r LITIFUT=1

    # symlinked as <triple>-ld and found in PATH: a direct ld command
    "$TRIPLE-ld" -r -o "$d/ref-direct.o" "$d/demo.o"
    PATH=$BIN:$PATH "$TRIPLE-ld" -r -o "$d/wrapped-direct.o" "$d/demo.o"
    check "$ARCH/passthrough: direct $TRIPLE-ld from PATH is byte-identical" \
        cmp -s "$d/ref-direct.o" "$d/wrapped-direct.o"
}

test_passthrough() {
    each_arch passthrough_arch
}
