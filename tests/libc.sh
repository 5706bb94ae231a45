# The C libraries embedded Linux ships besides glibc: musl (OpenWrt,
# Alpine), from Debian's multiarch musl-dev (arm, armhf, mipsel,
# aarch64: Debian has no musl for big-endian MIPS), used through the
# toolchains users have:
#   - a musl-gcc-style script, <musl triple>-gcc, that runs the glibc
#     cross compiler with musl's musl-gcc.specs (it always passes musl's
#     dynamic linker: the wrapper sees musl by its name);
#   - a toolchain of its own triple, mipsel-openwrt-linux-musl-gcc,
#     whose specs name the dynamic linker only for dynamic programs (as
#     OpenWrt's gcc does: its static links are musl by the triple) and
#     whose ld is in a folder of its own, installed into with
#     litifut-ld --install.
# uClibc-ng (Buildroot's default), built from Debian's uclibc-source
# for arm and mipsel (make uclibc, tests/uclibc/build.sh): static
# programs (the group programs') and calls only.
# The groups that compare traces with the oracle run again against
# musl (programs: every arch, PIE and static; returns, modes, fork,
# signals, sigjump, sigevents, spawn, ring, copyout, stream, onoff,
# limits, clocks, daemon, tracefiles, emu: one arch per folder), each in a
# scratch folder of its own and named musl/...; calls only
# (LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks) on every arch; Lua on mipsel
# (its PIE has far sites: the run-time bridge, which musl, running no
# .preinit_array, once left unmapped), run normally and through the
# dynamic linker (loaded elsewhere), against the oracle's tree (its
# string cache hashes addresses: the same calls as untraced only while
# the tracer's mappings move none of musl's heap); BusyBox on mipsel (OpenWrt's case:
# the group busybox's applets against the plain build's and the oracle);
# SQLite's speedtest1 on mipsel and the group tree on aarch64 (Lua,
# SQLite: their trees against the oracle's).

# musl_toolchain: for set_arch with LIBC=musl: TCC becomes the arch's
# musl-gcc-style script (made once), TCXX empty, the guest's prefix /usr
# (musl's dynamic linker, /lib/ld-musl-<arch>.so.1, is its libc).
# Fails if the arch has no musl.
musl_toolchain() {
    local specs=/usr/lib/$MUSL/musl-gcc.specs dir=$WORK/libc/bin
    # (mips builds its modules with mipsel's headers: no libraries)
    [ -f "$specs" ] && [ "${MUSL%%-*}" = "${TRIPLE%%-*}" ] || return 1
    TCC=$dir/$MUSL-gcc
    TCXX=
    SYSROOT=/usr
    LDSO=$(sed -n 's|.*-dynamic-linker /\(lib/ld-musl-[a-z0-9_]*\.so\.1\).*|\1|p' "$specs")
    [ -x "$TCC" ] && return 0
    # (AArch64: Debian's libgcc.a picks its atomics by glibc's
    # __getauxval, which musl has not: the atomics inline.  The specs'
    # link line replaces gcc's, --build-id with it: given back, as
    # toolchains built for musl have it)
    local own=" -Wl,--build-id"
    [ "$ARCH" = aarch64 ] && own="$own -mno-outline-atomics"
    mkdir -p "$dir"
    printf '#!/bin/sh\n# musl-gcc for %s\nexec %s-gcc -specs %s%s "$@"\n' "$MUSL" "$TRIPLE" "$specs" \
        "$own" > "$TCC.$$" && chmod +x "$TCC.$$" && mv -f "$TCC.$$" "$TCC"
}

# uclibc_toolchain: for set_arch with LIBC=uclibc: TCC becomes a script
# that compiles static programs against the arch's uClibc-ng (built by
# make uclibc into $UCLIBC/<triple>: tests/uclibc/build.sh), the guest's
# prefix its sysroot.  Fails if the arch has none.
uclibc_toolchain() {
    local dir=${UCLIBC:-$ROOT/build/uclibc}/$TRIPLE bin=$WORK/libc/bin
    [ -f "$dir/uclibc.specs" ] || return 1
    TCC=$bin/$TRIPLE-uclibc-gcc
    TCXX=
    SYSROOT=$dir/sysroot
    [ -x "$TCC" ] && return 0
    mkdir -p "$bin"
    printf '#!/bin/sh\n# uClibc-ng for %s, static\nexec %s-gcc -specs %s -static "$@"\n' "$TRIPLE" \
        "$TRIPLE" "$dir/uclibc.specs" > "$TCC.$$" && chmod +x "$TCC.$$" && mv -f "$TCC.$$" "$TCC"
}

