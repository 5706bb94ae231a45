# Entries: functions entered by no call at a rewritten site are calls
# in every view, in their real place in the tree: thread start routines,
# comparators, exit handlers (tests/progs/entries.c: three threads, one after the other,
# each spinning 30 ms in worker(); a thread-specific value's destructor
# calls after_worker() once worker() has returned).  Per arch, pie and
# static:
#   - the trace equals the oracle's calls and tree (check_traced);
#   - worker is 3 calls (--summary), and after_worker is never worker's
#     callee (--graph: the destructor runs after the routine returned);
#   - pie (the C library outside the program: the tracer's entry,
#     stub/events.c): the log has "(thread) -> worker {" 3 times, and
#     --info entries=3; static (the C library's start_thread
#     instrumented): its call, and no entry;
#   - worker's total time (--profile) is the threads' own clocks' sum
#     (durations.txt), within 5% and 2 ms per thread (the clock reads
#     and entering the routine, inside the frame, outside its clock);
#   - pie: the functions that qsort, bsearch, qsort_r, tsearch, twalk,
#     lfind, pthread_once and dl_iterate_phdr call back, which make no
#     call, are as many calls as the program counted, inside those
#     functions (--graph), and (glibc) the atexit and on_exit handlers
#     one call each, inside exit;
#   - pie: main is one call, "(start) -> main" (the C library's start
#     calls it through the tracer's entry), the constructor ctor_one
#     one call at the root ("(init) -> ctor_one"), the destructor
#     dtor_one one call inside exit (the rewriter's entry thunks of the
#     .init_array and .fini_array words).
# Tail jumps (tests/progs/jumps.c: functions entered by jumps only, a
# chain of jumps, a conditional one, mutual recursion by jumps, a jump
# into the C library, one after a call through a pointer), per arch
# whose rewriter redirects them, pie and static:
#   - the trace equals the oracle's calls and tree (the oracle sees no
#     call at a jump: oracle-compare leaves the jump sites out and moves
#     their callees' calls up, as the oracle's run has them);
#   - every function is as many calls as the program counted
#     (--summary), each jump's edge in --graph has its calls, and the
#     log says "(jump) jumper -> to_leaf" once per jump;
#   - every view draws the same tree (views-tree.py).

entries_case() {    # entries_case ARCH MODE
    set_arch "$1"
    local mode=$2 name=entries/$1/$2 d=$WORK/build/entries/$1-$2
    mkdir -p "$d"
    if ! build_pair "$d" entries.c "$mode" 2> "$d/build.err"; then
        fail "$name: build: $(head -c 300 "$d/build.err")"
        return
    fi
    check_traced "$name" "$d/plain" "$d/prog"
    local r=$WORK/runs/$name/traced calls graph log info_entries
    info_entries=$(sed -n 's/^entries=//p' "$WORK/runs/$name/info")
    calls=$("$BIN/litifut-postproc" --summary --format=tsv "$r" 2> "$r/pp.err" |
            awk -F '\t' '$2 == "worker" { print $1 }')
    graph=$("$BIN/litifut-postproc" --graph --format=tsv "$r" 2>> "$r/pp.err")
    log=$("$BIN/litifut-postproc" "$r" 2>> "$r/pp.err")
    local starts=0 want='(thread) -> worker {' entries=$info_entries
    [ "$mode" = static ] && want='start_thread -> worker {' entries=0
    [ "${LIBC:-glibc}" = musl ] && [ "$mode" = static ] && want='start -> worker {'
    starts=$(grep -cF -- "$want" <<< "$log")
    check "$name: worker is 3 calls (--summary: ${calls:-none}), each at its thread's root ($starts times \"$want\"; --info entries=$info_entries)" \
        eval '[ ! -s "$r/pp.err" ] && [ "$calls" = 3 ] && [ "$starts" = 3 ] && [ "$info_entries" = $entries ]'
    check "$name: after_worker, called by a TSD destructor after worker returned, is no callee of worker" \
        eval '! awk -F "\t" "\$1 == \"worker\" && \$3 == \"after_worker\" { bad = 1 } END { exit !bad }" <<< "$graph" &&
              awk -F "\t" "\$3 == \"after_worker\" { found = 1 } END { exit !found }" <<< "$graph"'
    [ "$mode" = pie ] && entries_callbacks "$name" "$r" "$graph" "$info_entries"
    local total want_ns
    total=$("$BIN/litifut-postproc" --profile --format=tsv "$r" 2> /dev/null |
            awk -F '\t' '$8 == "worker" { print $2 }')
    want_ns=$(paste -sd+ "$r/durations.txt" 2> /dev/null | bc)
    check "$name: worker's total time ${total:-none} ns, the threads' own clocks ${want_ns:-none} ns" \
        eval '[ -n "$total" ] && [ -n "$want_ns" ] &&
              awk -v t="$total" -v w="$want_ns" "BEGIN { d = t - w; if (d < 0) d = -d; exit !(d <= w * 0.05 + 6000000) }"'
}

