# The post-processor away from the target: files found with
# --binary-dir and --sysroot (on MIPS, where PIC calls go straight into
# libc once bound, so the trace names libc's functions); and a forked
# child's trace of its own.

test_postproc() {
    set_arch mips
    local d=$WORK/postproc pp=$BIN/litifut-postproc
    mkdir -p "$d/run" "$d/host"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O1 -o "$d/run/prog" "$ROOT/tests/progs/calls.c"
    (cd "$d/run" && LITIFUT_DIR=. "$QEMU" -L "$SYSROOT" ./prog > /dev/null)
    "$pp" --format=tsv "$d/run" > "$d/ref.tsv"

    # as if copied from a device: the program elsewhere, and the maps
    # naming the libraries by their paths on the target
    mkdir -p "$d/copy"
    cp "$d"/run/litifut.* "$d/copy/"
    sed -i "s| $SYSROOT/| /|" "$d"/copy/litifut.*.maps
    mv "$d/run/prog" "$d/host/prog"
    "$pp" --format=tsv --binary-dir "$d/host" --sysroot "$SYSROOT" "$d/copy" > "$d/moved.tsv" \
        2> "$d/moved.err"
    check "$ARCH/postproc: --binary-dir and --sysroot find the program and its libraries" \
        eval '[ ! -s "$d/moved.err" ] && grep -q "libc.so.6" "$d/moved.tsv" &&
              cmp -s <(cut -f 1-5,7-8,10- "$d/ref.tsv") <(cut -f 1-5,7-8,10- "$d/moved.tsv")'
    "$pp" --format=tsv "$d/copy" > /dev/null 2> "$d/lost.err"
    check "$ARCH/postproc: without them, one error naming the missing program" \
        eval '[ "$(wc -l < "$d/lost.err")" = 1 ] && grep -q "cannot read the traced program" "$d/lost.err"'

    local arch
    for arch in $ARCHES; do
        set_arch "$arch"
        local f=$WORK/forks/$ARCH
        mkdir -p "$f"
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O1 -o "$f/prog" "$ROOT/tests/progs/forks.c"
        (cd "$f" && LITIFUT_DIR=. "$QEMU" -L "$SYSROOT" ./prog > out)
        local parent child
        parent=$(ls "$f"/litifut.*.trace | head -1)
        child=$(ls "$f"/litifut.*.trace | tail -1)
        check "$ARCH/fork: parent and child trace into files of their own" \
            eval '[ "$(ls "$f"/litifut.*.trace | wc -l)" = 2 ] && grep -q "parent done, child exit 0" "$f/out" &&
                  [ "$("$pp" --format=tsv "$parent" | grep -c "	parent_marker+0x0$")" = 200 ] &&
                  [ "$("$pp" --format=tsv "$parent" | grep -c "	child_marker+0x0$")" = 0 ] &&
                  [ "$("$pp" --format=tsv "$parent" | grep -c "	before_fork+0x0$")" = 10 ] &&
                  [ "$("$pp" --format=tsv "$child" | grep -c "	child_marker+0x0$")" = 300 ] &&
                  [ "$("$pp" --format=tsv "$child" | grep -c "	parent_marker+0x0$")" = 0 ]'
    done
}

# Signals hitting the tracer anywhere: main's calls all recorded, the
# handler's never more often than it ran, the trace readable.
test_signals() {
    local arch
    for arch in $ARCHES; do
        set_arch "$arch"
        local f=$WORK/signals/$ARCH pp=$BIN/litifut-postproc
        mkdir -p "$f"
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$f/prog" \
            "$ROOT/tests/progs/sigstress.c"
        (cd "$f" && LITIFUT_DIR=. timeout 600 "$QEMU" -L "$SYSROOT" ./prog > out 2> handled)
        "$pp" --format=tsv "$f" > "$f/trace.tsv" 2> "$f/pp.err"
        local main_calls handler_calls handled
        main_calls=$(grep -c "	main_marker+0x0$" "$f/trace.tsv")
        handler_calls=$(grep -c "	handler_marker+0x0$" "$f/trace.tsv")
        handled=$(cat "$f/handled")
        if grep -q "done: 200000 calls" "$f/out" && [ ! -s "$f/pp.err" ] &&
           [ "$main_calls" = 200000 ] && [ "$handler_calls" -le "$handled" ] &&
           [ "$handled" -gt 0 ]; then
            pass "$ARCH/signals: all 200000 calls of the interrupted thread recorded;" \
                 "$handler_calls of $handled handler calls (the rest interrupted the tracer)"
        else
            fail "$ARCH/signals: main $main_calls of 200000, handler $handler_calls of $handled," \
                 "$(head -c 200 "$f/pp.err")"
        fi
    done
}
