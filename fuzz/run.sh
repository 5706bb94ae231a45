#!/usr/bin/env bash
# Runs the libFuzzer harnesses built by `make fuzz-build` (fuzz/fuzz.mk).
#
#   fuzz/run.sh smoke OUT NAME:RUNS...   each harness RUNS runs over its seed
#                                        corpus fuzz/corpus/NAME; one line per
#                                        harness, "ok   fuzz/NAME: ..." or
#                                        "FAIL fuzz/NAME: ..."
#   fuzz/run.sh fuzz OUT SECONDS NAME... each harness SECONDS seconds on
#                                        OUT/corpus/NAME (a copy of the seeds,
#                                        kept between runs), going on after
#                                        crashes; then executions, crashes and
#                                        hangs per harness
#
# OUT holds the harnesses (OUT/NAME); logs go to OUT/logs, crashing
# inputs to OUT/artifacts/NAME/ (crash-*, timeout-*, leak-*, oom-*).
# FUZZ_JOBS (default: the number of CPUs) harnesses run at a time;
# FUZZ_FLAGS adds libFuzzer flags.  Exit status 1 if any harness failed.
# A crash is reproduced with: OUT/NAME OUT/artifacts/NAME/crash-...
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: fuzz/run.sh smoke|fuzz OUT ...}
OUT=${2:?usage: fuzz/run.sh smoke|fuzz OUT ...}
shift 2
JOBS=${FUZZ_JOBS:-}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# input sizes: a program is up to 52 KB, a link map 30 KB, a trace 14 KB
max_len() {
    case $1 in elfdb) echo 65536 ;; linkmap) echo 49152 ;; *) echo 32768 ;; esac
}
# the tools print one error line for most inputs: their stderr is closed
# (-close_fd_mask=2; libFuzzer and the sanitizers still report)
COMMON="-timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 -print_final_stats=1"

# waits until fewer than JOBS jobs run
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done; }

# The artifacts of one harness: crashes (crash-*, deadly signals, sanitizer
# reports, failed checks, leaks, out-of-memory) and hangs (timeout-*).
count() { find "$OUT/artifacts/$1" -maxdepth 1 -name "$2" 2>/dev/null | wc -l; }

smoke_one() {
    local name=$1 runs=$2 log=$OUT/logs/$1.smoke.log
    local scratch=$OUT/smoke/$1 art=$OUT/artifacts/$1/
    rm -rf "$scratch" "$art" && mkdir -p "$scratch" "$art"
    local t0=$SECONDS
    # new inputs go to the first (scratch) directory; the seeds are only read
    "$OUT/$name" $COMMON -seed=1 -runs="$runs" -max_len="$(max_len "$name")" \
        -artifact_prefix="$art" ${FUZZ_FLAGS:-} "$scratch" "$ROOT/fuzz/corpus/$name" \
        > "$log" 2>&1
    local rc=$? dt=$((SECONDS - t0))
    local done_runs
    done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
    if [ $rc -eq 0 ] && [ -n "$done_runs" ]; then
        echo "ok   fuzz/$name: $done_runs runs (${dt} s)"
    else
        local what
        what=$(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|deadly signal|fuzz harness:|runtime error' "$log")
        echo "FAIL fuzz/$name: ${what:-exit status $rc} (log: $log, input: $(ls -t "$art" | head -1))"
    fi
}

fuzz_one() {
    local name=$1 secs=$2 log=$OUT/logs/$1.fuzz.log
    local corpus=$OUT/corpus/$1 art=$OUT/artifacts/$1/
    rm -rf "$art" && mkdir -p "$corpus" "$art"
    cp -n "$ROOT/fuzz/corpus/$name"/* "$corpus/"
    # -fork=1: each crash or hang is saved and the run goes on
    "$OUT/$name" $COMMON -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$secs" -max_len="$(max_len "$name")" -artifact_prefix="$art" \
        ${FUZZ_FLAGS:-} "$corpus" > "$log" 2>&1
    echo $? > "$OUT/logs/$1.rc"
}

# The final statistics of a fork-mode run: "#EXECS: cov: ... crash: O/T/C ..."
report_one() {
    local name=$1 log=$OUT/logs/$1.fuzz.log
    local last execs oom tmo crash
    last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
    execs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<< "$last")
    read -r oom tmo crash < <(sed -n 's|.*oom/timeout/crash: \([0-9]*\)/\([0-9]*\)/\([0-9]*\).*|\1 \2 \3|p' <<< "$last")
    local files_c files_t
    files_c=$(( $(count "$name" 'crash-*') + $(count "$name" 'leak-*') + $(count "$name" 'oom-*') ))
    files_t=$(count "$name" 'timeout-*')
    printf '%-4s fuzz/%-9s %12s execs  %3s crashes  %3s hangs  %3s ooms  (artifacts: %s crash/leak/oom, %s timeout; corpus %s files)\n' \
        "$( [ "$(( ${crash:-1} + ${tmo:-1} + ${oom:-1} + files_c + files_t ))" -eq 0 ] && echo ok || echo FAIL)" \
        "$name:" "${execs:-?}" "${crash:-?}" "${tmo:-?}" "${oom:-?}" "$files_c" "$files_t" \
        "$(ls "$OUT/corpus/$name" | wc -l)"
}

rc=0
case $mode in
smoke)
    # one line per harness, in order, when all are done
    for arg; do
        throttle
        smoke_one "${arg%%:*}" "${arg#*:}" > "$OUT/logs/${arg%%:*}.smoke.line" &
    done
    wait
    for arg; do
        cat "$OUT/logs/${arg%%:*}.smoke.line"
        grep -q '^ok' "$OUT/logs/${arg%%:*}.smoke.line" || rc=1
    done
    ;;
fuzz)
    secs=${1:?SECONDS}
    shift
    for name; do
        throttle
        echo "fuzz/$name: ${secs} s (log: $OUT/logs/$name.fuzz.log)"
        fuzz_one "$name" "$secs" &
    done
    wait
    echo "== $secs s per harness; crashing inputs in $OUT/artifacts/<name>/"
    for name; do
        line=$(report_one "$name")
        echo "$line"
        case $line in ok*) ;; *) rc=1 ;; esac
    done
    ;;
*)
    echo "fuzz/run.sh: unknown mode $mode (smoke or fuzz)" >&2
    exit 2
    ;;
esac
exit $rc
