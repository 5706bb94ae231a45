# BusyBox 1.35 from Debian's source (make sources), as a new user builds
# it: its own Kbuild and scripts/trylink, LITIFUT=1 and the wrapper
# through -B (its library probes link to /dev/null; its built-in.o
# files are archives), a small configuration that keeps the shell and
# the applets checked here.  Each applet run must behave as the plain
# build's (relinked without LITIFUT from the same objects); the awk and
# gzip runs are also checked against the oracle (single processes), the
# shell pipeline (which forks) by its output and its processes' traces.

# The applets, and the shell's features these runs use.
BUSYBOX_OPTIONS="ASH SH_IS_ASH ASH_ECHO ASH_PRINTF ASH_TEST ASH_OPTIMIZE_FOR_SIZE
    FEATURE_SH_STANDALONE FEATURE_PREFER_APPLETS AWK GZIP GUNZIP TAR FEATURE_TAR_CREATE
    CAT ECHO SED SORT WC SEQ CMP TR HEAD"

# busybox_build ARCH DIR: configured and built there, instrumented, with
# the plain relink beside it (DIR/busybox.plain); 0 if both were made.
busybox_build() {
    local d=$2 o
    rm -rf "$d"
    mkdir -p "${d%/*}" && cp -a "$BUSYBOX_SRC" "$d" || return 1
    (cd "$d" && make allnoconfig > config.log 2>&1) || return 1
    local opts=$BUSYBOX_OPTIONS
    [ "${LIBC:-glibc}" = musl ] && opts="$opts LFS"     # (musl's off_t is 64-bit, as OpenWrt's config says)
    for o in $opts; do
        sed -i "s/^# CONFIG_$o is not set\$/CONFIG_$o=y/" "$d/.config"
    done
    (cd "$d" && yes "" | make oldconfig >> config.log 2>&1) || return 1
    (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 make -j2 CROSS_COMPILE="$TRIPLE-" \
         CC="$TCC -B$BIN/" busybox_unstripped > build.log 2>&1) || return 1
    cp "$d/busybox_unstripped" "$d/busybox" &&
        cp -a "$d/busybox_unstripped.litifut" "$d/busybox.litifut" &&
        rm "$d/busybox_unstripped" &&
        (cd "$d" && make -j2 CROSS_COMPILE="$TRIPLE-" CC="$TCC -B$BIN/" busybox_unstripped \
             > relink.log 2>&1) &&
        cp "$d/busybox_unstripped" "$d/busybox.plain"
}

busybox_arch() {
    set_arch "$1"
    local d=$WORK/busybox/$ARCH null_before
    null_before=$(stat -c %F /dev/null)
    if ! busybox_build "$ARCH" "$d"; then
        fail "$ARCH/busybox: the build failed: $(tail -c 600 "$d"/*.log 2> /dev/null)"
        return
    fi
    check "$ARCH/busybox: built by its Kbuild and trylink with LITIFUT=1 (instrumented; the plain relink is not; /dev/null still $null_before)" \
        eval '"$TRIPLE-nm" "$d/busybox" | grep -q " litifut_sled$" &&
              ! "$TRIPLE-nm" "$d/busybox.plain" | grep -q litifut &&
              [ -s "$d/busybox.litifut/unrewritten" ] &&
              [ "$(stat -c %F /dev/null)" = "$null_before" ]'
    local RUN_NAME=busybox
    check_traced "$ARCH/busybox/awk" "$d/busybox.plain" "$d/busybox" \
        awk 'BEGIN { for (i = 0; i < 1000; i++) { s = s + i * i; t = t sprintf("%d,", i % 7) }
                     n = split(t, a, ","); print s, n, length(t) }'
    seq 1 2000 > "$d/numbers"
    STDIN=$d/numbers check_traced "$ARCH/busybox/gzip" "$d/busybox.plain" "$d/busybox" gzip -c -9
    # a pipeline and a gzip and tar round trip: the shell forks for each
    # stage; every process traces into a file of its own
    local script='seq 1 500 > f; echo hello world | awk "{ print \$2 }" | sed s/o/0/ | tr a-z A-Z;
                  gzip -c f | gunzip -c | cmp - f && echo same; tar cf t.tar f && tar tf t.tar;
                  sort -r f | head -n 3 | tr -d " " '
    local r=$WORK/runs/$ARCH/busybox/sh
    run_target "$r/plain" "$d/busybox.plain" sh -c "$script"
    run_target "$r/traced" "$d/busybox" sh -c "$script"
    local n bad=0 t
    n=$(ls "$r/traced"/litifut.*.trace 2> /dev/null | wc -l)
    # (the shell's SIGCHLD handler may interrupt the tracer: the one
    # warning allowed, which counts those deliveries)
    rm -f "$r/pp.all"
    for t in "$r/traced"/litifut.*.trace; do
        "$BIN/litifut-postproc" --summary "$t" > /dev/null 2>> "$r/pp.all" || bad=1
    done
    but_unrecorded_signals < "$r/pp.all" > "$r/pp.err"
    check "$ARCH/busybox/sh: a pipeline, gzip and tar round trips: same output as plain ($(tr '\n' ' ' < "$r/plain/out")); $n processes, each its own trace" \
        eval 'same_run "$r/plain" "$r/traced" && [ "$n" -ge 8 ] && [ "$bad" = 0 ] && [ ! -s "$r/pp.err" ] &&
              grep -q "^W0RLD$" "$r/traced/out" && grep -q "^same$" "$r/traced/out"'
    busybox_stripped "$d"
}

