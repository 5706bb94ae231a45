# The HTML report (--format=html) in a real browser: Debian's chromium,
# headless, loads a report of tests/progs/timeshape.c (first arch) and
# runs its script; the page it then holds (--dump-dom) must have the
# profile's rows (as many as --profile --format=tsv has functions), the
# flame graph's boxes (as many as --format=svg draws), a timeline bar
# per frame (as many as --format=chrome has), the callers and callees
# of outer (report.html#fn=outer selects it) as --graph=outer has them,
# and no script error; a screenshot is kept (report.png in the scratch
# directory; the README's is docs/report.png).  With --diff=OTHER, the
# comparison has a row per function as --profile --diff has; a count
# trace's report has --coverage's text.

report_browser() {     # report_browser ARGS...: chromium, headless, as root too
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$R/profile" "$@"
}

# report_many: tests/progs/manycalls.c, more calls than the timeline
# shows, in two processes: the timeline has the frames that start first
# (of both processes: both lanes drawn), outer's and main's bars among
# them, ended at the cut and marked so; a time axis, labels on the wide
# bars, and each bar names its function's row in the profile (a click
# selects it)
report_many() {
    local pp=$BIN/litifut-postproc m=$R/many
    mkdir -p "$m/run"
    if ! LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$m/run/prog" \
         "$ROOT/tests/progs/manycalls.c" 2> "$m/build.err"; then
        fail "$ARCH/report/timeline: cannot build tests/progs/manycalls.c: $(head -c 300 "$m/build.err")"
        return
    fi
    (cd "$m/run" && LITIFUT_DIR=. timeout 120 "$QEMU" -L "$SYSROOT" ./prog > out 2> err)
    "$pp" --format=html -o "$m/report.html" "$m/run" 2> "$m/html.err"
    report_browser --enable-logging=stderr --v=0 --dump-dom "file://$m/report.html" \
        > "$m/dom.html" 2> "$m/browser.log"
    local got
    got=$(python3 - "$m/dom.html" <<'EOF'
import json, re, sys
d = open(sys.argv[1]).read()
names = json.loads(re.search(r'"names":(\[.*?\]),\n"bars"', d, re.S).group(1))
bars = json.loads(re.search(r'"bars":(\[.*?\])\};', d, re.S).group(1))
profile = json.loads(re.search(r'var PROFILE = (\{.*?\});\nvar TIMELINE', d, re.S).group(1))
lanes = sorted({b[0] for b in bars})
outer = [b for b in bars if names[b[1]] == "outer"]
clipped = [b for b in bars if b[6]]
fns = re.findall(r'<g class="bar" data-fn="(-?[0-9]+)"><title>(?:\(entered without a traced call\) )?'
                 r'(.*?) \([^()]*, from [^()]*\)</title>', d)
right = all(int(i) >= 0 and profile["functions"][int(i)][0] == n for i, n in fns)
print(len(re.findall(r'class="bar"', d)), len(lanes), len(outer),
      "outer-clipped" if any(names[b[1]] == "outer" for b in clipped) else "outer-not-clipped",
      "ticks" if 'class="tick"' in d else "no-ticks",
      "labels" if re.search(r'class="label"[^>]*>[^<]+<', d) else "no-labels",
      "fn-rows" if fns and right and len(fns) == len(bars) else "fn-rows-wrong")
EOF
)
    # (bars: 20000, less the frames that start at the cut's time: a
    # counter clock's ticks may be equal, and ties all go)
    check "$ARCH/report/timeline: 30100 calls in two processes: $got (want 20000 bars but ties at the cut, 2 lanes, outer's 2 bars, ended at the cut, an axis, labels, each bar its function's row)" \
        eval '[ "${got%% *}" -le 20000 ] && [ "${got%% *}" -ge 19900 ] &&
              [ "${got#* }" = "2 2 outer-clipped ticks labels fn-rows" ] && [ ! -s "$m/html.err" ] &&
              ! grep -q "Uncaught" "$m/browser.log" && grep -q "id=\"tl-cut\"" "$m/dom.html"'
    # #sort=function: the profile sorted as the column's first click sorts
    # it (A to Z); #fn=fork: a C library's function by its bare name
    report_browser --dump-dom "file://$m/report.html#sort=function" > "$m/sorted.html" 2> /dev/null
    report_browser --dump-dom "file://$m/report.html#fn=fork" > "$m/fork.html" 2> /dev/null
    local names
    names=$(python3 - "$m/sorted.html" <<'EOF'
import re, sys
d = open(sys.argv[1]).read()
body = re.search(r'<table id="profile">.*?<tbody>(.*?)</tbody>', d, re.S).group(1)
names = re.findall(r'<td class="fn">(.*?)</td>', body)
print(", ".join(names) + (" (sorted)" if names and names == sorted(names) else " (not sorted)"))
EOF
)
    check "$ARCH/report/sort: a first sort by function is A to Z ($names); #fn=fork selects fork (libc.so.6)" \
        eval '[[ "$names" == *" (sorted)" ]] && grep -q "id=\"cg-name\">fork (libc.so.6)<" "$m/fork.html"'
}

