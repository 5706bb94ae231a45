# Signal deliveries as trace events (issue 27): the program's handlers
# run inside the tracer's entry (stub/events.c), which writes a SIGNAL
# record before each and a SIGNAL_END after it, or, when the handler
# leaves with siglongjmp, lets exact returns close it with a RETURN.
# tests/progs/sigtimer.c takes SIGALRM from setitimer through handlers
# installed with sigaction (SA_SIGINFO), signal(), SA_ONSTACK on a
# sigaltstack and one that jumps out, SIGUSR1 with SA_RESETHAND and
# SIGUSR2 from sysv_signal, and prints what sigaction answers it.
# Dynamic and static (the C library traced too).  Checked on the raw
# records (tests/tools/sigrecords.c, built here with the host's cc), and
# on litifut-postproc's log once it shows signals.

test_sigevents() {
    SIGRECORDS=$WORK/tools/sigrecords
    mkdir -p "$WORK/tools"
    if ! cc -std=c11 -O2 -Wall -Wextra -I"$ROOT/include" -o "$SIGRECORDS" \
         "$ROOT/tests/tools/sigrecords.c"; then
        fail "sigevents: tests/tools/sigrecords.c does not build"
        return
    fi
    each_folder sigevents_arch
}

# sigevents_check_records RECORDS ERR NM SITES: the raw records of a run
# (sigrecords' lines) against the program's own counts (ERR's
# "deliveries NAME N" lines), the functions (NM: `nm -S` of the program)
# and the call sites (SITES: its sites.tsv).  `returns` 1: exact returns
# (every call but a tail jump is a frame, a siglongjmp's signal ends with a RETURN).  Prints
# what is wrong, nothing if all is right.
sigevents_check_records() {
    local recs=$1 err=$2 nm=$3 sites=$4 returns=$5 addr size name
    # function ranges and site addresses as decimal numbers (mawk has no hex)
    while read -r addr size _ name; do
        echo "F $((0x$addr)) $((0x$size)) $name"
    done < <(grep -E ' [tT] ' "$nm" | awk 'NF == 4') > "$recs.funcs"
    tail -n +2 "$sites" | while read -r addr kind _; do echo "A $((addr)) $kind"; done > "$recs.sites"
    awk '$1 == "O" || $2 == "O" { print "B", $(NF-2) + 0; exit }' "$recs" > "$recs.base"
    local bias
    bias=$(awk '$2 == "O" { print $5; exit }' "$recs")
    sed -n 's/^deliveries \(h_[a-z]*\) \([0-9]*\)$/D \1 \2/p' "$err" > "$recs.counts"
    while read -r tid kind a b; do
        case $kind in
        S) echo "$tid S $a $(( (0x$b - 0x$bias) & ~1 ))" ;;    # (the Thumb bit)
        *) echo "$tid $kind $a" ;;
        esac
    done < "$recs" > "$recs.dec"
    cat "$recs.funcs" "$recs.sites" "$recs.base" "$recs.counts" "$recs.dec" |
    awk -v returns="$returns" '
        function func_of(a,   i) {
            for (i = 0; i < nf; i++) if (a >= fa[i] && a < fa[i] + fs[i]) return fn[i]
            return "?"
        }
        $1 == "F" { fa[nf] = $2; fs[nf] = $3; fn[nf] = $4; nf++; next }
        $1 == "A" { site[ns] = $2; jump[ns++] = $3 ~ /_jump$/; next }
        $1 == "B" { base = $2; next }
        $1 == "D" { want[$2] = $3; next }
        $2 == "O" { next }
        {
            t = $1; d = depth[t] + 0
            if ($2 == "C") {
                f = func_of(site[$3 - base])
                if (f in want) {
                    hcalls[f]++
                    for (i = d; i > 0 && stack[t, i] !~ /^S /; i--) ;
                    if (i == 0 || stack[t, i] != "S " f) {
                        bad = bad sprintf("a call from %s outside its signal (innermost: %s); ",
                                          f, i ? stack[t, i] : "none")
                    }
                }
                # (a tail jump opens no frame: the RETURN of the call it
                # ends closes both, as in the reader; longjmp jumps too)
                if (returns && !jump[$3 - base]) stack[t, ++depth[t]] = "C " f
            } else if ($2 == "S") {
                h = func_of($4)
                signals[h]++
                if ($3 != 14 && $3 != 10 && $3 != 12 && $3 != 16 && $3 != 17 && $3 != 30 && $3 != 31)
                    bad = bad "signal number " $3 "; "
                stack[t, ++depth[t]] = "S " h
            } else if ($2 == "E") {
                for (i = d; i > 0 && stack[t, i] !~ /^S /; i--) ;
                if (i == 0) { bad = bad "a SIGNAL_END with no signal open; "; next }
                ends[substr(stack[t, i], 3)]++
                depth[t] = i - 1
            } else if ($2 == "R") {
                if (d == 0) next                # (frames from before the trace)
                if (stack[t, d] ~ /^S /) jumped[substr(stack[t, d], 3)]++
                depth[t] = d - 1
            }
        }
        END {
            for (h in want) {
                if (signals[h] + 0 != want[h])
                    bad = bad sprintf("%s ran %d times, %d SIGNAL records; ", h, want[h], signals[h])
                if (hcalls[h] + 0 < want[h])
                    bad = bad sprintf("%s: %d calls recorded in %d runs; ", h, hcalls[h], want[h])
                closed = h == "h_jump" ? jumped[h] : ends[h]
                if (returns || h != "h_jump")
                    if (closed + 0 != want[h])
                        bad = bad sprintf("%s: %d of %d signals closed by %s; ", h, closed, want[h],
                                          h == "h_jump" ? "a RETURN" : "SIGNAL_END")
                if (h == "h_jump" && ends[h] + 0)
                    bad = bad "a handler left by siglongjmp has a SIGNAL_END; "
            }
            for (h in signals) if (!(h in want)) bad = bad "a SIGNAL of " h "; "
            printf "%s", bad
        }'
}

