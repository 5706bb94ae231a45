# Without LITIFUT=1 the wrapper is invisible: the output is byte for
# byte what the real linker makes.  Relocatable links always pass
# through; shared libraries pass through with one warning.

test_passthrough() {
    set_arch arm
    local d=$WORK/passthrough src=$ROOT/tests/progs/demo.c
    mkdir -p "$d"
    "$TCC" -O2 -c -fPIC -o "$d/demo.o" "$src"
    local mode flags
    for mode in pie nopie static; do
        case $mode in pie) flags=-pie ;; nopie) flags=-no-pie ;; static) flags=-static ;; esac
        "$TCC" $flags -o "$d/ref-$mode" "$d/demo.o"
        "$TCC" -B"$BIN/" $flags -o "$d/wrapped-$mode" "$d/demo.o"
        LITIFUT=0 "$TCC" -B"$BIN/" $flags -o "$d/zero-$mode" "$d/demo.o"
        LITIFUT=yes "$TCC" -B"$BIN/" $flags -o "$d/yes-$mode" "$d/demo.o"
        check "passthrough: $mode link is byte-identical (LITIFUT unset, =0, =yes)" \
            eval 'cmp -s "$d/ref-$mode" "$d/wrapped-$mode" && cmp -s "$d/ref-$mode" "$d/zero-$mode" &&
                  cmp -s "$d/ref-$mode" "$d/yes-$mode"'
    done
    "$TCXX" -O2 -o "$d/ref-cxx" "$ROOT/tests/progs/cxx.cc"
    "$TCXX" -B"$BIN/" -O2 -o "$d/wrapped-cxx" "$ROOT/tests/progs/cxx.cc"
    check "passthrough: C++ link is byte-identical" cmp -s "$d/ref-cxx" "$d/wrapped-cxx"

    "$TCC" -r -o "$d/ref-r.o" "$d/demo.o"
    LITIFUT=1 "$TCC" -B"$BIN/" -r -o "$d/wrapped-r.o" "$d/demo.o"
    check "passthrough: -r with LITIFUT=1 is byte-identical" cmp -s "$d/ref-r.o" "$d/wrapped-r.o"

    "$TCC" -shared -o "$d/ref.so" "$d/demo.o"
    LITIFUT=1 "$TCC" -B"$BIN/" -shared -o "$d/wrapped.so" "$d/demo.o" 2> "$d/shared.err"
    check "passthrough: -shared with LITIFUT=1 is byte-identical, with one warning" \
        eval 'cmp -s "$d/ref.so" "$d/wrapped.so" && [ "$(wc -l < "$d/shared.err")" = 1 ] &&
              grep -q "shared libraries are not instrumented" "$d/shared.err"'

    # symlinked as <triple>-ld and found in PATH: a direct ld command
    "$TRIPLE-ld" -r -o "$d/ref-direct.o" "$d/demo.o"
    PATH=$BIN:$PATH "$TRIPLE-ld" -r -o "$d/wrapped-direct.o" "$d/demo.o"
    check "passthrough: direct $TRIPLE-ld from PATH is byte-identical" \
        cmp -s "$d/ref-direct.o" "$d/wrapped-direct.o"
}
