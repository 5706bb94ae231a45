# A real program nobody here wrote: zlib's `example` and `minigzip`,
# from Debian's source package, built by its own configure and Makefile
# with the wrapper as the linker (PIE and -static), compared with the
# plain build and the oracle like the test programs.

zlib_build() {     # zlib_build DIR CC CFLAGS [VAR=VALUE...]: configure + make in DIR
    local dir=$1 cc=$2 cflags=$3; shift 3
    rm -rf "$dir"
    cp -r "$ZLIB_SRC" "$dir"
    (cd "$dir" && CC=$cc CFLAGS=$cflags ./configure --static > build.log 2>&1 &&
     env "$@" make example minigzip >> build.log 2>&1)
}

zlib_case() {      # zlib_case ARCH MODE
    set_arch "$1"
    local mode=$2 cflags=-O2
    [ "$mode" = static ] && cflags="-O2 -static"
    local d=$WORK/build/$ARCH/zlib-$mode name=$ARCH/zlib/$mode
    mkdir -p "$d"
    if ! zlib_build "$d/plain" "$TCC" "$cflags"; then
        fail "$name: plain build (see $d/plain/build.log)"; return
    fi
    if ! zlib_build "$d/inst" "$TCC -B$BIN/" "$cflags" LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1; then
        fail "$name: instrumented build (see $d/inst/build.log)"; return
    fi
    check_traced "$name/example" "$d/plain/example" "$d/inst/example"
    local input=$ZLIB_SRC/ChangeLog
    STDIN=$input check_traced "$name/minigzip" "$d/plain/minigzip" "$d/inst/minigzip"
    STDIN=$WORK/runs/$name/minigzip/plain/out check_traced "$name/minigzip-d" \
        "$d/plain/minigzip" "$d/inst/minigzip" -d
    check "$name: minigzip round trip restores its input" \
        cmp -s "$input" "$WORK/runs/$name/minigzip-d/traced/out"
}

test_realprog() {
    ZLIB_SRC=$(ls -d "${SOURCES:-$ROOT/build/src}"/zlib-*/ 2> /dev/null | head -1)
    ZLIB_SRC=${ZLIB_SRC%/}
    if [ -z "$ZLIB_SRC" ]; then
        fail "realprog: no zlib source in ${SOURCES:-$ROOT/build/src} (make sources)"
        return
    fi
    local arch
    for arch in $ARCHES; do
        echo "$arch pie"
        echo "$arch static"
    done | parallel zlib_case
}
