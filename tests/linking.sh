# Instrumented links the way build systems do them: with -s, with
# --gc-sections, and ld run directly (no gcc driver: the DB compiler
# comes from the triple) with its arguments in a response file.  And
# litifut-rewrite run by hand on the kept files redoes the wrapper's
# rewrite, byte for byte.

linking_case() {        # linking_case ARCH
    set_arch "$1"
    local d=$WORK/linking/$ARCH src=$ROOT/tests/progs/calls.c
    mkdir -p "$d"

    LITIFUT=1 LITIFUT_VERBOSE=1 "$TCC" -B"$BIN/" -O2 -s -o "$d/stripped" "$src" 2> "$d/strip.err"
    check "$ARCH/linking: -s is ignored (said with LITIFUT_VERBOSE=1, with the summary), and the symbols stay" \
        eval '[ "$(wc -l < "$d/strip.err")" = 2 ] && [ "$(grep -c "ignoring -s" "$d/strip.err")" = 1 ] &&
              "$TRIPLE-readelf" -S "$d/stripped" | grep -q "\.symtab"'

    local tracer
    LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$d/kept" "$src"
    # the module the wrapper chose (a variant, on ARMv6K+ objects)
    tracer=$(grep -m1 '/lib/litifut/.*/tracer[^/]*\.o$' "$d/kept.litifut/pass1.args")
    check "$ARCH/linking: litifut-rewrite by hand redoes the wrapper's rewrite, byte for byte" \
        eval '"$BIN/litifut-rewrite" -q --map "$d/kept.litifut/pass1.map" --exclude-object "$tracer" \
                  --exclude-object "$(readlink -f "$BIN/../lib/litifut/$TRIPLE/island.o" 2>/dev/null)" \
                  --expect "$d/kept.litifut/sites.tsv" -o "$d/by-hand" "$d/kept.litifut/unrewritten" &&
              cmp -s "$d/by-hand" "$d/kept"'

    "$TCC" -O2 -ffunction-sections -Wl,--gc-sections -o "$d/gc-plain" "$src"
    if LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -ffunction-sections \
         -Wl,--gc-sections -o "$d/gc" "$src"; then
        check_traced "$ARCH/linking/gc-sections" "$d/gc-plain" "$d/gc"
    else
        fail "$ARCH/linking: --gc-sections link failed"
    fi

    # the ld command line of a static link, in a response file, run as
    # <triple>-ld from PATH without gcc around it
    "$TCC" -O2 -c -o "$d/calls.o" "$src"
    "$TCC" -static -o "$d/direct-plain" "$d/calls.o"
    "$TCC" -static -o "$d/direct" "$d/calls.o" -### 2>&1 | grep '/collect2 ' |
        xargs printf '%s\n' | tail -n +2 > "$d/link.rsp"
    if (cd "$d" && env -u COLLECT_GCC -u COLLECT_GCC_OPTIONS PATH="$BIN:$PATH" LITIFUT=1 \
            LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TRIPLE-ld" @link.rsp); then
        check_traced "$ARCH/linking/direct-ld-response-file" "$d/direct-plain" "$d/direct"
    else
        fail "$ARCH/linking: direct $TRIPLE-ld @file failed"
    fi
}

test_linking() {
    local arch
    for arch in $ARCHES; do
        echo "$arch"
    done | parallel linking_case
}
