# The tracer inside programs that do awkward things: fork, signals
# arriving anywhere, daemons that close every descriptor.

# A forked child traces into a file of its own, with exactly its calls.
test_fork() {
    local arch
    for arch in $ARCHES; do
        set_arch "$arch"
        local f=$WORK/forks/$ARCH pp=$BIN/litifut-postproc
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

# A daemon closes the trace file's descriptor, changes directory and
# reuses the number: the tracer reopens the file and loses nothing.
test_daemon() {
    local arch
    for arch in $ARCHES; do
        set_arch "$arch"
        local f=$WORK/daemon/$ARCH pp=$BIN/litifut-postproc
        mkdir -p "$f"
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$f/prog" "$ROOT/tests/progs/daemon.c"
        (cd "$f" && LITIFUT_DIR=. LITIFUT_CHUNK_KB=4 "$QEMU" -L "$SYSROOT" ./prog > out 2> err)
        "$pp" --format=tsv "$f" > "$f/trace.tsv" 2> "$f/pp.err"
        local n
        n=$(grep -c "	work_marker+0x0$" "$f/trace.tsv")
        check "$ARCH/daemon: closed, reused descriptor and chdir /: all 20000 calls recorded, maps kept" \
            eval 'grep -q "^done" "$f/out" && [ ! -s "$f/err" ] && [ ! -s "$f/pp.err" ] &&
                  [ "$n" = 20000 ] && ls "$f"/litifut.*.maps > /dev/null'
    done
}
