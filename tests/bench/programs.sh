# shellcheck shell=bash disable=SC2034
# The programs `make bench` measures (sourced by tests/bench.sh), each
# built by its own build system, once per kind:
#
#   plain    CC=<triple>-gcc
#   litifut  CC="<triple>-gcc -B$BIN/", LITIFUT=1 in make's environment
#   finstr   CC=<triple>-gcc, everything compiled -finstrument-functions,
#            the handler tests/bench/cyg-ringbuf.c linked in
#   timed    the same with tests/bench/cyg-timed.c linked in instead
#            (a clock_gettime per entry and per exit)
#   pg       CC=<triple>-gcc, everything compiled and linked -pg
#            (glibc's mcount; gmon.out written in the run directory)
#
# and for each build: pie (the toolchain's default), static (-static),
# shared (the program and its library, each an instrumented object).
# $XFLAGS (the arch's -march flags, or empty) goes into every
# compilation and link.
#
# For each program P:
#   P_build BUILD KIND DIR   builds into DIR (which it creates); sets
#                            EXE (the executable) and LIB (its shared
#                            library, or empty)
#   P_relink BUILD KIND DIR  the link step whose time is measured,
#                            again (KIND plain or litifut; DIR built)
#   P_run                    sets RUN_ARGS (an array) and RUN_STDIN:
#                            the run measured, deterministic
#   P_out FILE               (optional) prints the part of the run's
#                            output FILE that every run must repeat
#                            (default: all of it)
# Output of the build systems goes to DIR/build.log.

# --- common ---

# kind_cc KIND: the compiler command (one string: build systems split it)
kind_cc() {
    case $1 in
    litifut) echo "$TCC -B$BIN/" ;;
    *) echo "$TCC" ;;
    esac
}

# kind_cflags KIND: compiler flags of the kind
kind_cflags() {
    case $1 in
    finstr|timed) echo "-finstrument-functions" ;;
    pg) echo "-pg" ;;
    *) echo "" ;;
    esac
}

# kind_ldflags KIND BUILD: link flags of the kind: the handler (its
# -fPIC build for a build with a shared library), -pg
kind_ldflags() {
    case $1 in
    finstr) if [ "$2" = shared ]; then echo "$CYG_PIC_O"; else echo "$CYG_O"; fi ;;
    timed) if [ "$2" = shared ]; then echo "$CYG_TIMED_PIC_O"; else echo "$CYG_TIMED_O"; fi ;;
    pg) echo "-pg" ;;
    *) echo "" ;;
    esac
}

# with_kind KIND COMMAND...: COMMAND with LITIFUT=1 for the litifut kind
with_kind() {
    local kind=$1; shift
    if [ "$kind" = litifut ]; then LITIFUT=1 "$@"; else "$@"; fi
}

# build_step DIR COMMAND...: COMMAND in DIR, output appended to
# DIR/build.log; on failure, says so with the log's end
build_step() {
    local dir=$1; shift
    if ! (cd "$dir" && "$@") >> "$dir/build.log" 2>&1; then
        echo "bench: build failed in $dir: $*" >&2
        tail -n 20 "$dir/build.log" >&2
        return 1
    fi
}

# fresh_copy SRC DIR: DIR as a copy of the source tree SRC
fresh_copy() {
    rm -rf "$2"
    mkdir -p "${2%/*}"
    cp -r "$1" "$2"
    : > "$2/build.log"
}

# --- callheavy: tests/progs/callheavy.c, compiled, then linked ---

callheavy_build() {
    local build=$1 kind=$2 dir=$3 xf=() kf=()
    read -r -a xf <<< "$XFLAGS"
    read -r -a kf <<< "$(kind_cflags "$kind")"
    mkdir -p "$dir"
    : > "$dir/build.log"
    build_step "$dir" "$TCC" "${xf[@]}" "${kf[@]}" -O2 -c -o callheavy.o "$ROOT/tests/progs/callheavy.c"
    callheavy_link "$build" "$kind" "$dir"
    EXE=$dir/callheavy LIB=
}

callheavy_link() {
    local build=$1 kind=$2 dir=$3 xf=() lf=() cc=()
    read -r -a xf <<< "$XFLAGS"
    read -r -a lf <<< "$(kind_ldflags "$kind" "$build")"
    read -r -a cc <<< "$(kind_cc "$kind")"
    [ "$build" = static ] && lf+=(-static)
    build_step "$dir" with_kind "$kind" "${cc[@]}" "${xf[@]}" -O2 -o callheavy callheavy.o "${lf[@]}"
}

callheavy_relink() {
    rm -f "$3/callheavy"
    callheavy_link "$@"
}

callheavy_run() { RUN_ARGS=(); RUN_STDIN=/dev/null; }

# --- zlib (Debian zlib): minigzip compressing zlib's ChangeLog ---
# pie: configure --static (libz.a linked into the PIE minigzip); static:
# the same with -static; shared: libz.so and minigzipsh.  Link time:
# of minigzip, or for shared of libz.so.

ZLIB_SRC=

