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
    (cd "$RUN" && env LITIFUT_DIR=. "$@" timeout "${TIMEOUT:-600}" "$QEMU" -L "$SYSROOT" ./prog \
        > out 2> err)
}

# calls_to FUNC TRACE: how many recorded calls went to FUNC.
calls_to() {
    "$BIN/litifut-postproc" --format=tsv "$2" 2> /dev/null | grep -c "	$1+0x0	[-0-9]*$"
}

# traces_by_pid DIR: DIR's traces, lowest pid first (as numbers: a
# child's pid may have one digit more than its parent's)
traces_by_pid() {
    local t p
    for t in "$1"/litifut.*.trace; do
        p=${t##*/litifut.}
        echo "${p%.trace} $t"
    done | sort -n | cut -d' ' -f2-
}

# A forked child traces into a file of its own, with exactly its calls.
test_fork() {
    each_folder fork_arch
}

fork_arch() {
    local parent child
    set_arch "$1"
    traced_run forks forks.c
    parent=$(traces_by_pid "$RUN" | head -1)
    child=$(traces_by_pid "$RUN" | tail -1)
    check "$ARCH/fork: parent and child trace into files of their own" \
        eval '[ "$(ls "$RUN"/litifut.*.trace | wc -l)" = 2 ] &&
              grep -q "parent done, child exit 0" "$RUN/out" &&
              [ "$(calls_to parent_marker "$parent")" = 200 ] &&
              [ "$(calls_to child_marker "$parent")" = 0 ] &&
              [ "$(calls_to before_fork "$parent")" = 10 ] &&
              [ "$(calls_to child_marker "$child")" = 300 ] &&
              [ "$(calls_to parent_marker "$child")" = 0 ]'
    fork_views "$parent" "$child"
    fork_off "$parent" "$child"
    # (mips: the same fork handlers, the slowest storm under qemu;
    # TEST_FULL runs it)
    case $ARCH in mips*) [ "${TEST_FULL:-0}" = 1 ] && fork_storm ;; *) fork_storm ;; esac
}

# fork_storm: threads that fork at once, and signal handlers that fork
# (forkstorm.c): every child traces into a file of its own with exactly
# its 20 calls, the parent's trace has exactly its own, nothing hangs.
# (A handler that interrupted the tracer records nothing, as always:
# its fork child, which calls and exits inside it, may have no trace.)
fork_storm() {
    local args summary
    for args in "4 20" "3 8 signal"; do
        RUN=$WORK/forkstorm-${args// /-}/$ARCH
        mkdir -p "$RUN"
        rm -f "$RUN/pp.all"
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$RUN/prog" \
            "$ROOT/tests/progs/forkstorm.c"
        (cd "$RUN" && LITIFUT_DIR=. timeout -s KILL 120 "$QEMU" -L "$SYSROOT" ./prog $args \
            > out 2> err; echo $? > rc)
        summary=$(for t in "$RUN"/litifut.*.trace; do
                      "$BIN/litifut-postproc" --format=tsv "$t" 2>> "$RUN/pp.all" |
                          awk -F'\t' '{ n[$12]++ } END { printf "%d/%d/%d\n", n["child_work+0x0"],
                                       n["parent_wait+0x0"], n["thread_work+0x0"] }'
                  done | sort | uniq -c | awk '{ printf "%s %s, ", $1, $2 }')
        but_unrecorded_signals < "$RUN/pp.all" > "$RUN/pp.err"
        local n=$(awk '{ print $1 }' "$RUN/out") threads=${args%% *} forks
        forks=$(echo "$args" | awk '{ print $2 }')
        local parent="1 0/$((threads * forks))/$((threads * forks * 50)), " traced
        traced=$(echo "$summary" | sed -n 's|.*, \([0-9]*\) 20/0/0, $|\1|p')
        check "$ARCH/fork/storm ($args): each child its own trace, the parent's own calls only ($summary)" \
            eval '[ "$(cat "$RUN/rc")" = 0 ] && [ ! -s "$RUN/pp.err" ] && [ -n "$n" ] &&
                  [ "$summary" = "$parent$traced 20/0/0, " ] &&
                  [ "$traced" -ge $((threads * forks)) ] && [ "$traced" -le "$n" ]'
    done
}

