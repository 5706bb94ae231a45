# LITIFUT_ARGS: what selected calls are given and give back
# (stub/args.c), on every arch, PIE and static: tests/progs/args.c's
# calls with known arguments and return values.  The traced run must
# still record exactly the oracle's calls and tree (the selected calls
# go through the slow path, every other call as before); the log must
# show each selected call's values (postproc/views/args.c), those of a
# second thread's too, nested return values of a recursion, doubles and
# floats where the ABI passes them in floating-point registers (armhf,
# AArch64, RISC-V; elsewhere fparg is a bad rule); the TSV, Chrome, --graph and
# HTML views show them too; a ring and the stream keep them;
# --auto-args names a C library function's (the built-in table, with
# types: open's flags=O_RDONLY) and the program's own (its DWARF); a bad
# rule or a mode without calls is one line on stderr, the program's
# fate as plain.

ARGS_SPEC='add3@arg1,arg2,arg3,retval;neg@arg1,retval;greet@arg1/s,arg2,retval/s;window@arg1/x8,retval;bad@arg1/s,retval;null_str@arg1/s,retval;longstr@arg1/s,retval;fact@arg1,retval;sum@arg1,arg2,arg3,arg4,retval;worker@arg1,retval;norm1@arg1/x8,retval;open'
ARGS_FP_SPEC='scale@fparg1,fparg2,retval/f;halve@fparg1/f32,retval/f32;mix@arg1,fparg1,retval/f'

# args_fp: 0 if $ARCH passes floating-point arguments in registers of their own
args_fp() {
    case $ARCH in armhf|aarch64|riscv64) return 0 ;; esac
    return 1
}

# args_expect LOG [static]: 0 if the log LOG shows every value it must
# (else the first line missing, on stdout); static: without the second
# thread's (a static libc's open is __libc_open64 too: the rule "open"
# takes it by its alias, and the log names it as the libc does)
args_expect() {
    local a64
    a64=$(printf 'a%.0s' $(seq 64))
    local want=(
        'main -> add3(1, -2, 100000) = 99999'
        'main -> neg(5) = -5'
        'main -> greet("world", 1) = "world"'
        'main -> bad(0x1 (unreadable)) = 1'
        'main -> null_str(NULL) = 0'
        "main -> longstr(\"$a64\"...) {"
        '} /* longstr */ = 100'
        '} /* window */ = 8'
        'main -> fact(5) {'
        'fact -> fact(1) = 1'
        '} /* fact */ = 120'
        'main -> sum(3, 10, 20, 30) = 60'
        'thread_main -> worker(7) = 14'
        'main -> open("/nonexistent/config", 0, '
    )
    args_fp && want+=(
        'main -> scale(2.5, -1e+100) = -2.5e+100'
        'main -> halve(3) = 1.5'
        'main -> mix(3, 0.1) = 0.30000000000000004'
    )
    [ "$ARCH" != armhf ] || want+=('main -> tenth(1, 10) = 55')
    local w
    for w in "${want[@]}"; do
        case ${2:-}:$w in static:*worker*) continue ;; esac
        grep -qF -- "$w" "$1" || { echo "$w"; return 1; }
    done
    grep -qE 'main -> norm1\(0x[0-9a-f]+ \[(03 00 00 00 fc ff ff ff|00 00 00 03 ff ff ff fc)\]\) = 7$' "$1" ||
        { echo 'main -> norm1(0x... [03 00 00 00 fc ff ff ff]) = 7 (a struct by pointer)'; return 1; }
    grep -qE 'main -> window\(0x[0-9a-f]+ \[41 42 43 44 45 46 47 48\]\) \{$' "$1" ||
        { echo 'main -> window(0x... [41 42 43 44 45 46 47 48]) {'; return 1; }
    [ "$(grep -c '} /\* fact \*/ = ' "$1")" = 4 ] || { echo "4 nested fact returns"; return 1; }
}

