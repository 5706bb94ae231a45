# litifut-ld --install TRIPLE puts the wrapper where TRIPLE-gcc finds
# its linker, so that a plain `TRIPLE-gcc` (no -B) links through it:
# byte for byte the same without LITIFUT=1, instrumented and silent
# with it.  --uninstall puts the toolchain back exactly (names, types,
# symlink targets, inodes, owners, contents).  Both refuse, changing
# nothing, what they do not recognise; those cases run on a scratch
# toolchain made of a fake TRIPLE-gcc that names a directory of ours.
#
# The real toolchain (/usr/TRIPLE/bin) is changed only while this group
# runs, and a trap puts it back however the group ends.

# install_snapshot DIR: each entry of DIR: name, type, inode, owner,
# mode, and the symlink's target or the file's sha256.
install_snapshot() {
    local dir=$1 name p
    while IFS= read -r name; do
        p=$dir/$name
        if [ -L "$p" ]; then
            echo "$name symlink $(stat -c '%i %U:%G' "$p") -> $(readlink "$p")"
        elif [ -f "$p" ]; then
            echo "$name file $(stat -c '%i %U:%G %a' "$p") $(sha256sum < "$p" | cut -d' ' -f1)"
        else
            echo "$name $(stat -c '%F %i %U:%G %a' "$p")"
        fi
    done < <(ls -A "$dir" | LC_ALL=C sort)
}

# install_expect_error NAME PATTERN COMMAND...: COMMAND fails with
# exactly one line on stderr, matching PATTERN, and nothing on stdout.
install_expect_error() {
    local name=$1 pattern=$2; shift 2
    local out=$WORK/install/last.out err=$WORK/install/last.err
    if "$@" > "$out" 2> "$err"; then
        fail "$name: succeeded"
    elif [ -s "$out" ] || [ "$(wc -l < "$err")" != 1 ] || ! grep -q -- "$pattern" "$err"; then
        fail "$name: expected one line matching '$pattern', got: $(head -c 300 "$err")"
    else
        pass "$name: $(cat "$err")"
    fi
}

# install_silent COMMAND...: COMMAND succeeds and prints nothing.
install_silent() {
    local out=$WORK/install/last.out
    "$@" > "$out" 2>&1 && [ ! -s "$out" ]
}

# The triples whose real toolchain this group has changed, and the
# scratch directory; install_cleanup undoes all (run by the trap).
INSTALL_TRIPLES=
INSTALL_SCRATCH=

install_cleanup() {
    local t dir n
    for t in $INSTALL_TRIPLES; do
        "$BIN/litifut-ld" --uninstall "$t" > /dev/null 2>&1
        # if the wrapper could not, by hand: the originals are ours to put back
        dir=$(dirname "$("$t-gcc" -print-prog-name=ld)")
        for n in ld ld.bfd; do
            if [ -e "$dir/$n.litifut-real" ] || [ -L "$dir/$n.litifut-real" ]; then
                echo "install: putting $dir/$n back by hand" >&2
                mv -fT "$dir/$n.litifut-real" "$dir/$n"
            fi
        done
    done
    INSTALL_TRIPLES=
    [ -n "$INSTALL_SCRATCH" ] && rm -rf "$INSTALL_SCRATCH"
    INSTALL_SCRATCH=
}

