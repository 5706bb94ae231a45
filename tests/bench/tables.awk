# tables.awk: one architecture's table of `make bench` from its TSV
# (tests/bench.sh writes it; columns named in its first line): five
# blocks, one row per program and build in each, at most 96 columns.
BEGIN { FS = "\t" }
/^#/ { next }
{
    n++
    prog[n] = $2; build[n] = $3; calls[n] = $4
    plain[n] = $5; on[n] = $6; off[n] = $7; fin[n] = $8; pg[n] = $9
    rbytes[n] = $10; sites[n] = $11; dbbytes[n] = $12; added[n] = $13
    lplain[n] = $14; llit[n] = $15
    clk[n] = $16; ret[n] = $17; rbclk[n] = $18; rbret[n] = $19
    cnt[n] = $20; ddp[n] = $21; rbcnt[n] = $22; rbddp[n] = $23; pairs[n] = $24
    paused[n] = $25
}
function ratio(x, i) { return sprintf("%.2fx", x / plain[i]) }
function percall(x, i) { return sprintf("%.1f", (x - plain[i]) / calls[i]) }
END {
    f1 = "%-9s %-6s %9s   %7s %7s %7s %7s   %7s %7s %7s %7s\n"
    printf "%-9s %-6s %9s   %-31s   %s\n", "", "", "calls", \
        "instructions, ratio to plain", "extra instructions per traced call"
    printf f1, "program", "build", "traced", "on", "off", "finst", "pg", "on", "off", "finst", "pg"
    for (i = 1; i <= n; i++)
        printf f1, prog[i], build[i], calls[i], \
            ratio(on[i], i), ratio(off[i], i), ratio(fin[i], i), ratio(pg[i], i), \
            percall(on[i], i), percall(off[i], i), percall(fin[i], i), percall(pg[i], i)
    print ""
    f2 = "%-9s %-6s %13s %13s %13s %13s %13s\n"
    printf "%-9s %-6s %s\n", "", "", "  guest instructions of one run"
    printf f2, "program", "build", "plain", "on", "off", "finst", "pg"
    for (i = 1; i <= n; i++)
        printf f2, prog[i], build[i], plain[i], on[i], off[i], fin[i], pg[i]
    print ""
    f3 = "%-9s %-6s %8s %8s %8s %8s %9s %9s\n"
    printf f3, "", "", "trace", "", "DB", "added", "link s", "link s"
    printf f3, "program", "build", "B/call", "sites", "B/site", "B/site", "plain", "litifut"
    for (i = 1; i <= n; i++)
        printf f3, prog[i], build[i], sprintf("%.2f", rbytes[i] / calls[i]), sites[i], \
            sprintf("%.2f", dbbytes[i] / sites[i]), sprintf("%.1f", added[i] / sites[i]), \
            lplain[i], llit[i]
    print ""
    f4 = "%-9s %-6s %12s %10s   %12s %10s\n"
    printf "%-9s %-6s %s\n", "", "", "with a time per call (monotonic)    and exact returns too"
    printf f4, "program", "build", "extra/call", "B/call", "extra/call", "B/call"
    for (i = 1; i <= n; i++)
        printf f4, prog[i], build[i], percall(clk[i], i), sprintf("%.2f", rbclk[i] / calls[i]), \
            percall(ret[i], i), sprintf("%.2f", rbret[i] / calls[i])
    print ""
    f5 = "%-9s %-6s %12s %12s   %12s %8s %12s   %10s\n"
    printf "%-9s %-6s %s\n", "", "", "LITIFUT_MODE=count          LITIFUT_MODE=dedup                    paused"
    printf f5, "program", "build", "extra/call", "trace B", "extra/call", "pairs", "trace B", \
        "extra/call"
    for (i = 1; i <= n; i++)
        printf f5, prog[i], build[i], percall(cnt[i], i), rbcnt[i], percall(ddp[i], i), \
            pairs[i], rbddp[i], percall(paused[i], i)
}