# uclibc_arches: the arches of $ARCHES that have a uClibc-ng
uclibc_arches() {
    local a triple rest
    for a in $ARCHES; do
        IFS=$'\t' read -r triple rest <<< "${ARCH_ROWS[$a]}"
        [ -f "${UCLIBC:-$ROOT/build/uclibc}/$triple/uclibc.specs" ] && echo "$a"
    done
}

# musl_arches: the arches of $ARCHES that have a musl
musl_arches() {
    local a triple folder qemu ldso musl
    for a in $ARCHES; do
        IFS=$'\t' read -r triple folder qemu ldso musl <<< "${ARCH_ROWS[$a]}"
        # (mips builds its modules with mipsel's headers: no libraries)
        [ -f "/usr/lib/$musl/musl-gcc.specs" ] && [ "${musl%%-*}" = "${triple%%-*}" ] && echo "$a"
    done
}

# calls only: the oracle's calls at rewritten sites, without returns
libc_calls_only() {     # libc_calls_only ARCH MODE
    set_arch "$1" || return
    local mode=$2
    local name=$ARCH/libc/calls-only/$mode d=$WORK/libc/$ARCH/calls-only-$mode
    build_pair "$d" calls.c "$mode" || { fail "$name: cannot build"; return; }
    LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks check_traced "$name" "$d/plain" "$d/prog"
    check "$name: --info says calls only" grep -qx 'returns=inferred' "$WORK/runs/$name/info"
}

# An OpenWrt-style toolchain of its own triple (see the top), with the
# wrapper installed into it: a plain mipsel-openwrt-linux-musl-gcc
# links through it.
libc_own_triple() {
    set_arch mipsel || return
    local tc=$WORK/libc/openwrt name=mipsel/libc/openwrt
    local specs=/usr/lib/$MUSL/musl-gcc.specs gcc
    rm -rf "$tc"
    mkdir -p "$tc/bin" "$tc/libexec"
    ln -s "$(command -v "$TRIPLE-ld")" "$tc/libexec/ld"
    sed 's|^-dynamic-linker \(/lib/ld-musl-[a-z0-9]*\.so\.1\)|%{!static:%{!shared:-dynamic-linker \1}}|' \
        "$specs" > "$tc/musl.specs"
    gcc=$tc/bin/mipsel-openwrt-linux-musl-gcc
    # (named so, the compiler finds its own programs by GCC_EXEC_PREFIX)
    local prefix
    prefix=$("$TRIPLE-gcc" -print-search-dirs | sed -n 's|^install: \(.*\)/[^/]*/[^/]*/$|\1/|p')
    printf '#!/bin/bash\nGCC_EXEC_PREFIX=%s exec -a "$0" %s-gcc -B%s/ -specs %s "$@"\n' "$prefix" \
        "$TRIPLE" "$tc/libexec" "$tc/musl.specs" > "$gcc"
    chmod +x "$gcc"
    if ! PATH=$tc/bin:$PATH "$BIN/litifut-ld" --install mipsel-openwrt-linux-musl \
           > "$tc/install.out" 2>&1 || [ -s "$tc/install.out" ]; then
        fail "$name: --install: $(head -c 300 "$tc/install.out")"
        return
    fi
    local mode flags
    for mode in pie static; do
        flags=(-pthread)
        [ "$mode" = static ] && flags+=(-static)
        local d=$tc/$mode
        mkdir -p "$d"
        if ! PATH=$tc/bin:$PATH "$gcc" -std=gnu11 -O2 -c -o "$d/prog.o" "$ROOT/tests/progs/calls.c" ||
           ! PATH=$tc/bin:$PATH "$gcc" "${flags[@]}" -o "$d/plain" "$d/prog.o" ||
           ! PATH=$tc/bin:$PATH LITIFUT=1 LITIFUT_KEEP=1 "$gcc" "${flags[@]}" -o "$d/prog" \
                 "$d/prog.o" 2> "$d/link.err" || [ -s "$d/link.err" ]; then
            fail "$name/$mode: cannot build: $(head -c 300 "$d/link.err" 2> /dev/null)"
            continue
        fi
        check "$name/$mode: the installed wrapper instrumented it (musl's module)" \
            eval '[ -f "$d/prog.litifut/sites.tsv" ] && ! cmp -s "$d/plain" "$d/prog"'
        check_traced "$name/$mode" "$d/plain" "$d/prog"
    done
    PATH=$tc/bin:$PATH "$BIN/litifut-ld" --uninstall mipsel-openwrt-linux-musl > /dev/null 2>&1
    check "$name: --uninstall puts its ld back" eval '[ -L "$tc/libexec/ld" ] && [ ! -e "$tc/libexec/ld.litifut-real" ]'
}