# fork_off PARENT CHILD (a full run's traces): with recording off, the
# child's calls are still accounted for: its own trace says off from its
# start, and counts exactly the calls the full run's child recorded.
fork_off() {
    local full_p full_c d=$WORK/runs/$ARCH/fork-off counts
    full_p=$("$BIN/litifut-postproc" --info "$1" | sed -n 's/^calls=//p')
    full_c=$("$BIN/litifut-postproc" --info "$2" | sed -n 's/^calls=//p')
    LITIFUT_RECORD=off LITIFUT_SIGNAL=SIGUSR2 run_target "$d" "$RUN/prog"
    counts=$(for t in "$d"/litifut.*.trace; do
                 "$BIN/litifut-postproc" --info "$t" | sed -n 's/^recording=.*, \([0-9]*\) calls* not recorded$/\1/p'
             done | sort -n | paste -sd' ')
    check "$ARCH/fork: recording off, the child's calls counted in its own trace ($counts; a full run's $full_p and $full_c)" \
        eval '[ "$(cat "$d/rc")" = 0 ] && [ "$counts" = "$(printf "%s\n" "$full_p" "$full_c" | sort -n | paste -sd" ")" ]'
}

# fork_views PARENT CHILD: the post-processor on both processes' traces
# at once.  The combined log has each process's call lines (its own
# log's, times moved by the child's start after the parent's), the
# child's first call after the start of the parent's fork (the fork's
# line comes when it ends: maybe after the child's first lines); --pid picks one process;
# --profile --per-process gives each process's table, then the sum.
fork_views() {
    local parent=$1 child=$2 ppid cpid offset
    ppid=$(sed -n 's/^pid=//p' < <("$BIN/litifut-postproc" --info "$parent"))
    cpid=$(sed -n 's/^pid=//p' < <("$BIN/litifut-postproc" --info "$child"))
    "$BIN/litifut-postproc" "$RUN" > "$RUN/combined.log" 2> "$RUN/combined.err"
    offset=$(sed -n 's/^# starts at *\([0-9.]*\) s, after the first trace$/\1/p' "$RUN/combined.log")
    local ok=1 p
    for p in "$parent:$ppid:0" "$child:$cpid:$offset"; do
        IFS=: read -r file pid off <<< "$p"
        # the call lines of that process, times moved back to its own start
        # (a line: time, a duration ("12.5 us") unless it opens a block, tid, ...)
        awk -v tid="$pid" -v off="${off:-0}" '/^ +[0-9]/ && ($4 == tid || $2 == tid && $3 !~ /s$/) {
                $1 = sprintf("%.9f", $1 - off); print }' "$RUN/combined.log" > "$RUN/$pid.mine"
        "$BIN/litifut-postproc" "$file" |
            awk '/^ +[0-9]/ { $1 = sprintf("%.9f", $1); print }' > "$RUN/$pid.own"
        cmp -s "$RUN/$pid.mine" "$RUN/$pid.own" || ok=0
    done
    check "$ARCH/fork/combined: one log of both processes, each one's calls as its own log has them" \
        eval '[ "$ok" = 1 ] && [ ! -s "$RUN/combined.err" ] && [ -n "$offset" ] &&
              [ "$(grep -c "^# .*pid " "$RUN/combined.log")" = 2 ] &&
              awk -v p="$ppid" "/main -> fork/ && \$4 == p { f = \$1 }
                  /-> child_marker/ && !seen { seen = \$1 } END { exit !(f && seen > f) }" \
                  "$RUN/combined.log"'
    check "$ARCH/fork/pid: --pid=CHILD shows the child's calls only" \
        eval '"$BIN/litifut-postproc" --summary --pid="$cpid" "$RUN" > "$RUN/pid.out" &&
              grep -q " 300 *child_marker" "$RUN/pid.out" && ! grep -q parent_marker "$RUN/pid.out"'
    "$BIN/litifut-postproc" --profile --per-process "$RUN" > "$RUN/per-process.out"
    check "$ARCH/fork/per-process: a profile per process, then both added up" \
        eval 'awk "/^# pid $ppid: /{s=1} /^# pid $cpid: /{s=2} /^# all 2 processes/{s=3}
                   s && / parent_marker\$/ { n[s] += \$6 } s && / child_marker\$/ { m[s] += \$6 }
                   END { exit !(n[1] == 200 && m[2] == 300 && n[3] == 200 && m[3] == 300 &&
                                !n[2] && !m[1]) }" "$RUN/per-process.out"'
}

