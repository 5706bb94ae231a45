# Shared libraries (tests/progs/shlib/): libcalc.so.1 (C), libshapes.so.1
# (C++), libplugin.so (dlopen), built plain and instrumented
# (-shared -fPIC through the wrapper, LITIFUT_KEEP=1), with shmain (a
# PIE linked against libcalc and libshapes, which dlopens the plugin
# and runs threads) and dlhost (a plain PIE that dlopens the plugin).
# Each case runs plain, traced, with LITIFUT_TRACE=0 and under the
# oracle (the unrewritten executable and libraries, same layout), the
# libraries found through LD_LIBRARY_PATH, and compares the trace's
# calls with the oracle's at every instrumented object's sites
# (check_traced_objects).  Cases, per arch:
#   traced      instrumented shmain with its instrumented libraries, -O2
#   O0/traced   the same built -O0 (arm and mips)
#   ld.so       the same through the dynamic linker run explicitly
#               (the program and every library at other addresses than
#               in "traced": checked)
#   preload     the same with a large plain library LD_PRELOADed first
#               (libgomp, which nothing here uses: every library at other
#               addresses than in "traced": checked)
#   dlhost      plain dlhost loading the instrumented plugin, then
#               libcalc RTLD_LOCAL (one trace: found through the maps)
#   inst-exe    instrumented shmain with the plain libraries
#   inst-libs   plain shmain with the instrumented libraries
#   bigtext     instrumented bigmain with libbiga.so.1 and libbigb.so.1
#               (libbig.c), whose call sites are far from both ends of
#               their code (on MIPS: through the run-time bridge of their
#               256 MB region, which both share)
#   bigtext/ld.so  the same through the dynamic linker

SHLIB_LIBS="libshapes.so.1 libcalc.so.1 libplugin.so"
SHLIB_PRELOAD=libgomp.so.1

# shlib_link DIR OUT.err COMMAND...: runs COMMAND (a build into DIR)
# with stderr to OUT.err; fails if it fails or, for an instrumented
# build (DIR .../inst), says anything.
shlib_link() {
    local dir=$1 err=$2; shift 2
    if [ "${dir##*/}" = inst ]; then
        LITIFUT=1 LITIFUT_KEEP=1 "$@" -B"$BIN/" 2> "$err" && ! [ -s "$err" ]
    else
        "$@" 2> "$err"
    fi
}