# busybox_stripped: as a device gets it, BusyBox's `make` strips
# busybox_unstripped into busybox; the host keeps both.  The stripped
# one runs, and the post-processor, given their directory, takes
# busybox_unstripped by its build-id (postproc/reader/buildid.c); given the
# stripped file alone and a separate debug file (--debug-dir), it reads
# the same.
busybox_stripped() {
    local d=$1 host=$WORK/busybox-host/$ARCH r=$WORK/runs/$ARCH/busybox/stripped
    mkdir -p "$host"
    cp "$d/busybox" "$host/busybox_unstripped"
    "$TRIPLE-strip" -o "$host/busybox" "$d/busybox"
    RUN_NAME=busybox run_target "$r" "$host/busybox" awk 'BEGIN { print 6 * 7 }'
    "$BIN/litifut-postproc" --binary-dir "$host" --summary "$r" > "$r/summary" 2> "$r/pp.err"
    check "$ARCH/busybox: the device's stripped busybox traced, read with busybox_unstripped beside it (by build-id)" \
        eval '[ "$(cat "$r/out")" = 42 ] && [ ! -s "$r/pp.err" ] &&
              [ -z "$("$TRIPLE-nm" "$host/busybox" 2> /dev/null)" ] &&
              grep -q "^ *[1-9][0-9]*  total$" "$r/summary" && grep -q "awk_main\|evaluate" "$r/summary"'
    # or only the stripped file, and its symbols in a separate debug
    # file (objcopy --only-keep-debug) under .build-id (--debug-dir)
    local only=$WORK/busybox-host/$ARCH-stripped dbg=$WORK/busybox-host/$ARCH-debug id
    id=$("$TRIPLE-readelf" -n "$host/busybox" | sed -n 's/.*Build ID: //p')
    mkdir -p "$only" "$dbg/.build-id/${id:0:2}"
    cp "$host/busybox" "$only/busybox"
    "$TRIPLE-objcopy" --only-keep-debug "$d/busybox" "$dbg/.build-id/${id:0:2}/${id:2}.debug"
    "$BIN/litifut-postproc" --binary-dir "$only" --debug-dir "$dbg" --summary "$r" \
        > "$r/summary.debug" 2> "$r/pp.debug.err"
    check "$ARCH/busybox: ... or with its separate debug file (--debug-dir, .build-id/${id:0:2}/...): the same summary" \
        eval '[ -n "$id" ] && [ ! -s "$r/pp.debug.err" ] && cmp -s "$r/summary" "$r/summary.debug"'
}

test_busybox() {
    BUSYBOX_SRC=$(ls -d "${SOURCES:-$ROOT/build/src}"/busybox-*/ 2> /dev/null | head -1)
    BUSYBOX_SRC=${BUSYBOX_SRC%/}
    if [ -z "$BUSYBOX_SRC" ]; then
        fail "busybox: no BusyBox source in ${SOURCES:-$ROOT/build/src} (make sources)"
        return
    fi
    # every arch: its applets' call trees against the oracle's too
    each_arch busybox_arch
}
