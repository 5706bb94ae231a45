# LITIFUT_EXCLUDE and LITIFUT_ONLY (src/rules.h), on tests/progs/rules:
# main.o and the archive libparts.a (a.o, b.o).  The sites a rule
# removes are computed here without the link map: from the functions
# each object defines (nm of the object) and their ranges in the
# program (nm -S of the program); the sites.tsv of a link with the
# rules must be exactly those of a link without them minus these, the
# summary line must count them per rule, a rule that names nothing
# must be a warning, and the traced run must equal the oracle at the
# sites that are left.  Also: a whole library excluded is a plain link,
# byte for byte; rules from a file (@FILE); an unreadable rules file
# fails the link with one line.

# rules_functions OBJECT...: the functions the objects define
rules_functions() {
    "$TRIPLE-nm" --defined-only "$@" | awk '$2 ~ /^[tT]$/ && $3 !~ /^\$/ { print $3 }'
}

# rules_sites_in PROG FUNCTION...: PROG's sites (sites.tsv addresses)
# inside the functions named (their nm -S ranges; Thumb bit dropped)
rules_sites_in() {
    local prog=$1; shift
    "$TRIPLE-nm" -S --defined-only "$prog" |
    awk -v names="$*" '
        function hex(s,   i, v) {   # (mawk has no strtonum)
            sub(/^0x/, "", s); v = 0
            for (i = 1; i <= length(s); i++)
                v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
            return v
        }
        BEGIN { n = split(names, v, " "); for (i = 1; i <= n; i++) want[v[i]] = 1 }
        FNR == NR { if (NF == 4 && ($4 in want)) {
                        a = hex($1); a -= a % 2
                        lo[++k] = a; hi[k] = a + hex($2) }
                    next }
        FNR > 1 { s = hex($1)
                  for (i = 1; i <= k; i++) if (s >= lo[i] && s < hi[i]) { print $1; break } }
    ' - "$prog.litifut/sites.tsv" | sort
}

rules_all_sites() { tail -n +2 "$1.litifut/sites.tsv" | cut -f1 | sort; }

# rules_link DIR NAME VAR=VALUE...: links DIR/NAME with LITIFUT=1, the
# settings given, the summary line and warnings into DIR/NAME.log
rules_link() {
    local d=$1 name=$2; shift 2
    (cd "$d" && env "$@" LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_LOG="$d/$name.log" \
        "$TCC" -B"$BIN/" -o "$name" main.o libparts.a 2> "$name.err")
}

# rules_expect NAME DIR PROG KEPT_FILE COUNTS: PROG's sites equal
# KEPT_FILE's; its summary line ends with COUNTS
rules_expect() {
    local name=$1 d=$2 prog=$3 kept=$4 counts=$5
    if ! rules_all_sites "$d/$prog" | cmp -s - "$kept"; then
        fail "$name: sites differ from those expected: $(rules_all_sites "$d/$prog" |
              diff - "$kept" | head -c 400)"
    elif ! grep -qF -- "$counts" "$d/$prog.log"; then
        fail "$name: the summary line does not say '$counts': $(head -c 600 "$d/$prog.log")"
    else
        pass "$name: $(wc -l < "$kept") sites kept, as computed from the objects' functions; $counts"
    fi
}

