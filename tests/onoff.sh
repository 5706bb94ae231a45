# Recording on and off while the program runs (stub/control.c), with
# tests/progs/onoff.c: with LITIFUT_SIGNAL=SIGUSR2 the calls between
# the two signals (in two threads) are not recorded and all others are;
# with LITIFUT_RECORD=off as well, only those are; with
# LITIFUT_START_AT and LITIFUT_STOP_AT, the calls from the one's call to
# the other's.  The trace says when recording changed (--info's
# recording=, the log's head), PIE and static.

# onoff_counts DIR [FUNCTION...]: the recorded calls of each marker
# (default a_marker b_marker c_marker), separated by spaces
onoff_counts() {
    local dir=$1 m out=
    shift
    for m in ${*:-a_marker b_marker c_marker}; do
        out="$out $("$BIN/litifut-postproc" --summary --format=tsv "$dir" |
                    awk -F'\t' -v f="$m" '$2 == f { n += $1 } END { print n + 0 }')"
    done
    echo $out
}

# onoff_all DIR: the calls recorded and not recorded, added up
onoff_all() {
    "$BIN/litifut-postproc" --info "$1" |
        awk -F= '$1 == "calls" { n += $2 }
                 $1 == "recording" { sub(/ calls not recorded$/, "", $2); sub(/.*, /, "", $2); n += $2 }
                 END { print n }'
}

# LITIFUT_CONTROL (with LITIFUT_RECORD=off): the program writes "on",
# then "off" into the file;
# the tracer notices each within its polling interval.  Every call is
# recorded or counted: their sum is a plain full run's calls.
onoff_control() {
    local d=$WORK/onoff/$ARCH r=$WORK/onoff/$ARCH/control name=$ARCH/onoff/control
 run_target "$d/control-all" "$d/prog" control "$d/control-all/ctl"
    LITIFUT_RECORD=off LITIFUT_CONTROL=$r/ctl run_target "$r" "$d/prog" control "$r/ctl"
    local all got b c
    all=$("$BIN/litifut-postproc" --info "$d/control-all" | sed -n 's/^calls=//p')
    got=$(onoff_all "$r")
    read -r b c < <(onoff_counts "$r" b_marker c_marker)
    check "$name: on and off as the file says (b_marker $b of 20000, c_marker $c of 100000 recorded; all calls $got, a full run's $all)" \
        eval '[ "$(cat "$r/rc")" = 0 ] && [ ! -s "$r/err" ] && [ -n "$all" ] && [ "$got" = "$all" ] &&
              [ "$b" -ge 15000 ] && [ "$b" -lt 20000 ] && [ "$c" -lt 100000 ] &&
              "$BIN/litifut-postproc" "$r" | grep -q "^# recording off at .* (start), on at .* (control file), off at .* (control file)$"'
}