# entries_callbacks NAME RUN GRAPH ENTRIES: a PIE's callbacks (the
# program's "calls name=N ..." line), called by the shared C library
# through the tracer's entries: each function as many calls as the
# program counted, inside the function that called it back (--graph)
entries_callbacks() {
    local name=$1 r=$2 graph=$3 info_entries=$4 summary pair f n bad= total=3 handlers=0
    summary=$("$BIN/litifut-postproc" --summary --format=tsv "$r" 2> /dev/null)
    local -A caller=([by_value]=qsort [search_key]=bsearch [by_value_r]=qsort_r [tree_visit]=twalk
                     [list_cmp]=lfind [once_init]=pthread_once [phdr_visit]=dl_iterate_phdr
                     [ctor_one]="(root)" [tree_free]=tdestroy [tree_visit_r]=twalk_r)
    for pair in $(sed -n 's/^calls //p' "$r/out"); do
        f=${pair%=*} n=${pair#*=}
        total=$((total + n))
        local got
        got=$(awk -F '\t' -v f="$f" '$2 == f { n = $1 } END { print n + 0 }' <<< "$summary")
        [ "$got" = "$n" ] || bad="$bad $f: $got calls, the program's $n;"
        if [ -n "${caller[$f]:-}" ] &&
           ! awk -F '\t' -v c="${caller[$f]}" -v f="$f" -v n="$n" \
                '$1 == c && $3 == f && $5 == n { ok = 1 } END { exit !ok }' <<< "$graph"; then
            bad="$bad $f: not $n calls inside ${caller[$f]};"
        fi
    done
    check "$name: callbacks that make no call are as many calls as the program counted, inside their callers${bad:+:$bad}" \
        eval '[ -z "$bad" ] && [ "$total" -gt 3 ]'
    if [ "${LIBC:-glibc}" = glibc ]; then   # (musl's atexit calls no __cxa_atexit the link sees; no on_exit)
        handlers=2
        check "$name: the atexit and on_exit handlers: one call each, inside exit" \
            eval 'awk -F "\t" "\$1 == \"exit\" && (\$3 == \"at_exit_handler\" || \$3 == \"on_exit_handler\") && \$5 == 1 { n++ } END { exit n != 2 }" <<< "$graph"'
    fi
    local log mains
    log=$("$BIN/litifut-postproc" "$r" 2> /dev/null)
    mains=$(grep -cF -- '(start) -> main {' <<< "$log")
    check "$name: main one call from the C library's start ($mains times \"(start) -> main\"), the destructor one call inside exit" \
        eval '[ "$mains" = 1 ] && [ "$(awk -F "\t" "\$2 == \"main\" { print \$1 }" <<< "$summary")" = 1 ] &&
              grep -qF -- "(init) -> ctor_one" <<< "$log" &&
              awk -F "\t" "\$1 == \"exit\" && \$3 == \"dtor_one\" && \$5 == 1 { ok = 1 } END { exit !ok }" <<< "$graph"'
    # (the entries: the callbacks counted, main, the destructor)
    check "$name: --info entries=$info_entries: the thread starts, callbacks, exit handlers, main, constructor and destructor ($((total + handlers + 2)))" \
        [ "$info_entries" = $((total + handlers + 2)) ]
}

# entries_libpthread ARCH: a libpthread.a that defines pthread_create in
# the link's folders (a C library whose libpthread is its own) with
# Debian's --as-needed: pthread_create is not wrapped (the tracer's weak
# reference would not keep the library); without it, it is
entries_libpthread() {
    set_arch "$1"
    local d=$WORK/build/entries/$1-libpthread name=entries/$1/own-libpthread
    mkdir -p "$d/lib"
    printf 'int pthread_create(void) { return 0; }\n' > "$d/p.c"
    "$TCC" -c -o "$d/p.o" "$d/p.c" && "$TRIPLE-ar" rcs "$d/lib/libpthread.a" "$d/p.o" &&
        LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -L"$d/lib" \
            -o "$d/own" "$ROOT/tests/progs/entries.c" &&
        LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread \
            -o "$d/shared" "$ROOT/tests/progs/entries.c" 2> "$d/build.err"
    check "$name: pthread_create not wrapped with --as-needed and a libpthread.a of its own; wrapped without" \
        eval 'grep -q -- "--as-needed" "$d/own.litifut/pass1.args" &&
              ! grep -q -- "--wrap=pthread_create" "$d/own.litifut/pass1.args" &&
              grep -q -- "--wrap=pthread_create" "$d/shared.litifut/pass1.args"'
}

# jumps_case ARCH MODE: tail jumps are calls (above)
jumps_case() {
    set_arch "$1"
    local mode=$2 name=entries/$1/jumps/$2 d=$WORK/build/entries/$1-jumps-$2
    mkdir -p "$d"
    if ! build_pair "$d" jumps.c "$mode" 2> "$d/build.err"; then
        fail "$name: build: $(head -c 300 "$d/build.err")"
        return
    fi
    check_traced "$name" "$d/plain" "$d/prog"
    local r=$WORK/runs/$name/traced summary graph log pair f n bad= edge
    summary=$("$BIN/litifut-postproc" --summary --format=tsv "$r" 2> "$r/pp.err")
    graph=$("$BIN/litifut-postproc" --graph --format=tsv "$r" 2>> "$r/pp.err")
    log=$("$BIN/litifut-postproc" "$r" 2>> "$r/pp.err")
    for pair in $(sed -n 's/^calls //p' "$r/out"); do
        f=${pair%=*} n=${pair#*=}
        local got
        got=$(awk -F '\t' -v f="$f" '$2 == f { n = $1 } END { print n + 0 }' <<< "$summary")
        [ "$got" = "$n" ] || bad="$bad $f: $got calls, the program's $n;"
    done
    check "$name: every function as many calls as the program counted (jumped to or called)${bad:+:$bad}" \
        eval '[ -z "$bad" ] && [ ! -s "$r/pp.err" ] && grep -q "^calls to_leaf=16 " "$r/out"'
    bad=
    for edge in jumper:to_leaf:10 chain1:chain2:4 chain2:chain3:4 chain3:to_leaf:4 \
                via_pointer:to_leaf:2 maybe_jump:odd_case:3 by_register:reg_target:5; do
        IFS=: read -r f pair n <<< "$edge"
        awk -F '\t' -v c="$f" -v f="$pair" -v n="$n" '$1 == c && $3 == f && $5 == n { ok = 1 } END { exit !ok }' \
            <<< "$graph" || bad="$bad $f -> $pair not $n calls;"
    done
    n=$(grep -cF -- '(jump) jumper -> to_leaf' <<< "$log")
    check "$name: each jump an edge of its calls in --graph, and \"(jump) jumper -> to_leaf\" in the log ($n times)${bad:+:$bad}" \
        eval '[ -z "$bad" ] && [ "$n" = 10 ]'
    tree_views "$name" "$r"
}

# The test names of $ARCHES (default: $ARCH) whose rewriter redirects
# tail jumps
jump_arches() {
    local a keep=${ARCH:-}
    for a in ${1:-$ARCH}; do
        set_arch "$a"
        case $ARCH_DIR in arm|aarch64|mips) echo "$a" ;; esac
    done
    [ -n "$keep" ] && set_arch "$keep"
}

test_entries() {
    local arch mode
    for arch in $ARCHES; do
        for mode in pie static; do echo "$arch $mode"; done
    done | parallel entries_case
    for arch in $(jump_arches "$ARCHES"); do
        for mode in pie static; do echo "$arch $mode"; done
    done | parallel jumps_case
    if [ "${LIBC:-glibc}" = glibc ]; then
        entries_libpthread "$(folder_arches | head -1)"
    fi
}
