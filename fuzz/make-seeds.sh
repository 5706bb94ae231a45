#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/ with the real tools:
# tests/progs/demo.c is linked instrumented (LITIFUT_KEEP=1, so the
# link map of pass 1 and the unrewritten program are kept) for every
# target triple and run under qemu-user; the programs, link maps and
# traces become the seeds, with host-independent paths.
#
#   make all && fuzz/make-seeds.sh
#
# BIN (the host tools, default build/bin) and OUT (default fuzz/corpus)
# may be set in the environment.  What it writes (about 270 KB):
#   elfdb/<arch>-demo             the instrumented program, debug info
#                                 stripped (.symtab kept)
#   elfdb/arm-demo.unrewritten    pass 2 before rewriting
#   linkmap/<arch>.map            pass 1's GNU ld link map (arm, mips)
#   postproc/<arch>-demo          a post-processor input: trace + maps
#                                 (mips: --format=tsv, the others log)
#   postproc/arm-demo-2threads    the ARM trace with a second thread
#   postproc/arm-demo-nomaps      the ARM trace without a maps file (tsv)
# A post-processor input is a little-endian word (bits 30..0: the
# trace's length, bit 31: --format=tsv), the trace, then the saved maps.  Each trace names its program
# /target/<arch>-demo; fuzz/postproc.c finds it in elfdb/ by file name.
# Traces use 4 KB chunks (LITIFUT_CHUNK_KB=4) to stay small.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${BIN:-$ROOT/build/bin}" && pwd)
OUT=${OUT:-$ROOT/fuzz/corpus}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/litifut-seeds.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT/elfdb" "$OUT/linkmap" "$OUT/postproc"

# field offsets in the trace header, from the format header itself
cat > "$WORK/offsets.c" <<'END'
#include <stddef.h>
#include <stdio.h>
#include "litifut/trace-format.h"
int main(void)
{
    printf("%zu %zu\n", offsetof(struct litifut_trace_header, exe),
           offsetof(struct litifut_trace_header, header_size));
    return 0;
}
END
cc -I"$ROOT/include" -o "$WORK/offsets" "$WORK/offsets.c"
read -r EXE_OFF HSIZE_OFF < <("$WORK/offsets")

# word VALUE ENDIAN: the 4 bytes of a 32-bit word, on stdout
word() {
    local v=$1
    if [ "$2" = big ]; then
        printf "$(printf '\\x%02x' $((v >> 24 & 255)) $((v >> 16 & 255)) $((v >> 8 & 255)) \
                  $((v & 255)))"
    else
        printf "$(printf '\\x%02x' $((v & 255)) $((v >> 8 & 255)) $((v >> 16 & 255)) \
                  $((v >> 24 & 255)))"
    fi
}
# put_word FILE OFFSET VALUE ENDIAN: a 32-bit word, in place
put_word() { word "$3" "$4" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# get_word FILE OFFSET ENDIAN
get_word() { od -An -j "$2" -N4 -tu4 --endian="$3" "$1" | tr -d ' '; }

# postproc_input TRACE MAPS OUT [tsv]: the length-prefixed trace, then the
# maps; bit 31 of the length word asks for --format=tsv
postproc_input() {
    { word $(($(stat -c %s "$1") | (${4:+1} + 0) << 31)) little; cat "$1" "$2"; } > "$3"
}

for triple in arm-linux-gnueabi mips-linux-gnu mipsel-linux-gnu; do
    arch=${triple%%-*}
    case $arch in mips) endian=big ;; *) endian=little ;; esac
    d=$WORK/$arch
    prog=$arch-demo
    mkdir -p "$d"
    (cd "$d" &&
     LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$triple-gcc" -B"$BIN/" -O2 -o "$prog" \
         "$ROOT/tests/progs/demo.c" &&
     LITIFUT_DIR=. LITIFUT_CHUNK_KB=4 "qemu-$arch" -L "/usr/$triple" "./$prog" > /dev/null)

    "$triple-strip" --strip-debug -o "$OUT/elfdb/$prog" "$d/$prog"
    if [ "$arch" = arm ]; then
        "$triple-strip" --strip-debug -o "$OUT/elfdb/$prog.unrewritten" \
            "$d/$prog.litifut/unrewritten"
    fi
    if [ "$arch" != mipsel ]; then
        # host-independent paths: the build's, the link's scratch
        # directory, gcc's temporary files
        sed -e "s|$(dirname "$BIN")/|/litifut/|g" \
            -e 's|/tmp/litifut-[A-Za-z0-9]*/|/tmp/litifut-link/|g' \
            -e 's|/tmp/cc[A-Za-z0-9]*\.\([a-z]*\)|/tmp/demo.\1|g' \
            "$d/$prog.litifut/pass1.map" > "$OUT/linkmap/$arch.map"
    fi

    trace=$(ls "$d"/litifut.*.trace)
    # the program as /target/<arch>-demo, the libraries as /lib/...
    name=/target/$prog
    { printf '%s' "$name"; head -c $((1024 - ${#name})) /dev/zero; } |
        dd of="$trace" bs=1 seek="$EXE_OFF" conv=notrunc status=none
    sed -e "s|$d/|/target/|g" -e "s|/usr/$triple/lib/|/lib/|g" "${trace%.trace}.maps" > "$d/maps"
    postproc_input "$trace" "$d/maps" "$OUT/postproc/$prog" ${endian/little/}

    if [ "$arch" = arm ]; then
        : > "$d/empty"
        postproc_input "$trace" "$d/empty" "$OUT/postproc/$prog-nomaps" tsv
        # a second thread: chunk 0 again, as chunk 1 of the next tid
        hsize=$(get_word "$trace" "$HSIZE_OFF" "$endian")
        tail -c +$((hsize + 1)) "$trace" > "$d/chunk"
        put_word "$d/chunk" 4 $(($(get_word "$d/chunk" 4 "$endian") + 1)) "$endian"
        put_word "$d/chunk" 8 1 "$endian"
        cat "$trace" "$d/chunk" > "$d/2threads.trace"
        postproc_input "$d/2threads.trace" "$d/maps" "$OUT/postproc/$prog-2threads"
    fi
done
du -sh "$OUT"
