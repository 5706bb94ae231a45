# litifut-emu (emu/): traces with no device.  On every arch, test
# programs run under litifut-emu as they run under qemu-user (output,
# exit status), and their calls and returns equal the call oracle's
# (calltrace.so returns=on), thread by thread: the plain build (every
# call of the process), and the instrumented build (its rewritten calls
# seen as the calls they were), whose calls at rewritten sites must
# also equal the device-mode trace of the same binary, targets exactly
# (pagecall.c: a MIPS call in a page's last word, whose delay slot QEMU
# runs as a block of its own, is no artefact here).  Two runs give
# byte-identical profiles (the instruction clock); every view reads the
# trace and --info says where it came from; signals are events; the
# trace control (start at, stop at, the control file) works; a fork
# child has its own trace.  Tail jumps (tests/progs/jumps.c): every
# function as many calls as the program counted, under the emulator
# (plain and instrumented) and on the device.

# emu_run DIR PROG [OPTIONS...] -- ARGS...: PROG copied to DIR/prog and
# run there under litifut-emu (stdout DIR/out, stderr DIR/err, exit
# status DIR/rc; the trace goes to DIR).  The environment is run_in's
# (LITIFUT_DIR too): musl's dynamic linker calls strncmp per variable.
emu_run() {
    local dir=$1 prog=$2 opts=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
    shift
    rm -rf "$dir"; mkdir -p "$dir"
    cp "$prog" "$dir/prog"
    (cd "$dir" && LITIFUT_DIR=. timeout 600 "$BIN/litifut-emu" -o . -L "$SYSROOT" "${opts[@]}" ./prog "$@" \
        > out 2> err < /dev/null
     echo $? > rc)
}

# emu_build DIR SOURCE [FLAGS...]: DIR/plain and DIR/prog (instrumented,
# LITIFUT_KEEP=1) from tests/progs/SOURCE; 1 after a fail.
emu_build() {
    local d=$1 src=$2 cc=$TCC
    shift 2
    [ "${src##*.}" = cc ] && cc=$TCXX
    mkdir -p "$d"
    if ! "$cc" -O2 -pthread "$@" -o "$d/plain" "$ROOT/tests/progs/$src" 2> "$d/cc.err" ||
       ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$cc" -B"$BIN/" -O2 -pthread "$@" -o "$d/prog" \
           "$ROOT/tests/progs/$src" 2>> "$d/cc.err"; then
        fail "$ARCH/emu: cannot build $src: $(head -c 300 "$d/cc.err")"
        return 1
    fi
}

# emu_oracle_case NAME DIR BINARY ORACLE-BINARY: BINARY under
# litifut-emu behaves as under qemu, and its calls and returns equal the
# oracle's on ORACLE-BINARY (the same layout).
emu_oracle_case() {
    local name=$1 d=$2 bin=$3 oracle_bin=$4 unordered=() cmp
    emu_run "$d/emu" "$bin" --
    # (the instrumented binary's tracer stays off under litifut-emu: so
    # in the oracle's run of its unrewritten twin)
    LITIFUT_TRACE=0 run_in "$d/oracle" "$oracle_bin" -plugin "$PLUGINS/$ORACLE,returns=on" --
    # C++ exceptions close frames late in the oracle (tests/returns.sh)
    case $name in *cxx*) unordered=(--unordered) ;; esac
    if ! same_run "$d/emu" "$d/oracle" || [ -s "$d/emu/err" ]; then
        fail "$name: differs from the run under qemu (exit $(cat "$d/emu/rc") vs" \
             "$(cat "$d/oracle/rc"); $(head -c 200 "$d/emu/err"); see $d)"
    elif cmp=$("$PLUGINS/returns-compare" "${unordered[@]}" "$d/emu"/litifut.*.trace \
                 "$d/oracle/calls.txt" 2>&1); then
        pass "$name: ${cmp#returns-compare: }"
    else
        fail "$name: calls and returns differ from the oracle's: $(head -c 400 <<< "$cmp")"
    fi
}

