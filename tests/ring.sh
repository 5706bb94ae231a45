# The flight recorder (LITIFUT_MODE=ring: stub/tracefile.c, the
# reader's ring threads in postproc/reader/trace.c) with tests/progs/ringrun.c,
# four threads making about 16 times the calls a 64 KB ring holds:
#   exit, segv  the ring holds exactly the oracle's last calls of each
#               thread (oracle-compare --ring), the run ends as the plain
#               one does (SIGSEGV: the same signal), the header says why
#               the records end (exit, the fatal signal) and how much was
#               overwritten, and every view reads the trace, each thread
#               starting inside the calls that were open then;
#   kill        SIGKILL at a random moment: each thread's records are a
#               stretch of the oracle's calls (--ring-any), nothing torn;
#   snapshot    LITIFUT_SNAPSHOT_AT=snapshot_here freezes the ring after
#               that call: the main thread's last record is that call, the
#               rest a stretch of the oracle's, LITIFUT_COPY_TO holds the
#               frozen trace; LITIFUT_SNAPSHOT_SIGNAL and the control
#               file's word `snapshot` freeze it too, and say so (the
#               signal's copy is made then, not again at exit);
#   2G          LITIFUT_RING=2G with LITIFUT_CHUNK_KB=4 (more slots than
#               the ring's table): a 2 GB ring of 64 KB chunks, not less;
#   frozen-fork a fork child of a frozen (full) trace records a trace of
#               its own, copied to LITIFUT_COPY_TO when the child exits;
#   fork-signals  LITIFUT_SNAPSHOT_SIGNAL sent again and again to fork
#               children while their traces start: none hangs on the
#               lock (tests/progs/sigfork.c);
#   freeze      LITIFUT_SNAPSHOT_SIGNAL while five threads make calls, a
#               ring and a full trace: nothing after the freeze is in the
#               trace, the copy reads as the local trace (freeze.c).

RING_ROUNDS=8000
RING_SIZE=64K

# ring_views NAME DIR: every view reads the ring; the only line on
# stderr is the one that says what was overwritten
ring_views() {
    local name=$1 dir=$2 view
    for view in "" --profile --graph --format=chrome --format=folded --format=tsv --summary; do
        if ! "$BIN/litifut-postproc" $view "$dir" > "$dir.view" 2> "$dir.view.err"; then
            fail "$name: litifut-postproc $view fails: $(head -c 300 "$dir.view.err")"
            return 1
        fi
        if grep -v 'a ring of .* overwritten; each thread starts at its oldest whole chunk' \
               "$dir.view.err" | grep -q .; then
            fail "$name: litifut-postproc $view says: $(head -c 300 "$dir.view.err")"
            return 1
        fi
    done
}

# ring_compare NAME DIR ORACLE_DIR HOW PROG: the ring's calls against the
# oracle's (HOW: --ring or --ring-any); 0 if they agree (DIR.compare has
# the line)
ring_compare() {
    local name=$1 dir=$2 oracle=$3 how=$4 prog=$5 bias
    "$BIN/litifut-postproc" --format=tsv "$dir" > "$dir.tsv" 2> /dev/null
    bias=$("$BIN/litifut-postproc" --info "$dir" 2> /dev/null | sed -n 's/^load_bias=0x//p' | head -1)
    if ! "$PLUGINS/oracle-compare" "$how" "$prog.litifut/sites.tsv" "${bias:-0}" \
           "$oracle/calls.txt" "$dir.tsv" > "$dir.compare" 2>&1; then
        fail "$name: $(head -c 400 "$dir.compare")"
        return 1
    fi
}

