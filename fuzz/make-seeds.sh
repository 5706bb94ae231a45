#!/usr/bin/env bash
# Regenerates the seed corpora in fuzz/corpus/ with the real tools:
# tests/progs/demo.c is linked instrumented (LITIFUT_KEEP=1, so the
# link map of pass 1 and the unrewritten program are kept) for every
# target triple, tests/progs/demolib (a program and its library) for
# ARM and MIPS, and run under qemu-user; the programs, link maps and
# traces become the seeds, with host-independent paths.
#
#   make all && fuzz/make-seeds.sh
#
# BIN (the host tools, default build/bin) and OUT (default fuzz/corpus)
# may be set in the environment.  What it writes (about 790 KB):
#   elfdb/<arch>-demo             the instrumented program, debug info
#                                 stripped (.symtab kept)
#   elfdb/arm-demo.unrewritten    pass 2 before rewriting
#   linkmap/<arch>.map            pass 1's GNU ld link map (arm, mips)
#   postproc/<arch>-demo          a post-processor input: trace + maps
#                                 (mips: --format=tsv, the others log)
#   postproc/arm-demo-2threads    the ARM trace with a second thread
#   postproc/arm-demo-2objects    ... whose calls are the program's loaded
#                                 again as a second object (then unloaded)
#   postproc/arm-demo-nomaps      the ARM trace without a maps file (tsv)
#   postproc/arm-demo-count       the ARM program's LITIFUT_MODE=count trace
#   postproc/arm-demo-budget      ... and its LITIFUT_BUDGET=1us/1ms trace
#   postproc/arm-demo-stopped     ... and one stopped by a 5 KB file size
#                                 limit (the header's stop fields, STOPPED)
#   postproc/arm-demo-ring        ... and a LITIFUT_MODE=ring trace frozen
#                                 by LITIFUT_SNAPSHOT_AT
#   elfdb/<arch>-demolib, elfdb/<arch>-libwords.so, postproc/<arch>-demolib
#                                 (arm, mips) tests/progs/demolib: a program
#                                 and an instrumented library, one trace
# A post-processor input is a little-endian word (bits 28..0: the
# trace's length, bits 30..29: the time view, bit 31: --format=tsv), the
# trace, then the saved maps.  mipsel's trace is taken with
# LITIFUT_CLOCK=monotonic and LITIFUT_RETURNS=1.
# Each trace names its files /target/<file> (header and OBJECT records);
# fuzz/postproc.c finds them in elfdb/ by file name.
# Traces use chunks of at most 4 KB (LITIFUT_CHUNK_KB=4) to stay small;
# postproc/arm-demo-v4 is an older tracer's trace (format version 4:
# every chunk 4 KB), kept as it was.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "${BIN:-$ROOT/build/bin}" && pwd)
OUT=${OUT:-$ROOT/fuzz/corpus}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/litifut-seeds.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT/elfdb" "$OUT/linkmap" "$OUT/postproc"

# A helper built from the format header itself:
#   seedtool offsets        the program path's and header_size's offsets in
#                           the trace header
#   seedtool relocate CHUNK big|little
#                           CHUNK (one chunk's bytes) as a second instance of
#                           the objects it registers: their OBJECT records
#                           moved to the next free site ids and 256 MB up,
#                           its calls moved with them, and an UNLOAD record
#                           of each moved object after its last record
cat > "$WORK/seedtool.c" <<'END'
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "litifut/trace-format.h"

static unsigned char buf[64 << 20];
static size_t size;
static int big;

static uint32_t get(size_t off)
{
    const unsigned char *p = buf + off;
    return big ? (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

static void put(size_t off, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        buf[off + i] = (unsigned char)(big ? v >> (24 - 8 * i) : v >> (8 * i));
}

/* Calls fn(offset, word) for every record of the chunk; returns the end. */
static size_t walk(void (*fn)(size_t, uint32_t))
{
    size_t pos = sizeof(struct litifut_chunk_header);
    while (pos + 4 <= size && get(pos)) {
        uint32_t w = get(pos);
        size_t len = LITIFUT_REC_TAG(w) == LITIFUT_REC_CONTROL ? 4 + 4 * LITIFUT_REC_PAYLOAD(w)
                     : LITIFUT_REC_TAG(w) == LITIFUT_REC_CALL_TARGET ? 8 : 4;
        if (pos + len > size)
            break;
        fn(pos, w);
        pos += len;
    }
    return pos;
}

static uint32_t shift;

static void find_shift(size_t pos, uint32_t w)
{
    if ((w & ~0xffff00u) == LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OBJECT, 0) &&
        get(pos + 4) + get(pos + 8) > shift)
        shift = get(pos + 4) + get(pos + 8);
}

static void move(size_t pos, uint32_t w)
{
    if ((w & ~0xffff00u) == LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OBJECT, 0)) {
        put(pos + 4, get(pos + 4) + shift);
        put(pos + 16, get(pos + 16) + 0x10000000);
    } else if (LITIFUT_REC_TAG(w) != LITIFUT_REC_CONTROL) {
        put(pos, w + (shift << LITIFUT_REC_SITE_SHIFT));
    }
}

