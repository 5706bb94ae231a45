# The tracer inside programs that do awkward things: fork, signals
# arriving anywhere, daemons that close every descriptor.  These runs
# depend on timing or touch several files, so they are checked by
# counting marker calls in the trace, not against the oracle.

# traced_run NAME SOURCE [VAR=VALUE...]: builds tests/progs/SOURCE
# instrumented into $RUN/prog ($RUN = $WORK/NAME/$ARCH) and runs it
# there with the given environment: stdout in $RUN/out, stderr in
# $RUN/err, traces in $RUN.
traced_run() {
    local name=$1 src=$2; shift 2
    RUN=$WORK/$name/$ARCH
    mkdir -p "$RUN"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$RUN/prog" "$ROOT/tests/progs/$src"
    (cd "$RUN" && env LITIFUT_DIR=. "$@" timeout 600 "$QEMU" -L "$SYSROOT" ./prog > out 2> err)
}

# calls_to FUNC TRACE: how many recorded calls went to FUNC.
calls_to() {
    "$BIN/litifut-postproc" --format=tsv "$2" | grep -c "	$1+0x0$"
}

# A forked child traces into a file of its own, with exactly its calls.
test_fork() {
    local arch parent child
    for arch in $ARCHES; do
        set_arch "$arch"
        traced_run forks forks.c
        parent=$(ls "$RUN"/litifut.*.trace | head -1)
        child=$(ls "$RUN"/litifut.*.trace | tail -1)
        check "$ARCH/fork: parent and child trace into files of their own" \
            eval '[ "$(ls "$RUN"/litifut.*.trace | wc -l)" = 2 ] &&
                  grep -q "parent done, child exit 0" "$RUN/out" &&
                  [ "$(calls_to parent_marker "$parent")" = 200 ] &&
                  [ "$(calls_to child_marker "$parent")" = 0 ] &&
                  [ "$(calls_to before_fork "$parent")" = 10 ] &&
                  [ "$(calls_to child_marker "$child")" = 300 ] &&
                  [ "$(calls_to parent_marker "$child")" = 0 ]'
    done
}

# Signals hitting the tracer anywhere: main's calls all recorded, the
# handler's never more often than it ran, the trace readable.
test_signals() {
    local arch main_calls handler_calls handled
    for arch in $ARCHES; do
        set_arch "$arch"
        traced_run signals sigstress.c
        "$BIN/litifut-postproc" --format=tsv "$RUN" > /dev/null 2> "$RUN/pp.err"
        main_calls=$(calls_to main_marker "$RUN")
        handler_calls=$(calls_to handler_marker "$RUN")
        handled=$(cat "$RUN/err")                   # the program's own count
        if grep -q "done: 200000 calls" "$RUN/out" && [ ! -s "$RUN/pp.err" ] &&
           [ "$main_calls" = 200000 ] && [ "$handler_calls" -le "$handled" ] &&
           [ "$handled" -gt 0 ]; then
            pass "$ARCH/signals: all 200000 calls of the interrupted thread recorded;" \
                 "$handler_calls of $handled handler calls (the rest interrupted the tracer)"
        else
            fail "$ARCH/signals: main $main_calls of 200000, handler $handler_calls of $handled," \
                 "$(head -c 200 "$RUN/pp.err")"
        fi
    done
}

# A daemon closes the trace file's descriptor, changes directory and
# reuses the number: the tracer reopens the file and loses nothing.
test_daemon() {
    local arch
    for arch in $ARCHES; do
        set_arch "$arch"
        traced_run daemon daemon.c LITIFUT_CHUNK_KB=4
        "$BIN/litifut-postproc" --format=tsv "$RUN" > /dev/null 2> "$RUN/pp.err"
        check "$ARCH/daemon: closed, reused descriptor and chdir /: all 20000 calls recorded, maps kept" \
            eval 'grep -q "^done" "$RUN/out" && [ ! -s "$RUN/err" ] && [ ! -s "$RUN/pp.err" ] &&
                  [ "$(calls_to work_marker "$RUN")" = 20000 ] && ls "$RUN"/litifut.*.maps > /dev/null'
    done
}
