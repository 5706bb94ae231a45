# The HTML report (--format=html) in a real browser: Debian's chromium,
# headless, loads a report of tests/progs/timeshape.c (first arch) and
# runs its script; the page it then holds (--dump-dom) must have the
# profile's rows (as many as --profile --format=tsv has functions), the
# flame graph's boxes (as many as --format=svg draws), a timeline bar
# per call (as many as --format=tsv has calls), the callers and callees
# of outer (report.html#fn=outer selects it) as --graph=outer has them,
# and no script error; a screenshot is kept (report.png in the scratch
# directory; the README's is docs/report.png).  With --diff=OTHER, the
# comparison has a row per function as --profile --diff has; a count
# trace's report has --coverage's text.

report_browser() {     # report_browser ARGS...: chromium, headless, as root too
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --user-data-dir="$R/profile" "$@"
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
    "$pp" --binary-dir "$R/run" --format=tsv "$R/run" > "$R/calls.tsv"
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
    want="$want $(($(wc -l < "$R/calls.tsv") - 1))"
    want="$want $(awk -F '\t' 'NR > 1 && ($1 == "outer" || $3 == "outer") { n++ } END { print n + 0 }' "$R/graph.tsv")"
    check "$ARCH/report: in chromium, rows, flame boxes, timeline bars, outer's edges: $got (want $want)" \
        eval '[ "$got" = "$want" ] && ! grep -q "Uncaught" "$R/browser.log"'
    check "$ARCH/report: a screenshot (report.png)" \
        eval '[ "$(stat -c %s "$R/report.png" 2> /dev/null || echo 0)" -gt 20000 ]'
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
    check "$ARCH/report: --diff=OTHER: the comparison's rows in chromium ($got, want $want)" \
        eval '[ "$got" = "$want" ] && [ "$want" -gt 5 ] && [ ! -s "$R/diff.err" ] &&
              ! grep -q "Uncaught" "$R/diffbrowser.log"'
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
