# The post-processor away from the target: files found with
# --binary-dir and --sysroot (on MIPS, where PIC calls go straight into
# libc once bound, so the trace names libc's functions).

test_postproc() {
    set_arch mips
    local d=$WORK/postproc pp=$BIN/litifut-postproc
    mkdir -p "$d/run" "$d/host"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O1 -o "$d/run/prog" "$ROOT/tests/progs/calls.c"
    (cd "$d/run" && LITIFUT_DIR=. "$QEMU" -L "$SYSROOT" ./prog > /dev/null)
    "$pp" --format=tsv "$d/run" > "$d/ref.tsv"

    # as if copied from a device: the program elsewhere, and the maps
    # naming the libraries by their paths on the target
    mkdir -p "$d/copy"
    cp "$d"/run/litifut.* "$d/copy/"
    sed -i "s| $SYSROOT/| /|" "$d"/copy/litifut.*.maps
    mv "$d/run/prog" "$d/host/prog"
    "$pp" --format=tsv --binary-dir "$d/host" --sysroot "$SYSROOT" "$d/copy" > "$d/moved.tsv" \
        2> "$d/moved.err"
    check "$ARCH/postproc: --binary-dir and --sysroot find the program and its libraries" \
        eval '[ ! -s "$d/moved.err" ] && grep -q "libc.so.6" "$d/moved.tsv" &&
              cmp -s <(cut -f 1-5,7-8,10- "$d/ref.tsv") <(cut -f 1-5,7-8,10- "$d/moved.tsv")'
    "$pp" --format=tsv "$d/copy" > /dev/null 2> "$d/lost.err"
    check "$ARCH/postproc: without them, one error naming the missing program" \
        eval '[ "$(wc -l < "$d/lost.err")" = 1 ] && grep -q "cannot read the traced program" "$d/lost.err"'

}
