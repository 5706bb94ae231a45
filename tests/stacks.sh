# The call stacks the post-processor infers from calls alone
# (docs/DESIGN.md, "The call stack"), where the truth is known:
#   - tests/progs/tailcalls.c at -O2 (tail calls compiled to jumps, a
#     callback from qsort that calls, calls into the C library followed
#     by calls from the caller's caller, a two-site recursion, a
#     constructor before main): every return it infers is where the
#     oracle (calltrace.so returns=on) sees it, and the call graph's
#     edges are the traced calls (the calls TSV's, exactly) plus, with 0
#     calls, the tail calls and the callback, each under the function it
#     came from, and the constructor and main from the root;
#   - tests/progs/forkstack.c, a fork from main -> run -> spawn: the
#     child's thread starts with the parent's frames at the fork (found
#     by replaying the parent's trace up to the fork point its header
#     names; until the tracer writes that point, the test computes it
#     from the parent's trace and writes it into the child's header, and
#     once the tracer does, checks that it is the same point), its
#     later calls close them; --pid=CHILD still finds the parent's
#     trace; without it the log says the stack at the fork is unknown.

# stacks_fork_point TRACE TID SEQ: where thread TID's call number SEQ
# (from 0, the calls TSV's seq) is in TRACE: "CHUNK END NEXT": its
# chunk, the word its record ends before, and the word the thread's
# next call or return record starts at (or its data ends): a fork at
# that call has written END to NEXT words of CHUNK.
stacks_fork_point() {
    python3 - "$@" <<'EOF'
import struct, sys
path, tid, seq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
e = "<" if data[8] == 1 else ">"
hsize, csize = struct.unpack_from(e + "II", data, 16)
version = struct.unpack_from(e + "I", data, 12)[0]
calls, found, base = 0, None, hsize
while base + 16 <= len(data):
    magic, ctid, idx, size = struct.unpack_from(e + "4I", data, base)
    size = csize if version == 4 else size      # (version 5: each chunk's own)
    if magic != 0x4b43544c or not size:
        sys.exit("a damaged chunk header at %d in %s" % (base, path))
    chunk, base = base, base + size
    word = lambda i: struct.unpack_from(e + "I", data, chunk + 4 * i)[0]
    if ctid != tid:
        continue
    pos = 4
    while pos < size // 4 and word(pos):
        w = word(pos)
        control = (w & 3) == 3 and (w & 0xfc) != 4     # (not a return)
        if found and not control:
            break
        if control:
            pos += 1 + ((w >> 8) & 0xffff if (w & 0xfc) == 0 else 0)
            continue
        n = 2 if w & 3 == 1 else 1
        if w & 3 != 3:
            if calls == seq:
                found = (idx, pos + n)
            calls += 1
        pos += n
    if found:
        print(found[0], found[1], pos)
        sys.exit(0)
sys.exit("no call %d of thread %d in %s" % (seq, tid, path))
EOF
}

# stacks_header TRACE [PID TID CHUNK WORDS]: prints the fork point of
# TRACE's header ("PID TID CHUNK WORDS", trace-format.h parent_*), or
# writes one into it.
stacks_header() {
    python3 - "$@" <<'EOF'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
e = "<" if data[8] == 1 else ">"
at = 56 + 1024                  # parent_pid: after exe[] (LITIFUT_EXE_MAX)
if len(sys.argv) == 2:
    print(*struct.unpack_from(e + "4I", data, at))
else:
    struct.pack_into(e + "4I", data, at, *map(int, sys.argv[2:6]))
    open(path, "wb").write(data)
EOF
}

test_stacks() {
    local arch
    for arch in $ARCHES; do echo "$arch"; done | parallel stacks_arch
}

stacks_arch() {
    set_arch "$1"
    stacks_tail
    stacks_fork
}