# Signals hitting the tracer anywhere: main's calls all recorded, each
# delivery recorded with its handler's call or counted as not (the
# header's signals_unrecorded, which every view says), the trace readable.
test_signals() {
    local arch main_calls handler_calls handled lost
    for arch in $(folder_arches); do
        set_arch "$arch"
        traced_run signals sigstress.c
        "$BIN/litifut-postproc" --format=tsv "$RUN" > /dev/null 2> "$RUN/pp.err"
        main_calls=$(calls_to main_marker "$RUN")
        handler_calls=$(calls_to handler_marker "$RUN")
        handled=$(cat "$RUN/err")                   # the program's own count
        lost=$("$BIN/litifut-postproc" --info "$RUN" 2> /dev/null | sed -n 's/^signals_unrecorded=//p')
        # every delivery is recorded (its handler's one call with it) or
        # counted as not, and every view says how many were not
        if grep -q "done: 200000 calls" "$RUN/out" && [ "$main_calls" = 200000 ] &&
           [ "$handled" -gt 0 ] && [ $((handler_calls + ${lost:-0})) = "$handled" ] &&
           { [ "${lost:-0}" = 0 ] && [ ! -s "$RUN/pp.err" ] ||
             { [ "$(wc -l < "$RUN/pp.err")" = 1 ] &&
               grep -q ": $lost signal deliveries not recorded, nor their handler's calls" "$RUN/pp.err"; }; }; then
            pass "$ARCH/signals: all 200000 calls of the interrupted thread recorded;" \
                 "$handled deliveries: $handler_calls recorded with their handler's call, $lost" \
                 "counted as not (they interrupted the tracer), and said"
        else
            fail "$ARCH/signals: main $main_calls of 200000, handler $handler_calls + $lost not recorded" \
                 "of $handled, $(head -c 200 "$RUN/pp.err")"
        fi
    done
}

# The tracer takes nothing from the program's heap and leaves main's
# stack where it was (tests/progs/memplace.c): every setting's traced
# run prints the addresses its run with tracing off prints (the same
# environment but LITIFUT_TRACE's value, and run directories whose names
# have one length: $PWD is in it), PIE and static.
test_memory() {
    local arch link settings flags d
    for arch in $ARCHES; do
        set_arch "$arch"
        for link in pie static; do
            flags=()
            [ "$link" = static ] && flags=(-static)
            d=$WORK/memory/$ARCH-$link
            mkdir -p "$d"
            if ! LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 "${flags[@]}" -o "$d/prog" \
                 "$ROOT/tests/progs/memplace.c"; then
                fail "$ARCH/memory/$link: cannot build"
                continue
            fi
            for settings in "" "LITIFUT_RETURNS=0" "LITIFUT_CLOCK=marks" "LITIFUT_MODE=ring" \
                            "LITIFUT_MODE=count"; do
                ( [ -z "$settings" ] || export "${settings?}"
                  LITIFUT_TRACE=1 run_target "$d/t1" "$d/prog"
                  LITIFUT_TRACE=0 run_target "$d/t0" "$d/prog" )
                if ls "$d/t1"/litifut.*.trace > /dev/null 2>&1 && [ "$(cat "$d/t1/rc")" = 0 ] &&
                   [ -s "$d/t1/out" ] && cmp -s "$d/t1/out" "$d/t0/out"; then
                    pass "$ARCH/memory/$link${settings:+ ($settings)}: heap and stack as untraced: $(head -1 "$d/t1/out")"
                else
                    fail "$ARCH/memory/$link${settings:+ ($settings)}: traced (exit $(cat "$d/t1/rc")):" \
                         "$(tr '\n' ' ' < "$d/t1/out")$(head -c 200 "$d/t1/err"); untraced:" \
                         "$(tr '\n' ' ' < "$d/t0/out")"
                fi
            done
        done
    done
}