rules_case() {      # rules_case ARCH
    set_arch "$1" || return
    local d=$WORK/rules/$ARCH src=$ROOT/tests/progs/rules
    mkdir -p "$d"
    for f in main a b; do
        # -g: the link map places each object's .debug_* sections at address 0 too
        "$TCC" -O2 -g -c -o "$d/$f.o" "$src/$f.c" || { fail "$ARCH/rules: cannot compile $f.c"; return; }
        "$TCC" -O2 -fPIC -c -o "$d/$f.pic.o" "$src/$f.c" || { fail "$ARCH/rules: cannot compile"; return; }
    done
    rm -f "$d/libparts.a"
    "$TRIPLE-ar" rcs "$d/libparts.a" "$d/a.o" "$d/b.o"
    (cd "$d" && "$TCC" -o plain main.o libparts.a) &&
        rules_link "$d" all || { fail "$ARCH/rules: cannot link"; return; }
    local main_fn a_fn b_fn
    main_fn=$(cd "$d" && rules_functions main.o)
    a_fn=$(cd "$d" && rules_functions a.o)
    b_fn=$(cd "$d" && rules_functions b.o)
    # every function's sites, as this test sees them
    local n_twice n_b n_work
    rules_all_sites "$d/all" > "$d/all.sites"
    rules_sites_in "$d/all" main_twice > "$d/twice.sites"
    rules_sites_in "$d/all" $b_fn > "$d/b.sites"
    rules_sites_in "$d/all" a_work > "$d/a_work.sites"
    rules_sites_in "$d/all" $a_fn $b_fn > "$d/parts.sites"
    rules_sites_in "$d/all" $main_fn > "$d/main.sites"
    n_twice=$(wc -l < "$d/twice.sites"); n_b=$(wc -l < "$d/b.sites")
    n_work=$(wc -l < "$d/a_work.sites")
    if [ "$n_twice" = 0 ] || [ "$n_b" = 0 ] || [ "$(wc -l < "$d/main.sites")" = 0 ]; then
        fail "$ARCH/rules: the test program has no sites where it should" \
             "(main_twice $n_twice, b.o $n_b; see $d)"
        return
    fi

    # EXCLUDE: a function, an archive member, and a rule naming nothing
    rules_link "$d" excl LITIFUT_EXCLUDE='main_twice, libparts.a(b.o) nothing_at_all' ||
        { fail "$ARCH/rules/exclude: link failed: $(head -c 300 "$d/excl.err")"; return; }
    sort "$d/twice.sites" "$d/b.sites" | comm -23 "$d/all.sites" - > "$d/excl.expect"
    rules_expect "$ARCH/rules/exclude" "$d" excl "$d/excl.expect" \
        "LITIFUT_EXCLUDE removed $((n_twice + n_b)) (main_twice $n_twice, libparts.a(b.o) $n_b, nothing_at_all 0)"
    check "$ARCH/rules/exclude: one warning, for the rule that names nothing" \
        eval '[ "$(grep -c warning "$d/excl.log")" = 1 ] &&
              grep -q "warning: LITIFUT_EXCLUDE: nothing_at_all names nothing" "$d/excl.log" &&
              [ ! -s "$d/excl.err" ]'
    check_traced "$ARCH/rules/exclude/run" "$d/plain" "$d/excl"
    check "$ARCH/rules/exclude: --info names the rules" \
        grep -qF "site_rules=LITIFUT_EXCLUDE=main_twice,libparts.a(b.o),nothing_at_all" \
        "$WORK/runs/$ARCH/rules/exclude/run/info"

    # the same rules from a file
    printf '# rules\nmain_twice   # a function\nlibparts.a(b.o)\n\nnothing_at_all\n' > "$d/rules.txt"
    rules_link "$d" fromfile LITIFUT_EXCLUDE="@$d/rules.txt" ||
        { fail "$ARCH/rules/file: link failed: $(head -c 300 "$d/fromfile.err")"; return; }
    rules_expect "$ARCH/rules/file" "$d" fromfile "$d/excl.expect" \
        "LITIFUT_EXCLUDE removed $((n_twice + n_b))"

    # ONLY an archive, less one function; ONLY an object
    rules_link "$d" only LITIFUT_ONLY='libparts.a' LITIFUT_EXCLUDE='a_work' ||
        { fail "$ARCH/rules/only: link failed: $(head -c 300 "$d/only.err")"; return; }
    comm -23 "$d/parts.sites" "$d/a_work.sites" > "$d/only.expect"
    rules_expect "$ARCH/rules/only" "$d" only "$d/only.expect" \
        "LITIFUT_ONLY kept $(wc -l < "$d/parts.sites") (libparts.a $(wc -l < "$d/parts.sites")) of $(wc -l < "$d/all.sites"); LITIFUT_EXCLUDE removed $n_work (a_work $n_work)"
    check_traced "$ARCH/rules/only/run" "$d/plain" "$d/only"
    rules_link "$d" onlymain LITIFUT_ONLY='main.o' ||
        { fail "$ARCH/rules/only-object: link failed"; return; }
    rules_expect "$ARCH/rules/only-object" "$d" onlymain "$d/main.sites" \
        "LITIFUT_ONLY kept $(wc -l < "$d/main.sites") (main.o $(wc -l < "$d/main.sites"))"

    # a whole shared library left alone: a plain link, byte for byte
    (cd "$d" && "$TCC" -shared -o plain.so a.pic.o b.pic.o &&
     LITIFUT=1 LITIFUT_LOG="$d/so.log" LITIFUT_EXCLUDE='libparts.so*' \
         "$TCC" -B"$BIN/" -shared -o libparts.so.1 a.pic.o b.pic.o 2> so.err)
    check "$ARCH/rules/library: an excluded library is a plain link, said in the log" \
        eval 'cmp -s "$d/plain.so" "$d/libparts.so.1" && [ ! -s "$d/so.err" ] &&
              grep -q "libparts.so.1: not instrumented (LITIFUT_EXCLUDE: libparts.so\*)" "$d/so.log"'

    # C++: functions named as they read demangled, with or without the
    # parameters; the expected ones found by the same names through c++filt
    (cd "$d" && "$TCXX" -O2 -o plain-cxx "$ROOT/tests/progs/cxx.cc" &&
        LITIFUT=1 LITIFUT_KEEP=1 "$TCXX" -B"$BIN/" -O2 -o allcxx "$ROOT/tests/progs/cxx.cc" &&
        LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_LOG="$d/cxx.log" \
            LITIFUT_EXCLUDE='frame2(int),test_virtual' \
            "$TCXX" -B"$BIN/" -O2 -o cxx "$ROOT/tests/progs/cxx.cc") ||
        { fail "$ARCH/rules/c++: cannot build"; return; }
    local syms
    "$TRIPLE-nm" --defined-only "$d/allcxx" | awk '$2 ~ /^[tT]$/ { print $3 }' > "$d/cxx.syms"
    syms=$(c++filt < "$d/cxx.syms" | paste "$d/cxx.syms" - |
           awk -F '\t' '$2 == "frame2(int)" || $2 == "test_virtual()" { print $1 }')
    rules_sites_in "$d/allcxx" $syms | comm -23 <(rules_all_sites "$d/allcxx") - > "$d/cxx.expect"
    if [ "$(echo $syms | wc -w)" != 2 ]; then
        fail "$ARCH/rules/c++: frame2(int) and test_virtual() not found by c++filt: $syms"
    else
        rules_expect "$ARCH/rules/c++" "$d" cxx "$d/cxx.expect" \
            "LITIFUT_EXCLUDE removed $(($(wc -l < "$d/allcxx.litifut/sites.tsv") - 1 - $(wc -l < "$d/cxx.expect")))"
        NO_TREE=exceptions check_traced "$ARCH/rules/c++/run" "$d/plain-cxx" "$d/cxx"
    fi

    # a rules file that cannot be read: one line naming it, no output
    rm -f "$d/bad"
    (cd "$d" && LITIFUT=1 LITIFUT_EXCLUDE="@$d/no-such-rules" "$TCC" -B"$BIN/" -o bad main.o \
        libparts.a 2> bad.err)
    check "$ARCH/rules/bad-file: the link fails with one line naming the file" \
        eval '[ ! -e "$d/bad" ] && grep -q "no-such-rules: No such file" "$d/bad.err" &&
              [ "$(grep -c litifut "$d/bad.err")" = 1 ]'
}

test_rules() {
    each_folder rules_case
}