# Lua on mipsel, built by its own Makefile with the musl script
libc_lua() {
    set_arch mipsel || return
    local name=$ARCH/libc/lua d=$WORK/libc/$ARCH/lua kind
    lua_source "$d/src" || { fail "$name: cannot prepare lua5.4's source (make sources)"; return; }
    for kind in plain litifut; do
        lua_build "$d/src" "$d/$kind" "$kind" ||
            { fail "$name: the $kind build failed (see $d/$kind/build.log)"; return; }
    done
    # (musl's malloc takes its memory by mmap, and Lua's string cache
    # hashes addresses: the same calls only if the tracer's own mappings
    # move none of the program's, stub/aside.c)
    check_traced "$name" "$d/plain/src/lua" "$d/litifut/src/lua" "$ROOT/tests/progs/nesting.lua"
    VIA_LDSO=1 check_traced "$name/ld.so" "$d/plain/src/lua" "$d/litifut/src/lua" \
        "$ROOT/tests/progs/nesting.lua"
}

# SQLite's speedtest1 on mipsel (the group tree's case: configure,
# libtool), against the oracle's tree
libc_sqlite() {
    set_arch mipsel || return
    TREE_SQLITE_SRC=$(ls -d "${SOURCES:-$ROOT/build/src}"/sqlite3-*/ 2> /dev/null | head -1)
    TREE_SQLITE_SRC=${TREE_SQLITE_SRC%/}
    [ -n "$TREE_SQLITE_SRC" ] || { fail "$ARCH/libc/sqlite: no sqlite3 source (make sources)"; return; }
    tree_sqlite
}

libc_extra() {      # libc_extra WHAT [ARGS]
    "libc_$@"
}

test_libc() {
    local arches
    arches=$(musl_arches | tr '\n' ' ')
    if [ -z "$arches" ]; then
        fail "libc: no musl (musl-dev:armel, :armhf, :mipsel, :arm64; make deps)"
        return
    fi
    (
        export LIBC=musl NAME_PREFIX=musl/
        WORK=$WORK/musl
        ARCHES=$arches
        mkdir -p "$WORK/runs"
        test_programs
        for a in $arches; do echo "calls_only $a pie"; echo "calls_only $a static"; done |
            parallel libc_extra
        case " $arches " in *" mipsel "*)
            printf '%s\n' own_triple lua sqlite | parallel libc_extra
            echo "== musl/busybox"      # (OpenWrt's case: its own Kbuild, musl, mipsel)
            ARCHES=mipsel test_busybox ;;
        esac
        case " $arches " in *" aarch64 "*)
            echo "== musl/tree"         # (Lua and SQLite against the oracle's tree)
            ARCHES=aarch64 test_tree ;;
        esac
        local g
        for g in returns entries modes fork signals sigjump sigevents spawn ring copyout stream onoff limits \
                 clocks daemon tracefiles emu; do
            echo "== musl/$g"
            "test_$g"
        done
    )
    arches=$(uclibc_arches | tr '\n' ' ')
    if [ -z "$arches" ]; then
        fail "libc: no uClibc-ng in ${UCLIBC:-$ROOT/build/uclibc} (make uclibc)"
        return
    fi
    (
        export LIBC=uclibc NAME_PREFIX=uclibc/ PROGRAM_MODES=static
        WORK=$WORK/uclibc
        ARCHES=$arches
        mkdir -p "$WORK/runs"
        test_programs
        for a in $arches; do echo "calls_only $a static"; done | parallel libc_extra
    )
}