# A daemon closes the trace file's descriptor, changes directory and
# reuses the number: the tracer reopens the file and loses nothing.
test_daemon() {
    local arch
    for arch in $(folder_arches); do
        set_arch "$arch"
        traced_run daemon daemon.c LITIFUT_CHUNK_KB=4
        "$BIN/litifut-postproc" --format=tsv "$RUN" > /dev/null 2> "$RUN/pp.err"
        check "$ARCH/daemon: closed, reused descriptor and chdir /: all 20000 calls recorded, maps kept" \
            eval 'grep -q "^done" "$RUN/out" && [ ! -s "$RUN/err" ] && [ ! -s "$RUN/pp.err" ] &&
                  [ "$(calls_to work_marker "$RUN")" = 20000 ] && ls "$RUN"/litifut.*.maps > /dev/null'
    done
}

# Signal handlers that leave with siglongjmp, abandoning the tracer
# mid-call, in two threads with small chunks: no hang, and every call
# that reached its callee recorded (at most one more per jump: a call
# recorded but abandoned before it was passed on).
test_sigjump() {
    local arch executed jumps recorded
    for arch in $(folder_arches); do
        set_arch "$arch"
        TIMEOUT=300 traced_run sigjump sigjump.c LITIFUT_CHUNK_KB=4
        # (deliveries while the tracer worked are counted, not recorded:
        # the one warning that may come, and it changes no worker call)
        "$BIN/litifut-postproc" --format=tsv "$RUN" > "$RUN/trace.tsv" 2> "$RUN/pp.all"
        but_unrecorded_signals < "$RUN/pp.all" > "$RUN/pp.err"
        executed=$(sed -n 's/^executed //p' "$RUN/out")
        jumps=$(sed -n 's/^jumps //p' "$RUN/out")
        recorded=$(grep -c "	worker_marker+0x0	[-0-9]*$" "$RUN/trace.tsv")
        if [ -n "$executed" ] && [ "${jumps:-0}" -gt 0 ] && [ ! -s "$RUN/err" ] &&
           [ ! -s "$RUN/pp.err" ] && [ "$recorded" -ge "$executed" ] &&
           [ "$recorded" -le $((executed + jumps)) ]; then
            pass "$ARCH/sigjump: $jumps siglongjmps out of handlers;" \
                 "$recorded recorded of $executed executed calls (+ at most one per jump)"
        else
            fail "$ARCH/sigjump: recorded $recorded, executed ${executed:-?}, jumps ${jumps:-?}" \
                 "$(head -c 200 "$RUN/err" "$RUN/pp.err")"
        fi
    done
}

# vfork children, and static glibc's posix_spawn child (clone with
# CLONE_VM), share the parent's memory: they record nothing, and the
# parent's calls before and after are all recorded.
test_spawn() {
    local arch link
    for arch in $(folder_arches); do
        set_arch "$arch"
        for link in dynamic static; do
            local flags=()
            [ "$link" = static ] && flags=(-static)
            RUN=$WORK/spawn/$ARCH-$link
            mkdir -p "$RUN"
            LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 "${flags[@]}" -o "$RUN/prog" \
                "$ROOT/tests/progs/spawn.c"
            (cd "$RUN" && LITIFUT_DIR=. timeout 300 "$QEMU" -L "$SYSROOT" ./prog > out 2> err)
            "$BIN/litifut-postproc" --format=tsv "$RUN" > "$RUN/trace.tsv" 2> "$RUN/pp.err"
            check "$ARCH/spawn/$link: vfork and posix_spawn children record nothing, all 700 parent calls recorded" \
                eval '[ "$(grep -c "child exit 7" "$RUN/out")" = 3 ] &&
                      grep -q "spawned child exit 3" "$RUN/out" && [ ! -s "$RUN/pp.err" ] &&
                      [ "$(ls "$RUN"/litifut.*.trace | wc -l)" = 1 ] &&
                      [ "$(grep -c "	parent_marker+0x0	[-0-9]*$" "$RUN/trace.tsv")" = 700 ] &&
                      ! grep -q "child_marker\|__spawni_child" "$RUN/trace.tsv"'
        done
    done
}

