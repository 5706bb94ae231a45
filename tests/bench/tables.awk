# tables.awk: one architecture's table of `make bench` from its TSV
# (tests/bench.sh writes it; columns named in its first line, read by
# name here): six blocks, the Targets first, one row per program and
# build in each (the Targets: one per configuration), at most 96
# columns.
BEGIN { FS = "\t" }
/^#/ {
    sub(/^# */, "")
    for (i = 1; i <= NF; i++)
        col[$i] = i
    next
}
{
    n++
    for (c in col)
        v[n, c] = $(col[c])
}
function val(i, c) { return v[i, c] }
function ratio(c, i) { return sprintf("%.2fx", val(i, c) / val(i, "insns_plain")) }
# extra guest instructions per traced call of run c (insns_RUN)
function percall(c, i) { return sprintf("%.1f", (val(i, c) - val(i, "insns_plain")) / val(i, "calls")) }
# extra system calls per traced call of run r
function syspercall(r, i) {
    return sprintf("%.3f", (val(i, "sys_" r) - val(i, "sys_plain")) / val(i, "calls"))
}
function bytes(c, i) { return sprintf("%.2f", val(i, c) / val(i, "calls")) }
# the kind of a trace's clock (--info clock=): its first word, marks,
# monotonic or counter (the counter row names the processor's)
function clock_kind(name) { sub(/ .*/, "", name); return name }
END {
    f0 = "%-9s %-6s %-47s %9s %9s %8s\n"
    printf "%-9s %-6s %s\n", "Targets:", "", "per traced call, with its return"
    printf f0, "program", "build", "configuration", "extra", "system", "trace"
    printf f0, "", "", "", "insns", "calls", "B/call"
    for (i = 1; i <= n; i++) {
        printf f0, val(i, "program"), val(i, "build"), \
            "litifut default (returns, clock " clock_kind(val(i, "clock_default")) ")", \
            percall("insns_default", i), syspercall("default", i), bytes("record_bytes_default", i)
        if (val(i, "insns_counter") != "")
            printf f0, "", "", "litifut default, clock " val(i, "clock_counter"), \
                percall("insns_counter", i), syspercall("counter", i), \
                bytes("record_bytes_counter", i)
        printf f0, "", "", "litifut calls only (clock marks)", \
            percall("insns_on", i), syspercall("on", i), bytes("record_bytes", i)
        printf f0, "", "", "litifut off (LITIFUT_TRACE=0)", \
            percall("insns_off", i), syspercall("off", i), "0.00"
        printf f0, "", "", "-finstrument-functions, timed ring", \
            percall("insns_timed", i), syspercall("timed", i), bytes("ring_bytes_timed", i)
        printf f0, "", "", "-finstrument-functions, minimal ring", \
            percall("insns_finstr", i), syspercall("finstr", i), bytes("ring_bytes_finstr", i)
        printf f0, "", "", "-pg (mcount)", \
            percall("insns_pg", i), syspercall("pg", i), "-"
    }
    print ""
    f1 = "%-9s %-6s %9s   %7s %7s %7s %7s   %7s %7s %7s %7s\n"
    printf "%-9s %-6s %9s   %-31s   %s\n", "", "", "calls", \
        "instructions, ratio to plain", "extra instructions per traced call"
    printf f1, "program", "build", "traced", "on", "off", "finst", "pg", "on", "off", "finst", "pg"
    for (i = 1; i <= n; i++)
        printf f1, val(i, "program"), val(i, "build"), val(i, "calls"), \
            ratio("insns_on", i), ratio("insns_off", i), ratio("insns_finstr", i), \
            ratio("insns_pg", i), percall("insns_on", i), percall("insns_off", i), \
            percall("insns_finstr", i), percall("insns_pg", i)
    print ""
    f2 = "%-9s %-6s %13s %13s %13s %13s %13s\n"
    printf "%-9s %-6s %s\n", "", "", "  guest instructions of one run"
    printf f2, "program", "build", "plain", "on", "off", "finst", "pg"
    for (i = 1; i <= n; i++)
        printf f2, val(i, "program"), val(i, "build"), val(i, "insns_plain"), val(i, "insns_on"), \
            val(i, "insns_off"), val(i, "insns_finstr"), val(i, "insns_pg")
    print ""
    f3 = "%-9s %-6s %8s %8s %8s %8s %9s %9s\n"
    printf f3, "", "", "trace", "", "DB", "added", "link s", "link s"
    printf f3, "program", "build", "B/call", "sites", "B/site", "B/site", "plain", "litifut"
    for (i = 1; i <= n; i++)
        printf f3, val(i, "program"), val(i, "build"), bytes("record_bytes", i), \
            val(i, "sites"), sprintf("%.2f", val(i, "db_bytes") / val(i, "sites")), \
            sprintf("%.1f", val(i, "added_bytes") / val(i, "sites")), \
            val(i, "link_plain_s"), val(i, "link_litifut_s")
    print ""
    f4 = "%-9s %-6s %11s %9s %8s   %11s %9s %8s\n"
    printf "%-9s %-6s %s\n", "", "", "  with a time per call (monotonic)   and exact returns too"
    printf f4, "program", "build", "extra/call", "sys/call", "B/call", "extra/call", "sys/call", \
        "B/call"
    for (i = 1; i <= n; i++)
        printf f4, val(i, "program"), val(i, "build"), percall("insns_clock", i), \
            syspercall("clock", i), bytes("record_bytes_clock", i), \
            percall("insns_returns", i), syspercall("returns", i), bytes("record_bytes_returns", i)
    print ""
    f5 = "%-9s %-6s %12s %12s   %12s %8s %12s   %10s\n"
    printf "%-9s %-6s %s\n", "", "", "LITIFUT_MODE=count          LITIFUT_MODE=dedup                    paused"
    printf f5, "program", "build", "extra/call", "trace B", "extra/call", "pairs", "trace B", \
        "extra/call"
    for (i = 1; i <= n; i++)
        printf f5, val(i, "program"), val(i, "build"), percall("insns_count", i), \
            val(i, "record_bytes_count"), percall("insns_dedup", i), val(i, "pairs"), \
            val(i, "record_bytes_dedup"), percall("insns_paused", i)
}