args_case() {
    set_arch "$1" || return
    local d=$WORK/args/$ARCH link missing spec=$ARGS_SPEC
    args_fp && spec+=";$ARGS_FP_SPEC"
    [ "$ARCH" != armhf ] || spec+=';tenth@fparg1/f32,fparg10/f32,retval/f32'   # (s9: armhf's 16 float registers)
    for link in pie static; do
        build_pair "$d/$link" args.c "$link" || { fail "$ARCH/args/$link: cannot build"; continue; }
        local argv=()
        [ "$link" = static ] && argv=(no-thread)
        LITIFUT_ARGS=$spec check_traced "$ARCH/args/$link" "$d/$link/plain" "$d/$link/prog" \
            "${argv[@]}"
        local r=$WORK/runs/$ARCH/args/$link
        "$BIN/litifut-postproc" "$r/traced" > "$r/log" 2> "$r/log.err"
        if missing=$(args_expect "$r/log" "${argv:+static}") && [ ! -s "$r/log.err" ]; then
            pass "$ARCH/args/$link: the log shows every selected call's arguments and return value (add3(1, -2, 100000) = 99999, strings, a window, a struct by pointer, a bad pointer, NULL, a cut string, varargs, a thread's, a recursion's nested returns$(args_fp && echo ', doubles and floats'))"
        else
            fail "$ARCH/args/$link: the log lacks: $missing $(head -c 300 "$r/log.err") (see $r/log)"
        fi
    done
    local r=$WORK/runs/$ARCH/args/pie
    "$BIN/litifut-postproc" --auto-args "$r/traced" > "$r/auto" 2>&1
    check "$ARCH/args: --auto-args names a C library function's values and shows their types (open(pathname=\"/nonexistent/config\", flags=O_RDONLY, ...))" \
        grep -qF 'main -> open(pathname="/nonexistent/config", flags=O_RDONLY, mode=0' "$r/auto"
    # DWARF: the program built with -g, its own functions' parameters named
    mkdir -p "$d/dwarf"
    if LITIFUT=1 "$TCC" -B"$BIN/" -std=gnu11 -g -O2 -pthread -o "$d/dwarf/prog" "$ROOT/tests/progs/args.c"; then
        LITIFUT_ARGS=$spec run_target "$r/dwarf" "$d/dwarf/prog"
        "$BIN/litifut-postproc" --auto-args "$r/dwarf" > "$r/dwarf.log" 2>&1
        local dw=('main -> add3(a=1, b=-2, c=100000) = 99999' 'main -> greet(who="world", n=1) = "world"'
                  'fact -> fact(n=1) = 1' 'main -> sum(n=3, 10, 20, 30) = 60' 'main -> window(p=0x')
        args_fp && dw+=('main -> scale(x=2.5, y=-1e+100) = -2.5e+100' 'main -> halve(x=3) = 1.5'
                        'main -> mix(n=3, x=0.1) = 0.30000000000000004')
        missing=
        for w in "${dw[@]}"; do grep -qF -- "$w" "$r/dwarf.log" || { missing=$w; break; }; done
        check "$ARCH/args: --auto-args names a program's own functions' values from its DWARF (add3(a=1, b=-2, c=100000)$(args_fp && echo ', mix(n=3, x=0.1)'); varargs unnamed) ${missing:+lacks: $missing}" \
            test -z "$missing"
    else
        fail "$ARCH/args: cannot build with -g"
    fi
    # the other views: TSV columns, Chrome's args, the graph's values, the HTML's edges
    "$BIN/litifut-postproc" --format=tsv "$r/traced" > "$r/tsv" 2>&1
    check "$ARCH/args: the calls TSV has args (add3: 1, -2, 100000; fact's nested 5 to 1, in call order)" \
        eval 'head -1 "$r/tsv" | grep -qP "\tcallee_sym\targs\tparent$" &&
              grep -qP "\tadd3\+0x0\t1, -2, 100000\t[-0-9]+$" "$r/tsv" &&
              [ "$(grep -P "\tfact\+0x0\t" "$r/tsv" | cut -f13 | tr "\n" ,)" = "5,4,3,2,1," ]'
    "$BIN/litifut-postproc" --format=chrome "$r/traced" > "$r/chrome.json" 2>&1
    check "$ARCH/args: Chrome's slices carry args.args and args.retval" \
        python3 -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
b = [e for e in ev if e.get("ph") == "B" and e.get("name") == "add3"]
i = ev.index(b[0])
e = next(x for x in ev[i + 1:] if x.get("ph") == "E" and x.get("tid") == b[0]["tid"])
assert b[0]["args"]["args"] == "1, -2, 100000" and e["args"]["retval"] == "99999", (b, e)' "$r/chrome.json"
    "$BIN/litifut-postproc" --graph "$r/traced" > "$r/graph" 2>&1
    check "$ARCH/args: --graph gives each edge's distinct return values (fact -> fact: 1, 2, 6, 24)" \
        eval 'grep -qE "4/5 +fact \[[0-9]+\]  returned 1 \(1\); 2 \(1\); 24 \(1\); 6 \(1\)$" "$r/graph" &&
              grep -qE "1/5 +fact \[[0-9]+\]  returned 120 \(1\)$" "$r/graph"'
    "$BIN/litifut-postproc" --format=html -o "$r/report.html" "$r/traced" 2>&1
    check "$ARCH/args: the HTML report's call lists have the return values" \
        grep -qF '"1 (1); 2 (1); 24 (1); 6 (1)"' "$r/report.html"
    LITIFUT_MODE=ring LITIFUT_ARGS=$spec run_target "$r/ring" "$d/pie/prog"
    "$BIN/litifut-postproc" "$r/ring" > "$r/ring.log" 2>&1
    check "$ARCH/args: a ring keeps the values (LITIFUT_MODE=ring)" \
        eval 'same_run "$r/traced" "$r/ring" && missing=$(args_expect "$r/ring.log")'
    # the stream: the agent sends the chunks, the received trace reads as the device's
    STREAM_AGENT=$BIN/../lib/litifut/$TRIPLE/litifut-agent
    LITIFUT_ARGS=$spec stream_run "$r/stream" "$d/pie/prog" -- --no-punch
    local dev host
    dev=$(ls "$r/stream/dev"/litifut.*.trace 2> /dev/null | head -1)
    host=$r/stream/host/${dev##*/}
    check "$ARCH/args: the stream carries the values (the received trace's log is the device's, with every value)" \
        eval '[ -n "$dev" ] && [ -s "$host" ] &&
              "$BIN/litifut-postproc" "$dev" > "$r/stream/dev.log" 2>&1 &&
              "$BIN/litifut-postproc" "$host" > "$r/stream/host.log" 2>&1 &&
              cmp -s <(grep -v stream "$r/stream/dev.log") <(grep -v stream "$r/stream/host.log") &&
              missing=$(args_expect "$r/stream/host.log" static)'
    # a rule that does not read, and a mode that records no calls: one
    # line, no trace, the program as plain
    local bad
    local bads=("add3@arg$((9 + 0))" 'add3@retval/x0' 'add3@arg1/q' 'add3@fparg1/s' 'add3@arg1/f'
                'add3@argx' 'add3@fparg' 'add3@fparg9' 'add3@retval/f16')
    args_fp || bads+=('scale@fparg1')
    for bad in "${bads[@]}"; do
        LITIFUT_ARGS=$bad run_target "$r/bad" "$d/pie/prog"
        check "$ARCH/args: LITIFUT_ARGS='$bad' is one line on stderr, no trace, the run as plain" \
            eval 'same_run "$r/traced" "$r/bad" && [ "$(wc -l < "$r/bad/err")" = 1 ] &&
                  grep -q "^litifut: LITIFUT_ARGS: expected" "$r/bad/err" && ! ls "$r/bad"/litifut.* > /dev/null 2>&1'
    done
    LITIFUT_MODE=count LITIFUT_ARGS=add3 run_target "$r/count" "$d/pie/prog"
    check "$ARCH/args: LITIFUT_ARGS with LITIFUT_MODE=count is one line on stderr, the run as plain" \
        eval 'same_run "$r/traced" "$r/count" && [ "$(wc -l < "$r/count/err")" = 1 ] &&
              grep -q "LITIFUT_ARGS: records calls. values in LITIFUT_MODE full or ring only" "$r/count/err"'
    # the program stripped after its run: one line says so, none about
    # the values of the calls it cannot read (last: it spoils the run)
    "$TRIPLE-strip" "$r/traced/prog"
    "$BIN/litifut-postproc" "$r/traced" > /dev/null 2> "$r/stripped.err"
    check "$ARCH/args: a stripped program is one line on stderr (the values of its calls skipped with them)" \
        eval '[ "$(wc -l < "$r/stripped.err")" = 1 ] && grep -q "stripped (no symbol table)" "$r/stripped.err"'
}

test_args() {
    each_arch args_case
}
