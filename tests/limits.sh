# The tracer never changes the program's fate, whatever the settings
# and limits (issue 21): a file size limit (RLIMIT_FSIZE) or a full disk
# stops the trace, not the program, and the trace says so in every
# view; a trace that cannot even start costs what LITIFUT_TRACE=0
# costs; a bad setting is one line naming it; a budget of any size lets
# the program end; short-lived threads cost bytes, not chunks.

# limits_prog NAME SOURCE: tests/progs/SOURCE instrumented (and plain)
# into $WORK/limits/$ARCH/NAME{,.plain}
limits_prog() {
    local d=$WORK/limits/$ARCH
    mkdir -p "$d"
    cached_object "$d/$1.o" "$TCC" -std=gnu11 -O2 -Wall -pthread "$ROOT/tests/progs/$2" &&
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -pthread -o "$d/$1" "$d/$1.o" &&
        "$TCC" -pthread -o "$d/$1.plain" "$d/$1.o"
}

# limits_stopped NAME DIR WHY: the run in DIR ended as the plain run
# did, its trace says recording stopped (WHY: the error's text) in
# --info, the log's head and every other view (one warning each).
limits_stopped() {
    local name=$1 dir=$2 why=$3 t ok=1 view
    t=$(ls "$dir"/litifut.*.trace 2> /dev/null | head -1)
    [ -n "$t" ] || { fail "$name: no trace"; return; }
    for view in --profile --graph --summary --format=tsv --format=chrome --format=folded; do
        "$BIN/litifut-postproc" "$view" "$t" > /dev/null 2> "$dir/view.err" || ok=0
        [ "$(wc -l < "$dir/view.err")" = 1 ] &&
            grep -q "recording stopped for good at .*: $why; nothing after it" "$dir/view.err" || ok=0
    done
    check "$name: same output and exit status as untraced; the trace says it stopped ($why) in --info, the log and every view" \
        eval 'same_run "$dir" "$WORK/limits/$ARCH/plain-run" && [ "$ok" = 1 ] &&
              "$BIN/litifut-postproc" --info "$t" 2> /dev/null |
                  grep -q "^stopped=recording stopped for good at .*: $why; .*(found by thread" &&
              "$BIN/litifut-postproc" "$t" 2> /dev/null | grep -q "^# recording stopped for good at"'
}