# LITIFUT_BUDGET=1ms/10ms on callheavy 2 (400,000 calls, CPU-bound, a
# call every few instructions: recording it all would take far more
# than 10% of the time; a run lasts about a hundred periods).  Checked without timing anything: the budget paused recording,
# every call was recorded or counted (their sum is a full run's calls),
# the tracer's reckoned time (recorded calls at the calibrated cost) is
# within the budget and its overshoot, and the log shows the pauses.
# (`make bench` measures the time share.)
onoff_budget() {
    local d=$WORK/onoff/$ARCH/budget name=$ARCH/onoff/budget
    mkdir -p "$d"
    LITIFUT=1 "$TCC" -B"$BIN/" -O2 -o "$d/prog" "$ROOT/tests/progs/callheavy.c" ||
        { fail "$name: cannot build"; return; }
    run_target "$d/full" "$d/prog" 2
    # calls only with time marks (the setting the budget was made for),
    # and the default settings (exact returns, a clock per event)
    local settings r label all got budget share pauses inside
    all=$("$BIN/litifut-postproc" --info "$d/full" | sed -n 's/^calls=//p')
    for settings in marks default; do
        r=$d/run-$settings
        if [ "$settings" = marks ]; then
            label="$name (calls only, time marks)"
            LITIFUT_BUDGET=1ms/10ms LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks run_target "$r" "$d/prog" 2
        else
            label="$name (default settings)"
            LITIFUT_BUDGET=1ms/10ms run_target "$r" "$d/prog" 2
        fi
        got=$(onoff_all "$r")
        budget=$("$BIN/litifut-postproc" --info "$r" | sed -n 's/^budget=//p')
        share=$(sed -n 's/.*(\([0-9.]*\)% of the run).*/\1/p' <<< "$budget")
        pauses=$(sed -n 's/.*, \([0-9]*\) pauses*$/\1/p' <<< "$budget")
        "$BIN/litifut-postproc" "$r" > "$r.log" 2> "$r.log.err"
        # calls placed inside a pause: none (the end of a frame opened
        # before a pause may come inside it: with exact returns, a RETURN
        # is recorded when it happens; a call whose refill began the
        # pause is counted, not recorded)
        inside=$(grep -o "off at *[0-9.]* (budget), on at *[0-9.]*" "$r.log" |
                 awk '{ print $3, $7 }' > "$r.pauses"
                 awk 'NR == FNR { lo[NR] = $1; hi[NR] = $2; n = NR; next }
                      /^#/ || /} \/\* / { next }
                      { for (i = 1; i <= n; i++) if ($1 + 0 > lo[i] && $1 + 0 < hi[i]) { c++; break } }
                      END { print c + 0 }' "$r.pauses" "$r.log")
        check "$label: no call placed inside a pause ($inside)" [ "$inside" = 0 ]
        check "$label: paused $pauses times, every call recorded or counted ($got, a full run's $all), reckoned tracer time $share% of the run (budget 10%, overshoot 5% at most)" \
            eval 'same_run "$d/full" "$r" && [ "$(cat "$r/rc")" = 0 ] && [ ! -s "$r/err" ] &&
                  [ -n "$all" ] && [ "$got" = "$all" ] && [ "${pauses:-0}" -ge 1 ] &&
                  [ -n "$share" ] && awk -v s="$share" "BEGIN { exit !(s <= 15) }" && [ ! -s "$r.log.err" ] &&
                  grep -q "^# recording on at .* (start), off at .* (budget), on at .* (budget) \[[1-9][0-9]* not recorded\]" "$r.log"'
    done
    LITIFUT_BUDGET=10ms/5ms run_target "$d/bad" "$d/prog" 2
    check "$name: a budget above its period is one line, and no trace" \
        eval 'same_run "$d/full" "$d/bad" && [ "$(wc -l < "$d/bad/err")" = 1 ] &&
              grep -q "^litifut: LITIFUT_BUDGET: expected B/T such as 2ms/100ms" "$d/bad/err" &&
              ! ls "$d/bad"/litifut.*.trace > /dev/null 2>&1'
}

onoff_case() {      # onoff_case ARCH
    set_arch "$1" || return
    local d=$WORK/onoff/$ARCH src=$ROOT/tests/progs/onoff.c build
    mkdir -p "$d"
    LITIFUT=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$d/prog" "$src" &&
        LITIFUT=1 "$TCC" -B"$BIN/" -O2 -pthread -static -o "$d/prog-static" "$src" ||
        { fail "$ARCH/onoff: cannot build"; return; }
    for build in "" -static; do
        local r=$d/signal$build name="$ARCH/onoff/signal$build"
        LITIFUT_SIGNAL=SIGUSR2 run_target "$r" "$d/prog$build"
        local got
        got=$(onoff_counts "$r")
        if [ "$(cat "$r/rc")" != 0 ] || ! grep -q "^sink " "$r/out" || [ -s "$r/err" ]; then
            fail "$name: the run failed (exit $(cat "$r/rc")): $(head -c 300 "$r/err")"
        elif [ "$got" != "100 0 300" ]; then
            fail "$name: recorded a b c markers: $got, not 100 0 300"
        elif ! "$BIN/litifut-postproc" --info "$r" | grep -q "^recording=on .*, on at start, 2 changes, [1-9][0-9]* calls not recorded$" ||
             ! "$BIN/litifut-postproc" "$r" | grep -q "^# recording on at .* (start), off at .* (signal), on at .* (signal)$"; then
            fail "$name: the trace does not say when recording changed"
        else
            pass "$name: the calls between the two signals, in two threads, are not recorded; the others are"
        fi
        r=$d/start-off$build name="$ARCH/onoff/start-off$build"
        LITIFUT_SIGNAL=USR2 LITIFUT_RECORD=off run_target "$r" "$d/prog$build"
        got=$(onoff_counts "$r")
        check "$name: LITIFUT_RECORD=off: only the calls between the signals (got $got)" \
            eval '[ "$(cat "$r/rc")" = 0 ] && [ "$got" = "0 200 0" ] &&
                  "$BIN/litifut-postproc" "$r" | grep -q "^# recording off at .* (start), on at" &&
                  "$BIN/litifut-postproc" --info "$r" | grep -q "^recording=on .*, off at start, 2 changes, [1-9][0-9]* calls not recorded$"'
        # every call is recorded or counted as not: the two runs add up
        # alike (not static: there the C library calls the tracer makes
        # itself are counted while off, and not recorded while on)
        if [ -z "$build" ]; then
            local all_signal all_off
            all_signal=$(onoff_all "$d/signal$build")
            all_off=$(onoff_all "$r")
            check "$name: recorded + not recorded: the same in both runs ($all_signal, $all_off)" \
                eval '[ -n "$all_signal" ] && [ "$all_signal" = "$all_off" ]'
        fi
        r=$d/functions$build name="$ARCH/onoff/functions$build"
        LITIFUT_CLOCK=monotonic LITIFUT_START_AT=boot_start LITIFUT_STOP_AT=boot_done \
            run_target "$r" "$d/prog$build" functions
        got=$(onoff_counts "$r" a_marker boot_start b_marker boot_done c_marker)
        "$BIN/litifut-postproc" "$r" > "$r/log"
        # main's frame, open when recording went off, stays open (the
        # trace has returns: a frame ends at its RETURN, or at the
        # thread's end, not when recording goes off): its end comes
        # after the call that turned recording off.  (By the log's
        # order: a frame's end leaves out the tracer's own time inside
        # it, which may take it before a late child's.)
        local off main_end done_line end_line
        off=$(sed -n 's/^# recording .*, off at *\([0-9.]*\) (function)$/\1/p' "$r/log")
        main_end=$(sed -n 's/^ *\([0-9.]*\) .*} \/\* main \*\/$/\1/p' "$r/log")
        done_line=$(grep -nE ' main -> boot_done( \{)?$' "$r/log" | head -1 | cut -d: -f1)
        end_line=$(grep -n '} /\* main \*/$' "$r/log" | tail -1 | cut -d: -f1)
        check "$name: from the call of LITIFUT_START_AT to that of LITIFUT_STOP_AT (a, start, b, done, c: $got; main ends at $main_end, after recording went off at $off)" \
            eval '[ "$(cat "$r/rc")" = 0 ] && [ "$got" = "0 1 200 1 0" ] &&
                  grep -q "^# recording off at .* (start), on at .* (function), off at .* (function)$" "$r/log" &&
                  [ -n "$off" ] && [ -n "$main_end" ] && [ -n "$done_line" ] && [ -n "$end_line" ] &&
                  [ "$end_line" -gt "$done_line" ]'
    done
    r=$d/nosuch
    LITIFUT_START_AT=no_such_function run_target "$r" "$d/prog" functions
    check "$ARCH/onoff/nosuch: a LITIFUT_START_AT that names no function is one line at exit" \
        eval '[ "$(cat "$r/rc")" = 0 ] && [ "$(wc -l < "$r/err")" = 1 ] &&
              grep -q "^litifut: no instrumented object has the function no_such_function (LITIFUT_START_AT): nothing was recorded$" "$r/err" &&
              [ "$(onoff_counts "$r")" = "0 0 0" ] &&
              "$BIN/litifut-postproc" --info "$r" | grep -q "^recording=on 0.0% of the run, off at start, 0 changes, [1-9][0-9]* calls not recorded$"'
    onoff_control
    onoff_budget
}

test_onoff() {
    each_folder onoff_case
}
