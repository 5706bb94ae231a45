# AArch64's host side on its own (no tracer module needed): programs
# linked with a stand-in sled (arch/aarch64/sled.h's geometry, nothing
# behind it) and the placeholder DB, rewritten by litifut-rewrite in the
# wrapper's two passes.  Every bl and blr objdump shows outside the PLT
# is a site or one of the calls the scan leaves alone (the summary
# counts them); each site becomes a bl to its entry in the sled's half
# for its kind; no other word changes.  The programs never run.

# a64scan_case NAME WANT-LEFT GCC-ARGS...: WANT-LEFT is the number of
# calls left alone, or "" if unknown (libc.a's)
a64scan_case() {
    local name=$1 want_left=$2; shift 2
    local d=$WORK/a64scan
    scan_link_by_hand aarch64-linux-gnu "$d" "$name" "$@" || return
    local calls sites left
    calls=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$d/$name.p2" |
            awk '/^Disassembly of section/ { plt = $4 ~ /^\.i?plt:$/ }
                 !plt && $2 ~ /^(bl|blr|blraa|blrab|blraaz|blrabz)$/ { n++ }
                 END { print n + 0 }')
    sites=$(($(wc -l < "$d/$name.tsv") - 1))
    local jumps
    jumps=$(grep -c '_jump' "$d/$name.tsv")       # (tail jumps: sites, no calls)
    left=$(grep -oE '(blr x16, x17[^:]*|blr x30|blraa[^:]*|bl to the next[^:]*|TLS descriptor call): [0-9]+' \
               "$d/$name.sum" | awk -F': ' '{ n += $2 } END { print n + 0 }')
    check "aarch64/scan/$name: $((sites - jumps)) call sites ($jumps tail jumps more) and $left calls left alone of objdump's $calls" \
        eval '[ "$sites" -gt 0 ] && [ $((sites - jumps + left)) = "$calls" ] &&
              [ -z "$want_left" -o "$left" = "$want_left" ]'
    # each site: a bl to litifut_sled + 8 (k + 256 half), half 1 for blr;
    # a tail jump the same jump to its thunk (7 words of it not 0)
    local wrong changed
    wrong=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$d/$name.out" |
            awk -v tsv="$d/$name.tsv" '
                BEGIN { while ((getline l < tsv) > 0) { split(l, f, "\t")
                            if (f[1] != "site") { a = f[1]; sub(/^0x0*/, "", a); kind[a] = f[2] } } }
                { a = $1; sub(/:$/, "", a); sub(/^0*/, "", a) }
                $2 ~ /^</ { next }                  # (a function'"'"'s label line)
                a in kind && kind[a] ~ /jump$/ { seen++
                            if ($2 !~ /^b(\.[a-z]+)?$/ || $4 !~ /^<litifut_thunks(\+0x[0-9a-f]+)?>$/) bad++
                            next }
                a in kind { seen++
                            if ($2 != "bl" || $4 !~ /^<litifut_sled(\+0x[0-9a-f]+)?>$/) { bad++; next }
                            off = $4; sub(/^<litifut_sled\+?(0x)?/, "", off); sub(/>$/, "", off)
                            o = 0; for (i = 1; i <= length(off); i++)
                                       o = o * 16 + index("0123456789abcdef", substr(off, i, 1)) - 1
                            if (o % 8 || (o >= 2048) != (kind[a] == "blr") || o >= 4096) bad++ }
                END { print (bad + 0) " " (seen + 0) }')
    changed=$(words_changed aarch64-linux-gnu-readelf "$d/$name.p2" "$d/$name.out")
    check "aarch64/scan/$name: each site a bl to its sled entry (half by kind), each of its $jumps tail jumps to its thunk, no other word changed ($wrong of $sites wrong, $changed words changed)" \
        [ "$wrong" = "0 $sites" -a "$changed" = "$sites" ]
}