# The real toolchain of ARCH: install, link plainly and instrumented
# without -B, uninstall.
install_arch() {
    set_arch "$1"
    local d=$WORK/install/$ARCH src=$ROOT/tests/progs/demo.c ld dir
    mkdir -p "$d/run"
    ld=$("$TCC" -print-prog-name=ld)
    dir=$(cd "$(dirname "$ld")" && pwd -P)
    if [ "$(id -u)" != 0 ] && [ ! -w "$dir" ]; then
        echo "skip $ARCH/install: changing $dir needs root"
        return
    fi
    # An install already there (a user's, or one an earlier test run killed
    # by SIGKILL left): taken out for the test and put back after it.
    local previous=
    if [ -e "$dir/ld.litifut-real" ] || [ -L "$dir/ld.litifut-real" ]; then
        previous=$(readlink "$dir/ld" 2> /dev/null || true)
        if [ "$(basename "$previous")" != litifut-ld ] ||
           ! "$BIN/litifut-ld" --uninstall "$TRIPLE" > /dev/null 2>&1; then
            fail "$ARCH/install: $dir already has ld.litifut-real and ld is not litifut-ld's link; not testing"
            return
        fi
        echo "note $ARCH/install: $dir had litifut-ld ($previous) installed; it is put back after the test"
    fi
    install_snapshot "$dir" > "$d/before.snap"
    "$TCC" -o "$d/plain-before" "$src"
    warn_objects "$d/warn"                      # (tests/errors.sh)
    (cd "$d/warn" && "$TCC" -Wl,--warn-common -o plain w1.o w2.o c1.o c2.o 2> plain.err)

    INSTALL_TRIPLES="$INSTALL_TRIPLES $TRIPLE"
    check "$ARCH/install: --install $TRIPLE succeeds silently" \
        install_silent "$BIN/litifut-ld" --install "$TRIPLE"
    install_snapshot "$dir" > "$d/installed.snap"
    check "$ARCH/install: $dir/ld links to litifut-ld, the original (same inode) is ld.litifut-real" \
        eval '[ "$(readlink "$dir/ld")" = "$(readlink -f "$BIN/litifut-ld")" ] &&
              [ "$(sed -n "s/^ld\.litifut-real //p" "$d/installed.snap")" = \
                "$(sed -n "s/^ld //p" "$d/before.snap")" ]'
    check "$ARCH/install: installing again succeeds silently and changes nothing" \
        eval 'install_silent "$BIN/litifut-ld" --install "$TRIPLE" &&
              install_snapshot "$dir" | cmp -s - "$d/installed.snap"'

    "$TCC" -o "$d/plain-after" "$src" 2> "$d/plain.err"
    check "$ARCH/install: a plain $TCC link (no -B) makes the same bytes as before installing" \
        eval 'cmp -s "$d/plain-before" "$d/plain-after" && [ ! -s "$d/plain.err" ]'

    LITIFUT=1 "$TCC" -O2 -o "$d/run/traced" "$src" 2> "$d/traced.err"
    (cd "$d/run" && LITIFUT_DIR=. timeout 120 "$QEMU" -L "$SYSROOT" ./traced > out 2> err)
    check "$ARCH/install: LITIFUT=1 $TCC (no -B) instruments, silently; it runs and its trace post-processes" \
        eval '[ -f "$d/run/traced" ] && [ ! -s "$d/traced.err" ] &&
              "$TRIPLE-nm" "$d/run/traced" | grep -q " litifut_sled$" &&
              ls "$d/run"/litifut.*.trace > /dev/null 2>&1 &&
              "$BIN/litifut-postproc" "$d/run" > "$d/trace.txt" 2> "$d/postproc.err" &&
              grep -q main "$d/trace.txt"'

    (cd "$d/warn" && LITIFUT=1 "$TCC" -Wl,--warn-common -o traced w1.o w2.o c1.o c2.o 2> traced.err)
    check "$ARCH/install: an instrumented link's warnings are a plain link's, byte for byte (once, not named ld.litifut-real)" \
        eval '[ -s "$d/warn/plain.err" ] && cmp -s "$d/warn/plain.err" "$d/warn/traced.err" &&
              "$TRIPLE-nm" "$d/warn/traced" | grep -q " litifut_sled$"'

    LITIFUT=1 "$TCC" -O2 -fuse-ld=bfd -o "$d/bfd" "$src" 2> "$d/bfd.err"
    check "$ARCH/install: gcc -fuse-ld=bfd (ld.bfd) instruments too" \
        eval '[ ! -s "$d/bfd.err" ] && "$TRIPLE-nm" "$d/bfd" | grep -q " litifut_sled$"'

    LITIFUT=1 LITIFUT_VERBOSE=1 "$TCC" -O2 -o "$d/verbose" "$src" 2> "$d/verbose.err"
    check "$ARCH/install: LITIFUT_VERBOSE=1: one summary line on stderr" \
        eval '[ "$(wc -l < "$d/verbose.err")" = 1 ] &&
              grep -q "^litifut-ld: .*verbose: [0-9]* call sites" "$d/verbose.err"'

    local log=$d/link.log
    rm -f "$log"
    LITIFUT=1 LITIFUT_LOG=$log "$TCC" -O2 -o "$d/log1" "$src" 2> "$d/log.err"
    LITIFUT=1 LITIFUT_LOG=$log "$TCC" -O2 -o "$d/log2" "$src" 2>> "$d/log.err"
    check "$ARCH/install: LITIFUT_LOG: two links append two summary lines, stderr stays empty" \
        eval '[ ! -s "$d/log.err" ] && [ "$(wc -l < "$log")" = 2 ] &&
              [ "$(grep -c "^litifut-ld: .*log[12]: [0-9]* call sites" "$log")" = 2 ]'
    LITIFUT=1 LITIFUT_LOG=$d/shared.log "$TCC" -shared -fPIC -o "$d/lib.so" "$src" 2> "$d/shared.err"
    check "$ARCH/install: a -shared link is instrumented, silently; the log has its summary" \
        eval '[ -f "$d/lib.so" ] && [ ! -s "$d/shared.err" ] && [ "$(wc -l < "$d/shared.log")" = 1 ] &&
              grep -q "^litifut-ld: .*lib.so: [0-9]* call sites" "$d/shared.log" &&
              "$TRIPLE-nm" "$d/lib.so" | grep -q " litifut_sled$"'
    LITIFUT=1 LITIFUT_LOG=/nonexistent/dir/log "$TCC" -O2 -o "$d/nolog" "$src" 2> "$d/nolog.err"
    check "$ARCH/install: an unwritable LITIFUT_LOG is one warning, not a failed link" \
        eval '[ -f "$d/nolog" ] && [ "$(wc -l < "$d/nolog.err")" = 1 ] &&
              grep -q "warning: LITIFUT_LOG=/nonexistent/dir/log" "$d/nolog.err"'

    # xz-utils (autotools, libtool) through the installed wrapper: on
    # arm only (realprog and shlib build real programs and shared
    # libraries on every arch; this build alone takes two minutes)
    if [ "$ARCH" = arm ] || [ "${TEST_FULL:-0}" = 1 ]; then
        install_configure
        install_xz
    fi

    check "$ARCH/install: --uninstall succeeds silently" \
        install_silent "$BIN/litifut-ld" --uninstall "$TRIPLE"
    check "$ARCH/install: uninstalling again succeeds silently (nothing to do)" \
        install_silent "$BIN/litifut-ld" --uninstall "$TRIPLE"
    install_snapshot "$dir" > "$d/after.snap"
    check "$ARCH/install: the toolchain directory is exactly as before (inodes, owners, targets)" \
        cmp -s "$d/before.snap" "$d/after.snap"
    if [ -n "$previous" ] && [ -x "$previous" ]; then
        "$previous" --install "$TRIPLE" ||
            echo "note $ARCH/install: could not put $previous back" >&2
    fi
}

# A scratch toolchain: $F/bin/arm-linux-gnueabi-gcc names $F/tc/bin/ld
# (through a non-canonical path, as Debian's gcc does), which starts as
# a symlink to the real GNU ld, with ld.bfd beside it.
install_scratch() {
    local F=$1
    rm -rf "$F/tc" "$F/bin"
    mkdir -p "$F/tc/bin" "$F/tc/lib" "$F/bin"
    printf '#!/bin/sh\n[ "$1" = -print-prog-name=ld ] && echo %s/tc/lib/../bin/ld\n' "$F" \
        > "$F/bin/arm-linux-gnueabi-gcc"
    chmod 755 "$F" "$F/tc" "$F/tc/bin" "$F/bin" "$F/bin/arm-linux-gnueabi-gcc"
    ln -s "$(command -v arm-linux-gnueabi-ld)" "$F/tc/bin/ld"
    ln -s "$(command -v arm-linux-gnueabi-ld.bfd)" "$F/tc/bin/ld.bfd"
}

install_refusals() {
    local d=$WORK/install F L=$BIN/litifut-ld
    F=$(mktemp -d "${TMPDIR:-/tmp}/litifut-install.XXXXXX")
    INSTALL_SCRATCH=$F
    local tc=$F/tc/bin fake=(env PATH="$F/bin:$PATH")

    install_expect_error "install: x86_64-linux-gnu is refused" \
        "x86_64-linux-gnu: litifut has no tracer module for this target; supported: arm-linux-gnueabi.*aarch64-linux-gnu" \
        "$L" --install x86_64-linux-gnu
    install_expect_error "install: a bogus triple is refused" "bogus-triple: .*supported:" \
        "$L" --install bogus-triple
    install_expect_error "install: no TRIPLE-gcc" "cannot run arm-linux-gnueabi-gcc" \
        env PATH="$F/nothing" "$L" --install arm-linux-gnueabi
    install_expect_error "install: usage" "usage: litifut-ld --install TRIPLE" "$L" --install

    install_scratch "$F"
    install_snapshot "$tc" > "$d/scratch.snap"
    check "install: scratch toolchain: install, then ld runs the original through the link" \
        eval '"${fake[@]}" "$L" --install arm-linux-gnueabi &&
              [ "$(readlink "$tc/ld.bfd")" = "$(readlink -f "$L")" ] &&
              "$tc/ld" --version | grep -q "^GNU ld" && "$tc/ld.bfd" --version | grep -q "^GNU ld"'
    # an instrumented link run as $tc/ld (gcc's command line for it):
    # ld's messages name $tc/ld, not the ld.litifut-real it really runs
    set_arch arm
    warn_objects "$d/scratch-warn"              # (tests/errors.sh)
    ld_args "$TCC" -Wl,--warn-common -o "$d/scratch-warn/out" "$d/scratch-warn/"{w1,w2,c1,c2}.o
    LITIFUT=1 COLLECT_GCC=$TCC "$tc/ld" "${LD_ARGS[@]}" 2> "$d/scratch-warn/err"   # (ld_args: tests/passthrough.sh)
    check "install: scratch toolchain: an instrumented link's warnings, once, name $tc/ld" \
        eval '[ "$(grep -c "g is deprecated" "$d/scratch-warn/err")" = 1 ] &&
              [ "$(grep -cF "$tc/ld: " "$d/scratch-warn/err")" = 2 ] &&
              ! grep -q litifut-real "$d/scratch-warn/err" && [ -x "$d/scratch-warn/out" ]'
    env -u LITIFUT COLLECT_GCC=$TCC "$tc/ld" "${LD_ARGS[@]}" 2> "$d/scratch-warn/plain.err"
    check "install: scratch toolchain: a plain link's messages name $tc/ld too" \
        eval '[ "$(grep -cF "$tc/ld: " "$d/scratch-warn/plain.err")" = 2 ] &&
              ! grep -q litifut-real "$d/scratch-warn/plain.err"'
    cp "$L" "$F/litifut-ld"
    ln -sfn "$F/litifut-ld" "$tc/ld"
    check "install: an install of another litifut-ld build is re-pointed" \
        eval '"${fake[@]}" "$L" --install arm-linux-gnueabi &&
              [ "$(readlink "$tc/ld")" = "$(readlink -f "$L")" ]'
    check "install: scratch toolchain: uninstall puts it back exactly" \
        eval '"${fake[@]}" "$L" --uninstall arm-linux-gnueabi &&
              install_snapshot "$tc" | cmp -s - "$d/scratch.snap"'
    ln -P "$tc/ld" "$tc/ld.litifut-real"
    check "install: an install cut short (ld.litifut-real is ld) is finished" \
        eval '"${fake[@]}" "$L" --install arm-linux-gnueabi &&
              [ "$(readlink "$tc/ld")" = "$(readlink -f "$L")" ] &&
              "${fake[@]}" "$L" --uninstall arm-linux-gnueabi &&
              install_snapshot "$tc" | cmp -s - "$d/scratch.snap"'

    rm "$tc/ld"
    printf '#!/bin/sh\necho "not a linker"\n' > "$tc/ld"
    chmod 755 "$tc/ld"
    install_snapshot "$tc" > "$d/planted.snap"
    install_expect_error "install: refuses to replace something that is not GNU ld" \
        "ld is not GNU ld" "${fake[@]}" "$L" --install arm-linux-gnueabi
    check "install: ... and changes nothing" eval 'install_snapshot "$tc" | cmp -s - "$d/planted.snap"'

    install_scratch "$F"
    ln -s /somewhere/else "$tc/ld.litifut-real"
    install_snapshot "$tc" > "$d/stranger.snap"
    install_expect_error "install: refuses when ld.litifut-real exists but ld is not ours" \
        "ld.litifut-real exists but .* is not litifut-ld's link" "${fake[@]}" "$L" --install arm-linux-gnueabi
    install_expect_error "install: uninstall refuses it too" \
        "ld.litifut-real exists but .* is not litifut-ld's link" "${fake[@]}" "$L" --uninstall arm-linux-gnueabi
    check "install: ... and changes nothing" eval 'install_snapshot "$tc" | cmp -s - "$d/stranger.snap"'

    printf '#!/bin/sh\necho ld\n' > "$F/bin/arm-linux-gnueabi-gcc"
    install_expect_error "install: a gcc without a linker path of its own" "not an absolute path" \
        "${fake[@]}" "$L" --install arm-linux-gnueabi

    # not root: one line that says so, nothing changed
    install_scratch "$F"
    install_snapshot "$tc" > "$d/scratch.snap"
    local nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null &&
       "${nobody[@]}" "$L" --help > /dev/null 2>&1; then
        install_expect_error "install: without root" "Permission denied (changing the toolchain needs root)" \
            "${nobody[@]}" "${fake[@]}" "$L" --install arm-linux-gnueabi
        check "install: ... and changes nothing" eval 'install_snapshot "$tc" | cmp -s - "$d/scratch.snap"'
    else
        echo "skip install: without root (needs root, setpriv, and $L runnable by nobody)"
    fi
    rm -rf "$F"
    INSTALL_SCRATCH=
}

# A real autotools + libtool project through the installed wrapper:
# configure must decide everything as it does without LITIFUT=1 (its
# link checks need a silent linker: libtool's "static flag -static
# works" test compares the linker's output with nothing).
install_configure() {
    local xz d=$WORK/install/$ARCH/xz mode
    xz=$(ls -d "${SOURCES:-$ROOT/build/src}"/xz-utils-*/ 2> /dev/null | head -1)
    if [ -z "$xz" ]; then
        fail "$ARCH/install: no xz-utils source in ${SOURCES:-$ROOT/build/src} (make sources)"
        return
    fi
    for mode in 0 1; do             # (both at once: configure runs one job)
        mkdir -p "$d/$mode"
        (cd "$d/$mode" && LITIFUT=$mode "${xz%/}/configure" --host="$TRIPLE" --disable-nls \
             --disable-doc > configure.log 2>&1) &
    done
    wait
    check "$ARCH/install: xz-utils' configure (autotools, libtool) decides the same with LITIFUT=1" \
        eval 'cmp -s "$d/0/config.h" "$d/1/config.h" &&
              cmp -s <(sed "s|$d/0|DIR|g" "$d/0/libtool") <(sed "s|$d/1|DIR|g" "$d/1/libtool") &&
              grep -q "static flag -static works... yes" "$d/1/configure.log"'
}

# xz-utils' liblzma (a libtool shared library with a version script)
# and xz, built by its own Makefiles through the installed wrapper
# (libtool drops -B from its -shared links): every object instrumented,
# one trace, equal to the oracle's calls in both objects.
install_xz() {
    local d=$WORK/install/$ARCH/xz name=$ARCH/install/xz mode
    for mode in 0 1; do
        (cd "$d/$mode" && LITIFUT=$mode LITIFUT_KEEP=1 make -C src/liblzma > make.log 2>&1 &&
         LITIFUT=$mode LITIFUT_KEEP=1 make -C src/xz >> make.log 2>&1) &
    done
    wait
    local lib so
    for mode in 0 1; do
        if [ ! -x "$d/$mode/src/xz/.libs/xz" ]; then
            fail "$name: build with LITIFUT=$mode failed (see $d/$mode/make.log)"
            return
        fi
    done
    lib=$(cd "$d/1/src/liblzma/.libs" && ls liblzma.so.*.*.* | grep -v litifut | head -1)
    so=$(sed -n "s/^dlname='\(.*\)'/\1/p" "$d/1/src/liblzma/liblzma.la")
    check "$name: liblzma ($lib) and xz are instrumented, and the build said nothing" \
        eval '"$TRIPLE-nm" "$d/1/src/liblzma/.libs/$lib" | grep -q " litifut_sled$" &&
              "$TRIPLE-nm" "$d/1/src/xz/.libs/xz" | grep -q " litifut_sled$" &&
              ! grep -q "^litifut" "$d/1/make.log"'
    # the libraries as the guest finds them (by soname)
    mkdir -p "$d/lib-plain" "$d/lib-inst" "$d/lib-oracle"
    cp "$d/0/src/liblzma/.libs/$lib" "$d/lib-plain/$so"
    cp "$d/1/src/liblzma/.libs/$lib" "$d/lib-inst/$so"
    rm -rf "$d/lib-inst/$so.litifut"
    cp -r "$d/1/src/liblzma/.libs/$lib.litifut" "$d/lib-inst/$so.litifut"
    cp "$d/1/src/liblzma/.libs/$lib.litifut/unrewritten" "$d/lib-oracle/$so"
    local input=$ROOT/tests/progs/cxx.cc
    STDIN=$input check_traced_objects "$name/compress" "$d/0/src/xz/.libs/xz" "$d/lib-plain" \
        "$d/1/src/xz/.libs/xz" "$d/lib-inst" "$d/lib-oracle" "$so" -c
    STDIN=$WORK/runs/$name/compress/plain/out check_traced_objects "$name/decompress" \
        "$d/0/src/xz/.libs/xz" "$d/lib-plain" "$d/1/src/xz/.libs/xz" "$d/lib-inst" \
        "$d/lib-oracle" "$so" -dc
    check "$name: the traced round trip restores the input" \
        cmp -s "$input" "$WORK/runs/$name/decompress/traced/out"
}

test_install() {
    mkdir -p "$WORK/install"
    # however this group ends, the toolchains are put back
    trap install_cleanup EXIT
    trap 'install_cleanup; exit 130' INT
    trap 'install_cleanup; exit 143' TERM
    check "install: litifut-ld --help names --install and --uninstall" \
        eval '"$BIN/litifut-ld" --help | grep -q -- "--uninstall TRIPLE"'
    check "install: arm-linux-gnueabi-ld --help is ld's own" \
        eval '"$BIN/arm-linux-gnueabi-ld" --help | grep -q -- "--no-undefined"'
    install_refusals
    local arch
    for arch in arm mips; do
        install_arch "$arch"
    done
    install_cleanup
    trap - EXIT INT TERM
}