sigevents_arch() {
    set_arch "$1"
    local link
    # (static: the C library is traced too, and linked with the wrappers)
    for link in dynamic static; do sigevents_link "$link"; done
}

sigevents_link() {
    local link=$1 d=$WORK/sigevents/$ARCH-$1 run problems n flags=()
    local ARCH=$ARCH/$link          # (the names of the checks)
    [ "$link" = static ] && flags=(-static)
    mkdir -p "$d"
    if ! "$TCC" -O2 "${flags[@]}" -o "$d/sigtimer" "$ROOT/tests/progs/sigtimer.c" ||
       ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 "${flags[@]}" \
           -o "$d/sigtimer-traced" "$ROOT/tests/progs/sigtimer.c"; then
        fail "$ARCH/sigevents: sigtimer.c does not build"
        return
    fi
    run_target "$d/plain" "$d/sigtimer"
    run_target "$d/traced" "$d/sigtimer-traced"
    LITIFUT_TRACE=0 run_target "$d/off" "$d/sigtimer-traced"
    LITIFUT_RETURNS=0 run_target "$d/noreturns" "$d/sigtimer-traced"
    LITIFUT_MODE=count run_target "$d/count" "$d/sigtimer-traced"
    "$TRIPLE-nm" -S --defined-only "$d/sigtimer-traced" > "$d/nm"
    local ok=1
    for run in traced off noreturns count; do
        if ! same_run "$d/plain" "$d/$run"; then
            fail "$ARCH/sigevents/$run: output or exit status differ from the plain run" \
                 "(exit $(cat "$d/plain/rc") vs $(cat "$d/$run/rc"); see $d)"
            ok=0
        fi
    done
    [ "$ok" = 1 ] && [ "$(grep -c '^deliveries' "$d/plain/err")" = 7 ] &&
        ! ls "$d/off"/litifut.* > /dev/null 2>&1 &&
        pass "$ARCH/sigevents: the handlers and what sigaction answers are the program's own," \
             "traced (exact returns, LITIFUT_RETURNS=0, LITIFUT_MODE=count) or not"
    [ "$ok" = 1 ] || return

    for run in traced noreturns; do
        n=$(sed -n 's/^deliveries total //p' "$d/$run/err")
        if ! "$SIGRECORDS" "$d/$run"/litifut.*.trace > "$d/$run/records" 2> "$d/$run/records.err"; then
            fail "$ARCH/sigevents/$run: $(cat "$d/$run/records.err")"
            continue
        fi
        problems=$(sigevents_check_records "$d/$run/records" "$d/$run/err" "$d/nm" \
                   "$d/sigtimer-traced.litifut/sites.tsv" "$([ $run = traced ] && echo 1 || echo 0)")
        if [ -z "$problems" ]; then
            pass "$ARCH/sigevents/$run: $n deliveries, $n SIGNAL records, each handler's calls" \
                 "inside its own; $(grep -c ' E$' "$d/$run/records") SIGNAL_END" \
                 "$([ $run = traced ] && echo "(the 5 jumps' signals closed by a RETURN)")"
        else
            fail "$ARCH/sigevents/$run: ${problems:0:600} (see $d/$run)"
        fi
    done
    if ls "$d/count"/litifut.*.trace > /dev/null 2>&1 &&
       "$SIGRECORDS" "$d/count"/litifut.*.trace | grep -q ' [SE] \| [SE]$'; then
        fail "$ARCH/sigevents/count: LITIFUT_MODE=count wrote signal records"
    fi

    # the profile's calls and the summary's agree: a handler's entry is a
    # call of it in both, a delivery (<signal SIGALRM>) in neither
    local prof summ
    prof=$("$BIN/litifut-postproc" --profile --format=tsv "$d/traced" 2> /dev/null |
           awk -F'\t' 'NR > 1 { n += $1; if ($8 ~ /^<signal/) s += $1 } END { print n + 0, s + 0 }')
    summ=$("$BIN/litifut-postproc" --summary --format=tsv "$d/traced" 2> /dev/null |
           awk -F'\t' 'NR > 1 { n += $1; if ($2 ~ /^h_/) h += $1 } END { print n + 0, h + 0 }')
    tree_views "$ARCH/sigevents/views" "$d/traced"       # (tests/tree.sh)
    check "$ARCH/sigevents/counts: --profile and --summary count the same calls ($prof; $summ: handlers' entries included, deliveries not)" \
        eval '[ "${prof% *}" = "${summ% *}" ] && [ "${prof#* }" = 0 ] && [ "${summ#* }" -gt 0 ]'

    # the post-processor's log: each handler's calls inside its signal's lines
    "$BIN/litifut-postproc" "$d/traced" > "$d/traced/log" 2> "$d/traced/log.err"
    if ! grep -q '<signal SIG' "$d/traced/log"; then
        echo "note $ARCH/sigevents: litifut-postproc shows no <signal> lines yet: its log not checked"
        return
    fi
    problems=$(awk '
        /<signal SIG[A-Z0-9]*> *$/ { depth++; sig = $0; sub(/.*<signal /, "", sig); sub(/>.*/, "", sig)
                                  open[depth] = sig; count[sig]++; next }
        /<\/signal>/ { if (!depth) bad = bad "a </signal> with none open; "; depth--; next }
        / in_(info|plain|stack|jump)/ { if (!depth || open[depth] != "SIGALRM") bad = bad "an ALRM handler call outside <signal SIGALRM>; " }
        / in_once/ { if (!depth || open[depth] != "SIGUSR1") bad = bad "in_once outside <signal SIGUSR1>; " }
        / in_sysv/ { if (!depth || open[depth] != "SIGUSR2") bad = bad "in_sysv outside <signal SIGUSR2>; " }
        END { printf "%s%d %d %d", bad, count["SIGALRM"], count["SIGUSR1"], count["SIGUSR2"] }' \
        "$d/traced/log")
    n=$(awk '/^deliveries h_(info|plain|stack|jump) / { n += $3 } END { print n " 1 1" }' \
        "$d/traced/err")
    if [ "$problems" = "$n" ] && [ ! -s "$d/traced/log.err" ]; then
        pass "$ARCH/sigevents/log: litifut-postproc shows each delivery as <signal SIG...>," \
             "with its handler's calls inside ($n)"
    else
        fail "$ARCH/sigevents/log: ${problems:0:400} (want $n) $(head -c 200 "$d/traced/log.err")"
    fi
}
