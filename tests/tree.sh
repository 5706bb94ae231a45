# The call tree every view draws, with default settings (returns
# recorded), where the truth is known (docs/DESIGN.md, "The call stack"):
#   - Lua 5.4 (Debian's source, its own Makefile) running
#     tests/progs/nesting.lua (recursion, errors caught by pcall: longjmp,
#     coroutines, callbacks from C, tail calls) and SQLite's speedtest1
#     (Debian's source, its own configure and libtool; --size 1): the
#     tree of the calls TSV's parents equals the oracle's calls and
#     returns at rewritten sites (check_traced: oracle-compare --tree);
#   - tests/progs/catches.cc, whose catch blocks and cleanups make calls
#     (the oracle closes an exception's frames late): the tree equals the
#     program's own record of it;
#   - for these and tests/progs/nesting.c, every view of the trace draws
#     that one tree (tests/tools/views-tree.py: the log, calls TSV,
#     graph, folded stacks and profile against Chrome JSON's nesting and
#     exact times).
# (BusyBox's applets, zlib and the test programs get the oracle's tree
# check in their own groups: check_traced.)  arm, armhf, mips, aarch64
# (TEST_FULL: mipsel too).

# tree_views NAME DIR: every view of the trace in DIR draws one tree
tree_views() {
    local name=$1 d=$2 pp=$BIN/litifut-postproc v=$2.views
    mkdir -p "$v"
    "$pp" --format=tsv "$d" > "$v/calls.tsv" 2> "$v/err" &&
        "$pp" "$d" > "$v/log" 2>> "$v/err" &&
        "$pp" --format=chrome "$d" > "$v/chrome.json" 2>> "$v/err" &&
        "$pp" --graph --format=tsv "$d" > "$v/graph.tsv" 2>> "$v/err" &&
        "$pp" --format=folded "$d" > "$v/folded" 2>> "$v/err" &&
        "$pp" --profile --format=tsv "$d" > "$v/profile.tsv" 2>> "$v/err"
    local out
    out=$(python3 "$ROOT/tests/tools/views-tree.py" "$v/calls.tsv" "$v/log" "$v/chrome.json" \
              "$v/graph.tsv" "$v/folded" "$v/profile.tsv" 2>&1)
    check "$name: ${out#views-tree: }" eval '[ $? = 0 ] && [ ! -s "$v/err" ] && [[ "$out" == *"draw one tree" ]]'
}

# Lua: the interpreter built as tests/bench/programs.sh builds it
tree_lua() {
    local name=$ARCH/tree/lua d=$WORK/tree/$ARCH/lua
    rm -rf "$d"
    mkdir -p "$d"
    local kind
    for kind in plain litifut; do
        lua_build "$TREE_LUA_SRC" "$d/$kind" "$kind" ||
            { fail "$name: the $kind build failed (see $d/$kind/build.log)"; return; }
    done
    check_traced "$name" "$d/plain/src/lua" "$d/litifut/src/lua" "$ROOT/tests/progs/nesting.lua"
    tree_views "$name" "$WORK/runs/$name/traced"
}

# SQLite: configured and compiled once, linked plainly and instrumented
tree_sqlite() {
    local name=$ARCH/tree/sqlite d=$WORK/tree/$ARCH/sqlite
    rm -rf "$d"
    mkdir -p "$d"
    if ! (cd "$d" && "$TREE_SQLITE_SRC/configure" --host="$TRIPLE" --disable-shared --disable-tcl \
              --disable-readline CC="$TCC" CFLAGS=-O2 > build.log 2>&1 &&
          make CROSS_BUILDING=yes sqlite3.c sqlite3.h >> build.log 2>&1 &&
          make -j2 -f Makefile -f "$ROOT/tests/bench/speedtest1.mk" CROSS_BUILDING=yes \
              speedtest1.lo libsqlite3.la speedtest1-lib >> build.log 2>&1 &&
          mv speedtest1 speedtest1.plain &&
          LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 make -f Makefile -f "$ROOT/tests/bench/speedtest1.mk" \
              CROSS_BUILDING=yes CC="$TCC -B$BIN/" speedtest1-lib >> build.log 2>&1); then
        fail "$name: the build failed (see $d/build.log)"
        return
    fi
    # (its output has elapsed times: compared without them)
    OUT_FILTER='s/ *[0-9]+\.[0-9]{3}s$//' check_traced "$name" "$d/speedtest1.plain" \
        "$d/speedtest1" --size 1 --verify --nosync speedtest1.db
}