# shlib_build ARCH OPT: $WORK/build/ARCH/shlib-OPT/{plain,inst,oracle};
# writes its ok file there if every build succeeded.
shlib_build() {
    set_arch "$1"
    local opt=$2 src=$ROOT/tests/progs/shlib
    local b=$WORK/build/$ARCH/shlib-$opt name=$ARCH/shlib/$opt/build
    local cflags=(-std=gnu11 "-$opt" -Wall) cxxflags=(-std=gnu++17 "-$opt" -Wall)
    local kind d lib
    # (the returns group's shared-library case builds the same first)
    if [ -e "$b/ok" ]; then
        pass "$name: plain and instrumented (silent): built already (returns/$ARCH/shlib)"
        return
    fi
    rm -rf "$b"
    for kind in plain inst; do
        d=$b/$kind
        mkdir -p "$d"
        if ! shlib_link "$d" "$d/libshapes.err" "$TCXX" "${cxxflags[@]}" -shared -fPIC \
                 -Wl,-soname,libshapes.so.1 -o "$d/libshapes.so.1" "$src/libshapes.cc" ||
           ! ln -s libshapes.so.1 "$d/libshapes.so" ||
           ! shlib_link "$d" "$d/libcalc.err" "$TCC" "${cflags[@]}" -shared -fPIC \
                 -Wl,-soname,libcalc.so.1 -o "$d/libcalc.so.1" "$src/libcalc.c" -L"$d" -lshapes ||
           ! ln -s libcalc.so.1 "$d/libcalc.so" ||
           ! shlib_link "$d" "$d/libplugin.err" "$TCC" "${cflags[@]}" -shared -fPIC \
                 -Wl,-soname,libplugin.so -o "$d/libplugin.so" "$src/plugin.c" ||
           ! shlib_link "$d" "$d/shmain.err" "$TCC" "${cflags[@]}" -pie -pthread \
                 -o "$d/shmain" "$src/shmain.c" -L"$d" -lcalc -lshapes -ldl; then
            fail "$name: $kind build: $(cat "$d"/*.err | head -c 400)"
            return
        fi
    done
    # far call sites (-O2 only): two libraries, one program
    for kind in plain inst; do
        d=$b/$kind
        [ "$opt" = O2 ] || break
        for lib in a b; do
            if ! shlib_link "$d" "$d/libbig$lib.err" "$TCC" "${cflags[@]}" -shared -fPIC \
                     -DBIG=$lib -Wl,-soname,libbig$lib.so.1 -o "$d/libbig$lib.so.1" \
                     "$src/libbig.c" ||
               ! ln -s libbig$lib.so.1 "$d/libbig$lib.so"; then
                fail "$name: $kind build: $(head -c 400 "$d/libbig$lib.err")"
                return
            fi
        done
        if ! shlib_link "$d" "$d/bigmain.err" "$TCC" "${cflags[@]}" -pie -o "$d/bigmain" \
                 "$src/bigmain.c" -L"$d" -lbiga -lbigb; then
            fail "$name: $kind build: $(head -c 400 "$d/bigmain.err")"
            return
        fi
    done
    if ! "$TCC" "${cflags[@]}" -pie -o "$b/plain/dlhost" "$src/dlhost.c" -ldl 2> "$b/plain/dlhost.err"
    then
        fail "$name: dlhost: $(head -c 300 "$b/plain/dlhost.err")"
        return
    fi
    # the oracle's libraries: the instrumented ones before their sites
    # were rewritten, under the same file names
    mkdir -p "$b/oracle"
    local libs=$SHLIB_LIBS
    [ "$opt" = O2 ] && libs+=" libbiga.so.1 libbigb.so.1"
    for lib in $libs; do
        if ! cp "$b/inst/$lib.litifut/unrewritten" "$b/oracle/$lib"; then
            fail "$name: no $b/inst/$lib.litifut/unrewritten (LITIFUT_KEEP=1)"
            return
        fi
    done
    local progs=shmain
    [ "$opt" = O2 ] && progs+=" bigmain"
    pass "$name: plain and instrumented (silent): $libs $progs"
    touch "$b/ok"
}

# shlib_bias INFO OBJECT: OBJECT's load bias in a --info output.
shlib_bias() {
    sed -n 's/^object=[^ ]* [^ ]* \([^ ]*\) .*\/'"$2"'$/\1/p' "$1" | head -1
}

