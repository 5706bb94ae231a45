# A whole boot or test suite in one go (issue 40): traces by pattern
# into a tree of directories, read as one; a size cap; callees left out.
#
#   cap     (every arch) LITIFUT_MAX_SIZE: the program runs as untraced,
#           silently; the file stays within the cap; --info and every
#           view say recording stopped there; the calls kept are
#           exactly the first ones of an uncapped run.  LITIFUT_MAX_TOTAL:
#           five processes of one run within it together
#   boot    (each arch folder) tests/progs/boot.c as a miniature boot:
#           init starting a daemon, jobs (fork + exec), one crashing,
#           one killed, one spawned, a fork child, traced into
#           LITIFUT_DIR=tree/%e/%p: each process's directory made, every
#           trace read from the top of the tree once, the process tree
#           (fork, exec, spawn edges) and each job's calls right, the
#           counts of every view adding up, --per-program's tables,
#           Chrome's fork arrows, the
#           HTML report's process chart drawn in Chromium
#   callee  (every arch) LITIFUT_EXCLUDE_CALLEE=leaf,strcmp: the trace
#           is the oracle's at the sites kept, and those left alone are
#           exactly the calls of leaf and strcmp; every view says so.
#           The same set at run time, on the link without it: the same
#           calls, site by site (the sites put back are the ones the
#           link left alone)

tracedirs_cap() {
    set_arch "$1" || return
    local d=$WORK/tracedirs/$ARCH/cap
    build_pair "$d" callheavy.c pie || { fail "$ARCH/tracedirs/cap: cannot build"; return; }
    run_target "$d/plain-run" "$d/plain" 3
    run_target "$d/full" "$d/prog" 3
    LITIFUT_MAX_SIZE=64K run_target "$d/capped" "$d/prog" 3
    local t size ok=1 view
    t=$(ls "$d"/capped/litifut.*.trace 2> /dev/null | head -1)
    [ -n "$t" ] || { fail "$ARCH/tracedirs/cap: no trace"; return; }
    size=$(stat -c %s "$t")
    for view in --profile --graph --summary --format=tsv --format=chrome --format=folded --processes; do
        "$BIN/litifut-postproc" "$view" "$t" > /dev/null 2> "$d/view.err" || ok=0
        [ "$(wc -l < "$d/view.err")" = 1 ] &&
            grep -q "recording stopped for good at .*: the trace file reached LITIFUT_MAX_SIZE (64 KB); nothing after it" \
                "$d/view.err" || ok=0
    done
    # the capped run's calls: the first ones of the full run, in order
    "$BIN/litifut-postproc" --format=tsv "$d/capped" 2> /dev/null | cut -f3,8,12 > "$d/capped.calls"
    "$BIN/litifut-postproc" --format=tsv "$d/full" 2> /dev/null | cut -f3,8,12 > "$d/full.calls"
    local n full
    n=$(wc -l < "$d/capped.calls"); full=$(wc -l < "$d/full.calls")
    check "$ARCH/tracedirs/cap: LITIFUT_MAX_SIZE=64K: runs as untraced, silently; $size bytes of trace; its $((n - 1)) calls the first of the full run's $((full - 1)); said in --info and every view" \
        eval 'same_run "$d/capped" "$d/plain-run" && [ ! -s "$d/capped/err" ] && [ "$ok" = 1 ] &&
              [ "$size" -le 65536 ] && [ "$n" -gt 100 ] && [ "$n" -lt "$full" ] &&
              head -n "$n" "$d/full.calls" | cmp -s - "$d/capped.calls" &&
              "$BIN/litifut-postproc" --info "$t" 2> /dev/null | grep -qx "max_size=64 KB (LITIFUT_MAX_SIZE)" &&
              "$BIN/litifut-postproc" --info "$t" 2> /dev/null |
                  grep -q "^stopped=recording stopped for good at .*: the trace file reached LITIFUT_MAX_SIZE"'
    tracedirs_total "$1"
}

