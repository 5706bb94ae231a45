# Bad input: one clear error line naming the file and the problem, a
# non-zero exit, and no output file left behind (but, as ld, a device
# or FIFO output is never removed).  A link that fails in ld itself
# says what ld says, once, as if litifut were not there; so do the
# warnings of a link that succeeds.

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
    expect_error "rewrite: the host's own ELF (x86-64)" "true: unsupported machine" "$rw" /bin/true
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
    echo 'int main(void) { return 0; }' > "$d/host.c"
    echo stale > "$d/host"
    LITIFUT=1 cc -B"$BIN/" -o "$d/host" "$d/host.c" > /dev/null 2> "$d/host.err"
    check "link: unsupported architecture (host x86-64) fails cleanly" \
        eval '[ ! -e "$d/host" ] && [ "$(grep -c "^litifut" "$d/host.err")" = 1 ] &&
              grep -q "cannot instrument for x86-64 .*; litifut supports arm-linux-gnueabi, arm-linux-gnueabihf" "$d/host.err"'

    local arch
    for arch in $ARCHES; do
        case $arch in arm|mips) link_outputs "$arch" ;; esac
    done
    set_arch arm

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

# ld_messages FILE: FILE's lines with the linker's name, the path
# before "ld: " at a line's start (the name ld is run by), as "LD: ".
ld_messages() {
    sed -E 's|^[^ ]*/ld: |LD: |' "$1"
}

# warn_objects DIR: DIR/{w1,w2,c1,c2}.o, whose link warns twice: a
# .gnu.warning section for a function used, and (--warn-common) two
# common symbols of different sizes.
warn_objects() {
    local dir=$1 f
    mkdir -p "$dir"
    cat > "$dir/w1.c" << 'EOF'
static const char warn_g[] __attribute__((used, section(".gnu.warning.g"))) = "g is deprecated";
int g(void) { return 1; }
EOF
    echo 'int g(void); int main(void) { return g() - 1; }' > "$dir/w2.c"
    echo 'int c1;' > "$dir/c1.c"
    echo 'char c1[8];' > "$dir/c2.c"
    for f in w1 w2 c1 c2; do
        "$TCC" -fcommon -c -o "$dir/$f.o" "$dir/$f.c"
    done
}