zlib_target() {
    if [ "$1" = shared ]; then echo minigzipsh; else echo minigzip; fi
}

zlib_build() {
    local build=$1 kind=$2 dir=$3 conf=() cflags
    cflags="-O2 $XFLAGS $(kind_cflags "$kind")"
    [ "$build" = static ] && cflags="$cflags -static"
    [ "$build" = shared ] || conf=(--static)
    fresh_copy "$ZLIB_SRC" "$dir"
    build_step "$dir" env CC="$(kind_cc "$kind")" CFLAGS="$cflags" \
        LDFLAGS="$(kind_ldflags "$kind" "$build")" ./configure "${conf[@]}"
    build_step "$dir" with_kind "$kind" make -j"$JOBS" "$(zlib_target "$build")"
    EXE=$dir/$(zlib_target "$build") LIB=
    if [ "$build" = shared ]; then
        LIB=$dir/$(sed -n 's/^SHAREDLIBV=//p' "$dir/Makefile")
        # configure falls back to a static library if it cannot link a shared one
        [ -f "$LIB" ] || { echo "bench: no $LIB (see $dir/configure.log)" >&2; return 1; }
    fi
}

zlib_relink() {
    local build=$1 kind=$2 dir=$3 target
    if [ "$build" = shared ]; then
        target=$(sed -n 's/^SHAREDLIBV=//p' "$dir/Makefile")
    else
        target=$(zlib_target "$build")
    fi
    rm -f "$dir/$target"
    build_step "$dir" with_kind "$kind" make "$target"
}

zlib_run() {
    RUN_ARGS=()
    RUN_STDIN=$ZLIB_SRC/ChangeLog
}

# --- bzip2 (Debian bzip2): bzip2 -c compressing its manual.ps ---
# Debian's makefile.diff makes bzip2 link libbz2.so; the bench reverses
# it, for the upstream Makefile (libbz2.a linked into bzip2), and passes
# its CFLAGS with the kind's and build's flags added.  Link time: of
# bzip2.

BZIP2_SRC=      # the upstream-Makefile copy (bzip2_prepare)

bzip2_prepare() {   # bzip2_prepare DEBIAN_TREE DIR
    fresh_copy "$1" "$2"
    build_step "$2" patch -R -p1 -i debian/patches/makefile.diff
    BZIP2_SRC=$2
}

bzip2_make() {      # bzip2_make BUILD KIND DIR TARGET
    local build=$1 kind=$2 dir=$3 cflags
    cflags="-Wall -Winline -O2 -g -D_FILE_OFFSET_BITS=64 $XFLAGS $(kind_cflags "$kind")"
    [ "$build" = static ] && cflags="$cflags -static"
    build_step "$dir" with_kind "$kind" make -j"$JOBS" "$4" CC="$(kind_cc "$kind")" \
        AR="$TRIPLE-ar" RANLIB="$TRIPLE-ranlib" CFLAGS="$cflags" \
        LDFLAGS="$(kind_ldflags "$kind" "$build")"
}

bzip2_build() {
    fresh_copy "$BZIP2_SRC" "$3"
    bzip2_make "$1" "$2" "$3" bzip2
    EXE=$3/bzip2 LIB=
}

bzip2_relink() {
    rm -f "$3/bzip2"
    bzip2_make "$1" "$2" "$3" bzip2
}

bzip2_run() {
    RUN_ARGS=(-c)
    RUN_STDIN=$BZIP2_SRC/manual.ps
}

# --- lua (Debian lua5.4): the interpreter running tests/bench/bench.lua ---
# Debian's patches 0001 (a libtool build driven by debian/rules) and
# 0002 (module paths, from a header debian/rules writes) are reversed,
# for Lua's own Makefile: make -C src linux, only the lua target; its
# MYCFLAGS/MYLDFLAGS carry the kind's and build's flags and
# tests/bench/lua-seed.h (a fixed string-hash seed).  Link time: of lua.

LUA_SRC=

lua_prepare() {     # lua_prepare DEBIAN_TREE DIR
    fresh_copy "$1" "$2"
    build_step "$2" patch -R -p1 -i debian/patches/0002-lua-modules-paths.patch
    build_step "$2" patch -R -p1 -i debian/patches/0001-build-system.patch
    LUA_SRC=$2
}

lua_make() {        # lua_make BUILD KIND DIR
    local build=$1 kind=$2 dir=$3 ldflags
    ldflags="$XFLAGS $(kind_ldflags "$kind" "$build")"
    [ "$build" = static ] && ldflags="$ldflags -static"
    build_step "$dir" with_kind "$kind" make -j"$JOBS" -C src linux ALL=lua \
        CC="$(kind_cc "$kind") -std=gnu99" AR="$TRIPLE-ar rcu" RANLIB="$TRIPLE-ranlib" \
        MYCFLAGS="-include $ROOT/tests/bench/lua-seed.h $XFLAGS $(kind_cflags "$kind")" \
        MYLDFLAGS="$ldflags"
}

