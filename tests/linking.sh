# Instrumented links the way build systems do them: with -s, with
# --gc-sections, and ld run directly (no gcc driver: the DB compiler
# comes from the triple) with its arguments in a response file.  And
# litifut-rewrite run by hand on the kept files redoes the wrapper's
# rewrite, byte for byte.  A linker script that puts .rodata first (pass
# 2 moves code: a third link).  ARM's far sleds in a program of 36 MB.

linking_case() {        # linking_case ARCH
    set_arch "$1"
    local d=$WORK/linking/$ARCH src=$ROOT/tests/progs/calls.c
    mkdir -p "$d"

    LITIFUT=1 LITIFUT_VERBOSE=1 "$TCC" -B"$BIN/" -O2 -s -o "$d/stripped" "$src" 2> "$d/strip.err"
    check "$ARCH/linking: -s is ignored (said with LITIFUT_VERBOSE=1, with the summary), and the symbols stay" \
        eval '[ "$(wc -l < "$d/strip.err")" = 2 ] && [ "$(grep -c "ignoring -s" "$d/strip.err")" = 1 ] &&
              "$TRIPLE-readelf" -S "$d/stripped" | grep -q "\.symtab"'
    # (the summary counts no code of the tracer's own, nor zeros between
    # functions, as code outside any function: MIPS finds code by its
    # function symbols, and the sleds have none)
    check "$ARCH/linking: the summary counts no code outside any function in calls.c's PIE" \
        eval '! grep -q "code outside any function" "$d/strip.err"'

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

# A linker script with .rodata (where the DB goes) before the code: the
# code's targets lie after the DB (positive site words), and pass 2's
# bigger DB moves the code, so the wrapper links a third time and
# rewrites that (a static link: thousands of sites; PIE: where it
# moves).  ld's own script with one line moved.
linking_moved_case() {  # linking_moved_case ARCH
    set_arch "$1"
    local d=$WORK/linking-moved/$ARCH src=$ROOT/tests/progs/calls.c mode opt
    mkdir -p "$d"
    for mode in pie static; do
        opt=-pie; [ $mode = static ] && opt=-static
        "$TRIPLE-ld" --verbose $opt | sed -n '/^=====/,/^=====/p' | sed '1d;$d' |
            awk '/^  \.rodata  *:/ { next }
                 /^  \.init  *:/ { print "  .rodata : { *(.rodata .rodata.* .gnu.linkonce.r.*) }" }
                 { print }' > "$d/$mode.ld"
        "$TCC" -O1 $opt -Wl,-T,"$d/$mode.ld" -o "$d/$mode-plain" "$src"
        if ! LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" -O1 $opt -Wl,-T,"$d/$mode.ld" \
               -o "$d/$mode" "$src" 2> "$d/$mode.err"; then
            fail "$ARCH/linking/rodata-first/$mode: link failed: $(head -c 300 "$d/$mode.err")"
            continue
        fi
        [ $mode = static ] &&
            check "$ARCH/linking/rodata-first/static: .rodata before .text, pass 2 moved the code: a third link" \
                eval '[ -s "$d/static.litifut/pass3.map" ] &&
                      [ "$("$TRIPLE-readelf" -SW "$d/static" | grep -n " \.rodata \| \.text " | cut -d: -f1 | head -1)" = \
                        "$("$TRIPLE-readelf" -SW "$d/static" | grep -n " \.rodata " | cut -d: -f1)" ]'
        check_traced "$ARCH/linking/rodata-first/$mode" "$d/$mode-plain" "$d/$mode"
    done
}

# Far sleds (arch/{arm,aarch64,riscv64}/far-sled.S, wrapper/farsleds.c):
# on ARM a program of 36 MB of code (tests/progs/fartext.c's parts with
# 12 MB of padding between them; far sleds every 4 MB: four in the
# link), on AArch64 of 135 MB (45 MB between them, beyond bl's +-128 MB;
# every 64 MB: two), on RISC-V of 6 MB (2 MB between them, beyond jal's
# +-1 MB; every 512 KB: four), as PIE, static and a shared library, traced exactly like
# the oracle; far sleds in the link, used by the calls beyond reach of
# the tracer's own sled, and where the link put them pass 2 kept.
linking_far_case() {    # linking_far_case ARCH
    set_arch "$1"
    local d=$WORK/linking-far/$ARCH src=$ROOT/tests/progs/fartext.c p objs=() libobjs=()
    local pad_mb=12 far_sleds=4
    [ "$ARCH" = aarch64 ] && pad_mb=45 far_sleds=2
    [ "$ARCH" = riscv64 ] && pad_mb=2           # (jal: +-1 MB; far sleds every 512 KB)
    mkdir -p "$d"
    "$TCC" -DPAD_MB=$pad_mb -c -o "$d/pad.o" "$ROOT/tests/progs/fartext-pad.S"
    for p in 1 2 3; do
        "$TCC" -O1 -fPIC -DPART=$p -c -o "$d/p$p.o" "$src"
        libobjs+=("$d/p$p.o" "$d/pad.o")
    done
    "$TCC" -O1 -DPART=0 -c -o "$d/p0.o" "$src"
    objs=("${libobjs[@]}" "$d/p0.o")
    local mode flags
    for mode in pie static; do
        flags=(); [ $mode = static ] && flags=(-static)
        # (a plain static armhf link of more than about 16 MB of code
        # crashes in glibc's IFUNC start-up, litifut or not)
        [ $mode = static ] && [ "$ARCH" = armhf ] && continue
        # (nor does a plain static aarch64 link of more than 128 MB: ld
        # cannot reach glibc's IFUNC memcpy and strlen from libc.a)
        [ $mode = static ] && [ "$ARCH" = aarch64 ] && continue
        "$TCC" "${flags[@]}" -o "$d/$mode-plain" "${objs[@]}"
        if ! LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" "${flags[@]}" -o "$d/$mode" "${objs[@]}" \
               2> "$d/$mode.err"; then
            fail "$ARCH/linking/far-sleds/$mode: link failed: $(head -c 300 "$d/$mode.err")"
            continue
        fi
        # one before the first input, one after each pad (ARM), after
        # the second (AArch64)
        check "$ARCH/linking/far-sleds/$mode: $far_sleds far sleds in the link" \
            eval '[ "$("$TRIPLE-nm" "$d/$mode" | grep -c " t litifut_far_sled$")" = $far_sleds ]'
        check_traced "$ARCH/linking/far-sleds/$mode" "$d/$mode-plain" "$d/$mode"
    done
    # the same code as a shared library (far sleds in a -shared link;
    # its folders' names of one length: the runs' environments, whose
    # size moves where qemu maps the library, are then alike)
    mkdir -p "$d/plib" "$d/tlib" "$d/olib"
    "$TCC" -shared -o "$d/plib/libfar.so" "${libobjs[@]}"
    if LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" -shared -o "$d/tlib/libfar.so" "${libobjs[@]}" \
         2> "$d/shared.err"; then
        cp "$d/tlib/libfar.so.litifut/unrewritten" "$d/olib/libfar.so"
        "$TCC" -o "$d/main" "$d/p0.o" -L"$d/plib" -lfar
        check_traced_objects "$ARCH/linking/far-sleds/shared" "$d/main" "$d/plib" "$d/main" \
            "$d/tlib" "$d/olib" libfar.so
    else
        fail "$ARCH/linking/far-sleds/shared: link failed: $(head -c 300 "$d/shared.err")"
    fi
}

# AArch64's BTI (tests/progs/btilib.c): a library linked -z force-bti,
# whose pages qemu-user guards (its probe dies of SIGILL), traced
# exactly like the oracle with exact returns and calls only (its calls
# of static functions without a landing pad included: every fixed
# target is reached with `ret x16` in a BTI-marked object) and off.
linking_bti_case() {    # linking_bti_case ARCH
    set_arch "$1"
    local d=$WORK/linking-bti/$ARCH src=$ROOT/tests/progs/btilib.c
    local flags=(-O2 -fPIC -shared -nostartfiles -mbranch-protection=standard -Wl,-z,force-bti)
    mkdir -p "$d/plainlib" "$d/lib" "$d/oraclelib"
    "$TCC" "${flags[@]}" -o "$d/plainlib/libbti.so" "$src" &&
        "$TCC" -O2 -DBTI_MAIN -o "$d/main" "$src" -L"$d/plainlib" -lbti ||
        { fail "$ARCH/linking/bti: build"; return; }
    # (ld warns that libc_nonshared.a's pthread_atfork, the tracer's, is
    # not BTI-marked, as Debian 12 builds it)
    if ! LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" "${flags[@]}" -o "$d/lib/libbti.so" "$src" \
         2> "$d/lib.err" || grep -qv "warning: BTI turned on by -z force-bti" "$d/lib.err"; then
        fail "$ARCH/linking/bti: link: $(head -c 300 "$d/lib.err")"
        return
    fi
    cp "$d/lib/libbti.so.litifut/unrewritten" "$d/oraclelib/libbti.so"
    check "$ARCH/linking/bti: the traced library is BTI-marked" \
        eval '"$TRIPLE-readelf" -n "$d/lib/libbti.so" | grep -q "AArch64 feature: BTI"'
    local rc    # (through sh, which says "Illegal instruction" into /dev/null)
    rc=$(cd "$d" && sh -c '"$@" > /dev/null 2>&1; echo $?' sh \
             "$QEMU" -L "$SYSROOT" -E LD_LIBRARY_PATH="$d/plainlib" ./main probe 2> /dev/null)
    check "$ARCH/linking/bti: qemu enforces BTI (the probe's br to no landing pad: SIGILL, got $rc)" \
        [ "$rc" = 132 ]
    check_traced_objects "$ARCH/linking/bti/returns" "$d/main" "$d/plainlib" "$d/main" \
        "$d/lib" "$d/oraclelib" libbti.so
    LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks check_traced_objects "$ARCH/linking/bti/calls" \
        "$d/main" "$d/plainlib" "$d/main" "$d/lib" "$d/oraclelib" libbti.so
}

test_linking() {
    local arch
    for arch in $ARCHES; do
        echo "$arch"
    done | parallel linking_case
    for arch in $ARCHES; do
        echo "$arch"
    done | parallel linking_moved_case
    for arch in $ARCHES; do
        [ "${arch#arm}" != "$arch" ] || [ "$arch" = aarch64 ] || [ "$arch" = riscv64 ] && echo "$arch"
    done | parallel linking_far_case
    for arch in $ARCHES; do
        [ "$arch" = aarch64 ] && linking_bti_case "$arch"
    done
    for arch in $ARCHES; do
        echo "$arch"
    done | parallel linking_interpose_case
}

# A library's calls of its own exported functions stay calls through the
# GOT (MIPS: jalr, not jalr-got): another object may define them first.
# libown.so calls own_public, which preload.so (LD_PRELOAD) defines too:
# the instrumented program prints what the plain one prints, preload's
# result.
linking_interpose_case() {      # linking_interpose_case ARCH
    set_arch "$1"
    local d=$WORK/linking-interpose/$ARCH src=$ROOT/tests/progs/interpose r
    mkdir -p "$d/plain" "$d/inst"
    local kind ok=1
    for kind in plain inst; do
        local lit=()
        [ $kind = inst ] && lit=(env LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1)
        "${lit[@]}" "$TCC" -B"$BIN/" -O2 -fPIC -shared -Wl,-soname,libown.so -o "$d/$kind/libown.so" \
            "$src/libown.c" 2> "$d/$kind/build.err" &&
        "${lit[@]}" "$TCC" -B"$BIN/" -O2 -pie -o "$d/$kind/main" "$src/main.c" -L"$d/$kind" -lown \
            2>> "$d/$kind/build.err" &&
        "$TCC" -O2 -fPIC -shared -o "$d/$kind/preload.so" "$src/preload.c" 2>> "$d/$kind/build.err" || ok=0
    done
    if [ $ok = 0 ]; then
        fail "$ARCH/linking/interpose: build: $(head -c 300 "$d"/*/build.err)"
        return
    fi
    for kind in plain inst; do
        run_in "$d/$kind/run" "$d/$kind/main" -E "LD_LIBRARY_PATH=$d/$kind" -E "LD_PRELOAD=$d/$kind/preload.so" --
    done
    r=$(cat "$d/inst/run/out")
    check "$ARCH/linking/interpose: a library's call of its exported function reaches the preloaded definition ($r, plain $(cat "$d/plain/run/out"))" \
        eval '[ "$r" = 100206 ] && [ "$(cat "$d/plain/run/out")" = 100206 ] &&
              [ "$(cat "$d/inst/run/rc")" = 0 ] && [ ! -s "$d/inst/run/err" ] &&
              ls "$d/inst/run"/litifut.*.trace > /dev/null 2>&1'
}
