# Streaming (agent/agent.c, recv/main.c): tests/progs/callheavy.c (2
# million calls) traced under qemu-user with litifut-agent (the target's
# static binary, under qemu too) following its LITIFUT_DIR and
# litifut-recv on 127.0.0.1 writing what arrives:
# - whole: with --no-punch the device's trace stays whole: the received
#   trace's log and TSV are the device file's, the maps file the same;
# - punch: on a tmpfs (/dev/shm) the device's trace keeps almost no
#   storage, the received one reads as a whole run's (same summary);
# - threads: tests/progs/shortthreads.c's 200 threads end, their process
#   lives on: their chunks are sent and punched meanwhile (a thread gone
#   writes no more: the device's trace keeps a quarter of its size at
#   most), every call arrives;
# - slow: the receiver reads 1 MB/s, the agent's backlog is 256 KB: the
#   agent drops chunks and says so, the received header counts them
#   (streamed, dropped_chunks), the views still read it, nothing hangs;
# - follow: litifut-recv --follow prints windows of the chunks completed
#   while the program runs (more than one), each call once: the call
#   lines printed (caller -> callee per thread, in order, without the
#   "(untraced)" frames) are the final log's, as many as the TSV's rows;
#   its temporary files are gone;
# - the agent is under 64 KB; bad arguments are one line; the receiver
#   refuses a name that is not a trace's and a file already there, and
#   a connection holding too many files; out of descriptors it rests
#   (never spins) and takes the next connection once some are free.

# stream_run DIR PROG RECV-ARGS -- AGENT-ARGS: runs PROG (callheavy 10;
# its arguments: $STREAM_ARGS if set)
# in DIR/dev with the agent streaming to a receiver writing DIR/host;
# stderr of each in DIR/agent.err, DIR/recv.err, exit status in
# DIR/agent.rc, DIR/recv.rc.  Every wait is bounded.
stream_run() {
    local d=$1 prog=$2 recv_args=() agent_args=()
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do recv_args+=("$1"); shift; done
    shift
    agent_args=("$@")
    rm -rf "$d/dev" "$d/host"; mkdir -p "$d/dev" "$d/host"
    timeout -k 10 120 "$BIN/litifut-recv" --listen=0 --once "${recv_args[@]}" "$d/host" \
        > "$d/recv.out" 2> "$d/recv.err" &
    local recv=$! port
    port=$(stream_port "$d/recv.err")
    timeout 120 "$QEMU" "$STREAM_AGENT" "${agent_args[@]}" --exit-when-idle "$d/dev" \
        "127.0.0.1:$port" 2> "$d/agent.err" &
    local agent=$!
    (cd "$d/dev" && LITIFUT_DIR=. timeout 120 "$QEMU" -L "$SYSROOT" "$prog" ${STREAM_ARGS:-10} \
        > out 2> err)
    wait $agent; echo $? > "$d/agent.rc"
    wait $recv; echo $? > "$d/recv.rc"
}

# stream_stop PID...: ends receivers started under timeout (PID: the
# timeout's) by signalling each receiver itself.  Through timeout, a
# SIGCONT follows the SIGTERM, and one that comes while the sanitizer's
# exit-time leak check holds the process stopped under ptrace has left
# it spinning for ever (seen here); timeout -k bounds what is left.
stream_stop() {
    local p
    for p in "$@"; do pkill -TERM -P "$p" -x litifut-recv 2> /dev/null; done
    wait "$@"
}

# stream_port ERRFILE: the port a receiver said it listens on (5 s at most)
stream_port() {
    local i port=""
    for i in $(seq 50); do
        port=$(sed -n 's/^litifut-recv: listening on 127.0.0.1://p' "$1")
        [ -n "$port" ] && break
        sleep 0.1
    done
    echo "${port:-1}"
}

# stream_header FILE: "streamed dropped_chunks" from a trace's header (either byte order)
stream_header() {
    python3 - "$1" <<'EOF'
import struct, sys
h = open(sys.argv[1], 'rb').read(1176)
o = '<' if h[8] == 1 else '>'
s, _, c, b = struct.unpack_from(o + 'IIQQ', h, 1152)
print(s, c, b)
EOF
}

