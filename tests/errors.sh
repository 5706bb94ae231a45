# Bad input: one clear error line naming the file and the problem, a
# non-zero exit, and no output file left behind.

# expect_error NAME PATTERN COMMAND...: COMMAND fails with exactly one
# line on stderr matching PATTERN.
expect_error() {
    local name=$1 pattern=$2; shift 2
    local err=$WORK/errors/last.err
    if "$@" > /dev/null 2> "$err"; then
        fail "$name: succeeded"
    elif [ "$(wc -l < "$err")" != 1 ] || ! grep -q -- "$pattern" "$err"; then
        fail "$name: expected one line matching '$pattern', got: $(head -c 300 "$err")"
    else
        pass "$name: $(cat "$err")"
    fi
}

# expect_link_error NAME PATTERN ENV...: an instrumented link through
# gcc fails, our one line matches, and the output (made beforehand) is gone.
expect_link_error() {
    local name=$1 pattern=$2; shift 2
    local d=$WORK/errors out=$WORK/errors/out
    echo stale > "$out"
    if env "$@" "$TCC" -B"$BIN/" -o "$out" "$d/demo.o" > /dev/null 2> "$d/link.err"; then
        fail "$name: link succeeded"
    elif [ -e "$out" ]; then
        fail "$name: output file left behind"
    elif [ "$(grep -c '^litifut' "$d/link.err")" != 1 ] || ! grep -q -- "$pattern" "$d/link.err"; then
        fail "$name: expected one litifut line matching '$pattern', got: $(head -c 300 "$d/link.err")"
    else
        pass "$name: $(grep '^litifut' "$d/link.err")"
    fi
}

test_errors() {
    set_arch arm
    local d=$WORK/errors rw=$BIN/litifut-rewrite
    mkdir -p "$d"
    "$TCC" -O2 -c -o "$d/demo.o" "$ROOT/tests/progs/demo.c"
    "$TCC" -o "$d/plain" "$d/demo.o"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -o "$d/prog" "$d/demo.o"

    echo "not an ELF file" > "$d/text"
    expect_error "rewrite: not ELF" "text: not an ELF file" "$rw" "$d/text"
    expect_error "rewrite: missing file" "nothing: No such file" "$rw" "$d/nothing"
    expect_error "rewrite: 64-bit host ELF" "not a 32-bit ELF" "$rw" /bin/true
    cp "$d/prog" "$d/sparc"
    printf '\002\000' | dd of="$d/sparc" bs=1 seek=18 conv=notrunc 2> /dev/null
    expect_error "rewrite: wrong machine" "sparc: unsupported machine" "$rw" "$d/sparc"
    "$TRIPLE-strip" -o "$d/stripped" "$d/prog"
    expect_error "rewrite: stripped program" "stripped: no symbol table" "$rw" "$d/stripped"
    expect_error "rewrite: not linked with the tracer" "plain: no symbol litifut_sled" \
        "$rw" --db "$d/x.c" "$d/plain"
    expect_error "rewrite: relinking an already rewritten program" "prog: already rewritten" \
        "$rw" -o "$d/rewritten-twice" "$d/prog"
    check "rewrite: no output after a failed rewrite" test ! -e "$d/rewritten-twice"

    # -o a FIFO (or /dev/null): written to, not replaced by a file
    rm -f "$d/fifo"
    mkfifo "$d/fifo"
    timeout 120 cat "$d/fifo" > "$d/fifo.out" &
    local reader=$!
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -o "$d/fifo" "$d/demo.o" 2> "$d/fifo.err"
    wait "$reader"
    check "link: -o FIFO writes the program into it and leaves it a FIFO" \
        eval '[ -p "$d/fifo" ] && [ ! -s "$d/fifo.err" ] && cmp -s "$d/fifo.out" "$d/prog"'

    expect_link_error "link: real ld missing" "LITIFUT_REAL_LD\|No such file" \
        LITIFUT=1 LITIFUT_REAL_LD=/nonexistent/ld
    expect_link_error "link: compiler for the DB fails" "compiling the instruction DB" \
        LITIFUT=1 LITIFUT_CC=false
    expect_link_error "link: tracer module missing" "tracer module not found" \
        LITIFUT=1 LITIFUT_LIBDIR=/nonexistent
    echo 'int main(void) { extern int undefined_thing(void); return undefined_thing(); }' > "$d/undef.c"
    echo stale > "$d/undef"
    LITIFUT=1 "$TCC" -B"$BIN/" -o "$d/undef" "$d/undef.c" > /dev/null 2> "$d/undef.err"
    check "link: a failing first link leaves no output and says so" \
        eval '[ ! -e "$d/undef" ] && grep -q "first link failed" "$d/undef.err"'
    echo 'int main(void) { return 0; }' > "$d/host.c"
    echo stale > "$d/host"
    LITIFUT=1 cc -B"$BIN/" -o "$d/host" "$d/host.c" > /dev/null 2> "$d/host.err"
    check "link: unsupported architecture (host x86-64) fails cleanly" \
        eval '[ ! -e "$d/host" ] && [ "$(grep -c "^litifut" "$d/host.err")" = 1 ] &&
              grep -q "cannot instrument for x86-64 .*; litifut supports arm-linux-gnueabi, arm-linux-gnueabihf" "$d/host.err"'

    link_interrupted TERM 15
    link_interrupted INT 2
    link_interrupted HUP 1

    local pp=$BIN/litifut-postproc
    expect_error "postproc: not a trace" "text: not a litifut trace" "$pp" "$d/text"
    mkdir -p "$d/empty"
    expect_error "postproc: directory without traces" "no litifut.*.trace files" "$pp" "$d/empty"
    mkdir -p "$d/run" "$d/other"
    (cd "$d/run" && LITIFUT_DIR=. "$QEMU" -L "$SYSROOT" ../prog > /dev/null)
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O0 -o "$d/other/prog" "$ROOT/tests/progs/demo.c"
    expect_error "postproc: another build of the program" "not the build that was traced" \
        "$pp" --binary-dir "$d/other" "$d/run"
}

# link_interrupted SIG NUMBER: a signal to the wrapper in the middle of
# an instrumented link (while the DB compiles, slowly) removes its
# temporary directory and the output, and the wrapper dies by the same
# signal.  (env --default-signal: background jobs start with SIGINT
# ignored, and an ignored signal is left ignored.)
link_interrupted() {
    local sig=$1 num=$2 d=$WORK/errors/interrupt-$1 pid rc
    mkdir -p "$d/tmp"
    printf '#!/bin/sh\nexec sleep 60\n' > "$d/slowcc"
    chmod +x "$d/slowcc"
    echo stale > "$d/out"
    LITIFUT=1 LITIFUT_CC="$d/slowcc" TMPDIR="$d/tmp" env --default-signal=INT \
        "$BIN/$TRIPLE-ld" -o "$d/out" "$WORK/errors/demo.o" 2> "$d/err" &
    pid=$!
    for _ in $(seq 100); do
        [ -n "$(ls "$d/tmp")" ] && break
        sleep 0.1
    done
    sleep 0.3                                   # let it reach the compiler
    kill -"$sig" "$pid"
    { wait "$pid"; } 2> /dev/null
    rc=$?
    check "link: SIG$sig during an instrumented link: temporary files removed, no output, dies by SIG$sig (status $rc)" \
        eval '[ "$rc" = $((128 + num)) ] && [ -z "$(ls "$d/tmp")" ] && [ ! -e "$d/out" ]'
}