# ring_last DIR TRACE: the callee of the main thread's last call in
# DIR's trace named TRACE (litifut.<pid>...)
ring_last() {
    local pid=${2#litifut.}
    "$BIN/litifut-postproc" --format=tsv "$1" 2> /dev/null |
        awk -F'\t' -v pid="${pid%%.*}" '$2 == pid { l = $12 } END { print l }'
}

# ring_info DIR KEY: the value of --info's KEY
ring_info() {
    "$BIN/litifut-postproc" --info "$1" 2> /dev/null | sed -n "s/^$2=//p" | head -1
}

# ring_background DIR PROG ENV... -- ARGS...: PROG under qemu in DIR,
# in the background; its pid in DIR/pid
ring_background() {
    local dir=$1 prog=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    rm -rf "$dir"; mkdir -p "$dir"
    cp "$prog" "$dir/prog"
    (cd "$dir" && exec env LITIFUT_DIR=. LITIFUT_MODE=ring LITIFUT_RING=$RING_SIZE "${envs[@]}" \
        "$QEMU" -L "$SYSROOT" ./prog "$@" > out 2> err < /dev/null) &
    echo $! > "$dir/pid"
}

ring_case() {   # ring_case ARCH
    set_arch "$1" || return
    local d=$WORK/ring/$ARCH src=$ROOT/tests/progs/ringrun.c
    mkdir -p "$d"
    "$TCC" -O2 -pthread -o "$d/plain" "$src" &&
        LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$d/prog" "$src" ||
        { fail "$ARCH/ring: cannot build"; return; }
    run_oracle "$d/oracle" "$d/prog.litifut/unrewritten" "$RING_ROUNDS" exit
    RINGRUN_CONTROL=control run_oracle "$d/oracle-snapshot" "$d/prog.litifut/unrewritten" \
        "$RING_ROUNDS" snapshot

    # exit and segv: the oracle's last calls (a crashing oracle run loses
    # its last lines: the exit run's calls are the same)
    local how
    for how in exit segv; do
        local r=$d/$how name="$ARCH/ring/$how"
        run_target "$r/plain" "$d/plain" "$RING_ROUNDS" "$how"
        LITIFUT_MODE=ring LITIFUT_RING=$RING_SIZE run_target "$r/traced" "$d/prog" "$RING_ROUNDS" "$how"
        if ! same_run "$r/plain" "$r/traced"; then
            fail "$name: the run differs from the plain one (exit $(cat "$r/plain/rc") vs" \
                 "$(cat "$r/traced/rc")): $(head -c 300 "$r/traced/err")"
            continue
        fi
        ring_compare "$name" "$r/traced" "$d/oracle" --ring "$d/prog" || continue
        ring_views "$name" "$r/traced" || continue
        local history snapshot want
        history=$(ring_info "$r/traced" history)
        snapshot=$(ring_info "$r/traced" snapshot)
        want="the process exited"
        [ "$how" = segv ] && want="a fatal signal \\(SIG(SEGV|BUS)\\)"
        if ! echo "$history" | grep -q "older chunks .* overwritten"; then
            fail "$name: --info does not say what was overwritten: $history"
        elif ! echo "$snapshot" | grep -Eq "^$want at "; then
            fail "$name: --info's snapshot is not \"$want\": $snapshot"
        elif ! head -3 "$r/traced.view" > /dev/null ||
             ! "$BIN/litifut-postproc" "$r/traced" 2> /dev/null | head -4 | grep -q '^# a ring of'; then
            fail "$name: the log's head does not say what was overwritten"
        else
            pass "$name: $(sed 's/^oracle-compare: ring: //' "$r/traced.compare"); $snapshot"
        fi
    done

    # SIGKILL at a random moment (within the rounds or after them)
    local r=$d/kill name="$ARCH/ring/kill" ms=$((200 + RANDOM % 1300))
    ring_background "$r" "$d/prog" -- "$RING_ROUNDS" spin
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -KILL "$(cat "$r/pid")" 2> /dev/null
    wait "$(cat "$r/pid")" 2> /dev/null
    if ! ls "$r"/litifut.*.trace > /dev/null 2>&1; then
        fail "$name: no trace after SIGKILL at $ms ms"
    elif ring_compare "$name" "$r" "$d/oracle" --ring-any "$d/prog" && ring_views "$name" "$r"; then
        pass "$name: killed at $ms ms: $(sed 's/^oracle-compare: ring: //' "$r.compare")"
    fi

    # LITIFUT_SNAPSHOT_AT: frozen after the call, copied out
    r=$d/snapshot name="$ARCH/ring/snapshot-at"
    rm -rf "$r.usb"; mkdir -p "$r.usb"
    LITIFUT_MODE=ring LITIFUT_RING=$RING_SIZE LITIFUT_SNAPSHOT_AT=snapshot_here LITIFUT_COPY_TO=$r.usb \
        RINGRUN_CONTROL=control run_target "$r" "$d/prog" "$RING_ROUNDS" snapshot
    RINGRUN_CONTROL=control run_target "$r.plain" "$d/plain" "$RING_ROUNDS" snapshot
    local trace last copy_last
    trace=$(cd "$r" && ls litifut.*.trace 2> /dev/null)
    last=$(ring_last "$r" "$trace")
    copy_last=$(ring_last "$r.usb" "$trace")
    if ! same_run "$r.plain" "$r"; then
        fail "$name: the run differs from the plain one: $(head -c 300 "$r/err")"
    elif [ -z "$trace" ] || [ "$copy_last" != "snapshot_here+0x0" ] ||
         ! ring_info "$r.usb" snapshot | grep -q "^a call of LITIFUT_SNAPSHOT_AT at "; then
        fail "$name: LITIFUT_COPY_TO does not hold the frozen trace: $(ls -A "$r.usb"), its last call $copy_last"
    elif [ "$last" != "snapshot_here+0x0" ]; then
        fail "$name: the main thread's last record is not the call of snapshot_here: $last"
    elif ! ring_info "$r" snapshot | grep -q "^a call of LITIFUT_SNAPSHOT_AT at "; then
        fail "$name: --info's snapshot: $(ring_info "$r" snapshot)"
    elif ring_compare "$name" "$r" "$d/oracle-snapshot" --ring-any "$d/prog" && ring_views "$name" "$r"; then
        pass "$name: frozen after snapshot_here, copied: $(sed 's/^oracle-compare: ring: //' "$r.compare")"
    fi

    # LITIFUT_SNAPSHOT_SIGNAL: frozen while the program goes on, copied
    # then and not again when it exits (SIGUSR1 ends its spin; the copy
    # is removed before); the control file's word: written by the
    # program halfway
    r=$d/snapshot-signal name="$ARCH/ring/snapshot-signal"
    rm -rf "$r.usb"; mkdir -p "$r.usb"
    ring_background "$r" "$d/prog" LITIFUT_SNAPSHOT_SIGNAL=USR2 LITIFUT_COPY_TO="$r.usb" -- \
        "$RING_ROUNDS" spin
    sleep 0.5
    kill -USR2 "$(cat "$r/pid")"
    local i copied=
    for i in $(seq 100); do
        ls "$r.usb"/litifut.*.trace > /dev/null 2>&1 && copied=1 && break
        sleep 0.1
    done
    sleep 0.5
    rm -f "$r.usb"/litifut.*
    kill -USR1 "$(cat "$r/pid")"
    for i in $(seq 200); do
        kill -0 "$(cat "$r/pid")" 2> /dev/null || break
        sleep 0.1
    done
    kill -KILL "$(cat "$r/pid")" 2> /dev/null
    wait "$(cat "$r/pid")" 2> /dev/null
    if [ -z "$copied" ]; then
        fail "$name: LITIFUT_COPY_TO got no copy when the ring froze"
    elif ls "$r.usb"/litifut.* > /dev/null 2>&1 || ! grep -q '^ringrun spin' "$r/out"; then
        fail "$name: the frozen ring was copied again at exit ($(ls -A "$r.usb")), or the run did not end: $(cat "$r/out")"
    else
        ring_frozen "$name" "$r" "LITIFUT_SNAPSHOT_SIGNAL (SIGUSR2)" "$d/oracle" "$d/prog"
    fi
    r=$d/snapshot-control name="$ARCH/ring/snapshot-control"
    rm -rf "$r"; mkdir -p "$r"
    echo on > "$r/control"
    LITIFUT_MODE=ring LITIFUT_RING=$RING_SIZE LITIFUT_CONTROL=$r/control \
        RINGRUN_CONTROL=$r/control run_target "$r/run" "$d/prog" "$RING_ROUNDS" snapshot
    if ! same_run "$r/run" "$d/snapshot.plain"; then
        fail "$name: the run differs from the plain one: $(head -c 300 "$r/run/err")"
    else
        ring_frozen "$name" "$r/run" "the control file" "$d/oracle-snapshot" "$d/prog"
    fi
    ring_sizes "$ARCH"
    ring_fork "$ARCH"
    ring_freeze "$ARCH"
}

# ring_freeze ARCH: LITIFUT_SNAPSHOT_SIGNAL while five threads make calls
# (tests/progs/freeze.c), in a 64 KB ring and in a full trace: nothing
# the threads store after the freeze is in the trace (no event after the
# freeze's time), the copy LITIFUT_COPY_TO made then reads exactly as the
# trace left on the device, and the ring's header says its 4 KB chunks
ring_freeze() {
    set_arch "$1" || return
    local d=$WORK/ring/$ARCH mode r name last at
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$d/freeze" "$ROOT/tests/progs/freeze.c" ||
        { fail "$ARCH/ring/freeze: cannot build"; return; }
    for mode in ring full; do
        name=$ARCH/ring/freeze-$mode r=$d/freeze-$mode
        rm -rf "$r.usb"; mkdir -p "$r.usb"
        LITIFUT_MODE=$mode LITIFUT_RING=$RING_SIZE LITIFUT_SNAPSHOT_SIGNAL=SIGUSR2 LITIFUT_COPY_TO=$r.usb \
            run_target "$r" "$d/freeze" 20000
        "$BIN/litifut-postproc" "$r" 2> /dev/null | grep -v '^#' > "$r.log"
        "$BIN/litifut-postproc" "$r.usb" 2> /dev/null | grep -v '^#' > "$r.usb.log"
        at=$(ring_info "$r" snapshot | sed -n 's/.* at \([0-9.]*\) s$/\1/p')
        last=$(awk '{ print $1 }' "$r.log" | sort -n | tail -1)
        check "$name: frozen while 5 threads make calls: nothing after the freeze ($at s; last event $last s), the copy reads as the trace ($(wc -l < "$r.log") lines)$([ $mode = ring ] && echo ", 4 KB chunks")" \
            eval '[ "$(cat "$r/rc")" = 0 ] && grep -qx "100000 rounds" "$r/out" && [ -n "$at" ] &&
                  [ -s "$r.log" ] && [ "$(echo "$last <= $at" | bc)" = 1 ] && cmp -s "$r.log" "$r.usb.log" &&
                  { [ $mode = full ] || [ "$(ring_info "$r" chunk_size)" = 4096 ]; } &&
                  ring_views "$name" "$r"'
    done
}

# ring_frozen NAME DIR WHY ORACLE PROG: a ring frozen by WHY, its calls a
# stretch of the oracle's
ring_frozen() {
    local name=$1 r=$2 want=$3 oracle=$4 prog=$5
    if ! ring_info "$r" snapshot | grep -qF "$want at "; then
        fail "$name: --info's snapshot is not \"$want\": $(ring_info "$r" snapshot)"
    elif ! ring_info "$r" stopped | grep -q "frozen .* by a snapshot"; then
        fail "$name: --info does not say recording was frozen: $(ring_info "$r" stopped)"
    elif ring_compare "$name" "$r" "$oracle" --ring-any "$prog" && ring_views "$name" "$r"; then
        pass "$name: frozen by $want: $(sed 's/^oracle-compare: ring: //' "$r.compare")"
    fi
}

# ring_sizes ARCH: a ring of more slots than its table holds (2 GB of
# 4 KB chunks) gets larger chunks, never a smaller ring
ring_sizes() {
    set_arch "$1" || return
    local d=$WORK/ring/$ARCH r name="$ARCH/ring/2G"
    r=$d/2g
    LITIFUT_MODE=ring LITIFUT_RING=2G LITIFUT_CHUNK_KB=4 run_target "$r" "$d/prog" 2000 exit
    local ring chunk
    ring=$(ring_info "$r" ring)
    chunk=$(ring_info "$r" chunk_size)
    if [ "$(cat "$r/rc")" != 0 ] || [ "$ring" != 2147483648 ] || [ "$chunk" != 65536 ]; then
        fail "$name: LITIFUT_RING=2G LITIFUT_CHUNK_KB=4: ring=$ring chunk_size=$chunk (exit $(cat "$r/rc")): $(head -c 300 "$r/err")"
    elif ring_views "$name" "$r"; then
        pass "$name: LITIFUT_RING=2G LITIFUT_CHUNK_KB=4: a 2 GB ring of 64 KB chunks"
    fi
}

# ring_fork ARCH: a fork child of a frozen trace (tests/progs/frozenfork.c)
# records into a trace of its own, not frozen: LITIFUT_COPY_TO gets it
# when the child exits (the parent's freeze is not the child's)
ring_fork() {
    set_arch "$1" || return
    local d=$WORK/ring/$ARCH name="$ARCH/ring/frozen-fork" r t child=
    r=$d/frozenfork-run; mkdir -p "$d"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$d/frozenfork" "$ROOT/tests/progs/frozenfork.c" ||
        { fail "$name: cannot build"; return; }
    rm -rf "$r.usb"; mkdir -p "$r.usb"
    LITIFUT_RECORD=off LITIFUT_SIGNAL=SIGUSR1 LITIFUT_SNAPSHOT_SIGNAL=SIGUSR2 LITIFUT_COPY_TO=$r.usb \
        run_target "$r" "$d/frozenfork"
    for t in "$r.usb"/litifut.*.trace; do
        "$BIN/litifut-postproc" --info "$t" 2> /dev/null | grep -q '^snapshot=$' && child=$t
    done
    if [ "$(cat "$r/rc")" != 0 ] || [ -z "$child" ] ||
       [ "$("$BIN/litifut-postproc" --summary --format=tsv "$child" 2> /dev/null |
            awk -F'\t' '$2 == "child_marker" { print $1 }')" != 100 ]; then
        fail "$name: LITIFUT_COPY_TO has no copy of the child's trace with its 100 calls:" \
             "$(ls -A "$r.usb") (exit $(cat "$r/rc")): $(head -c 300 "$r/err")"
    else
        pass "$name: the child of a frozen trace records its own, copied at its exit"
    fi
    # SIGUSR2 (LITIFUT_SNAPSHOT_SIGNAL) while each of 100 fork children
    # claims its process chunk: no child may wait for its own lock
    name="$ARCH/ring/fork-signals" r=$d/sigfork-run
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$d/sigfork" "$ROOT/tests/progs/sigfork.c" ||
        { fail "$name: cannot build"; return; }
    rm -rf "$r"; mkdir -p "$r"
    (cd "$r" && LITIFUT_DIR=. LITIFUT_RECORD=off LITIFUT_SIGNAL=SIGUSR1 LITIFUT_SNAPSHOT_SIGNAL=SIGUSR2 \
        timeout -s KILL 120 "$QEMU" -L "$SYSROOT" "$d/sigfork" 100 > out 2> err; echo $? > rc)
    check "$name: 100 fork children signalled while their traces start: none hangs (exit $(cat "$r/rc"))" \
        eval '[ "$(cat "$r/rc")" = 0 ] && grep -q "^100 children" "$r/out"'
}

test_ring() {
    each_folder ring_case
}