# emu_device_case DIR NAME: the instrumented DIR/prog's device-mode
# trace equals the emulator's (DIR/i/emu, emu_oracle_case's) at its
# rewritten sites: the emulator's calls as the oracle's lines
# ("tid site target"), the device's trace as oracle-compare reads one.
emu_device_case() {
    local b=$1 name=$ARCH/emu/$2/device bias cmp
    run_target "$b/device" "$b/prog"
    "$pp" --format=tsv "$b/device" > "$b/device.tsv" 2> "$b/device.err"
    "$pp" --format=tsv "$b/i/emu" 2> "$b/emu-tsv.err" |
        awk -F'\t' 'NR > 1 { sub(/^0x/, "", $4); sub(/^0x/, "", $5); print $2, $4, $5 }' \
        > "$b/emu-calls.txt"
    "$pp" --info "$b/device" > "$b/device.info" 2>&1
    bias=$(sed -n 's/^load_bias=0x//p' "$b/device.info" | head -1)
    if cmp=$("$PLUGINS/oracle-compare" --exact "$b/prog.litifut/sites.tsv" "$bias" "$b/emu-calls.txt" \
               "$b/device.tsv" 2>&1) && [ ! -s "$b/device.err" ] && [ ! -s "$b/emu-tsv.err" ]; then
        pass "$name: the device trace equals the emulator's at rewritten sites:" \
             "${cmp#oracle-compare: }"
    else
        fail "$name: $(head -c 400 <<< "$cmp") $(head -c 200 "$b/device.err")"
    fi
}

