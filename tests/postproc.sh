# The post-processor away from the target: files found with
# --binary-dir and --sysroot (on MIPS, where PIC calls go straight into
# libc once bound, so the trace names libc's functions); a program with
# an instrumented library, the library moved, lost or rebuilt.  On
# every arch: one name per function in every view (free, which glibc's
# cfree aliases; vfork and _setjmp, which the tracer wraps), and the
# untraced calls --info counts are the ones the link counted.

test_postproc() {
    local arch
    for arch in $ARCHES; do echo "$arch"; done | parallel postproc_arch
    postproc_moved
}

postproc_arch() {
    set_arch "$1"
    postproc_names
    postproc_untraced
    postproc_buildid
    postproc_open_end
}

# calls that never returned (a process that ends inside them): the log
# says they were still open at the end, not that they finished
postproc_open_end() {
    local d=$WORK/postproc/$ARCH/exitdeep name=$ARCH/postproc/open-at-end
    build_prog "$name" "$d" exitdeep.c || return
    run_target "$d/run" "$d/prog"
    "$BIN/litifut-postproc" "$d/run" > "$d/log" 2> "$d/err"
    check "$name: _exit from work: work's and _exit's lines say they were still open at the end" \
        eval '[ "$(cat "$d/run/rc")" = 3 ] && [ ! -s "$d/err" ] &&
              grep -q " work -> _exit (libc.so.6) (still open at the end)\$" "$d/log" &&
              grep -q "} /\* work \*/ (still open at the end)\$" "$d/log" &&
              ! grep -q "fflush (libc.so.6) (still open" "$d/log"'
}

# --info of a trace whose program is stripped or missing: load_bias and
# build_id are still the program's (its OBJECT record's): the build-id is
# what finds the unstripped file
postproc_buildid() {
    local d=$WORK/postproc/$ARCH/buildid name=$ARCH/postproc/buildid want how info
    build_prog "$name" "$d" demo.c || return
    run_target "$d/run" "$d/prog"
    want=$("$TRIPLE-readelf" -n "$d/prog" | sed -n 's/^ *Build ID: //p')
    for how in stripped missing; do
        rm -rf "$d/$how"
        cp -r "$d/run" "$d/$how"
        if [ "$how" = stripped ]; then "$TRIPLE-strip" "$d/$how/prog"; else rm "$d/$how/prog"; fi
        info=$("$BIN/litifut-postproc" --info "$d/$how" 2> /dev/null)
        check "$name: --info of a $how program: build_id=${want:-?}" \
            eval '[ -n "$want" ] && grep -qx "build_id=$want" <<< "$info" &&
                  grep -q "^load_bias=0x[0-9a-f]" <<< "$info"'
    done
}

# build_prog NAME DIR SOURCE [CC-ARGS...]: tests/progs/SOURCE
# instrumented (LITIFUT_KEEP=1) into DIR/prog, at -O2 with CC-ARGS; a
# fail for NAME if it cannot be built (then 1).
build_prog() {
    local name=$1 d=$2 src=$3
    shift 3
    mkdir -p "$d"
    if ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 "$@" -o "$d/prog" \
         "$ROOT/tests/progs/$src" 2> "$d/build.err"; then
        fail "$name: cannot build tests/progs/$src: $(head -c 300 "$d/build.err")"
        return 1
    fi
}

