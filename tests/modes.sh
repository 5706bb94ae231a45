# LITIFUT_MODE dedup and count (stub/pairs.c) against the oracle: a
# count trace's pairs and their calls must be exactly the oracle's
# distinct (site, target) pairs at rewritten sites with their numbers of
# calls, a dedup trace's the same pairs; the program behaves as
# before.  tests/progs/calls.c (calls through registers, longjmp,
# signals, recursion) and threads.c (threads share the counts), PIE
# and static, on every arch, and bigtext.c (a MIPS PIE's far sites go
# through the run-time bridge); also SIGKILL (the counts are in the file
# as they are counted), a fork child (its own pairs), --coverage and
# --profile on a count trace.

# modes_check NAME DIR PLAIN PROG MODE: PROG's run with LITIFUT_MODE=MODE
# against the oracle (DIR: the runs).
modes_check() {
    local name=$1 d=$2 plain=$3 prog=$4 mode=$5
    LITIFUT_MODE=$mode traced_runs "$name" "$d" "$plain" "" "$prog" "" \
        "$prog.litifut/unrewritten" "" || return
    local bias opt=--pairs
    [ "$mode" = count ] && opt=--counts
    bias=$(sed -n 's/^load_bias=0x//p' "$d/info" | head -1)
    if ! grep -q "^mode=$mode$" "$d/info"; then
        fail "$name: --info does not say mode=$mode"
    elif "$PLUGINS/oracle-compare" "$opt" "$prog.litifut/sites.tsv" "$bias" \
         "$d/oracle/calls.txt" "$d/trace.tsv" > "$d/compare.out" 2>&1; then
        pass "$name: same output and exit status; $(sed 's/^oracle-compare: //' "$d/compare.out")"
    else
        fail "$name: the pairs differ from the oracle's: $(head -c 600 "$d/compare.out")"
    fi
}

modes_case() {      # modes_case ARCH SOURCE LINK
    set_arch "$1"
    local src=$2 link=$3
    local name=$ARCH/modes/${src%.c}/$link d=$WORK/modes/$ARCH/${src%.c}-$link
    build_pair "$d" "$src" "$link" || { fail "$name: cannot build"; return; }
    modes_check "$name/count" "$WORK/runs/$name/count" "$d/plain" "$d/prog" count
    modes_check "$name/dedup" "$WORK/runs/$name/dedup" "$d/plain" "$d/prog" dedup
}

# The views of a count trace, and one cut by SIGKILL.
modes_views() {     # modes_views ARCH
    set_arch "$1"
    local d=$WORK/runs/$ARCH/modes/threads/pie/count
    local tsv=$d/trace.tsv cov=$d/coverage.tsv
    "$BIN/litifut-postproc" --coverage --format=tsv "$d/traced" > "$cov" 2> "$d/coverage.err"
    "$BIN/litifut-postproc" --profile --format=tsv "$d/traced" > "$d/profile.tsv"
    # threads.c's step is called 8000 times (4 threads), bump 2000
    check "$ARCH/modes/views: --coverage and --profile count each function's calls; main is reached by no traced call" \
        eval '[ ! -s "$d/coverage.err" ] &&
              grep -q "	step	8000$" "$cov" && grep -q "	bump	2000$" "$cov" &&
              grep -q "	main	0$" "$cov" && ! grep -q "litifut_slow" "$cov" &&
              grep -q "^8000	step	" "$d/profile.tsv"'
    check "$ARCH/modes/views: --graph on a count trace is one error line" \
        eval '! "$BIN/litifut-postproc" --graph "$d/traced" > /dev/null 2> "$d/graph.err" &&
              [ "$(wc -l < "$d/graph.err")" = 1 ] && grep -q "LITIFUT_MODE=count trace" "$d/graph.err"'
    # SIGKILL: every count so far is in the file
    local k=$WORK/modes/$ARCH/kill
    rm -rf "$k"
    mkdir -p "$k"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$k/prog" "$ROOT/tests/progs/copyout.c" ||
        { fail "$ARCH/modes/kill: cannot build"; return; }
    (cd "$k" && LITIFUT_DIR=. LITIFUT_MODE=count timeout 300 "$QEMU" -L "$SYSROOT" ./prog kill \
        > out 2> err) 2> /dev/null       # (the shell's "Killed")
    local works
    works=$("$BIN/litifut-postproc" --summary --format=tsv "$k" 2> "$k/post.err" |
            awk -F'\t' '$2 == "work" { print $1 }')
    check "$ARCH/modes/kill: a count trace cut by SIGKILL has every call counted until then (work: ${works:-none} of 1000)" \
        eval '[ ! -s "$k/post.err" ] && [ "$works" = 1000 ]'
}

test_modes() {
    local arch src link
    for arch in $(folder_arches); do
        for src in calls.c threads.c; do
            for link in pie static; do
                echo "$arch $src $link"
            done
        done
        # far sites: the MIPS run-time bridge's way into the mode paths
        [ "${arch#mips}" != "$arch" ] && echo "$arch bigtext.c pie"
    done | parallel modes_case
    for arch in $(folder_arches); do
        modes_views "$arch"
    done
}