static size_t end;

static void nothing(size_t pos, uint32_t w)
{
    (void)pos;
    (void)w;
}

static void unload(size_t pos, uint32_t w)
{
    if ((w & ~0xffff00u) == LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OBJECT, 0) && end + 8 <= size) {
        put(end, LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_UNLOAD, 1));
        put(end + 4, get(pos + 4));
        end += 8;
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "offsets") == 0) {
        printf("%zu %zu\n", offsetof(struct litifut_trace_header, exe),
               offsetof(struct litifut_trace_header, header_size));
        return 0;
    }
    if (argc != 4 || strcmp(argv[1], "relocate") != 0)
        return 2;
    FILE *f = fopen(argv[2], "r+b");
    if (!f)
        return 1;
    size = fread(buf, 1, sizeof buf, f);
    big = strcmp(argv[3], "big") == 0;
    walk(find_shift);
    walk(move);
    end = walk(nothing);
    walk(unload);
    rewind(f);
    return fwrite(buf, 1, size, f) == size && fclose(f) == 0 ? 0 : 1;
}
END
cc -I"$ROOT/include" -o "$WORK/seedtool" "$WORK/seedtool.c"
read -r EXE_OFF HSIZE_OFF < <("$WORK/seedtool" offsets)

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

# rename_object TRACE PATH NAME ENDIAN: the OBJECT record of PATH names
# NAME instead (no longer than PATH: the record keeps its length)
rename_object() {
    local off
    off=$(grep -obUaF -- "$2" "$1" | cut -d: -f1 |
          awk -v h="$(get_word "$1" "$HSIZE_OFF" "$4")" '$1 >= h' | head -1)
    if [ -z "$off" ] || [ ${#3} -gt ${#2} ]; then
        echo "make-seeds.sh: no OBJECT record of $2 in $1 to rename" >&2
        exit 1
    fi
    { printf '%s' "$3"; head -c $((${#2} - ${#3})) /dev/zero; } |
        dd of="$1" bs=1 seek="$off" conv=notrunc status=none
}

# postproc_input TRACE MAPS OUT [tsv]: the length-prefixed trace, then the
# maps; bit 31 of the length word asks for --format=tsv
postproc_input() {
    { word $(($(stat -c %s "$1") | (${4:+1} + 0) << 31)) little; cat "$1" "$2"; } > "$3"
}

# demolib_seeds TRIPLE ARCH ENDIAN: tests/progs/demolib, a program and
# an instrumented library it calls (and that calls back), as
# elfdb/<arch>-demolib, elfdb/<arch>-libwords.so and their trace,
# postproc/<arch>-demolib: two OBJECT records, renamed as above.
# run_seed NAME VAR=VALUE...: the program ($d/$prog, as $name) run
# again with these settings (4 KB chunks), its trace as the seed NAME
run_seed() {
    local seed=$1 r=$d/$1 t
    shift
    mkdir -p "$r"
    (cd "$r" && ulimit -f "${SEED_FSIZE:-unlimited}" && env LITIFUT_DIR=. LITIFUT_CHUNK_KB=4 "$@" \
         "qemu-$arch" -L "/usr/$triple" "../$prog" > /dev/null 2>&1)
    t=$(ls "$r"/litifut.*.trace)
    { printf '%s' "$name"; head -c $((1024 - ${#name})) /dev/zero; } |
        dd of="$t" bs=1 seek="$EXE_OFF" conv=notrunc status=none
    rename_object "$t" "$d/$prog" "$name" "$endian"
    postproc_input "$t" "$d/maps" "$OUT/postproc/$seed"
}

demolib_seeds() {
    local triple=$1 arch=$2 endian=$3 d=$WORK/$2/lib
    local main=$arch-demolib lib=$arch-libwords.so trace f
    mkdir -p "$d"
    (cd "$d" &&
     LITIFUT=1 LITIFUT_QUIET=1 "$triple-gcc" -B"$BIN/" -O1 -shared -fPIC -Wl,-soname,"$lib" \
         -o "$lib" "$ROOT/tests/progs/demolib/words.c" &&
     LITIFUT=1 LITIFUT_QUIET=1 "$triple-gcc" -B"$BIN/" -O1 -o "$main" \
         "$ROOT/tests/progs/demolib/main.c" "./$lib" &&
     LITIFUT_DIR=. LITIFUT_CHUNK_KB=4 "qemu-$arch" -L "/usr/$triple" -E LD_LIBRARY_PATH="$d" \
         "./$main" > /dev/null)
    trace=$(ls "$d"/litifut.*.trace)
    for f in "$main" "$lib"; do
        "$triple-strip" --strip-debug -o "$OUT/elfdb/$f" "$d/$f"
        rename_object "$trace" "$d/$f" "/target/$f" "$endian"
    done
    { printf '%s' "/target/$main"; head -c $((1024 - ${#main} - 8)) /dev/zero; } |
        dd of="$trace" bs=1 seek="$EXE_OFF" conv=notrunc status=none
    sed -e "s|$d/|/target/|g" -e "s|/usr/$triple/lib/|/lib/|g" "${trace%.trace}.maps" > "$d/maps"
    postproc_input "$trace" "$d/maps" "$OUT/postproc/$main" ${endian/little/}
}

for triple in arm-linux-gnueabi mips-linux-gnu mipsel-linux-gnu; do
    arch=${triple%%-*}
    case $arch in mips) endian=big ;; *) endian=little ;; esac
    d=$WORK/$arch
    prog=$arch-demo
    # mipsel's trace has a time per call and its returns (deltas,
    # ADVANCE words, RETURN words, the cache keyed by site)
    clock=
    [ "$arch" = mipsel ] && clock="LITIFUT_CLOCK=monotonic LITIFUT_RETURNS=1"
    mkdir -p "$d"
    (cd "$d" &&
     LITIFUT=1 LITIFUT_KEEP=1 LITIFUT_QUIET=1 "$triple-gcc" -B"$BIN/" -O2 -o "$prog" \
         "$ROOT/tests/progs/demo.c" &&
     env LITIFUT_DIR=. LITIFUT_CHUNK_KB=4 $clock "qemu-$arch" -L "/usr/$triple" "./$prog" > /dev/null)

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
    rename_object "$trace" "$d/$prog" "$name" "$endian"
    sed -e "s|$d/|/target/|g" -e "s|/usr/$triple/lib/|/lib/|g" "${trace%.trace}.maps" > "$d/maps"
    postproc_input "$trace" "$d/maps" "$OUT/postproc/$prog" ${endian/little/}

    if [ "$arch" = arm ]; then
        : > "$d/empty"
        postproc_input "$trace" "$d/empty" "$OUT/postproc/$prog-nomaps" tsv
        # a second thread: chunk 0 again, as the next chunk (an index
        # after every other), of the next tid
        hsize=$(get_word "$trace" "$HSIZE_OFF" "$endian")
        tail -c +$((hsize + 1)) "$trace" | head -c "$(get_word "$trace" $((hsize + 12)) "$endian")" \
            > "$d/chunk"
        put_word "$d/chunk" 4 $(($(get_word "$d/chunk" 4 "$endian") + 1)) "$endian"
        put_word "$d/chunk" 8 $(($(stat -c %s "$trace") / 512 + 1000)) "$endian"
        cat "$trace" "$d/chunk" > "$d/2threads.trace"
        postproc_input "$d/2threads.trace" "$d/maps" "$OUT/postproc/$prog-2threads"
        # a second object: that thread's calls made by the program loaded
        # again (next site ids, 256 MB up), then unloaded
        "$WORK/seedtool" relocate "$d/chunk" "$endian"
        cat "$trace" "$d/chunk" > "$d/2objects.trace"
        postproc_input "$d/2objects.trace" "$d/maps" "$OUT/postproc/$prog-2objects"
        # the same program's run in LITIFUT_MODE=count (pairs chunks),
        # and with a tiny time budget (BUDGET and budget STATE records)
        run_seed "$prog-count" LITIFUT_MODE=count
        run_seed "$prog-budget" LITIFUT_BUDGET=1us/1ms
        # a trace that stopped at a file size limit (header and STOPPED)
        SEED_FSIZE=5 run_seed "$prog-stopped" LITIFUT_TIME_EVERY=1
        # a flight recorder's, frozen by a call (the ring's header
        # fields, a snapshot; its chunks' CHUNK records list open calls)
        run_seed "$prog-ring" LITIFUT_MODE=ring LITIFUT_RING=64K LITIFUT_SNAPSHOT_AT=cmd_longest
    fi
    if [ "$arch" != mipsel ]; then
        demolib_seeds "$triple" "$arch" "$endian"
    fi
done
du -sh "$OUT"