# tests/progs/names.c in every view, and a count trace's --profile:
# free, vfork and _setjmp by their own names (the calls TSV's
# target_sym alone says where a call went: the tracer's __wrap_vfork)
postproc_names() {
    local d=$WORK/postproc/$ARCH/names pp=$BIN/litifut-postproc name=$ARCH/postproc/names
    build_prog "$name" "$d" names.c || return
    run_target "$d/run" "$d/prog"
    LITIFUT_MODE=count run_target "$d/count" "$d/prog"
    "$pp" "$d/run" > "$d/log" 2> "$d/err"
    "$pp" --profile --format=tsv "$d/run" > "$d/profile" 2>> "$d/err"
    "$pp" --graph --format=tsv "$d/run" > "$d/graph" 2>> "$d/err"
    "$pp" --summary --format=tsv "$d/run" > "$d/summary" 2>> "$d/err"
    "$pp" --format=tsv "$d/run" > "$d/calls" 2>> "$d/err"
    "$pp" --profile "$d/count" > "$d/count.profile" 2>> "$d/err"
    local lib=$SYSROOT/lib/libc.so.6
    check "$name: free, vfork and _setjmp by their own names in the log, --profile, --graph, --summary, callee_sym and a count trace's --profile" \
        eval '[ ! -s "$d/err" ] && ! grep -q "cfree\|__wrap_" "$d/log" "$d/profile" "$d/graph" "$d/summary" \
                                      "$d/count.profile" &&
              ! cut -f 12 "$d/calls" | grep -q "cfree\|__wrap_" &&
              grep -q " churn -> free (libc.so.6)\$" "$d/log" && grep -q " main -> vfork (libc.so.6)\$" "$d/log" &&
              [ "$(grep -c " main -> _setjmp (libc.so.6)\$" "$d/log")" = 2 ] &&
              [ "$(awk -F "\t" "\$8 == \"free\" || \$8 == \"vfork\" || \$8 == \"_setjmp\" { print \$1, \$8 }" "$d/profile" | sort | tr "\n" " ")" = "1 vfork 2 _setjmp 5 free " ] &&
              grep -q "^churn	.*	free	$lib	5	" "$d/graph" && grep -q "^main	.*	vfork	$lib	1	" "$d/graph" &&
              grep -qx "5	free	$lib" "$d/summary" && grep -qx "1	vfork	$lib" "$d/summary" &&
              grep -qx "2	_setjmp	$lib" "$d/summary" &&
              [ "$(awk -F "\t" "\$11 == \"__wrap_vfork+0x0\" && \$12 == \"vfork+0x0\"" "$d/calls" | wc -l)" = 1 ] &&
              [ "$(cut -f 12 "$d/calls" | grep -c "^free+0x0\$")" = 5 ] &&
              grep -q " 5  free (libc.so.6)\$" "$d/count.profile"'
}

# tests/progs/untraced.c: --info's untraced calls, in all and per
# function, are the link's (untraced.tsv): a Thumb-2 blx rM rewritten
# with the 32-bit instruction before it is a site, not an untraced call,
# and the tracer's and crt files' code is left out as the link leaves it
postproc_untraced() {
    local d=$WORK/postproc/$ARCH/untraced pp=$BIN/litifut-postproc name=$ARCH/postproc/untraced
    build_prog "$name" "$d" untraced.c || return
    run_target "$d/run" "$d/prog"
    "$pp" --info "$d/run" > "$d/info" 2> "$d/info.err"
    local link info expected
    link=$(sed -n "s/^# \([0-9][0-9]*\)	\(.*\)/\1 \2/p" "$d/prog.litifut/untraced.tsv" | sort | tr "\n" " ")
    info=$(sed -n "s/^untraced_in=\([0-9]*\) \([^ ]*\) .*/\1 \2/p" "$d/info" | sort | tr "\n" " ")
    case $ARCH in
    arm) expected="1 via_lr " ;;
    armhf) expected="1 via_it 1 via_lr " ;;
    aarch64) expected="1 via_x16 " ;;
    riscv64) expected="1 via_ra_reader " ;;
    *) expected="1 via_hb " ;;
    esac
    check "$name: --info counts the untraced calls the link counted (${info:-none}; link: ${link:-none})" \
        eval '[ ! -s "$d/info.err" ] && [ "$(cat "$d/run/rc")" = 0 ] && [ "$link" = "$expected" ] &&
              [ "$info" = "$link" ] &&
              [ "$(sed -n "s/^untraced=//p" "$d/info")" = "$(grep -c "^0x" "$d/prog.litifut/untraced.tsv")" ]'
}

