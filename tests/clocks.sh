# Clocks: a trace taken with each LITIFUT_CLOCK holds exactly the
# oracle's calls (the time deltas share the record words with the
# sites, and the target cache is keyed another way with a clock per
# event), and the reader takes the clock the header names.
#   monotonic: every architecture (a system call per call);
#   counter:   MIPS reads rdhwr $2, which qemu-user keeps at 0 (forced,
#              it is used all the same); ARM without HWCAP_EVTSTRM says
#              in one line that it uses time marks (qemu-user traps
#              CNTVCT), and does.
# --info says what one reading of the clock cost (clock_read_ns,
# measured as the trace began), but for time marks.
# The settings come from the host environment: the tracer reads
# /proc/self/environ, which qemu-user does not emulate.

clocks_case() {    # clocks_case ARCH SOURCE CLOCK
    set_arch "$1"
    local src=$2 clock=$3
    local base=${src%.*}
    local name=clocks/$ARCH/$base/$clock
    local d=$WORK/build/clocks/$ARCH/$base-$clock
    mkdir -p "$d"
    if ! "$TCC" -O2 -pthread -o "$d/plain" "$ROOT/tests/progs/$src" 2> "$d/plain.err" ||
       ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$d/prog" \
         "$ROOT/tests/progs/$src" 2> "$d/prog.err" || [ -s "$d/prog.err" ]; then
        fail "$name: build: $(head -c 300 "$d/plain.err" "$d/prog.err")"
        return
    fi
    LITIFUT_CLOCK=$clock check_traced "$name" "$d/plain" "$d/prog"
    local r=$WORK/runs/$name want
    case $clock/$ARCH in
    monotonic/*) want=2 ;;
    counter/arm*) want=1 ;;
    counter/mips*) want=4 ;;
    counter/aarch64) want=5 ;;     # (qemu-aarch64 lets user space read CNTVCT_EL0)
    esac
    local got
    got=$(od -An -tu1 -j 40 -N 1 "$r/traced"/litifut.*.trace 2> /dev/null | tr -d ' ')
    check "$name: the header names clock $want (got ${got:-none})" [ "$got" = "$want" ]
    # what a reading of the clock cost, measured at the start (--info):
    # a number for a clock read per event, nothing for time marks
    local cost
    cost=$(sed -n 's/^clock_read_ns=//p' "$r/info")
    if [ "$want" = 1 ]; then
        check "$name: no clock read per event, no cost (clock_read_ns=$cost)" [ -z "$cost" ]
    else
        check "$name: --info gives a clock read's cost (clock_read_ns=$cost)" \
            eval '[ -n "$cost" ] && [ "$cost" -ge 1 ]'
    fi
    case $clock/$ARCH in
    counter/arm*)
        check "$name: says once that it uses time marks" \
            [ "$(grep -c 'LITIFUT_CLOCK=counter: .*using time marks' "$r/traced/err")" = 1 ] ;;
    *)
        check "$name: nothing said on stderr" [ ! -s "$r/traced/err" ] ;;
    esac
}

test_clocks() {
    local arch
    for arch in $ARCHES; do
        echo "$arch calls.c monotonic"
        echo "$arch threads.c monotonic"
        echo "$arch calls.c counter"
    done | parallel clocks_case
}