# LITIFUT_MAX_TOTAL: five processes of one run (tree/%p) share 200 KB;
# the ones after the cap leave no trace, silently, and the views say so
tracedirs_total() {
    set_arch "$1" || return
    local d=$WORK/tracedirs/$ARCH/cap i same=1 quiet=1
    rm -rf "$d/total"
    for i in 1 2 3 4 5; do
        (cd "$d" && LITIFUT_DIR="$d/total/%p" LITIFUT_MAX_TOTAL=200K timeout 600 "$QEMU" \
            -L "$SYSROOT" "$d/prog" 3 > "total.out" 2> "total.err"; echo $? > total.rc)
        cmp -s "$d/total.out" "$d/plain-run/out" && cmp -s "$d/total.rc" "$d/plain-run/rc" || same=0
        [ -s "$d/total.err" ] && quiet=0
    done
    local bytes traces warned
    bytes=$(find "$d/total" -name 'litifut.*.trace' -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
    traces=$(find "$d/total" -name 'litifut.*.trace' | wc -l)
    warned=$("$BIN/litifut-postproc" --summary "$d/total" 2>&1 > /dev/null |
             grep -c "litifut.total: the run's traces reached LITIFUT_MAX_TOTAL (0.2 MB); $((5 - traces)) process.* started after it left no trace")
    check "$ARCH/tracedirs/cap: LITIFUT_MAX_TOTAL=200K over five processes: each runs as untraced, silently; $traces traces of $bytes bytes in all; the views say how many left none" \
        eval '[ "$same" = 1 ] && [ "$quiet" = 1 ] && [ "$bytes" -le 204800 ] && [ "$traces" -ge 1 ] &&
              [ "$traces" -lt 5 ] && [ "$warned" = 1 ]'
}

# tracedirs_row TSV PID HOW: the --processes TSV row of the trace of
# PID that began by HOW
tracedirs_row() {
    awk -F'\t' -v pid="$2" -v how="$3" 'NR > 1 && $1 == pid && $3 == how' "$1"
}

tracedirs_boot() {
    set_arch "$1" || return
    local d=$WORK/tracedirs/$ARCH/boot name
    rm -rf "$d" && mkdir -p "$d/bin"
    cached_object "$d/boot.o" "$TCC" -std=gnu11 -O2 -Wall "$ROOT/tests/progs/boot.c" &&
        LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -o "$d/bin/boot-init" "$d/boot.o" &&
        "$TCC" -o "$d/boot-plain" "$d/boot.o" || { fail "$ARCH/tracedirs/boot: cannot build"; return; }
    for name in job svc crash hang; do cp "$d/bin/boot-init" "$d/bin/boot-$name"; done
    (cd "$d" && BOOT_RUNNER=$(command -v "$QEMU") BOOT_SYSROOT=$SYSROOT \
        LITIFUT_DIR="$d/tree/%e/%p" timeout 600 "$QEMU" -L "$SYSROOT" "$d/bin/boot-init" "$d/bin" \
        > out 2> err; echo $? > rc)
    local expected="svc: exit 0
job: exit 0
job: exit 0
job: exit 0
crash: signal 11
hang: signal 9
spawned: exit 0
worker: exit 0"
    if [ "$(cat "$d/rc")" != 0 ] || [ "$(cat "$d/out")" != "$expected" ]; then
        fail "$ARCH/tracedirs/boot: init did not run as expected: $(head -c 300 "$d/out") $(head -c 300 "$d/err")"
        return
    fi
    # 16 traces: init and its 7 fork children (boot-init), the 4 jobs,
    # the daemon and its child, the crash, the hang; each in tree/PROGRAM/PID
    local traces misplaced
    traces=$(find "$d/tree" -name 'litifut.*.trace' | wc -l)
    misplaced=$(find "$d/tree" -name 'litifut.*.trace' |
                awk -F/ '{ n = NF; sub(/^litifut\./, "", $n); sub(/\.trace$/, "", $n)
                           if ($n != $(n - 1) || $(n - 2) !~ /^boot-/) print }' | wc -l)
    check "$ARCH/tracedirs/boot: LITIFUT_DIR=tree/%e/%p: $traces traces, each in its program's and pid's directory, made by the tracer" \
        eval '[ "$traces" = 16 ] && [ "$misplaced" = 0 ] &&
              [ "$(find "$d/tree" -mindepth 1 -maxdepth 1 -type d | wc -l)" = 5 ]'

    local p=$d/procs.tsv
    "$BIN/litifut-postproc" --processes --format=tsv "$d/tree" > "$p" 2> "$d/procs.err"
    local init forks execs spawns roots once
    init=$(awk -F'\t' 'NR > 1 && $3 == "-" && $10 ~ /boot-init$/ { print $1 }' "$p")
    forks=$(awk -F'\t' 'NR > 1 && $3 == "fork"' "$p" | wc -l)
    execs=$(awk -F'\t' 'NR > 1 && $3 == "exec"' "$p" | wc -l)
    spawns=$(awk -F'\t' 'NR > 1 && $3 == "spawn"' "$p" | wc -l)
    roots=$(awk -F'\t' 'NR > 1 && $3 == "-"' "$p" | wc -l)
    once=$(awk -F'\t' 'NR > 1 { print $11 }' "$p" | sort | uniq -d | wc -l)
    local edges_ok=1 pid row job_calls=""
    # every exec'd program's parent is its own pid's boot-init fork child,
    # whose parent is init; the spawned job's parent is init
    for pid in $(awk -F'\t' 'NR > 1 && $3 == "exec" { print $1 }' "$p"); do
        row=$(tracedirs_row "$p" "$pid" fork)
        [ "$(tracedirs_row "$p" "$pid" exec | cut -f4)" = "$pid" ] &&
            [ "$(echo "$row" | cut -f4)" = "$init" ] && [[ $(echo "$row" | cut -f10) == */boot-init ]] ||
            edges_ok=0
    done
    [ "$(awk -F'\t' 'NR > 1 && $3 == "spawn" { print $4 }' "$p")" = "$init" ] || edges_ok=0
    # the daemon's child: a fork of the exec'd boot-svc
    pid=$(awk -F'\t' 'NR > 1 && $3 == "fork" && $10 ~ /boot-svc$/ { print $4 }' "$p")
    [ -n "$pid" ] && [ -n "$(tracedirs_row "$p" "$pid" exec)" ] || edges_ok=0
    # each job's calls of work: its argument (20, 30, 40; 7 spawned)
    for pid in $(awk -F'\t' 'NR > 1 && $10 ~ /boot-job$/ { print $1 }' "$p"); do
        job_calls="$job_calls $("$BIN/litifut-postproc" --summary --format=tsv \
            "$d/tree/boot-job/$pid" 2> /dev/null | awk -F'\t' '$2 == "work" { print $1 }')"
    done
    job_calls=$(echo $job_calls | tr ' ' '\n' | sort -n | tr '\n' ' ')
    check "$ARCH/tracedirs/boot: --processes over the tree: every process once ($((forks + execs + spawns + roots)) rows), $forks forks, $execs execs, $spawns spawned, the edges right; the jobs' work calls $job_calls" \
        eval '[ ! -s "$d/procs.err" ] && [ "$once" = 0 ] && [ "$forks" = 8 ] && [ "$execs" = 6 ] &&
              [ "$spawns" = 1 ] && [ "$roots" = 1 ] && [ "$edges_ok" = 1 ] &&
              [ "$job_calls" = "7 20 30 40 " ]'

    # the counts add up: --processes' calls = --summary's over the tree =
    # the traces' --info calls and entries (main's, from the C library)
    local sum_procs sum_summary sum_info
    sum_procs=$(awk -F'\t' 'NR > 1 { n += $8 } END { print n }' "$p")
    sum_summary=$("$BIN/litifut-postproc" --summary --format=tsv "$d/tree" 2> /dev/null |
                  awk -F'\t' 'NR > 1 { n += $1 } END { print n }')
    sum_info=$("$BIN/litifut-postproc" --info "$d/tree" 2> /dev/null |
               awk -F= '$1 == "calls" || $1 == "entries" { n += $2 } END { print n }')
    check "$ARCH/tracedirs/boot: the views' counts add up over the tree ($sum_procs calls in --processes, $sum_summary in --summary, $sum_info calls and entries in the headers)" \
        eval '[ "$sum_procs" -gt 0 ] && [ "$sum_procs" = "$sum_summary" ] && [ "$sum_summary" = "$sum_info" ]'

    # --per-program: a table per executable, adding up to the whole
    "$BIN/litifut-postproc" --summary --per-program "$d/tree" > "$d/per-program" 2> /dev/null
    local per
    per=$(awk '/^# program / { prog = $3; sub(/:$/, "", prog); sub(/.*\//, "", prog); procs[prog] = $4 }
               /^# all [0-9]* programs$/ { all = 1 }
               $NF == "total" { if (all) whole = $1; else sum += $1 }
               $2 == "work" && prog == "boot-job" && !all { work = $1 }
               END { printf "%s %s %s %s %s", procs["boot-job"], procs["boot-init"], work, sum == whole, whole }' \
          "$d/per-program")
    check "$ARCH/tracedirs/boot: --per-program: boot-job's 4 processes, boot-init's 8, the jobs' 97 work calls in one table, the tables adding up to all ($per)" \
        [ "$per" = "4 8 97 1 $sum_summary" ]

    # globs in the filters: the same calls as the names they match
    local glob exact globbed_ex exact_ex
    glob=$("$BIN/litifut-postproc" --summary --format=tsv --function='wor?' "$d/tree" 2> /dev/null)
    exact=$("$BIN/litifut-postproc" --summary --format=tsv --function=work "$d/tree" 2> /dev/null)
    globbed_ex=$("$BIN/litifut-postproc" --summary --format=tsv --exclude='l[e]a?' "$d/tree" 2> /dev/null)
    exact_ex=$("$BIN/litifut-postproc" --summary --format=tsv --exclude=leaf "$d/tree" 2> /dev/null)
    check "$ARCH/tracedirs/boot: globs in --function and --exclude select what the names they match do ($(echo "$glob" | awk -F'\t' '$2 == "work" { n += $1 } END { print n + 0 }') work calls)" \
        eval '[ -n "$glob" ] && [ "$glob" = "$exact" ] && [ "$globbed_ex" = "$exact_ex" ] &&
              ! echo "$globbed_ex" | grep -q "	leaf	" &&
              echo "$glob" | grep -q "	leaf	" &&
              "$BIN/litifut-postproc" --profile --function="wor*" "$d/tree" 2> /dev/null | head -1 |
                  grep -q "of thread time, .* (.*%) of it in the frames the filters show"'

    # Chrome: every process (pid: 10) named, a fork arrow per traced fork
    # child, an exec mark per exec
    "$BIN/litifut-postproc" --format=chrome -o "$d/boot.json" "$d/tree" 2> "$d/chrome.err"
    local chrome
    chrome=$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
s = [e for e in ev if e["ph"] == "s" and e.get("cat") == "process"]
f = [e for e in ev if e["ph"] == "f" and e.get("cat") == "process"]
names = set(e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name")
execs = [e for e in ev if e["ph"] == "i" and e["name"].startswith("exec ")]
print(len(s), len(f), len(names), len(execs), len(set(e["id"] for e in s) & set(e["id"] for e in f)))
' "$d/boot.json" 2>&1)
    check "$ARCH/tracedirs/boot: Chrome JSON: fork arrows, processes, exec marks, matched ids ($chrome)" \
        [ "$chrome" = "8 8 10 6 8" ]
    # the HTML report's chart, drawn by a browser
    "$BIN/litifut-postproc" --format=html -o "$d/boot.html" "$d/tree" 2> "$d/html.err"
    if command -v chromium > /dev/null; then
        local R=$d
        report_browser --dump-dom "file://$d/boot.html" > "$d/boot.dom" 2> /dev/null
        local bars
        bars=$(grep -o '<g class="proc">' "$d/boot.dom" | wc -l)
        check "$ARCH/tracedirs/boot: the HTML report's process chart in Chromium: $bars process bars" \
            eval '[ "$bars" = 16 ] && grep -q "id=\"procs-sec\" style=\"\"" "$d/boot.dom"'
    else
        pass "$ARCH/tracedirs/boot: the HTML report's chart: skipped (no chromium)"
    fi
}

tracedirs_callee() {
    set_arch "$1" || return
    local d=$WORK/tracedirs/$ARCH/callee
    mkdir -p "$d"
    cached_object "$d/boot.o" "$TCC" -std=gnu11 -O2 -Wall "$ROOT/tests/progs/boot.c" &&
        "$TCC" -o "$d/plain" "$d/boot.o" &&
        LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -o "$d/all" "$d/boot.o" &&
        LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 LITIFUT_EXCLUDE_CALLEE=leaf,strcmp "$TCC" -B"$BIN/" \
            -o "$d/excl" "$d/boot.o" || { fail "$ARCH/tracedirs/callee: cannot build"; return; }
    # (boot-job's role, by argv[0]) the trace is the oracle's at the sites kept
    RUN_NAME=boot-job check_traced "$ARCH/tracedirs/callee/excl" "$d/plain" "$d/excl" 6
    RUN_NAME=boot-job run_target "$d/all-run" "$d/all" 6
    # the sites left alone are exactly the calls of leaf and strcmp: in
    # the trace of a link without the rule, the calls at those sites are
    # the calls of leaf and strcmp, all of them; and the two traces'
    # calls differ by them
    local t=$WORK/runs/$ARCH/tracedirs/callee/excl/trace.tsv
    comm -23 <(tail -n +2 "$d/all.litifut/sites.tsv" | cut -f1 | sort) \
             <(tail -n +2 "$d/excl.litifut/sites.tsv" | cut -f1 | sort) > "$d/removed"
    "$BIN/litifut-postproc" --format=tsv "$d/all-run" 2> /dev/null > "$d/all.tsv"
    local bad n_all n_excl n_callee
    bad=$(awk -F'\t' 'FNR == NR { removed[$1] = 1; next }
                     FNR > 1 { c = $12; sub(/\+0x0$/, "", c)
                               if (($7 in removed) != (c == "leaf" || c == "strcmp")) n++ }
                     END { print n + 0 }' "$d/removed" "$d/all.tsv")
    n_all=$(($(wc -l < "$d/all.tsv") - 1)); n_excl=$(($(wc -l < "$t") - 1))
    n_callee=$(awk -F'\t' 'FNR > 1 && ($12 == "leaf+0x0" || $12 == "strcmp+0x0")' "$d/all.tsv" | wc -l)
    check "$ARCH/tracedirs/callee: LITIFUT_EXCLUDE_CALLEE=leaf,strcmp left out $(wc -l < "$d/removed") sites: exactly the $n_callee calls of leaf and strcmp are missing ($n_all calls without the rule, $n_excl with it); the views say so" \
        eval '[ "$bad" = 0 ] && [ -s "$d/removed" ] && [ "$n_callee" -gt 60 ] &&
              [ $((n_all - n_callee)) = "$n_excl" ] &&
              "$BIN/litifut-postproc" --profile "$WORK/runs/$ARCH/tracedirs/callee/excl/traced" 2>&1 > /dev/null |
                  grep -q "linked with LITIFUT_EXCLUDE_CALLEE=leaf,strcmp: calls of these functions are not traced"'
    # the same at run time, on the link without the rule: its calls are
    # those of the link with it (oracle-checked above), site by site and
    # in order; the program runs as before; --info and every view say so
    LITIFUT_EXCLUDE_CALLEE='le?f,str[c]mp' RUN_NAME=boot-job run_target "$d/rt-run" "$d/all" 6
    "$BIN/litifut-postproc" --format=tsv "$d/rt-run" 2> "$d/rt.err" > "$d/rt.tsv"
    local same_run_out=0 views_say=1 view
    same_run "$d/rt-run" "$WORK/runs/$ARCH/tracedirs/callee/excl/plain" && same_run_out=1
    for view in --profile --graph --summary --format=chrome --processes; do
        "$BIN/litifut-postproc" "$view" "$d/rt-run" 2>&1 > /dev/null |
            grep -qF "LITIFUT_EXCLUDE_CALLEE=le?f,str[c]mp at run time: calls of these functions are not traced ($(wc -l < "$d/removed") call sites put back in 1 object)" ||
            views_say=0
    done
    local n_rt
    n_rt=$(($(wc -l < "$d/rt.tsv") - 1))
    "$BIN/litifut-postproc" --info "$d/rt-run" 2> /dev/null > "$d/rt.info"
    check "$ARCH/tracedirs/callee/run-time: LITIFUT_EXCLUDE_CALLEE='le?f,str[c]mp' set at run time put $(sed -n 's/^callees_skipped=\([0-9]*\) .*/\1/p' "$d/rt.info" 2>/dev/null) sites back: its $n_rt calls are the link-time rule's, site by site; same output; --info and the views say so" \
        eval '[ "$same_run_out" = 1 ] && [ "$views_say" = 1 ] && [ "$n_rt" = "$n_excl" ] &&
              cmp -s <(tail -n +2 "$d/rt.tsv" | cut -f3,7,12) <(tail -n +2 "$t" | cut -f3,7,12) &&
              grep -q "^callees_skipped=$(wc -l < "$d/removed") le?f=[0-9]*,str\[c\]mp=[0-9]* .*/boot-job$" "$d/rt.info"'
    # an object without its call-site table: one line, and its calls traced
    "${TRIPLE}-objcopy" --remove-section=.litifut_callsites "$d/all" "$d/no-table"
    LITIFUT_EXCLUDE_CALLEE=leaf,strcmp RUN_NAME=boot-job run_target "$d/nt-run" "$d/no-table" 6
    local n_nt
    n_nt=$(($("$BIN/litifut-postproc" --format=tsv "$d/nt-run" 2> "$d/nt.err" | wc -l) - 1))
    check "$ARCH/tracedirs/callee/no-table: LITIFUT_EXCLUDE_CALLEE at run time, the object's call-site table removed: one line ($(cat "$d/nt-run/err")), all $n_nt calls traced, the views say why" \
        eval '[ "$(wc -l < "$d/nt-run/err")" = 1 ] &&
              grep -q "^litifut: LITIFUT_EXCLUDE_CALLEE not applied in .*/boot-job: no call-site table (stripped, or linked by an older litifut)$" "$d/nt-run/err" &&
              [ "$n_nt" = "$n_all" ] && same_run "$d/nt-run" "$d/rt-run" &&
              grep -q "LITIFUT_EXCLUDE_CALLEE=leaf,strcmp was not applied in .*/boot-job: the object has no call-site table" "$d/nt.err"'
    # a static program (the C library's own calls of memset too, from
    # its first call on), in a mode that records no calls too: the
    # run-time rule's calls are the link-time rule's
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -static -B"$BIN/" -o "$d/all-static" "$d/boot.o" &&
        LITIFUT=1 LITIFUT_QUIET=1 LITIFUT_EXCLUDE_CALLEE=leaf,strcmp,memset "$TCC" -static -B"$BIN/" \
            -o "$d/excl-static" "$d/boot.o" || { fail "$ARCH/tracedirs/callee/static: cannot build"; return; }
    RUN_NAME=boot-job run_target "$d/st-link" "$d/excl-static" 6
    printf '# what the boot job calls most\nleaf\n\nstrcmp\nmemse[t]\n' > "$d/callees"
    LITIFUT_EXCLUDE_CALLEE=@$d/callees RUN_NAME=boot-job run_target "$d/st-rt" "$d/all-static" 6
    LITIFUT_MODE=count LITIFUT_EXCLUDE_CALLEE=leaf,strcmp,memset RUN_NAME=boot-job \
        run_target "$d/st-count" "$d/all-static" 6
    "$BIN/litifut-postproc" --format=tsv "$d/st-link" 2> /dev/null | tail -n +2 | cut -f3,7,12 > "$d/st-link.calls"
    "$BIN/litifut-postproc" --format=tsv "$d/st-rt" 2> /dev/null | tail -n +2 | cut -f3,7,12 > "$d/st-rt.calls"
    local counted
    counted=$("$BIN/litifut-postproc" --summary "$d/st-count" 2> /dev/null | awk '$2 == "total" { print $1 }')
    check "$ARCH/tracedirs/callee/static: LITIFUT_EXCLUDE_CALLEE=@FILE (leaf, strcmp, memse[t]) at run time in a static program: its $(wc -l < "$d/st-rt.calls") calls are the link-time rule's, site by site (LITIFUT_MODE=count: $counted)" \
        eval '[ -s "$d/st-rt.calls" ] && cmp -s "$d/st-link.calls" "$d/st-rt.calls" &&
              [ "$counted" = "$(wc -l < "$d/st-rt.calls")" ] && same_run "$d/st-rt" "$d/st-link" &&
              ! grep -qw -e leaf -e strcmp "$d/st-rt.calls"'
}

test_tracedirs() {
    each_arch tracedirs_cap
    each_folder tracedirs_boot
    each_arch tracedirs_callee
}