# link_outputs ARCH: an instrumented link treats its output as ld does
# (ld removes it only if it is a file or a symlink, and writes into a
# device) and its messages are ld's, once, under the name ld was run
# by.  Link-only: nothing runs.
link_outputs() {
    set_arch "$1"
    local d=$WORK/errors/outputs-$ARCH name=$1/link rc rc_plain
    rm -rf "$d"
    warn_objects "$d"
    echo 'int main(void) { return 0; }' > "$d/t.c"
    "$TCC" -c -o "$d/t.o" "$d/t.c"
    echo 'int undefined_thing(void); int main(void) { return undefined_thing(); }' > "$d/undef.c"
    "$TCC" -c -o "$d/undef.o" "$d/undef.c"
    (cd "$d" && "$TCC" -o plain-nolib t.o -llitifut_none > plain-nolib.out 2> plain-nolib.err)
    rc_plain=$?

    # BusyBox's library probes: $(CC) ... -lcrypt -o /dev/null
    if mknod -m 666 "$d/null" c 1 3 2> /dev/null; then
        (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" -o null t.o -llitifut_none \
             > dev-fail.out 2> dev-fail.err)
        rc=$?
        check "$name: a failing link to a device (-o /dev/null) leaves it alone and fails as ld does (exit $rc)" \
            eval '[ -c "$d/null" ] && [ "$(stat -c %t,%T "$d/null")" = 1,3 ] &&
                  [ "$rc" = "$rc_plain" ] && [ ! -s "$d/dev-fail.out" ] &&
                  ld_messages "$d/plain-nolib.err" | cmp -s - <(ld_messages "$d/dev-fail.err") &&
                  [ -z "$(ls -d "$d"/null.* 2> /dev/null)" ]'
        (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_VERBOSE=1 "$TCC" -B"$BIN/" -o null t.o \
             2> dev-keep.err)
        rc=$?
        check "$name: LITIFUT_KEEP=1 with a device output: written into, one warning, no null.litifut" \
            eval '[ "$rc" = 0 ] && [ -c "$d/null" ] && [ "$(stat -c %t,%T "$d/null")" = 1,3 ] &&
                  [ "$(grep -c warning "$d/dev-keep.err")" = 1 ] &&
                  [ -z "$(ls -d "$d"/null.* 2> /dev/null)" ]'
    else
        echo "skip $name: a device output (mknod needs root)"
    fi
    mkfifo "$d/fifo"
    (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" -o fifo t.o -llitifut_none 2> fifo-fail.err)
    check "$name: a failing link to a FIFO leaves it a FIFO" \
        eval '[ -p "$d/fifo" ] && [ -z "$(ls -d "$d"/fifo.* 2> /dev/null)" ]'
    timeout 120 cat "$d/fifo" > "$d/fifo-read" &
    local reader=$!
    (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_VERBOSE=1 "$TCC" -B"$BIN/" -o fifo t.o 2> fifo-keep.err)
    wait "$reader"
    check "$name: LITIFUT_KEEP=1 with a FIFO output: written into, one warning, no fifo.litifut" \
        eval '[ -p "$d/fifo" ] && [ -s "$d/fifo-read" ] && [ "$(grep -c warning "$d/fifo-keep.err")" = 1 ] &&
              grep -q "fifo: not a regular file, LITIFUT_KEEP keeps nothing" "$d/fifo-keep.err" &&
              [ -z "$(ls -d "$d"/fifo.* 2> /dev/null)" ]'

    # a symlink output is replaced (ld unlinks it), its target untouched
    echo "the target" > "$d/target"
    ln -s target "$d/link"
    (cd "$d" && LITIFUT=1 "$TCC" -B"$BIN/" -o link t.o)
    check "$name: a symlink output becomes the program, its target untouched" \
        eval '[ ! -L "$d/link" ] && [ -f "$d/link" ] && "$TRIPLE-nm" "$d/link" | grep -q " litifut_sled$" &&
              [ "$(cat "$d/target")" = "the target" ]'
    ln -sfn target "$d/link"
    (cd "$d" && LITIFUT=1 "$TCC" -B"$BIN/" -o link t.o -llitifut_none 2> /dev/null)
    check "$name: a failing link removes a symlink output (as ld does), not its target" \
        eval '[ ! -e "$d/link" ] && [ ! -L "$d/link" ] && [ "$(cat "$d/target")" = "the target" ]'
    # LITIFUT_KEEP never writes through a symlink
    mkdir "$d/elsewhere"
    ln -s elsewhere "$d/kept.litifut"
    (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" -o kept t.o 2> kept.err)
    rc=$?
    check "$name: LITIFUT_KEEP=1 refuses an OUTPUT.litifut that is a symlink: one line, nothing written there" \
        eval '[ "$rc" != 0 ] && [ "$(grep -c "^litifut" "$d/kept.err")" = 1 ] &&
              grep -q "kept.litifut: not a directory of this user.s" "$d/kept.err" &&
              [ -z "$(ls -A "$d/elsewhere")" ] && [ ! -e "$d/kept" ]'

    # ld's messages: once, under the name ld was run by (gcc -B: $BIN/ld)
    local objs=(w1.o w2.o c1.o c2.o)
    (cd "$d" && "$TCC" -Wl,--warn-common -o plain-warn "${objs[@]}" 2> plain-warn.err)
    (cd "$d" && LITIFUT=1 "$TCC" -B"$BIN/" -Wl,--warn-common -o warn "${objs[@]}" 2> warn.err)
    check "$name: ld's warnings once, named $BIN/ld, as a plain link's" \
        eval '[ -s "$d/plain-warn.err" ] && [ "$(grep -c "g is deprecated" "$d/warn.err")" = 1 ] &&
              ld_messages "$d/plain-warn.err" | cmp -s - <(ld_messages "$d/warn.err") &&
              [ "$(grep -cF "$BIN/ld: " "$d/warn.err")" = "$(grep -c "^[^ ]*/ld: " "$d/plain-warn.err")" ]'
    (cd "$d" && LITIFUT=1 "$TCC" -B"$BIN/" -Wl,--verbose -Wl,--warn-common -o warn "${objs[@]}" \
         > both.out 2>&1)
    # (the warning comes while ld opens its inputs: before the last "attempt to open")
    local order
    order=$(awk '/g is deprecated/ { w = NR } /^attempt to open/ { a = NR } END { print (w && w < a) }' \
            "$d/both.out")
    check "$name: -Wl,--verbose >out 2>&1: ld's output once, the warnings in their place" \
        eval '[ "$(grep -c "^GNU ld" "$d/both.out")" = 1 ] &&
              [ "$(grep -c "g is deprecated" "$d/both.out")" = 1 ] &&
              [ "$(grep -c "overriding smaller common" "$d/both.out")" = 1 ] && [ "$order" = 1 ]'
    (cd "$d" && LITIFUT=1 "$TCC" -B"$BIN/" -Wl,--verbose -Wl,--warn-common -o warn "${objs[@]}" \
         > verbose.out 2> verbose.err)
    check "$name: -Wl,--verbose >out 2>err: ld's stdout once on stdout, its warnings on stderr" \
        eval '[ "$(grep -c "^GNU ld" "$d/verbose.out")" = 1 ] &&
              [ "$(grep -c "using internal linker script" "$d/verbose.out")" = 1 ] &&
              ! grep -q "g is deprecated" "$d/verbose.out" &&
              ld_messages "$d/plain-warn.err" | cmp -s - <(ld_messages "$d/verbose.err")'

    # a first link that fails is the user's link failing: as without litifut
    (cd "$d" && "$TCC" -o plain-undef undef.o 2> plain-undef.err)
    rc_plain=$?
    echo stale > "$d/undef"
    (cd "$d" && LITIFUT=1 "$TCC" -B"$BIN/" -o undef undef.o > undef.out 2> undef.err)
    rc=$?
    check "$name: a failing link: ld's messages once, its status ($rc), no litifut line, no output left" \
        eval '[ "$rc" = "$rc_plain" ] && [ "$rc" != 0 ] && [ ! -e "$d/undef" ] && [ ! -s "$d/undef.out" ] &&
              grep -q "undefined reference" "$d/undef.err" &&
              ld_messages "$d/plain-undef.err" | cmp -s - <(ld_messages "$d/undef.err")'
}

# link_interrupted SIG NUMBER: a signal to the wrapper in the middle of
# an instrumented link (while pass 1's ld runs, slowly: a stand-in that
# sleeps) removes its temporary directory and the output, and the
# wrapper dies by the same signal.  (env --default-signal: background
# jobs start with SIGINT ignored, a run under nohup with SIGHUP ignored,
# and an ignored signal is left ignored.)
link_interrupted() {
    local sig=$1 num=$2 d=$WORK/errors/interrupt-$1 pid rc
    mkdir -p "$d/tmp"
    printf '#!/bin/sh\nexec sleep 60\n' > "$d/slowld"
    chmod +x "$d/slowld"
    echo stale > "$d/out"
    LITIFUT=1 LITIFUT_REAL_LD="$d/slowld" TMPDIR="$d/tmp" env --default-signal=INT,HUP,TERM \
        "$BIN/$TRIPLE-ld" -o "$d/out" "$WORK/errors/demo.o" 2> "$d/err" &
    pid=$!
    for _ in $(seq 100); do
        [ -n "$(ls "$d/tmp")" ] && break
        sleep 0.1
    done
    sleep 0.3                                   # let it reach the linker
    kill -"$sig" "$pid"
    { wait "$pid"; } 2> /dev/null
    rc=$?
    check "link: SIG$sig during an instrumented link: temporary files removed, no output, dies by SIG$sig (status $rc)" \
        eval '[ "$rc" = $((128 + num)) ] && [ -z "$(ls "$d/tmp")" ] && [ ! -e "$d/out" ]'
}