test_a64scan() {
    local d=$WORK/a64scan
    mkdir -p "$d"
    if ! command -v aarch64-linux-gnu-gcc > /dev/null; then
        fail "aarch64/scan: no aarch64-linux-gnu-gcc"
        return
    fi
    # the sled: 2 halves of 256 entries of 8 bytes (arch/aarch64/sled.h),
    # and the tail jumps' half
    printf '%s\n' '.text' '.p2align 3' '.global litifut_sled' '.hidden litifut_sled' \
        '.type litifut_sled, %function' 'litifut_sled:' '.rept 512' 'movz x16, #0' 'b 1f' \
        '.endr' '1: br x16' '.size litifut_sled, . - litifut_sled' \
        '.global litifut_sled_jump' '.hidden litifut_sled_jump' 'litifut_sled_jump:' \
        '.rept 256' 'movz x16, #0' 'b 1b' '.endr' > "$d/sled.S"
    # calls the scan leaves alone: blr x16, blr x30, blraa, a bl that
    # reads its own address; and a bl to the function right after it
    cat > "$d/left.c" <<'EOF'
void left_alone(void (*f)(void))
{
    __asm__ volatile("mov x16, %0\n\tblr x16\n\tmov x30, %0\n\tblr x30\n\t"
                     ".inst 0xd73f0a20\n\t"             /* blraa x17, x0 */
                     "bl 1f\n1:\tmov x0, x30\n\t"
                     "bl 2f\n2:\tstp x29, x30, [sp, #-16]!\n\tldp x29, x30, [sp], #16"
                     : : "r"(f) : "x0", "x16", "x17", "x30", "memory");
}
EOF
    # TLS descriptor calls: a shared library's general-dynamic TLS
    cat > "$d/tlsd.c" <<'EOF'
__thread int tv;
extern __thread int tv2;
int get(int *p) { tv++; return tv + *p + tv2; }
int call(int (*f)(int), int x) { return f(x) + get(&x); }
EOF
    echo '__thread int tv2 = 5;' > "$d/tls2.c"
    if ! aarch64-linux-gnu-gcc -c -o "$d/sled.o" "$d/sled.S" ||
       ! "$BIN/litifut-rewrite" --placeholder aarch64 --db "$d/db0.s" ||
       ! aarch64-linux-gnu-gcc -c -o "$d/db0.o" -x assembler "$d/db0.s"; then
        fail "aarch64/scan: the stand-in sled and the placeholder DB"
        return
    fi
    local src=$ROOT/tests/progs/calls.c
    a64scan_case pie 4 -O2 "$src" "$d/left.c"
    a64scan_case no-pie 4 -O2 -no-pie "$src" "$d/left.c"
    a64scan_case static "" -O2 -static "$src" "$d/left.c"        # libc.a: blr x16 in ld.so's code
    a64scan_case shared 6 -O2 -shared -fPIC "$d/tlsd.c" "$d/tls2.c" "$d/left.c"
    # BTI-marked (-z force-bti; ld warns of the unmarked inputs): a bl to
    # code without a landing pad (a PLT entry, a static function) is a
    # site too (the tracer goes on there with `ret x16`)
    a64scan_case bti "" -O2 -mbranch-protection=standard -Wl,-z,force-bti "$src" "$d/left.c" \
        2> /dev/null

    # the wrapper, with the stand-in sled as the tracer module: the crt
    # objects and the module are left alone (its 64-bit link map read),
    # and litifut-rewrite by hand redoes its rewrite, byte for byte
    # (and the functions the wrapper links through the module, --wrap;
    # the C library's start among them: the constructors are entries)
    local m=$d/modules/aarch64-linux-gnu f
    mkdir -p "$m"
    cp "$d/sled.S" "$d/module.S"
    for f in vfork clone __clone_internal setjmp _setjmp __sigsetjmp sigsetjmp getcontext backtrace __setcontext \
             sigaction signal bsd_signal ssignal sysv_signal __sysv_signal sigset \
             pthread_create qsort qsort_r bsearch lfind lsearch tsearch tfind tdelete twalk pthread_once \
             dl_iterate_phdr __cxa_atexit on_exit __libc_start_main __uClibc_main \
             twalk_r tdestroy ftw nftw ftw64 nftw64 scandir scandir64 thrd_create; do
        printf '%s\n' ".weak __real_$f" ".global __wrap_$f" "__wrap_$f: b __real_$f" >> "$d/module.S"
    done
    aarch64-linux-gnu-gcc -c -fPIC -o "$m/tracer.o" "$d/module.S" && cp "$m/tracer.o" "$m/tracer-shared.o"
    cp "$d/db0.o" "$m/db0.o"
    aarch64-linux-gnu-gcc -O2 -c -o "$d/calls.o" "$src"
    local own
    own=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$d/calls.o" | awk '$2 ~ /^blr?$/ { n++ } END { print n + 0 }')
    if LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 LITIFUT_LIBDIR=$d/modules aarch64-linux-gnu-gcc \
         -B"$BIN/" -o "$d/kept" "$d/calls.o"; then
        check "aarch64/scan/wrapper: the program's $own calls are its call sites (not the crt objects')" \
            [ "$(awk -F '\t' 'NR > 1 && $2 !~ /jump$/' "$d/kept.litifut/sites.tsv" | wc -l)" = "$own" ]
        check "aarch64/scan/wrapper: litifut-rewrite by hand redoes the wrapper's rewrite, byte for byte" \
            eval '"$BIN/litifut-rewrite" -q --entries --map "$d/kept.litifut/pass1.map" --exclude-object "$m/tracer.o" \
                      --expect "$d/kept.litifut/sites.tsv" -o "$d/by-hand" "$d/kept.litifut/unrewritten" &&
                  cmp -s "$d/by-hand" "$d/kept"'
    else
        fail "aarch64/scan/wrapper: the link through litifut-ld"
    fi

    # far code: a call beyond bl's reach of the sled fails the link, in one line
    printf '%s\n' 'int helper(int x);' '__attribute__((section(".far"))) int farfn(int x) { return helper(x) + 5; }' \
        '__attribute__((noinline)) int helper(int x) { return x * 3; }' \
        'int main(int argc, char **argv) { (void)argv; return farfn(argc); }' > "$d/far.c"
    aarch64-linux-gnu-gcc -O2 -no-pie -o "$d/far.p1" "$d/far.c" -Wl,--section-start=.far=0x10000000 \
        "$d/sled.o" "$d/db0.o"
    local rc=0
    "$BIN/litifut-rewrite" -q --db "$d/far.db.s" "$d/far.p1" 2> "$d/far.err" || rc=$?
    check "aarch64/scan: a call out of bl's reach of the sled is refused, in one line naming the program" \
        eval '[ "$rc" = 1 ] && [ "$(wc -l < "$d/far.err")" = 1 ] && grep -q "far.p1: the call at .* out of bl.s reach" "$d/far.err"'
}