emu_case() {        # emu_case ARCH
    set_arch "$1"
    local d=$WORK/emu/$ARCH pp=$BIN/litifut-postproc src
    for src in calls.c threads.c pagecall.c; do
        local b=$d/${src%.*}
        emu_build "$b" "$src" || continue
        emu_oracle_case "$ARCH/emu/${src%.*}/plain" "$b" "$b/plain" "$b/plain"
        emu_oracle_case "$ARCH/emu/${src%.*}/instrumented" "$b/i" "$b/prog" \
            "$b/prog.litifut/unrewritten"
    done
    for src in calls threads pagecall; do
        [ -x "$d/$src/prog" ] && emu_device_case "$d/$src" "$src"
    done
    emu_jumps
    local b=$d/calls
    [ -x "$b/prog" ] || return
    # the instruction clock: two runs, the same profile (in the same
    # directory: its name is in the program's environment and stack)
    emu_run "$b/det" "$b/plain" --
    "$pp" --profile --format=tsv "$b/det" > "$b/p1" 2>&1
    emu_run "$b/det" "$b/plain" --
    "$pp" --profile --format=tsv "$b/det" > "$b/p2" 2>&1
    check "$ARCH/emu/deterministic: two runs, byte-identical --profile --format=tsv" \
        eval 'cmp -s "$b/p1" "$b/p2" && [ "$(wc -l < "$b/p1")" -gt 10 ]'
    # every view, and what --info says
    local e=$b/emu views_ok=1 v
    for v in "" --profile --graph --format=chrome --format=folded --format=svg --format=html \
             --summary --coverage "--profile --format=tsv"; do
        # shellcheck disable=SC2086
        if ! "$pp" $v "$e" > "$b/view.out" 2> "$b/view.err" || [ -s "$b/view.err" ] ||
           [ ! -s "$b/view.out" ]; then
            views_ok=0
            fail "$ARCH/emu/views: litifut-postproc $v: $(head -c 300 "$b/view.err")"
        fi
    done
    [ $views_ok = 1 ] && pass "$ARCH/emu/views: log, profile, graph, chrome, folded, svg, html," \
                              "summary, coverage read the emulator's trace"
    "$pp" --info "$e" > "$b/info" 2>&1
    check "$ARCH/emu/info: source=emulator, clock=instructions, exact returns" \
        eval 'grep -q "^source=emulator" "$b/info" && grep -q "^clock=instructions" "$b/info" &&
              grep -q "^returns=exact" "$b/info"'
    # profile in instructions: fib's calls and a whole-number unit
    check "$ARCH/emu/profile: instructions per function (fib's self and total)" \
        eval '"$pp" --profile "$e" | grep -Eq "^ +[0-9.]+ +[0-9]+ in +[0-9]+ in +[1-9][0-9]* .* fib\$"'
    # the call stack trusts the recorded calls and returns: the dynamic
    # linker's lazy binding (a jump into its resolver at each PLT entry's
    # first call) leaves main open, called once, entered by no jump
    check "$ARCH/emu/stack: main called once and never re-entered through lazy binding" \
        eval '"$pp" --profile --format=tsv "$e" | awk -F"\t" "\$8 == \"main\" && \$1 == 1 { ok = 1 } END { exit !ok }" &&
              ! "$pp" "$e" | grep -q "(jump) -> main "'
    # signals (calls.c raises SIGUSR1 three times; its handler calls
    # sig_helper_b): each delivery an event with the handler's calls inside
    "$pp" "$e" > "$b/log" 2>&1
    check "$ARCH/emu/signals: 3 <signal SIGUSR1> events, the handler's calls inside each" \
        awk '/<signal SIGUSR1>$/ { open++; n++; next }
             /<\/signal>$/ { open--; next }
             /on_usr1 -> sig_helper_b/ { if (open == 1) inside++ }
             END { exit !(n == 3 && inside == 3 && open == 0) }' "$b/log"
    # timer signals (tests/progs/sigtimer.c: SIGALRM through sigaction,
    # signal(), SA_ONSTACK, a handler that leaves by siglongjmp; SIGUSR1,
    # SIGUSR2): as under qemu, and one <signal> per delivery the program
    # counted, each handler's calls inside its signal's lines
    if emu_build "$d/sigtimer" sigtimer.c; then
        local st=$d/sigtimer
        emu_run "$st/emu" "$st/plain" --
        run_target "$st/run" "$st/plain"
        "$pp" "$st/emu" > "$st/log" 2> "$st/log.err"
        local want got
        want=$(sed -n 's/^deliveries total //p' "$st/emu/err")
        got=$(awk '
            /<signal SIG[A-Z0-9]*> *$/ { depth++; s = $0; sub(/.*<signal /, "", s); sub(/>.*/, "", s)
                                         open[depth] = s; n++; next }
            /<\/signal> *$/ { depth--; next }
            / in_(info|plain|stack|jump)/ { if (!depth || open[depth] != "SIGALRM") bad++ }
            / in_once/ { if (!depth || open[depth] != "SIGUSR1") bad++ }
            / in_sysv/ { if (!depth || open[depth] != "SIGUSR2") bad++ }
            END { print (bad ? "bad" : n + 0) }' "$st/log")
        if same_run "$st/emu" "$st/run" && [ -n "$want" ] && [ "$got" = "$want" ] &&
           [ ! -s "$st/log.err" ]; then
            pass "$ARCH/emu/sigtimer: as under qemu; $got deliveries, each a <signal> with its handler's calls"
        else
            fail "$ARCH/emu/sigtimer: $got signal events for $want deliveries (see $st)" \
                 "$(head -c 200 "$st/log.err")"
        fi
    fi
    # the instruction clock through signal deliveries (sigcount.c): 20
    # deliveries more grow main's total by exactly the instructions they
    # add (insncount's difference; the same environment in both pairs)
    local sc=$d/sigcount n ins=() tot=()
    if emu_build "$sc" sigcount.c; then
        for n in 10 30; do
            emu_run "$sc/e$n" "$sc/plain" -- "$n" h
            run_in "$sc/i$n" "$sc/plain" -plugin "$PLUGINS/insncount.so,outfile=n.txt" -- "$n" h
            ins+=("$(cat "$sc/i$n/n.txt" 2> /dev/null)")
            tot+=("$("$pp" --profile --format=tsv "$sc/e$n" 2> /dev/null |
                     awk -F'\t' '$8 == "main" { print $2 }')")
        done
        check "$ARCH/emu/signal-clock: 20 deliveries more: main's total +$((${tot[1]:-0} - ${tot[0]:-0})) in, insncount +$((${ins[1]:-0} - ${ins[0]:-0}))" \
            eval '[ -n "${tot[0]}" ] && [ -n "${tot[1]}" ] && [ -n "${ins[0]}" ] && [ -n "${ins[1]}" ] &&
                  [ $((tot[1] - tot[0])) = $((ins[1] - ins[0])) ] && [ $((ins[1] - ins[0])) -gt 0 ]'
    fi
    # trace control: recording from a call of fib on, off after is_odd
    emu_run "$b/startstop" "$b/plain" --start-at=fib --stop-at=is_odd --
    "$pp" "$b/startstop" > "$b/startstop.log" 2> "$b/startstop.err"
    check "$ARCH/emu/control: --start-at=fib --stop-at=is_odd: the first call recorded is fib's" \
        eval 'same_run "$b/startstop" "$e" && [ ! -s "$b/startstop.err" ] &&
              grep -v "^#" "$b/startstop.log" | head -2 | grep -q -- "-> fib" &&
              grep -q "on at .* (function), off at .* (function)" "$b/startstop.log" &&
              ! grep -q "sig_helper_b" "$b/startstop.log"'
    echo off > "$b/control"
    emu_run "$b/ctl" "$b/plain" --control="$b/control" --
    "$pp" --info "$b/ctl" > "$b/ctl.info" 2>&1
    check "$ARCH/emu/control: a control file that says off: no call recorded" \
        eval 'same_run "$b/ctl" "$e" && grep -q "^calls=0$" "$b/ctl.info"'
    # a daemon closes every descriptor and opens /dev/null: it gets the
    # number it gets under qemu (the plugin's file keeps a high number),
    # and every call is still recorded
    if emu_build "$d/daemon" daemon.c; then
        emu_run "$d/daemon/emu" "$d/daemon/plain" --
        run_target "$d/daemon/run" "$d/daemon/plain"
        check "$ARCH/emu/daemon: descriptors closed and reused: the same output, 20000 calls" \
            eval 'same_run "$d/daemon/emu" "$d/daemon/run" &&
                  "$pp" --profile --format=tsv "$d/daemon/emu" 2>&1 |
                  awk -F"\t" "\$8 == \"work_marker\" && \$1 == 20000 { ok = 1 } END { exit !ok }"'
    fi
    # a fork child: its own trace, its parent named
    emu_build "$d/forks" forks.c || return
    emu_run "$d/forks/emu" "$d/forks/plain" --
    run_target "$d/forks/run" "$d/forks/plain"
    local n_traces
    n_traces=$(ls "$d/forks/emu"/litifut.*.trace 2> /dev/null | wc -l)
    "$pp" --profile "$d/forks/emu" > "$d/forks/profile" 2> "$d/forks/err"
    check "$ARCH/emu/fork: each process its own trace ($n_traces), read together" \
        eval 'same_run "$d/forks/emu" "$d/forks/run" && [ "$n_traces" -gt 1 ] &&
              [ ! -s "$d/forks/err" ] && grep -q "forked from process" <("$pp" "$d/forks/emu" 2>&1)'
}

# emu_jumps: tests/progs/jumps.c's functions, entered by calls and tail
# jumps: the emulator's counts of them (plain, instrumented) and the
# device trace's equal the program's own
emu_jumps() {
    local j=$d/jumps bad= run f n pair got
    emu_build "$j" jumps.c || return
    emu_run "$j/emu-plain" "$j/plain" --
    emu_run "$j/emu-prog" "$j/prog" --
    local runs="emu-plain emu-prog device" what="under the emulator (plain, instrumented) and on the device"
    if tail_jumps_traced; then
        run_target "$j/device" "$j/prog"
    else
        runs="emu-plain emu-prog" what="under the emulator (plain, instrumented; $ARCH's device trace has no tail jumps yet)"
    fi
    for run in $runs; do
        local summary
        summary=$("$pp" --summary --format=tsv "$j/$run" 2> "$j/$run.err")
        [ -s "$j/$run.err" ] && bad="$bad $run: $(head -c 100 "$j/$run.err");"
        for pair in $(sed -n 's/^calls //p' "$j/$run/out"); do
            f=${pair%=*} n=${pair#*=}
            got=$(awk -F '\t' -v f="$f" '$2 == f { n = $1 } END { print n + 0 }' <<< "$summary")
            [ "$got" = "$n" ] || bad="$bad $run $f: $got, the program's $n;"
        done
    done
    check "$ARCH/emu/jumps: functions entered by tail jumps as many calls as the program counted, $what${bad:+:$bad}" \
        eval '[ -z "$bad" ] && grep -q "^calls to_leaf=16 " "$j/emu-plain/out"'
}

test_emu() {
    # the plugin against QEMU's own header, from Debian's qemu source
    local hdr
    hdr=$(ls "${SOURCES:-$ROOT/build/src}"/qemu-*/include/qemu/qemu-plugin.h 2> /dev/null | head -1)
    if [ -n "$hdr" ]; then
        check "emu/plugin: builds against $(basename "$(dirname "$(dirname "$(dirname "$hdr")")")")'s qemu-plugin.h" \
            cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared -I"$ROOT" -I"$ROOT/include" \
               -DLITIFUT_QEMU_PLUGIN_H="\"$hdr\"" -o "$WORK/emu-real-header.so" \
               "$ROOT/emu/plugin.c" "$ROOT/emu/emu-arch.c" "$ROOT"/arch/*/emu-*.c -lpthread
    fi
    check "emu/usage: no program is one line and exit status 2" \
        eval '"$BIN/litifut-emu" > /dev/null 2> "$WORK/emu-usage.err"; [ $? = 2 ] &&
              [ "$(wc -l < "$WORK/emu-usage.err")" = 1 ]'
    check "emu/usage: a file that is no program is one line naming it, exit status 2" \
        eval '"$BIN/litifut-emu" "$ROOT/README.md" 2> "$WORK/emu-bad.err"; [ $? = 2 ] &&
              grep -q "README.md: not an ELF program" "$WORK/emu-bad.err"'
    each_arch emu_case
}