# The tracer's files: never written through a symbolic link, a
# LITIFUT_DIR too long for the tracer refused (not cut short), and
# errors in words, not numbers.
test_tracefiles() {
    local arch long longroot
    for arch in $(folder_arches); do
        set_arch "$arch"
        RUN=$WORK/tracefiles/$ARCH
        mkdir -p "$RUN"
        echo "maps victim" > "$RUN/victim-maps"
        : > "$RUN/victim-trace"
        traced_run tracefiles symlinks.c LITIFUT_CHUNK_KB=4
        check "$ARCH/tracefiles: planted symlinks are not written through; one warning" \
            eval 'grep -q "^done" "$RUN/out" && [ "$(cat "$RUN/victim-maps")" = "maps victim" ] &&
                  [ ! -s "$RUN/victim-trace" ] && [ "$(wc -l < "$RUN/err")" = 1 ] &&
                  grep -q "cannot reopen trace file .*symbolic links; recording stopped, the trace ends here" "$RUN/err" &&
                  [ -f "$(ls "$RUN"/litifut.*.maps)" ] && [ ! -L "$(ls "$RUN"/litifut.*.maps)" ]'

        longroot=$RUN/long
        long=$longroot
        for _ in 1 2 3 4 5 6; do long=$long/$(printf 'd%.0s' $(seq 90)); done
        mkdir -p "$long"
        traced_run tracefiles-long demo.c LITIFUT_DIR="$long"
        check "$ARCH/tracefiles: a LITIFUT_DIR over the tracer's limit is refused with one line" \
            eval '[ "$(wc -l < "$RUN/err")" = 1 ] && grep -q "LITIFUT_DIR.*longer than 535" "$RUN/err" &&
                  [ -z "$(find "$longroot" "$RUN" -name "litifut.*")" ] &&
                  [ -s "$RUN/out" ]'
        traced_run tracefiles-missing demo.c LITIFUT_DIR=/dev/null/dir
        check "$ARCH/tracefiles: a LITIFUT_DIR that cannot be made is named with the system's message" \
            eval '[ "$(wc -l < "$RUN/err")" = 1 ] &&
                  grep -q "cannot create trace file /dev/null/dir/litifut.*: Not a directory; tracing disabled" "$RUN/err"'
        # (sysfs makes no directories, for root neither)
        traced_run tracefiles-unmade demo.c LITIFUT_DIR=/sys/litifut-test/a
        check "$ARCH/tracefiles: a LITIFUT_DIR whose making fails is named with the system's message" \
            eval '[ "$(wc -l < "$RUN/err")" = 1 ] &&
                  grep -q "cannot create directory /sys/litifut-test/a: .*; tracing disabled" "$RUN/err"'
        local pat bad_pat=
        for pat in %x a% %e/%; do
            traced_run tracefiles-pattern demo.c LITIFUT_DIR="$pat"
            [ "$(wc -l < "$RUN/err")" = 1 ] && grep -q "^litifut: LITIFUT_DIR: expected a directory whose patterns are %p" "$RUN/err" &&
                ! ls "$RUN"/litifut.* > /dev/null 2>&1 && [ -s "$RUN/out" ] || bad_pat="$bad_pat $pat"
        done
        check "$ARCH/tracefiles: a LITIFUT_DIR pattern the tracer does not know is one line and no trace (wrong:$bad_pat)" \
            [ -z "$bad_pat" ]
        # a missing one is made, patterns expanded (%e program, %p pid)
        local made=$WORK/tracefiles-made-$ARCH
        rm -rf "$made"
        traced_run tracefiles-made demo.c LITIFUT_DIR="$made/a/%e/%p-%%"
        check "$ARCH/tracefiles: a missing LITIFUT_DIR is made (mode 755 less the umask), its patterns expanded" \
            eval '[ ! -s "$RUN/err" ] && [ "$(stat -c %a "$made/a")" = 755 ] &&
                  ls "$made"/a/prog/[0-9]*-%/litifut.[0-9]*.trace > /dev/null &&
                  p=$(ls "$made"/a/prog) && p=${p%-%} &&
                  [ -f "$made/a/prog/$p-%/litifut.$p.trace" ]'
    done
}