stacks_tail() {
    local d=$WORK/stacks/$ARCH/tail name=$ARCH/stacks/tail pp=$BIN/litifut-postproc
    build_prog "$name" "$d" tailcalls.c || return       # (tests/postproc.sh)
    run_target "$d/traced" "$d/prog"
    run_in "$d/oracle" "$d/prog.litifut/unrewritten" -plugin "$PLUGINS/$ORACLE,returns=on" --
    if ! same_run "$d/traced" "$d/oracle" || [ "$(cat "$d/traced/rc")" != 0 ]; then
        fail "$name: the traced and oracle runs differ or fail (see $d)"
        return
    fi
    local inferred
    inferred=$("$PLUGINS/returns-compare" --inferred "$d/traced"/litifut.*.trace \
               "$d/oracle/calls.txt" 2>&1)
    check "$name: every return inferred where the oracle has it (${inferred#returns-compare: })" \
        eval '[[ "$inferred" =~ \ 0\ inferred\ at\ another\ place ]]'
    "$pp" --format=tsv "$d/traced" > "$d/calls.tsv" 2> "$d/pp.err"
    "$pp" --graph --format=tsv "$d/traced" > "$d/graph.tsv" 2>> "$d/pp.err"
    # traced calls per (function holding the site, callee), from the calls
    # TSV; the graph's edges with calls; its edges without (not calls)
    local traced edges zero
    traced=$(awk -F '\t' 'NR > 1 { sub(/\+0x[0-9a-f]+$/, "", $8); sub(/\+0x[0-9a-f]+$/, "", $12)
                                   n[$8 " " $12]++ } END { for (k in n) print k, n[k] }' \
             "$d/calls.tsv" | sort)
    # (qsort's calls of its comparator, main's and the constructor's: the
    # tracer's entries, no call TSV rows: a PIE's C library is a shared
    # one)
    edges=$(awk -F '\t' 'NR > 1 && $5 > 0 && !($1 == "qsort" && $3 == "compare") &&
                         !($1 == "(root)" && ($3 == "main" || $3 == "setup")) { print $1, $3, $5 }' \
            "$d/graph.tsv" | sort)
    zero=$(awk -F '\t' 'NR > 1 && $5 == 0 { print $1 ">" $3 }' "$d/graph.tsv" | sort | tr '\n' ' ')
    local entries
    entries=$(awk -F '\t' '$1 == "qsort" && $3 == "compare" { print $5 }' "$d/graph.tsv")
    # (where tail jumps are traced they are calls)
    local want="after_libc>worker chain1>worker jumper>worker "
    [ -n "$(jump_arches)" ] && want=""
    check "$name: the graph's edges are the calls TSV's, main's and the constructor's, and qsort's $entries calls of its comparator; the others the tail calls where jumps are not traced ($zero)" \
        eval '[ ! -s "$d/pp.err" ] && [ -n "$traced" ] && [ "$traced" = "$edges" ] &&
              [ "${entries:-0}" -gt 0 ] && [ "$zero" = "$want" ]'
}

stacks_fork() {
    local d=$WORK/stacks/$ARCH/fork name=$ARCH/stacks/fork pp=$BIN/litifut-postproc
    build_prog "$name" "$d" forkstack.c || return
    run_target "$d/run" "$d/prog"
    local parent="" child="" t
    for t in "$d"/run/litifut.*.trace; do
        if "$pp" --format=tsv "$t" | awk -F '\t' '$12 == "fork+0x0" { found = 1 } END { exit !found }'; then parent=$t; else child=$t; fi
    done
    if [ "$(cat "$d/run/rc")" != 0 ] || [ -z "$parent" ] || [ -z "$child" ]; then
        fail "$name: the run did not leave a parent's and a child's trace (see $d/run)"
        return
    fi
    local ppid cpid ptid seq point header
    ppid=$("$pp" --info "$parent" | sed -n 's/^pid=//p')
    cpid=$("$pp" --info "$child" | sed -n 's/^pid=//p')
    read -r ptid seq < <("$pp" --format=tsv "$parent" | awk -F '\t' '$12 == "fork+0x0" { print $2, $3; exit }')
    point=$(stacks_fork_point "$parent" "$ptid" "$seq")
    header=$(stacks_header "$child")
    local chunk end next hpid htid hchunk hwords how
    read -r chunk end next <<< "$point"
    read -r hpid htid hchunk hwords <<< "$header"
    if [ "$hpid" = 0 ]; then            # (the tracer does not write it yet)
        stacks_header "$child" "$ppid" "$ptid" "$chunk" "$end"
        how="written into the child's header"
    else
        how="the tracer's"
        check "$name: the child's header names the fork point the parent's trace has (pid $ppid thread $ptid chunk $chunk, words $end..$next: $header)" \
            eval '[ "$hpid" = "$ppid" ] && [ "$htid" = "$ptid" ] && [ "$hchunk" = "$chunk" ] &&
                  [ "$hwords" -ge "$end" ] && [ "$hwords" -le "$next" ]'
    fi
    "$pp" "$d/run" > "$d/log" 2> "$d/log.err"
    "$pp" --graph --format=tsv --pid="$cpid" "$d/run" > "$d/graph.tsv" 2> "$d/graph.err"
    "$pp" --pid="$cpid" "$d/run" > "$d/pid.log" 2> "$d/pid.err"
    local stack="main > run > spawn > fork (libc.so.6)" zero
    zero=$(awk -F '\t' 'NR > 1 && $5 == 0 { print $1 ">" $3 }' "$d/graph.tsv" | sort | tr '\n' ' ')
    check "$name: the child starts with the parent's frames at the fork ($how), closed by its later calls" \
        eval '[ ! -s "$d/log.err" ] && [ ! -s "$d/graph.err" ] &&
              grep -qx "# forked from process $ppid at [0-9]*\.[0-9]* s of its trace; inherited stack: $stack" "$d/log" &&
              ! awk -v c="$cpid" "/\(untraced\) ->/ && (\$2 == c || \$3 == c) { bad = 1 } END { exit !bad }" "$d/log" &&
              [ "$zero" = "(root)>main main>run run>spawn spawn>fork " ] &&
              grep -q "^run	.*	after_spawn	.*	1	" "$d/graph.tsv" &&
              grep -q "^main	.*	finish	.*	1	" "$d/graph.tsv" &&
              grep -q "^spawn	.*	child_work	.*	1	" "$d/graph.tsv"'
    check "$name: --pid=CHILD still reads the parent's trace for the stack" \
        eval '[ ! -s "$d/pid.err" ] && grep -q "inherited stack: $stack\$" "$d/pid.log" &&
              [ "$(grep -c "^# forked from" "$d/pid.log")" = 1 ]'
    mkdir -p "$d/alone"
    cp "$child" "${child%.trace}.maps" "$d/alone/"
    "$pp" "$d/alone" > "$d/alone.log" 2> "$d/alone.err"
    check "$name: without the parent's trace, the log says the stack at the fork is unknown" \
        eval '[ ! -s "$d/alone.err" ] &&
              grep -qx "# forked from process $ppid; the stack at the fork is unknown (no trace of process $ppid here)" "$d/alone.log"'
    # a fork point that cannot be right (one warning), or that the
    # parent's trace does not have: the stack is unknown, and said why
    local bad=$d/bad c
    rm -rf "$bad"
    mkdir -p "$bad/words" "$bad/chunk"
    cp "$d"/run/litifut.* "$bad/words/"
    cp "$d"/run/litifut.* "$bad/chunk/"
    c=$bad/words/${child##*/}
    stacks_header "$c" "$ppid" "$ptid" "$chunk" 4294967295
    "$pp" "$bad/words" > "$bad/words.log" 2> "$bad/words.err"
    c=$bad/chunk/${child##*/}
    stacks_header "$c" "$ppid" "$ptid" 4000 "$end"
    "$pp" "$bad/chunk" > "$bad/chunk.log" 2> "$bad/chunk.err"
    check "$name: a fork point outside a chunk is one warning, one the parent has not is said in the log" \
        eval '[ "$(wc -l < "$bad/words.err")" = 1 ] && grep -q "warning: .*fork point outside a chunk" "$bad/words.err" &&
              grep -qx "# forked from process $ppid; the stack at the fork is unknown (its header.s fork point cannot be right)" "$bad/words.log" &&
              [ ! -s "$bad/chunk.err" ] &&
              grep -qx "# forked from process $ppid; the stack at the fork is unknown (process $ppid.s trace has no records of thread $ptid at its fork point (chunk 4000))" "$bad/chunk.log"'
}