test_report() {
    set_arch "${ARCHES%% *}"
    R=$WORK/report
    local pp=$BIN/litifut-postproc
    mkdir -p "$R/run"
    if ! command -v chromium > /dev/null; then
        fail "$ARCH/report: no chromium (make deps installs it)"
        return
    fi
    if ! LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$R/run/prog" \
         "$ROOT/tests/progs/timeshape.c" 2> "$R/build.err"; then
        fail "$ARCH/report: cannot build tests/progs/timeshape.c: $(head -c 300 "$R/build.err")"
        return
    fi
    (cd "$R/run" && LITIFUT_DIR=. timeout 120 "$QEMU" -L "$SYSROOT" ./prog > out 2> err)
    "$pp" --binary-dir "$R/run" --format=html -o "$R/report.html" "$R/run" 2> "$R/html.err"
    "$pp" --binary-dir "$R/run" --profile --format=tsv "$R/run" > "$R/prof.tsv"
    "$pp" --binary-dir "$R/run" --format=svg "$R/run" > "$R/flame.svg"
    "$pp" --binary-dir "$R/run" --format=chrome "$R/run" > "$R/chrome.json"
    "$pp" --binary-dir "$R/run" --graph=outer --format=tsv "$R/run" > "$R/graph.tsv"
    check "$ARCH/report: --format=html -o report.html, nothing said" \
        eval '[ -s "$R/report.html" ] && [ ! -s "$R/html.err" ]'
    report_browser --enable-logging=stderr --v=0 --dump-dom "file://$R/report.html#fn=outer" \
        > "$R/dom.html" 2> "$R/browser.log"
    report_browser --screenshot="$R/report.png" --window-size=1280,1500 "file://$R/report.html" \
        > /dev/null 2>&1
    local got want
    got=$(python3 - "$R/dom.html" <<'EOF'
import sys
from html.parser import HTMLParser
counts = {"row": 0, "edge": 0, "fg-f": 0, "bar": 0}
class P(HTMLParser):
    def handle_starttag(self, tag, attrs):
        for c in (dict(attrs).get("class") or "").split():
            if c in counts:
                counts[c] += 1
P().feed(open(sys.argv[1]).read())
print(counts["row"], counts["fg-f"], counts["bar"], counts["edge"])
EOF
)
    # the graph's lines for outer: callers (callee outer) and callees (caller outer)
    want="$(($(wc -l < "$R/prof.tsv") - 1)) $(grep -c 'class="fg-f"' "$R/flame.svg")"
    want="$want $(grep -c '"ph":"B"' "$R/chrome.json")"
    want="$want $(awk -F '\t' 'NR > 1 && ($1 == "outer" || $3 == "outer") { n++ } END { print n + 0 }' "$R/graph.tsv")"
    check "$ARCH/report: in chromium, rows, flame boxes, timeline bars, outer's edges: $got (want $want)" \
        eval '[ "$got" = "$want" ] && ! grep -q "Uncaught" "$R/browser.log"'
    check "$ARCH/report: a screenshot (report.png)" \
        eval '[ "$(stat -c %s "$R/report.png" 2> /dev/null || echo 0)" -gt 20000 ]'
    check "$ARCH/report: no link to a comparison without --diff" \
        eval '! grep -q "href=\"#diff-sec\"" "$R/report.html"'
    report_many
    # a second run, compared with the first (--diff): a row per function
    # of either run, as --profile --diff's TSV
    mkdir -p "$R/run2"
    cp "$R/run/prog" "$R/run2/prog"
    (cd "$R/run2" && LITIFUT_DIR=. timeout 120 "$QEMU" -L "$SYSROOT" ./prog > out 2> err)
    "$pp" --binary-dir "$R/run" --format=html --diff="$R/run" -o "$R/diff.html" "$R/run2" 2> "$R/diff.err"
    "$pp" --binary-dir "$R/run" --profile --format=tsv --diff="$R/run" "$R/run2" > "$R/diff.tsv"
    report_browser --enable-logging=stderr --v=0 --dump-dom "file://$R/diff.html" \
        > "$R/diffdom.html" 2> "$R/diffbrowser.log"
    got=$(grep -o 'class="drow"' "$R/diffdom.html" | wc -l)
    want=$(($(wc -l < "$R/diff.tsv") - 1))
    check "$ARCH/report: --diff=OTHER: the comparison's rows in chromium ($got, want $want), linked" \
        eval '[ "$got" = "$want" ] && [ "$want" -gt 5 ] && [ ! -s "$R/diff.err" ] &&
              ! grep -q "Uncaught" "$R/diffbrowser.log" && grep -q "href=\"#diff-sec\"" "$R/diff.html"'
    # a LITIFUT_MODE=count trace: its pairs in the coverage, as --coverage has them
    mkdir -p "$R/count"
    cp "$R/run/prog" "$R/count/prog"
    (cd "$R/count" && LITIFUT_DIR=. LITIFUT_MODE=count timeout 120 "$QEMU" -L "$SYSROOT" ./prog \
         > out 2> err)
    "$pp" --binary-dir "$R/run" --format=html -o "$R/count.html" "$R/count" 2> "$R/count.err"
    "$pp" --binary-dir "$R/run" --coverage "$R/count" > "$R/count.cov"
    report_browser --dump-dom "file://$R/count.html" > "$R/countdom.html" 2> /dev/null
    python3 - "$R/countdom.html" > "$R/count.shown" <<'EOF'
import html, re, sys
d = open(sys.argv[1]).read()
print(html.unescape(re.search(r'<pre id="coverage">(.*?)</pre>', d, re.S).group(1)), end="")
EOF
    check "$ARCH/report: a count trace's report: its coverage as --coverage's, its pairs said" \
        eval 'cmp -s "$R/count.shown" "$R/count.cov" && [ ! -s "$R/count.err" ] &&
              grep -q "id=\"pairs\"" "$R/countdom.html"'
}