postproc_moved() {
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

    # without the maps file (the program died before writing it), the
    # program's addresses are still known: its OBJECT record has its
    # load bias.  Only the libraries' go unnamed (and so what a PLT
    # entry stands for: callee_sym).
    mkdir -p "$d/nomaps"
    cp "$d"/run/litifut.*.trace "$d/nomaps/"
    "$pp" --format=tsv --binary-dir "$d/host" "$d/nomaps" > "$d/nomaps.tsv" 2> "$d/nomaps.err"
    check "$ARCH/postproc: without the maps file, every call site and every target in the program named" \
        eval '[ ! -s "$d/nomaps.err" ] && cmp -s <(cut -f 1-8 "$d/ref.tsv") <(cut -f 1-8 "$d/nomaps.tsv") &&
              cmp -s <(awk -F "\t" "\$9 ~ /\/prog\$/" "$d/ref.tsv" | cut -f 1-5,7-8,10-11) \
                     <(awk -F "\t" "\$9 ~ /\/prog\$/" "$d/nomaps.tsv" | cut -f 1-5,7-8,10-11) &&
              awk -F "\t" "\$9 ~ /\/prog\$/ { n++ } END { exit !n }" "$d/nomaps.tsv"'
    postproc_library
}

# tests/progs/demolib: the program and its instrumented library, two
# objects in one trace, each found as the program is.
postproc_library() {
    local d=$WORK/postproc/lib pp=$BIN/litifut-postproc
    mkdir -p "$d/run" "$d/host" "$d/other"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O1 -shared -fPIC -o "$d/run/libwords.so" \
        "$ROOT/tests/progs/demolib/words.c"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O1 -o "$d/run/prog" \
        "$ROOT/tests/progs/demolib/main.c" -L"$d/run" -lwords
    (cd "$d/run" && LITIFUT_DIR=. "$QEMU" -L "$SYSROOT" -E LD_LIBRARY_PATH="$d/run" ./prog > /dev/null)
    "$pp" --format=tsv "$d/run" > "$d/ref.tsv" 2> "$d/ref.err"
    "$pp" --info "$d/run" > "$d/ref.info"
    check "$ARCH/postproc/lib: two objects, the library's calls named in it" \
        eval '[ ! -s "$d/ref.err" ] && grep -q "^objects=2$" "$d/ref.info" &&
              [ "$(grep -c "^object=[0-9]* [0-9]* 0x[0-9a-f]\{8\} $d/run/\(prog\|libwords.so\)$" "$d/ref.info")" = 2 ] &&
              awk -F "\t" "\$6 ~ /libwords.so\$/ && \$8 ~ /^words_each\+/ { n++ } END { exit !n }" "$d/ref.tsv"'

    # both files copied to the host: --binary-dir finds the library too
    cp "$d/run/prog" "$d/run/libwords.so" "$d/host/"
    mkdir -p "$d/copy"
    cp "$d"/run/litifut.* "$d/copy/"
    mv "$d/run/libwords.so" "$d/run/libwords.so.away"
    "$pp" --format=tsv --binary-dir "$d/host" "$d/copy" > "$d/moved.tsv" 2> "$d/moved.err"
    check "$ARCH/postproc/lib: --binary-dir finds the program and the library" \
        eval '[ ! -s "$d/moved.err" ] && cmp -s "$d/ref.tsv" "$d/moved.tsv"'
    "$pp" --format=tsv "$d/copy" > "$d/lost.tsv" 2> "$d/lost.err"
    check "$ARCH/postproc/lib: the library lost: one error naming it, the program's calls still decoded" \
        eval '[ "$(wc -l < "$d/lost.err")" = 1 ] &&
              grep -q "cannot read the traced library $d/run/libwords.so" "$d/lost.err" &&
              cmp -s <(awk -F "\t" "\$6 ~ /\/prog\$/" "$d/ref.tsv" | cut -f 1,2,4-8) \
                     <(awk -F "\t" "NR > 1" "$d/lost.tsv" | cut -f 1,2,4-8)'

    # another build of the library (the same source at -O0)
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O0 -shared -fPIC -o "$d/other/libwords.so" \
        "$ROOT/tests/progs/demolib/words.c"
    cp "$d/host/prog" "$d/other/"
    "$pp" --format=tsv --binary-dir "$d/other" "$d/copy" > "$d/other.tsv" 2> "$d/other.err"
    check "$ARCH/postproc/lib: another build of the library: one error naming it and the trace" \
        eval '[ "$(wc -l < "$d/other.err")" = 1 ] &&
              grep -q "litifut\.[0-9]*\.trace: $d/other/libwords.so is not the build that was traced (build-id" "$d/other.err"'
    mv "$d/run/libwords.so.away" "$d/run/libwords.so"
}
