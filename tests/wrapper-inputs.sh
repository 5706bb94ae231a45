# Whatever ld takes as an input the wrapper takes too: ld decides what
# a file is by its contents, not its name, and so must the wrapper (it
# reads only ELF relocatable objects, to choose the architecture and
# the tracer module).  BusyBox makes its empty built-in.o files with
# `ar rcs`; thin archives (`ar rcsT`), linker scripts (libc.so is one;
# here also one named *.o) and response files are as ordinary.  The
# archives' members are instrumented like any object, and the crt
# objects are still left alone.

# inputs_case ARCH: one program made of all of these, linked plainly and
# instrumented (traced and compared with the oracle), and one linked
# from an archive alone.
inputs_case() {
    set_arch "$1"
    local d=$WORK/inputs/$ARCH name=$1/inputs
    rm -rf "$d"
    mkdir -p "$d/sub"
    cat > "$d/main.c" << 'EOF'
#include <stdio.h>
int thin_member(int);
int main(void) { printf("%d\n", thin_member(1)); return 0; }
EOF
    # each calls the next one, not as a tail call: every member has a call site
    echo 'int named_o_member(int); int thin_member(int x) { return named_o_member(x) + 1; }' \
        > "$d/sub/thin.c"
    echo 'int script_member(int); int named_o_member(int x) { return script_member(x) * 3 + 1; }' \
        > "$d/named.c"
    echo 'int extra_member(int); int script_member(int x) { return extra_member(x) * 5 + 1; }' \
        > "$d/script-input.c"
    echo 'int extra_member(int x) { return x + 40; }' > "$d/extra.c"
    local f
    for f in main sub/thin named script-input extra; do
        "$TCC" -O1 -c -o "$d/$f.o" "$d/$f.c"
    done
    (cd "$d" &&
     "$TRIPLE-ar" rcs empty.o &&                        # BusyBox's empty built-in.o
     printf '!<thin>\n' > empty-thin.a &&               # an empty thin archive
     "$TRIPLE-ar" rcsT thin.a sub/thin.o &&             # members named by path
     "$TRIPLE-ar" rcs lib-named.o named.o &&            # an archive named .o
     "$TRIPLE-ar" rcs extra.a extra.o &&
     echo 'INPUT(script-input.o)' > script.o &&         # a linker script named .o
     echo '/* GNU ld script */ GROUP ( extra.a )' > libextra.so &&
     printf '%s\n' thin.a lib-named.o script.o empty-thin.a libextra.so > inputs.rsp &&
     "$TRIPLE-ar" rcs lib-all.o main.o sub/thin.o named.o script-input.o extra.o)
    # (BusyBox's order: an empty archive named .o after an object)
    local inputs=(main.o empty.o @inputs.rsp)
    (cd "$d" && "$TCC" -o plain "${inputs[@]}")
    if ! (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" -o prog "${inputs[@]}") \
         2> "$d/link.err"; then
        fail "$name: a link with empty, thin and .o-named archives, linker scripts and @file fails:" \
             "$(head -c 300 "$d/link.err")"
    else
        check "$name: empty, thin and .o-named archives, linker scripts, @file: linked silently" \
            test ! -s "$d/link.err"
        check_traced "$name/traced" "$d/plain" "$d/prog"
        # the tracer module (ARM: float ABI, ARMv6K variant) is chosen by
        # the ELF objects, also when a file named .o that is none comes first
        (cd "$d" && LITIFUT=1 LITIFUT_KEEP=1 "$TCC" -B"$BIN/" -o archive-first empty.o main.o \
             @inputs.rsp)
        local tracer
        tracer=$(grep -m1 '/tracer[^/]*\.o$' "$d/prog.litifut/pass1.args")
        check "$name: an archive named .o first: the same tracer module (${tracer##*/litifut/})" \
            eval '[ -n "$tracer" ] && grep -qxF "$tracer" "$d/archive-first.litifut/pass1.args"'
        # the archives' members and the script's input are rewritten
        local caller callee tsv=$WORK/runs/$name/traced/trace.tsv missing=
        for caller in main:thin_member thin_member:named_o_member \
                      named_o_member:script_member script_member:extra_member; do
            callee=${caller#*:}
            caller=${caller%:*}
            awk -F'\t' -v s="$caller+" -v t="$callee+0x0" \
                'index($8, s) == 1 && $12 == t { found = 1 } END { exit !found }' "$tsv" ||
                missing+=" $caller->$callee"
        done
        check "$name: the members' calls are traced${missing:+ (not:$missing)}" test -z "$missing"
        # no call site inside a crt object's code (its input sections in the link map)
        local lo size obj site ranges=0 bad=
        while read -r lo size obj; do
            ranges=$((ranges + 1))
            for site in $(tail -n +2 "$d/prog.litifut/sites.tsv" | cut -f1); do
                ((site >= lo && site < lo + size)) && bad+=" $site (${obj##*/})"
            done
        done < <(awk '$1 ~ /^\.(text|init|fini)/ && $2 ~ /^0x/ && $3 ~ /^0x/ &&
                      $4 ~ /(^|\/)(crt[^\/]*|[A-Za-z]*crt1)\.o$/ { print $2, $3, $4 }' \
                     "$d/prog.litifut/pass1.map")
        check "$name: no call site in the crt objects' code ($ranges sections)${bad:+; sites at:$bad}" \
            eval '[ "$ranges" -gt 0 ] && [ -z "$bad" ]'
    fi

    # a program whose every object is in an archive named .o: none to
    # look at but the crt objects
    if (cd "$d" && LITIFUT=1 "$TCC" -B"$BIN/" -o "$d/from-archive" lib-all.o) 2> "$d/archive.err"; then
        check "$name: a program linked from an archive named .o alone is instrumented" \
            eval '[ ! -s "$d/archive.err" ] && "$TRIPLE-nm" "$d/from-archive" | grep -q " litifut_sled$"'
    else
        fail "$name: a program linked from an archive named .o alone: $(head -c 300 "$d/archive.err")"
    fi
}

test_inputs() {
    local arch
    for arch in $ARCHES; do
        echo "$arch"
    done | parallel inputs_case
}