# stream_calls LOG: "tid caller -> callee" of each call line of a log
# (not its '#' lines, nor "(untraced)" frames; durations, braces dropped)
stream_calls() {    # (a call open at a window's end is so marked there: not in the final log;
                    # an entry, "(start) -> main", is no TSV row)
    grep -v '^#' "$1" | grep -- ' -> ' | grep -vE '\((untraced|start|init|fini|thread)\) -> ' |
        sed -E 's/^ *[0-9]+\.[0-9]+ +(~?[0-9.]+ [a-z]+ +)?([0-9]+) +/\2 /; s/ \(still open at the end\)$//; s/ \{$//'
}

stream_case() {     # stream_case ARCH
    set_arch "$1" || return
    local d=$WORK/stream/$ARCH name=$ARCH/stream
    STREAM_AGENT=$BIN/../lib/litifut/$TRIPLE/litifut-agent
    mkdir -p "$d"
    LITIFUT=1 "$TCC" -B"$BIN/" -O2 -o "$d/prog" "$ROOT/tests/progs/callheavy.c" ||
        { fail "$name: cannot build"; return; }
    local size
    size=$(stat -c %s "$STREAM_AGENT" 2> /dev/null || echo 0)
    check "$name/size: the agent is $size bytes, static, under 64 KB" \
        eval '[ "$size" -gt 0 ] && [ "$size" -lt 65536 ] && file "$STREAM_AGENT" | grep -q "statically linked"'

    # whole: the device's file stays; the received one reads the same
    local r=$d/whole
    stream_run "$r" "$d/prog" -- --no-punch
    local dev host
    dev=$(ls "$r/dev"/litifut.*.trace 2> /dev/null | head -1)
    host=$r/host/${dev##*/}
    if [ -z "$dev" ] || [ ! -s "$host" ] || [ "$(cat "$r/agent.rc") $(cat "$r/recv.rc")" != "0 0" ]; then
        fail "$name/whole: no received trace (agent $(cat "$r/agent.rc"), receiver $(cat "$r/recv.rc")):" \
             "$(head -c 300 "$r/agent.err") $(head -c 300 "$r/recv.err")"
    elif ! "$BIN/litifut-postproc" "$dev" > "$r/dev.log" 2>&1 ||
         ! "$BIN/litifut-postproc" "$host" > "$r/host.log" 2>&1 ||
         ! cmp -s <(grep -v 'stream' "$r/dev.log") <(grep -v 'stream' "$r/host.log") ||
         ! cmp -s <("$BIN/litifut-postproc" --format=tsv "$dev" 2>&1) \
                  <("$BIN/litifut-postproc" --format=tsv "$host" 2>&1) ||
         ! cmp -s "${dev%.trace}.maps" "${host%.trace}.maps"; then
        fail "$name/whole: the received trace reads differently from the device's (see $r)"
    elif [ "$(stream_header "$host")" != "1 0 0" ] || [ "$(wc -l < "$r/dev.log")" -lt 2000000 ]; then
        fail "$name/whole: header stream fields $(stream_header "$host") (expected 1 0 0)," \
             "$(wc -l < "$r/dev.log") log lines"
    else
        pass "$name/whole: the received trace's log ($(wc -l < "$r/host.log") lines), TSV and maps are the device's"
    fi
    "$BIN/litifut-postproc" --summary "$host" > "$d/summary" 2>&1

    # punch: on a tmpfs the device's storage goes back
    local shm
    shm=$(mktemp -d /dev/shm/litifut-stream.XXXXXX 2> /dev/null || mktemp -d "$d/punch.XXXXXX")
    stream_run "$shm" "$d/prog" --
    dev=$(ls "$shm/dev"/litifut.*.trace 2> /dev/null | head -1)
    host=$shm/host/${dev##*/}
    local kb=$(( $(stat -c '%b * %B' "$dev" 2> /dev/null || echo 0) / 1024 ))
    local apparent=$(( $(stat -c %s "$dev" 2> /dev/null || echo 0) / 1024 ))
    if [ -z "$dev" ] || ! cmp -s <("$BIN/litifut-postproc" --summary "$host" 2>&1) "$d/summary"; then
        fail "$name/punch: the received trace's summary differs from a whole run's (see $shm)"
    elif [ "$kb" -gt 256 ] || [ "$apparent" -lt 4096 ]; then
        fail "$name/punch: the device's trace keeps $kb KB of ${apparent} KB"
    else
        pass "$name/punch: the device's trace keeps $kb KB of ${apparent} KB; the received one reads whole"
    fi
    rm -rf "$shm"

    # threads: the chunks of threads gone complete while the process lives
    LITIFUT=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$d/st" "$ROOT/tests/progs/shortthreads.c" ||
        { fail "$name/threads: cannot build"; return; }
    shm=$(mktemp -d /dev/shm/litifut-stream.XXXXXX 2> /dev/null || mktemp -d "$d/threads.XXXXXX")
    rm -rf "$shm/dev"
    (   # the device file's storage once the threads are gone, while the
        # process lives on (its 12 s: 8 s at most here)
        for i in $(seq 600); do
            grep -q 'threads of' "$shm/dev/out" 2> /dev/null && break
            sleep 0.1
        done
        local end=$((SECONDS + 8))
        while [ $SECONDS -lt $end ] && ! grep -q slept "$shm/dev/out"; do
            dev=$(ls "$shm/dev"/litifut.*.trace 2> /dev/null | head -1)
            kb=$(( $(stat -c '%b * %B' "$dev" 2> /dev/null || echo 0) / 1024 ))
            [ -n "$dev" ] && [ $((kb * 4)) -le $(($(stat -c %s "$dev") / 1024)) ] && break
            sleep 0.2
        done
        ended=0; grep -q slept "$shm/dev/out" && ended=1    # (measured after its end)
        echo "$kb $(( $(stat -c %s "$dev" 2> /dev/null || echo 0) / 1024 )) $ended" > "$shm.kb"
    ) &
    local watch=$!
    STREAM_ARGS="200 60 12" stream_run "$shm" "$d/st" --
    wait $watch
    dev=$(ls "$shm/dev"/litifut.*.trace 2> /dev/null | head -1)
    host=$shm/host/${dev##*/}
    local calls
    calls=$("$BIN/litifut-postproc" --summary --format=tsv "$host" 2> /dev/null |
            awk -F'\t' '$2 == "thread_marker" { print $1 }')
    local ended
    read -r kb apparent ended < "$shm.kb"
    if [ "$(cat "$shm/agent.rc") $(cat "$shm/recv.rc")" != "0 0" ] || [ "$calls" != 12000 ]; then
        fail "$name/threads: agent exit $(cat "$shm/agent.rc"), receiver $(cat "$shm/recv.rc")," \
             "${calls:-no} calls of 12000 received: $(head -c 300 "$shm/agent.err")"
    elif [ "$ended" != 0 ] || [ $((kb * 4)) -gt "$apparent" ] || [ "$apparent" -lt 200 ]; then
        fail "$name/threads: the threads gone, their process living on (ended: $ended), the device's trace keeps $kb KB of $apparent KB"
    else
        pass "$name/threads: 200 threads gone, their process living on: the device's trace keeps $kb KB of $apparent KB; all 12000 calls received"
    fi
    rm -rf "$shm" "$shm.kb"

    # follow: windows while it runs, each call once
    r=$d/follow
    rm -rf "$r/tmp"; mkdir -p "$r/tmp"
    TMPDIR=$r/tmp stream_run "$r" "$d/prog" --follow --
    local rows windows
    "$BIN/litifut-postproc" --format=tsv "$r/host" 2> /dev/null | tail -n +2 | wc -l > "$r/rows"
    "$BIN/litifut-postproc" "$r/host" > "$r/final.log" 2> /dev/null
    rows=$(cat "$r/rows")
    windows=$(grep -c '^# live: litifut\.[0-9]*\.trace: window' "$r/recv.out")
    stream_calls "$r/recv.out" > "$r/live.calls"
    stream_calls "$r/final.log" > "$r/final.calls"
    if [ "$(cat "$r/agent.rc") $(cat "$r/recv.rc")" != "0 0" ]; then
        fail "$name/follow: agent exit $(cat "$r/agent.rc"), receiver $(cat "$r/recv.rc"): $(head -c 300 "$r/recv.err")"
    elif [ "$windows" -lt 2 ] || [ "$rows" -lt 2000000 ] || [ "$(wc -l < "$r/live.calls")" != "$rows" ] ||
         ! cmp -s "$r/live.calls" "$r/final.calls" || [ -n "$(ls -A "$r/tmp")" ]; then
        fail "$name/follow: $windows windows, $(wc -l < "$r/live.calls") call lines printed, $rows TSV rows," \
             "$(cmp "$r/live.calls" "$r/final.calls" 2>&1 | head -1) (see $r)"
    else
        pass "$name/follow: $windows windows printed live, $rows calls each once, as the final log has them"
    fi

    # slow: drops, counted
    r=$d/slow
    stream_run "$r" "$d/prog" --rate=1000000 -- --backlog=256K
    dev=$(ls "$r/dev"/litifut.*.trace 2> /dev/null | head -1)
    host=$r/host/${dev##*/}
    local fields
    fields=$(stream_header "$host" 2> /dev/null)
    if [ "$(cat "$r/agent.rc") $(cat "$r/recv.rc")" != "0 0" ]; then
        fail "$name/slow: agent exit $(cat "$r/agent.rc"), receiver $(cat "$r/recv.rc"): $(head -c 300 "$r/agent.err")"
    elif ! grep -q '^litifut-agent: dropped [1-9][0-9]* chunks' "$r/agent.err" ||
         [ "${fields%% *}" != 1 ] || [ "$(echo "$fields" | cut -d' ' -f2)" = 0 ]; then
        fail "$name/slow: no drop said or counted (header: $fields): $(head -c 300 "$r/agent.err")"
    elif ! "$BIN/litifut-postproc" --summary "$host" > "$r/summary" 2> "$r/pp.err" ||
         ! grep -q op_add "$r/summary" || ! "$BIN/litifut-postproc" "$host" > /dev/null 2>&1; then
        fail "$name/slow: the received trace does not read: $(head -c 300 "$r/pp.err")"
    else
        pass "$name/slow: $(sed 's/^litifut-agent: //' "$r/agent.err" | head -1); header: streamed, dropped $fields"
    fi
}

# stream_hostile DIR: frames a receiver must refuse
stream_hostile() {
    local d=$1 name=stream/hostile
    rm -rf "$d"; mkdir -p "$d/host"
    : > "$d/host/litifut.7.trace"
    ln -s /etc/passwd "$d/host/litifut.8.trace"
    timeout -k 10 30 "$BIN/litifut-recv" --listen=0 "$d/host" > /dev/null 2> "$d/recv.err" &
    local recv=$! port
    port=$(stream_port "$d/recv.err")
    python3 - "$port" <<'EOF'
import socket, struct, sys, time
def frame(t, i, a, p=b''):
    return struct.pack('<IIQI', t, i, a, len(p)) + p
def conn(*frames):
    s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
    s.sendall(b'LTSTRM01' + b''.join(frames))
    time.sleep(0.3)
    s.close()
conn(frame(1, 1, 0, b'litifut.7.trace'), frame(2, 1, 0, b'x' * 16),
     frame(1, 2, 0, b'litifut.8.trace'), frame(2, 2, 0, b'x' * 16),
     frame(1, 3, 0, b'litifut.9.trace'), frame(2, 3, 1 << 41, b'x'))
conn(frame(1, 1, 0, b'../litifut.5.trace'))
conn(frame(2, 9, 0, b'x'))
conn(frame(1, 1, 0, b'litifut.6.trace'), frame(6, 1, 4096, b'x' * 4))
s = socket.create_connection(('127.0.0.1', int(sys.argv[1]))); s.sendall(b'GET / HTTP/1.0\r\n\r\n'); time.sleep(0.3); s.close()
EOF
    stream_stop $recv
    if [ -s "$d/host/litifut.7.trace" ] || [ "$(head -c 1 /etc/passwd)" = x ] ||
       [ ! -L "$d/host/litifut.8.trace" ] || [ -e "$d/litifut.5.trace" ] ||
       ! grep -q 'litifut.7.trace: already there' "$d/recv.err" ||
       ! grep -q 'litifut.8.trace: already there' "$d/recv.err" ||
       ! grep -q 'offset or size out of range' "$d/recv.err" ||
       ! grep -q 'not litifut.<pid>.trace' "$d/recv.err" ||
       ! grep -q 'a frame for a file not opened' "$d/recv.err" ||
       ! grep -q 'a malformed CHUNK frame' "$d/recv.err" ||
       ! grep -q 'not a litifut-agent stream' "$d/recv.err"; then
        fail "$name: $(head -c 600 "$d/recv.err")"
    else
        pass "$name: existing files, links, bad names, offsets, ids, CHUNK frames, streams refused with one line each"
    fi
}

# stream_fds DIR: a connection holding too many files is closed; out
# of descriptors (ulimit -n 40), the receiver rests instead of spinning
# on its listener, and takes the next connection once some are free
stream_fds() {
    local d=$1 name=stream/descriptors
    rm -rf "$d"; mkdir -p "$d/host" "$d/host2"
    timeout -k 10 60 "$BIN/litifut-recv" --listen=0 "$d/host" > /dev/null 2> "$d/recv.err" &
    local recv=$! port
    port=$(stream_port "$d/recv.err")
    (ulimit -n 40; exec timeout -k 10 60 "$BIN/litifut-recv" --listen=0 "$d/host2" > /dev/null \
        2> "$d/recv2.err") &
    local recv2=$! port2
    port2=$(stream_port "$d/recv2.err")
    python3 - "$port" "$port2" "$(pgrep -P $recv2 -x litifut-recv || echo $recv2)" > "$d/py.out" 2>&1 <<'EOF2'
import socket, struct, sys, time
def frame(t, i, a, p=b''):
    return struct.pack('<IIQI', t, i, a, len(p)) + p
def opens(n):
    return b''.join(frame(1, i + 1, 0, b'litifut.%d.trace' % (100 + i)) for i in range(n))
def cpu(pid):
    f = open('/proc/%s/stat' % pid).read().rsplit(')', 1)[1].split()
    return int(f[11]) + int(f[12])
# 300 files at once on one connection: closed
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
s.sendall(b'LTSTRM01' + opens(300))
time.sleep(0.5)
s.close()
# out of descriptors: a held connection takes them, the next one waits
a = socket.create_connection(('127.0.0.1', int(sys.argv[2])))
a.sendall(b'LTSTRM01' + opens(60))
time.sleep(0.5)
b = socket.create_connection(('127.0.0.1', int(sys.argv[2])))
c0 = cpu(sys.argv[3]); time.sleep(2); used = cpu(sys.argv[3]) - c0
a.close()
b.sendall(b'LTSTRM01' + frame(1, 1, 0, b'litifut.7.trace') + frame(2, 1, 0, b'x' * 16) +
          frame(5, 1, 16))
time.sleep(3.5)
b.close()
print('cpu', used)
EOF2
    stream_stop $recv $recv2
    local used
    used=$(sed -n 's/^cpu //p' "$d/py.out")
    if ! grep -q 'more than 256 files open at once: connection closed' "$d/recv.err" ||
       ! grep -q 'cannot accept a connection: Too many open files' "$d/recv2.err" ||
       [ -z "$used" ] || [ "$used" -gt 50 ] || [ "$(stat -c %s "$d/host2/litifut.7.trace" 2> /dev/null)" != 16 ]; then
        fail "$name: CPU ${used:-?} ticks in 2 s out of descriptors; $(head -c 300 "$d/py.out")" \
             "$(head -c 300 "$d/recv.err") $(head -c 300 "$d/recv2.err")"
    else
        pass "$name: 300 files at once refused; out of descriptors the receiver rests ($used ticks in 2 s) and then takes the next agent"
    fi
}

test_stream() {
    each_folder stream_case
    set_arch arm
    STREAM_AGENT=$BIN/../lib/litifut/$TRIPLE/litifut-agent
    check "stream/usage: --help, and one line for bad arguments" \
        eval '"$QEMU" "$STREAM_AGENT" --help | grep -q "^usage: litifut-agent" &&
              ! "$QEMU" "$STREAM_AGENT" --interval=0 /tmp 127.0.0.1:1 2> "$WORK/stream-usage.err" &&
              [ "$(wc -l < "$WORK/stream-usage.err")" = 1 ] &&
              ! "$QEMU" "$STREAM_AGENT" /tmp host:1 2> "$WORK/stream-usage.err" &&
              grep -q "^litifut-agent: host:1: expected an IPv4" "$WORK/stream-usage.err" &&
              ! "$BIN/litifut-recv" --listen=x /tmp 2> /dev/null'
    stream_hostile "$WORK/stream/hostile"
    stream_fds "$WORK/stream/descriptors"
}
