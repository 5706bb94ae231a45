# RISC-V's host side on its own: programs linked with a stand-in sled (arch/riscv64/sled.h's
# geometry, nothing behind it) and the placeholder DB, rewritten by
# litifut-rewrite in the wrapper's two passes.  Every call objdump shows
# outside the PLT (jal and jalr through ra or t0, c.jalr) is a site or
# one of the calls the scan leaves alone (the summary counts them);
# each site becomes a jal ra to its entry in the sled's half for its
# kind, or, a c.jalr pair, to its thunk, which goes on to the register
# half; no other byte changes.  The programs never run.

# rvscan_case NAME WANT-LEFT GCC-ARGS...: WANT-LEFT is the number of
# calls left alone, or "" if unknown (libc.a's)
rvscan_case() {
    local name=$1 want_left=$2; shift 2
    local d=$WORK/rvscan
    scan_link_by_hand riscv64-linux-gnu "$d" "$name" "$@" || return
    local calls sites left pairs
    calls=$(riscv64-linux-gnu-objdump -d --no-show-raw-insn "$d/$name.p2" |
            awk '/^Disassembly of section/ { plt = $4 ~ /^\.i?plt:$/ }
                 !plt && ($2 == "jal" || $2 == "jalr") &&
                 ($3 !~ /,/ || $3 ~ /^(ra|t0),/) { n++ }
                 END { print n + 0 }')
    sites=$(($(wc -l < "$d/$name.tsv") - 1))
    pairs=$(grep -c 'c_jalr_pair' "$d/$name.tsv")
    left=$(grep -oE '(c\.jalr after[^:]*|jalr through[^:]*|jal t0[^:]*|jalr t0[^:]*|jalr with an offset|jalr to an absolute address): [0-9]+' \
               "$d/$name.sum" | awk -F': ' '{ n += $2 } END { print n + 0 }')
    check "riscv64/scan/$name: $sites call sites ($pairs c.jalr pairs) and $left calls left alone of objdump's $calls" \
        eval '[ "$sites" -gt 0 ] && [ $((sites + left)) = "$calls" ] &&
              [ -z "$want_left" -o "$left" = "$want_left" ]'
    # each site's redirect: a jal to litifut_sled + 8 (k + 256 half), half
    # 1 or 2 (t1) for jalr; a pair's a jal to its thunk (at the c.jalr - 2
    # or - 4)
    local wrong
    wrong=$(riscv64-linux-gnu-objdump -d --no-show-raw-insn "$d/$name.out" |
            awk -v tsv="$d/$name.tsv" '
                function hex(s,   i, o) { o = 0; s = tolower(s)
                    for (i = 1; i <= length(s); i++) o = o * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                    return o }
                BEGIN { while ((getline l < tsv) > 0) { split(l, f, "\t")
                            if (f[1] == "site") continue
                            a = hex(substr(f[1], 3))
                            if (f[2] == "c_jalr_pair") a -= 2; else if (f[2] == "c_jalr_pair32") a -= 4
                            kind[a] = f[2] } }
                $2 ~ /^</ { next }
                { a = $1; sub(/:$/, "", a); a = hex(a) }
                a in kind { seen++
                            if ($2 != "jal") { bad++; next }
                            if (kind[a] ~ /pair/) { if ($4 !~ /^<litifut_thunks(\+0x[0-9a-f]+)?>$/) bad++; next }
                            if ($4 !~ /^<litifut_sled(\+0x[0-9a-f]+)?>$/) { bad++; next }
                            off = $4; sub(/^<litifut_sled\+?(0x)?/, "", off); sub(/>$/, "", off)
                            o = hex(off)
                            if (o % 8 || (o >= 2048) != (kind[a] == "jalr") || o >= 6144) bad++ }
                END { print (bad + 0) " " (seen + 0) }')
    # (the bytes changed: each site's 4 bytes, nothing else)
    local ranges changed
    ranges=$(riscv64-linux-gnu-readelf -SW "$d/$name.p2" |
             sed -n 's/^ *\[ *[0-9]*\] *[^ ]* *PROGBITS *\([0-9a-f]*\) \([0-9a-f]*\) \([0-9a-f]*\) .* AX .*/\1 \2 \3/p' |
             awk -v tsv="$d/$name.tsv" '
                 function hex(s,   i, o) { o = 0; s = tolower(s); sub(/^0x/, "", s)
                     for (i = 1; i <= length(s); i++) o = o * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
                     return o }
                 { sa[NR] = hex($1); so[NR] = hex($2); sz[NR] = hex($3) }
                 END { while ((getline l < tsv) > 0) { split(l, f, "\t"); if (f[1] == "site") continue
                           a = hex(f[1]); if (f[2] == "c_jalr_pair") a -= 2; else if (f[2] == "c_jalr_pair32") a -= 4
                           for (i in sa) if (a >= sa[i] && a < sa[i] + sz[i]) printf "%d 4 ", a - sa[i] + so[i] } }')
    changed=$(words_changed riscv64-linux-gnu-readelf "$d/$name.p2" "$d/$name.out" "$ranges")
    check "riscv64/scan/$name: each site a jal to its sled entry (half by kind) or its thunk, no other byte changed ($wrong of $sites wrong, $changed words changed besides)" \
        [ "$wrong" = "0 $sites" -a "$changed" = 0 ]
}

test_rvscan() {
    local d=$WORK/rvscan
    mkdir -p "$d"
    if ! command -v riscv64-linux-gnu-gcc > /dev/null; then
        fail "riscv64/scan: no riscv64-linux-gnu-gcc"
        return
    fi
    # the sled: 3 halves of 256 entries of 8 bytes (arch/riscv64/sled.h),
    # uncompressed
    printf '%s\n' '.option norvc' '.text' '.p2align 3' '.global litifut_sled' '.hidden litifut_sled' \
        '.type litifut_sled, %function' 'litifut_sled:' '.rept 768' 'addi t1, zero, 0' 'j 1f' \
        '.endr' '1: jr t1' '.size litifut_sled, . - litifut_sled' > "$d/sled.S"
    # calls the scan leaves alone: through ra, with an offset, millicode
    # (jal t0), a c.jalr after an instruction that reads ra; and a call
    # through t1, a site (the sled's third half)
    cat > "$d/left.c" <<'EOF2'
void left_alone(void (*f)(void))
{
    __asm__ volatile("mv t1, %0\n\tjalr t1\n\tmv ra, %0\n\tjalr ra\n\t"
                     "jalr 8(%0)\n\t"
                     "jal t0, 1f\n1:\t"
                     "mv a0, ra\n\tc.jalr %0\n\t"
                     : : "r"(f) : "a0", "t0", "t1", "ra", "memory");
}
EOF2
    if ! riscv64-linux-gnu-gcc -c -o "$d/sled.o" "$d/sled.S" ||
       ! "$BIN/litifut-rewrite" --placeholder riscv64 --db "$d/db0.s" ||
       ! riscv64-linux-gnu-gcc -c -o "$d/db0.o" -x assembler "$d/db0.s"; then
        fail "riscv64/scan: the stand-in sled and the placeholder DB"
        return
    fi
    local src=$ROOT/tests/progs/calls.c
    rvscan_case pie "" -O2 "$src" "$d/left.c"
    rvscan_case no-pie "" -O2 -no-pie "$src" "$d/left.c"
    rvscan_case static "" -O2 -static "$src" "$d/left.c"
    rvscan_case shared "" -O2 -shared -fPIC "$src" "$d/left.c"
    # unrelaxed calls: auipc + jalr pairs
    rvscan_case no-relax "" -O2 -Wl,--no-relax "$src" "$d/left.c"

    # the tracer's C code touches no floating-point register (GCC has no
    # -mgeneral-regs-only for RISC-V): only litifut_fp_registers reads
    # fa0-fa7 (tracer-arch.h)
    local m fp
    for m in "$ROOT"/build/lib/litifut/riscv64-linux-gnu/tracer*.o; do
        [ -e "$m" ] || continue
        fp=$(riscv64-linux-gnu-objdump -d --no-show-raw-insn "$m" |
             awk '/^[0-9a-f]+ <.*>:$/ { fn = $2 }
                  /^ *[0-9a-f]+:\t/ && $2 ~ /^f/ && $2 !~ /^fence/ && fn != "<litifut_fp_registers>:" { n++; if (!w) w = fn " " $2 }
                  END { print n + 0, w }')
        check "riscv64/scan: ${m##*/} uses no floating-point register but in litifut_fp_registers ($fp)" \
            [ "${fp%% *}" = 0 ]
    done

    # far code: a call beyond jal's reach of the sled fails the link, in one line
    printf '%s\n' 'int helper(int x);' '__attribute__((section(".far"))) int farfn(int x) { return helper(x) + 5; }' \
        '__attribute__((noinline)) int helper(int x) { return x * 3; }' \
        'int main(int argc, char **argv) { (void)argv; return farfn(argc); }' > "$d/far.c"
    riscv64-linux-gnu-gcc -O2 -no-pie -o "$d/far.p1" "$d/far.c" -Wl,--section-start=.far=0x10000000 \
        "$d/sled.o" "$d/db0.o"
    local rc=0
    "$BIN/litifut-rewrite" -q --db "$d/far.db.s" "$d/far.p1" 2> "$d/far.err" || rc=$?
    check "riscv64/scan: a call out of jal's reach of the sled is refused, in one line naming the program" \
        eval '[ "$rc" = 1 ] && [ "$(wc -l < "$d/far.err")" = 1 ] && grep -q "far.p1: the call at .* out of jal.s reach" "$d/far.err"'
}