limits_arch() {
    set_arch "$1"
    local d=$WORK/limits/$ARCH
    limits_prog ch callheavy.c || { fail "$ARCH/limits: cannot build"; return; }
    run_target "$d/plain-run" "$d/ch.plain" 3

    # RLIMIT_FSIZE: the program ends as it would have, never by SIGXFSZ
    rm -rf "$d/fsize" && mkdir -p "$d/fsize"
    (cd "$d/fsize" && ulimit -f 100 && LITIFUT_DIR=. timeout 600 "$QEMU" -L "$SYSROOT" "$d/ch" 3 \
        > out 2> err; echo $? > rc)
    limits_stopped "$ARCH/limits: ulimit -f 100" "$d/fsize" "the trace file could not grow: File too large"
    # below the process block's memfd (12 KB): that is a file too (but
    # above the few KB qemu-user writes to a file of its own to show the
    # guest /proc/self/maps)
    rm -rf "$d/fsize8" && mkdir -p "$d/fsize8"
    (cd "$d/fsize8" && ulimit -f 8 && LITIFUT_DIR=. timeout 600 "$QEMU" -L "$SYSROOT" "$d/ch" 3 \
        > out 2> err; echo $? > rc)
    check "$ARCH/limits: ulimit -f 8: same output and exit status as untraced (exit $(cat "$d/fsize8/rc"))" \
        same_run "$d/fsize8" "$d/plain-run"

    # a full disk (a 256 KB tmpfs: root only)
    mkdir -p "$d/full"
    if mount -t tmpfs -o size=256k litifut-test "$d/full" 2> /dev/null; then
        (cd "$d/full" && LITIFUT_DIR=. timeout 600 "$QEMU" -L "$SYSROOT" "$d/ch" 3 > "$d/full.out" \
            2> "$d/full.err"; echo $? > "$d/full.rc")
        mkdir -p "$d/full-run" && cp "$d/full"/litifut.* "$d/full-run/" && umount "$d/full"
        mv "$d/full.out" "$d/full-run/out"; mv "$d/full.rc" "$d/full-run/rc"
        limits_stopped "$ARCH/limits: a full disk" "$d/full-run" "the trace file could not grow: No space left on device"
    else
        pass "$ARCH/limits: a full disk: skipped (mounting a tmpfs needs root)"
    fi

    # no trace at all (LITIFUT_DIR cannot be made: a file is in its
    # way): the "off" code's cost
    local off nodir
    LITIFUT_TRACE=0 run_in "$d/off" "$d/ch" -plugin "$PLUGINS/insncount.so,outfile=n" -- 1
    : > "$d/in-the-way"
    LITIFUT_DIR=$d/in-the-way/dir "$QEMU" -plugin "$PLUGINS/insncount.so,outfile=$d/nodir.n" \
        -L "$SYSROOT" "$d/ch" 1 > "$d/nodir.out" 2> "$d/nodir.err"
    off=$(cat "$d/off/n"); nodir=$(cat "$d/nodir.n")
    check "$ARCH/limits: no trace file (LITIFUT_DIR cannot be made) costs what LITIFUT_TRACE=0 does ($nodir and $off guest instructions), one line" \
        eval '[ "$nodir" -le $((off + off / 100)) ] && [ "$(wc -l < "$d/nodir.err")" = 1 ] &&
              grep -q "cannot create trace file $d/in-the-way/dir/litifut.*: Not a directory" "$d/nodir.err"'

    # short-lived threads: a few hundred bytes each, not a chunk each
    limits_prog st shortthreads.c || { fail "$ARCH/limits: cannot build"; return; }
    run_target "$d/threads" "$d/st" 500 60
    local size rec calls
    size=$(stat -c %s "$d"/threads/litifut.*.trace)
    rec=$("$BIN/litifut-postproc" --info "$d/threads" | sed -n 's/^record_bytes=//p')
    calls=$("$BIN/litifut-postproc" --summary --format=tsv "$d/threads" |
            awk -F'\t' '$2 == "thread_marker" { print $1 }')
    check "$ARCH/limits: 500 threads of 60 calls: $size bytes of trace for $rec of records, every call ($calls)" \
        eval '[ "$(cat "$d/threads/rc")" = 0 ] && [ "$calls" = 30000 ] &&
              [ "$size" -le $((3 * rec + 65536)) ]'

    # a budget of any size: the program ends, every call recorded or counted
    local b all got budgets="2us/4us 1us/10us"
    [ "${TEST_FULL:-0}" = 1 ] && budgets="$budgets 1us/2us"
    run_target "$d/two" "$d/st" 2 50000
    all=$(( $(sed -n 's/^calls=//p' < <("$BIN/litifut-postproc" --info "$d/two")) ))
    for b in $budgets; do
        TIMEOUT=120 LITIFUT_BUDGET=$b run_target "$d/budget" "$d/st" 2 50000
        got=$("$BIN/litifut-postproc" --info "$d/budget" |
              awk -F= '$1 == "calls" { n += $2 }
                       $1 == "recording" { sub(/ calls* not recorded$/, "", $2); sub(/.*, /, "", $2); n += $2 }
                       END { print n }')
        check "$ARCH/limits: LITIFUT_BUDGET=$b, two threads: the program ends as untraced; calls recorded or counted $got of $all" \
            eval '[ "$(cat "$d/budget/rc")" = 0 ] && [ "$got" = "$all" ]'
    done
    # MIPS: a recording switch in a PIE whose far calls go through the
    # run-time bridge (bigtext.c) once waited for the lock it held
    if [ "${ARCH#mips}" != "$ARCH" ]; then
        limits_prog bigtext bigtext.c
        TIMEOUT=60 LITIFUT_RECORD=off LITIFUT_SIGNAL=SIGUSR2 run_target "$d/bridge" "$d/bigtext"
        run_target "$d/bridge-plain" "$d/bigtext.plain"
        check "$ARCH/limits: recording off at start in a PIE with a bridge: runs as untraced" \
            same_run "$d/bridge" "$d/bridge-plain"
    fi
    # ... and a signal still ends a budgeted program at once
    if [ "$ARCH" = arm ] || [ "$ARCH" = mips ] || [ "${TEST_FULL:-0}" = 1 ]; then
        (cd "$d" && LITIFUT_DIR=. LITIFUT_BUDGET=2us/4us timeout -s KILL 60 \
            timeout --preserve-status -s TERM 2 "$QEMU" -L "$SYSROOT" ./ch 1000 > /dev/null 2>&1
         echo $? > "$d/term.rc")
        rm -f "$d"/litifut.*
        check "$ARCH/limits: LITIFUT_BUDGET=2us/4us: SIGTERM ends the program (exit $(cat "$d/term.rc"))" \
            [ "$(cat "$d/term.rc")" = 143 ]
    fi

    # bad settings: one line naming the variable and what it takes, no
    # trace (A=x,B=y: two settings, bad together; the line names A)
    local e bad=
    run_target "$d/plain-run-1" "$d/ch.plain"
    for e in LITIFUT_CHUNK_KB=0 LITIFUT_CHUNK_KB=abc LITIFUT_CHUNK_KB=99999999999 \
             LITIFUT_CHUNK_KB=100 LITIFUT_TIME_EVERY=abc LITIFUT_CLOCK=bogus \
             LITIFUT_RETURNS=yes LITIFUT_RECORD=maybe LITIFUT_TRACE=bogus \
             LITIFUT_SIGNAL=SIGKILL LITIFUT_SIGNAL=9 LITIFUT_SIGNAL=999 LITIFUT_SIGNAL=SIGSEGV \
             LITIFUT_SIGNAL=BUS LITIFUT_MODE=maybe LITIFUT_BUDGET=1ms LITIFUT_RING=32K \
             LITIFUT_RING=4X LITIFUT_RING=1000 LITIFUT_RING=4G LITIFUT_SNAPSHOT_SIGNAL=SEGV \
             LITIFUT_SNAPSHOT_SIGNAL=USR2,LITIFUT_SIGNAL=SIGUSR2,LITIFUT_MODE=ring \
             LITIFUT_MAX_SIZE=32K LITIFUT_MAX_SIZE=1X LITIFUT_MAX_TOTAL=1K \
             LITIFUT_MAX_SIZE=5T; do
        (IFS=, read -ra vars <<< "$e"; export "${vars[@]}"; run_target "$d/bad" "$d/ch")
        if ! same_run "$d/bad" "$d/plain-run-1" || [ "$(wc -l < "$d/bad/err")" != 1 ] ||
           ! grep -q "^litifut: ${e%%=*}: expected " "$d/bad/err" ||
           ls "$d/bad"/litifut.* > /dev/null 2>&1; then
            bad="$bad $e"
        fi
    done
    check "$ARCH/limits: each bad setting is one line naming it and what it takes, and no trace${bad:+ (wrong:$bad)}" \
        [ -z "$bad" ]
}

test_limits() {
    each_folder limits_arch
}