lua_build() {
    fresh_copy "$LUA_SRC" "$3"
    lua_make "$1" "$2" "$3"
    EXE=$3/src/lua LIB=
}

lua_relink() {
    rm -f "$3/src/lua"
    lua_make "$1" "$2" "$3"
}

lua_run() {
    RUN_ARGS=("$ROOT/tests/bench/bench.lua")
    RUN_STDIN=/dev/null
}

# --- sqlite (Debian sqlite3): SQLite's speedtest1 ---
# The package's build system, out of the source tree (which stays
# untouched): ./configure --host=TRIPLE --disable-shared (speedtest1
# gets the library linked in, as the package's own speedtest1 rule
# has it) --disable-tcl --disable-readline (no Tcl or readline for the
# target; tclsh on the host generates the sources), then make with
# CROSS_BUILDING=yes (Debian's 30-cross.patch: lemon built for the
# host) generating the amalgamation sqlite3.c and compiling it into
# libsqlite3.la.  speedtest1 (test/speedtest1.c) is linked against that
# library with the package's libtool and flags, by the one rule of
# tests/bench/speedtest1.mk: the package's own speedtest1 rule compiles
# the amalgamation into every link (half a minute each time).  The
# kinds' flags go on make's command line: CC (litifut's -B), OPTS (the
# package's variable for extra compiler flags: -finstrument-functions,
# -pg), BENCH_LDFLAGS (the handler, -all-static: libtool's spelling of
# -static).  To save compiling, configure runs once per arch, and the
# library is compiled once per arch for the plain and litifut kinds
# (their objects are the same: litifut works at the link) and once for
# finstr and timed (only the handler linked in differs); each kind's
# build is a copy of those objects, linked.  Link time: of speedtest1.
# Run: speedtest1 --size $SQLITE_SIZE --verify --nosync on a database
# file in the run directory; its output's elapsed times are left out of
# the comparison (sqlite_out), the verification hash of every result is
# in it.

SQLITE_SRC=     # the Debian tree (configure runs out of it)
SQLITE_SIZE=2

# sqlite_flavour KIND: which compiled library the kind links
sqlite_flavour() {
    case $1 in
    litifut) echo plain ;;
    timed) echo finstr ;;
    *) echo "$1" ;;
    esac
}

# sqlite_make KIND DIR [VAR=VALUE] TARGET...: make in DIR with the
# kind's CC and compiler flags, the package's Makefile and
# speedtest1.mk
sqlite_make() {
    local kind=$1 dir=$2
    shift 2
    build_step "$dir" with_kind "$kind" make -j"$JOBS" -f Makefile -f "$ROOT/tests/bench/speedtest1.mk" \
        CROSS_BUILDING=yes CC="$(kind_cc "$kind")" OPTS="$(kind_cflags "$kind")" "$@"
}

# sqlite_objects FLAVOUR: $W/$BENCH_ARCH/sqlite-FLAVOUR, the package
# configured for the arch (sqlite-conf, once per arch) and compiled
# with the flavour's flags (libsqlite3.la, speedtest1.lo), once
sqlite_objects() {
    local cdir=$W/$BENCH_ARCH/sqlite-conf dir=$W/$BENCH_ARCH/sqlite-$1
    if [ ! -f "$cdir/.configured" ]; then
        rm -rf "$cdir"
        mkdir -p "$cdir"
        : > "$cdir/build.log"
        build_step "$cdir" "$SQLITE_SRC/configure" --host="$TRIPLE" --disable-shared \
            --disable-tcl --disable-readline CC="$TCC" CFLAGS="-O2 $XFLAGS"
        build_step "$cdir" make CROSS_BUILDING=yes sqlite3.c sqlite3.h
        touch "$cdir/.configured"
    fi
    if [ ! -f "$dir/.compiled" ]; then
        rm -rf "$dir"
        cp -a "$cdir" "$dir"
        sqlite_make "$1" "$dir" speedtest1.lo libsqlite3.la
        touch "$dir/.compiled"
    fi
}

sqlite_link() {
    local build=$1 kind=$2 dir=$3 lf
    lf=$(kind_ldflags "$kind" "$build")
    [ "$build" = static ] && lf="$lf -all-static"
    sqlite_make "$kind" "$dir" BENCH_LDFLAGS="$lf" speedtest1-lib
}

sqlite_build() {
    local flavour
    flavour=$(sqlite_flavour "$2")
    sqlite_objects "$flavour"
    rm -rf "$3"
    mkdir -p "${3%/*}"
    cp -a "$W/$BENCH_ARCH/sqlite-$flavour" "$3"
    : > "$3/build.log"
    sqlite_link "$@"
    EXE=$3/speedtest1 LIB=
}

sqlite_relink() {
    rm -f "$3/speedtest1"
    sqlite_link "$@"
}

sqlite_run() {
    RUN_ARGS=(--size "$SQLITE_SIZE" --verify --nosync speedtest1.db)
    RUN_STDIN=/dev/null
}

sqlite_out() {      # the test lines without their elapsed times
    sed 's/ *[0-9]*\.[0-9][0-9][0-9]s$//' "$1"
}