# catches.cc: its own record of its call tree
tree_catches() {
    local name=$ARCH/tree/catches d=$WORK/tree/$ARCH/catches
    mkdir -p "$d"
    if ! LITIFUT=1 LITIFUT_QUIET=1 "$TCXX" -B"$BIN/" -O2 -o "$d/prog" "$ROOT/tests/progs/catches.cc" \
         2> "$d/build.err"; then
        fail "$name: cannot build tests/progs/catches.cc: $(head -c 300 "$d/build.err")"
        return
    fi
    run_target "$d/run" "$d/prog"
    "$BIN/litifut-postproc" --format=tsv "$d/run" > "$d/calls.tsv" 2> "$d/pp.err"
    # the calls TSV's tree, restricted to the recorded functions: a line
    # per call of one, "<depth> <name>", depth counted in them
    python3 - "$d/calls.tsv" > "$d/tree" <<'EOF'
import re, sys
names = {"thrower", "catch_exc", "bar", "bar1", "bar2", "bar3", "baz", "b_gone",
         "cleanup_only", "rethrows", "loop"}
up, kept = {}, {}
with open(sys.argv[1]) as f:
    head = f.readline().rstrip("\n").split("\t")
    col = {c: i for i, c in enumerate(head)}
    for line in f:
        r = line.rstrip("\n").split("\t")
        tid, seq, parent = r[col["tid"]], r[col["seq"]], r[col["parent"]]
        name = re.sub(r"\+0x[0-9a-f]+$", "", r[col["callee_sym"]])
        depth, p = 0, parent
        while p != "-":
            if (tid, p) in kept:
                depth = kept[(tid, p)] + 1
                break
            p = up[(tid, p)]
        up[(tid, seq)] = parent
        if name in names:
            kept[(tid, seq)] = depth
            print(depth, name)
EOF
    check "$name: the calls of catch blocks and cleanups nest as the program recorded them ($(wc -l < "$d/run/out") calls)" \
        eval '[ "$(cat "$d/run/rc")" = 0 ] && [ ! -s "$d/pp.err" ] && [ -s "$d/run/out" ] &&
              cmp -s "$d/run/out" "$d/tree"'
    tree_views "$name" "$d/run"
}

tree_nesting() {
    local name=$ARCH/tree/nesting d=$WORK/tree/$ARCH/nesting
    build_prog "$name" "$d" nesting.c || return       # (tests/postproc.sh)
    run_target "$d/run" "$d/prog"
    tree_views "$name" "$d/run"
}

tree_arch() {
    set_arch "$1"
    tree_nesting
    [ -n "$TCXX" ] && tree_catches      # (musl: no C++)
    tree_lua
    tree_sqlite
}

test_tree() {
    TREE_SQLITE_SRC=$(ls -d "${SOURCES:-$ROOT/build/src}"/sqlite3-*/ 2> /dev/null | head -1)
    TREE_SQLITE_SRC=${TREE_SQLITE_SRC%/}
    if [ -z "$TREE_SQLITE_SRC" ]; then
        fail "tree: no sqlite3 source in ${SOURCES:-$ROOT/build/src} (make sources)"
        return
    fi
    TREE_LUA_SRC=$WORK/tree/lua-src
    lua_source "$TREE_LUA_SRC" || {
        fail "tree: cannot prepare lua5.4's source in $TREE_LUA_SRC (make sources)"
        return
    }
    local arch
    for arch in $ARCHES; do
        [ "$arch" != mipsel ] || [ "${TEST_FULL:-0}" = 1 ] && echo "$arch"
    done | parallel tree_arch
}
