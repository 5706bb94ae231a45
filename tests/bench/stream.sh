# stream_throughput (sourced by tests/bench.sh): litifut-agent streaming
# a trace of tests/bench/callmix.c (default configuration: returns and
# a time per call) under qemu-arm to litifut-recv on 127.0.0.1, the
# trace directory on /dev/shm: calls per second received and bytes per
# second over the wall-clock time from the program's start to the
# receiver's end (the program, the agent and the receiver share the
# machine's cores), the drops (none expected: the default backlog),
# and the same run's seconds traced without the stream.
stream_throughput() {
    local d=$W/stream iters=${BENCH_STREAM_ITERS:-500000} port t0 t1 calls bytes
    build_callmix "$d"
    local dev host=$d/host
    dev=$(mktemp -d /dev/shm/litifut-bench.XXXXXX 2> /dev/null || mktemp -d "$d/dev.XXXXXX")
    mkdir -p "$host"
    timeout 600 "$BIN/litifut-recv" --listen=0 --once "$host" 2> "$d/recv.err" &
    local recv=$! i
    for i in $(seq 50); do
        port=$(sed -n 's/^litifut-recv: listening on 127.0.0.1://p' "$d/recv.err")
        [ -n "$port" ] && break
        sleep 0.1
    done
    timeout 600 "$QEMU" "$BIN/../lib/litifut/$TRIPLE/litifut-agent" --exit-when-idle "$dev" \
        "127.0.0.1:$port" 2> "$d/agent.err" &
    local agent=$!
    t0=$(date +%s.%N)
    (cd "$dev" && env LITIFUT_DIR=. "${DEFAULT_CONFIG[@]}" "$QEMU" -L "$SYSROOT" "$d/callmix" "$iters" > /dev/null) ||
        die "callmix under $QEMU failed"
    wait $agent || die "litifut-agent failed: $(head -c 300 "$d/agent.err")"
    wait $recv
    t1=$(date +%s.%N)
    rm -rf "$dev"; mkdir -p "$dev"
    # the same run traced without the stream, for comparison
    local l0 l1
    l0=$(date +%s.%N)
    (cd "$dev" && env LITIFUT_DIR=. "${DEFAULT_CONFIG[@]}" "$QEMU" -L "$SYSROOT" "$d/callmix" "$iters" > /dev/null)
    l1=$(date +%s.%N)
    rm -rf "$dev"
    "$BIN/litifut-postproc" --info "$host" > "$d/info" 2> /dev/null || die "the received trace does not read"
    calls=$(info_value "$d" calls)
    bytes=$(cat "$host"/litifut.*.trace | wc -c)
    echo
    echo "== stream: callmix $iters under $QEMU, litifut-agent -> litifut-recv on 127.0.0.1 (/dev/shm)"
    printf '%14s %10s %14s %14s %6s %18s\n' calls seconds "M calls/s" "MB/s" drops "s, not streamed"
    printf '%14s %10.2f %14.2f %14.2f %6s %18.2f\n' "$calls" "$(echo "$t1 - $t0" | bc -l)" \
        "$(echo "$calls / ($t1 - $t0) / 1000000" | bc -l)" \
        "$(echo "$bytes / ($t1 - $t0) / 1000000" | bc -l)" "$(grep -c dropped "$d/agent.err")" \
        "$(echo "$l1 - $l0" | bc -l)"
    rm -rf "$d"
}
