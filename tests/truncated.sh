# A trace cut short (power lost, copy interrupted) gives every whole
# record and one warning, never a crash.

test_truncated() {
    each_arch truncated_arch
}

truncated_arch() {
    set_arch "$1"
    local d=$WORK/truncated/$ARCH pp=$BIN/litifut-postproc
    mkdir -p "$d"
    LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -static -o "$d/prog" \
        "$ROOT/tests/progs/calls.c"
    # small chunks, so the cut falls in the middle of the trace
    (cd "$d" && LITIFUT_DIR=. LITIFUT_CHUNK_KB=4 "$QEMU" -L "$SYSROOT" ./prog > /dev/null)
    local trace
    trace=$(ls "$d"/litifut.*.trace)
    "$pp" --format=tsv "$trace" > "$d/full.tsv"
    local size cut
    size=$(stat -c %s "$trace")
    # cut in the middle; inside chunk 0's first record (a time mark);
    # inside its second (the program's OBJECT record: no call decoded)
    for cut in $((size / 2 + 6)) $((size / 2 + 1)) $((4096 + 16 + 3)) $((4096 + 16 + 12 + 20))
    do
        cp "$trace" "$d/litifut.1.trace"
        truncate -s "$cut" "$d/litifut.1.trace"
        if ! "$pp" --format=tsv --binary-dir "$d" "$d/litifut.1.trace" > "$d/cut.tsv" 2> "$d/cut.err"; then
            fail "$ARCH/truncated at $cut of $size bytes: post-processor failed: $(head -c 300 "$d/cut.err")"
            continue
        fi
        local rows full
        rows=$(($(wc -l < "$d/cut.tsv") - 1))
        full=$(($(wc -l < "$d/full.tsv") - 1))
        if [ "$(wc -l < "$d/cut.err")" = 1 ] && grep -q "truncated" "$d/cut.err" &&
           [ "$rows" -lt "$full" ] &&
           cmp -s <(cut -f2- "$d/cut.tsv") <(head -n $((rows + 1)) "$d/full.tsv" | cut -f2-); then
            pass "$ARCH/truncated at $cut of $size bytes: $rows of $full calls kept, one warning"
        else
            fail "$ARCH/truncated at $cut of $size bytes: expected a prefix of the calls and one warning" \
                 "($rows of $full rows; $(head -c 200 "$d/cut.err"))"
        fi
    done
    head -c 100 "$trace" > "$d/litifut.2.trace"
    check "$ARCH/truncated inside the header: one error line" \
        eval '! "$pp" "$d/litifut.2.trace" > /dev/null 2> "$d/hdr.err" && [ "$(wc -l < "$d/hdr.err")" = 1 ]'
}