# shlib_far_sites LIB: how many of LIB's rewritten sites (MIPS) are
# more than 136 KB (bal's 128 KB and the sled's size) from both sleds,
# the island at the start of the code and the one at its end.
shlib_far_sites() {
    local island sled
    island=$("$TRIPLE-nm" "$1" | awk '$3 == "litifut_island_sled" { print $1 }')
    sled=$("$TRIPLE-nm" "$1" | awk '$3 == "litifut_sled" { print $1 }')
    [ -n "$island" ] && [ -n "$sled" ] || return
    local site kind insn n=0 di ds
    while read -r site kind insn; do
        di=$((site - 0x$island)) ds=$((site - 0x$sled))
        [ ${di#-} -gt $((136 * 1024)) ] && [ ${ds#-} -gt $((136 * 1024)) ] && n=$((n + 1))
    done < <(tail -n +2 "$1.litifut/sites.tsv")
    echo "$n"
}

# shlib_case ARCH CASE
shlib_case() {
    set_arch "$1"
    local case=$2 opt=O2
    [ "$case" = O0/traced ] && opt=O0
    local b=$WORK/build/$ARCH/shlib-$opt name=$ARCH/shlib/$case
    [ -e "$b/ok" ] || { fail "$name: not built (see $ARCH/shlib/$opt/build)"; return; }
    local plain=$b/plain inst=$b/inst oracle=$b/oracle
    local all="libcalc.so.1 libshapes.so.1 libplugin.so"
    local EXPECT_RC=0
    # (libshapes' exceptions: the oracle closes their frames late, so its
    # tree is not the program's; the tree group checks catch blocks)
    local NO_TREE=exceptions
    case $case in bigtext*) NO_TREE= ;; esac
    case $case in
    traced|O0/traced)
        check_traced_objects "$name" "$plain/shmain" "$plain" "$inst/shmain" "$inst" "$oracle" \
            "$all" loadmap.txt ;;
    ld.so|preload)
        local ref=$WORK/runs/$ARCH/shlib/traced/info obj at ref_at same=""
        if [ "$case" = ld.so ]; then
            VIA_LDSO=1 check_traced_objects "$name" "$plain/shmain" "$plain" "$inst/shmain" \
                "$inst" "$oracle" "$all" loadmap.txt
        else
            GUEST_ENV=LD_PRELOAD=$SHLIB_PRELOAD check_traced_objects "$name" "$plain/shmain" \
                "$plain" "$inst/shmain" "$inst" "$oracle" "$all" loadmap.txt
            check "$name: $SHLIB_PRELOAD was loaded" grep -q "^$SHLIB_PRELOAD " \
                "$WORK/runs/$name/traced/loadmap.txt"
        fi
        # elsewhere than in the traced case (run before): through ld.so
        # the program (where the libraries land then depends on the holes
        # the layout leaves: on MIPS, whose libraries are 256 KB aligned,
        # they may land where they did); with LD_PRELOAD, every library
        # (qemu loads the program itself)
        [ -s "$WORK/runs/$name/info" ] && [ -s "$ref" ] || return
        local objs="prog"
        [ "$case" = preload ] && objs=$all
        for obj in $objs; do
            at=$(shlib_bias "$WORK/runs/$name/info" "$obj")
            ref_at=$(shlib_bias "$ref" "$obj")
            [ -n "$at" ] && [ "$at" != "$ref_at" ] || same+=" $obj at ${at:-?}"
        done
        check "$name: $objs loaded elsewhere than in the traced case${same:+ (not:$same)}" \
            [ -z "$same" ] ;;
    dlhost)
        check_traced_objects "$name" "$plain/dlhost" "$plain" "$plain/dlhost" "$inst" "$oracle" \
            "libplugin.so libcalc.so.1 libshapes.so.1" loadmap.txt ;;
    inst-exe)
        check_traced_objects "$name" "$plain/shmain" "$plain" "$inst/shmain" "$plain" "$plain" \
            "" loadmap.txt ;;
    inst-libs)
        check_traced_objects "$name" "$plain/shmain" "$plain" "$plain/shmain" "$inst" "$oracle" \
            "$all" loadmap.txt ;;
    bigtext|bigtext/ld.so)
        [ "$case" = bigtext/ld.so ] && local VIA_LDSO=1
        check_traced_objects "$name" "$plain/bigmain" "$plain" "$inst/bigmain" "$inst" "$oracle" \
            "libbiga.so.1 libbigb.so.1"
        if [ "$case" = bigtext ] && [ "${ARCH#mips}" != "$ARCH" ]; then
            local lib far counts="" none=0
            for lib in libbiga.so.1 libbigb.so.1; do
                far=$(shlib_far_sites "$inst/$lib")
                counts+=" $lib ${far:-?}"
                [ "${far:-0}" -gt 0 ] || none=1
            done
            check "$name: far call sites (beyond bal range of both sleds):$counts" [ $none = 0 ]
        fi ;;
    *) fail "$name: no such case" ;;
    esac
}

shlib_at_O0() { [ "$1" = arm ] || [ "$1" = mips ] || [ "${TEST_FULL:-0}" = 1 ]; }

test_shlib() {
    local arch c
    # -O0 on arm and mips (armhf and mipsel: their -O2 builds)
    for arch in $ARCHES; do
        echo "$arch O2"
        shlib_at_O0 "$arch" && echo "$arch O0"
    done | parallel shlib_build
    # "traced" first: ld.so and preload compare their addresses with it
    for arch in $ARCHES; do echo "$arch traced"; done | parallel shlib_case
    for arch in $ARCHES; do
        for c in O0/traced ld.so preload dlhost inst-exe inst-libs bigtext bigtext/ld.so; do
            [ "$c" = O0/traced ] && ! shlib_at_O0 "$arch" && continue
            # (mipsel: mips's code, the other byte order: the far sites'
            # bridge; armhf: the loader's ways in are arm's; aarch64: ld.so
            # moves every object already; bigtext through ld.so: the MIPS
            # bridge at an address not a 256 MB boundary; TEST_FULL: every
            # case)
            case $arch/$c in
            mipsel/bigtext|mips/bigtext/ld.so) ;;
            mipsel/*|armhf/ld.so|armhf/preload|armhf/dlhost|aarch64/preload|*/bigtext/ld.so)
                [ "${TEST_FULL:-0}" = 1 ] || continue ;;
            esac
            echo "$arch $c"
        done
    done | parallel shlib_case
}
