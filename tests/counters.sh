# Counters: the processors' counter clock paths, which the qemu-user of
# Debian 12 cannot run (it traps ARM's CNTVCT in AArch32 state and keeps
# MIPS's CP0 Count at 0), run under qemu built from Debian's source with
# tests/qemu/counters.patch (`make qemu-counters`: $COUNTER_QEMU/qemu-arm,
# qemu-mips, and with TEST_FULL=1 qemu-mipsel; ARM's AT_HWCAP then has
# HWCAP_EVTSTRM); AArch64's counter is readable under Debian's own
# qemu-aarch64, which runs its cases; RISC-V's rdtime is not the
# default clock yet (no hot path: tracer-arch.h), so it has none.  With no
# settings the trace's clock must be the counter (ARM CNTVCT, MIPS CC),
# and
#   - owntime: --profile's times agree with the program's own
#     CLOCK_MONOTONIC (tests/owntime.sh: the same check, arm pie, armhf
#     pie and shlib, mips pie and static);
#   - calls.c, threads.c: the calls and returns equal the oracle's
#     (calltrace.so returns=on, under the same qemu), the program's
#     output as the plain build's.

counters_calls() {    # counters_calls ARCH SOURCE
    set_arch "$1"
    # (AArch64's CNTVCT_EL0 is readable under Debian's own qemu-aarch64)
    [ "$ARCH_DIR" = aarch64 ] || QEMU=$COUNTER_QEMU/$QEMU
    local src=$2 base=${2%.*}
    local name=counters/$ARCH/$base d=$WORK/build/counters/$ARCH-$base
    mkdir -p "$d"
    if ! "$TCC" -O2 -pthread -o "$d/plain" "$ROOT/tests/progs/$src" 2> "$d/plain.err" ||
       ! LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$d/prog" \
         "$ROOT/tests/progs/$src" 2> "$d/prog.err" || [ -s "$d/prog.err" ]; then
        fail "$name: build: $(head -c 300 "$d/plain.err" "$d/prog.err")"
        return
    fi
    local r=$WORK/runs/$name
    run_in "$r/plain" "$d/plain" --
    run_in "$r/traced" "$d/prog" --
    run_in "$r/oracle" "$d/prog.litifut/unrewritten" -plugin "$PLUGINS/$ORACLE,returns=on" --
    if ! same_run "$r/plain" "$r/traced" || ! same_run "$r/plain" "$r/oracle"; then
        fail "$name: a run differs from the plain one (exit $(cat "$r/plain/rc"), traced" \
             "$(cat "$r/traced/rc"), oracle $(cat "$r/oracle/rc"): $(head -c 300 "$r/traced/err"))"
        return
    fi
    local cmp info
    if ! cmp=$("$PLUGINS/returns-compare" "$r/traced"/litifut.*.trace \
               "$r/oracle/calls.txt" 2>&1); then
        fail "$name: calls and returns differ from the oracle: $(head -c 600 <<< "$cmp")"
        return
    fi
    info=$("$BIN/litifut-postproc" --info "$r/traced" 2> /dev/null | grep -E "^(clock|returns)=" | paste -sd' ')
    check "$name: no settings ($info): the oracle's calls and returns, the plain output" \
        eval '[[ $info =~ ^clock=counter.*\ returns=exact$ ]]'
}

test_counters() {
    if [ -z "${COUNTER_QEMU:-}" ] || [ ! -x "$COUNTER_QEMU/qemu-arm" ]; then
        fail "counters: no qemu with readable counters (COUNTER_QEMU=${COUNTER_QEMU:-}; make qemu-counters)"
        return
    fi
    {
        echo "arm pie counter"
        echo "armhf pie counter"
        echo "armhf shlib counter"
        echo "mips pie counter"
        echo "mips static counter"
    } | parallel owntime_case
    local arch
    for arch in $ARCHES; do
        case $arch in
        mipsel) [ "${TEST_FULL:-0}" = 1 ] && [ -x "$COUNTER_QEMU/qemu-mipsel" ] || continue ;;
        riscv64) continue ;;        # (its counter is no default yet: every call takes the slow path)
        esac
        echo "$arch calls.c"
        echo "$arch threads.c"
    done | parallel counters_calls
}
