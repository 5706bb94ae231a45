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
# may be set in the environment.  What it writes (about 1.5 MB):
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
#   postproc/arm-demo-gz          the ARM trace gzip'ed
#   postproc/arm-demo-count       the ARM program's LITIFUT_MODE=count trace
#   postproc/arm-demo-budget      ... and its LITIFUT_BUDGET=1us/1ms trace
#   postproc/arm-demo-skip        ... and with LITIFUT_EXCLUDE_CALLEE at run
#                                 time (a SKIPPED record)
#   postproc/arm-demo-args        ... and with LITIFUT_ARGS (ARGS records)
#   postproc/arm-demo-stopped     ... and one stopped by a 5 KB file size
#                                 limit (the header's stop fields, STOPPED)
#   postproc/arm-demo-emu         ... run under litifut-emu (an emulated trace)
#   postproc/arm-calls-emu        tests/progs/calls.c (plain) under litifut-emu
#                                 (signals as events)
#   postproc/arm-demo-ring        ... and a LITIFUT_MODE=ring trace frozen
#                                 by LITIFUT_SNAPSHOT_AT
#   postproc/<seed>-wide          arm-demo, arm-demo-count, arm-demo-ring and
#                                 mips-demo as a target of word size 8 would
#                                 write them (seedtool widen: addresses above
#                                 4 GB, 64-bit targets, load biases, return
#                                 addresses and pairs)
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
#   seedtool widen TRACE MAPS big|little
#                           TRACE as a target of word size 8 would have
#                           written it (trace-format.h), every run-time
#                           address 0x5500000000 up (above 4 GB), each chunk
#                           twice its size; MAPS's addresses likewise
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

/* widen: the trace of word size 8 built here */
#define WIDE_SHIFT 0x5500000000ull
static unsigned char wide[2 * sizeof buf];
static size_t n_wide;

static void emit(uint32_t v)
{
    size_t at = n_wide;
    n_wide += 4;
    for (int i = 0; i < 4; i++)
        wide[at + i] = (unsigned char)(big ? v >> (24 - 8 * i) : v >> (8 * i));
}

/* A record's address: two words, low first; a pair's: a 64-bit field. */
static void emit_addr(uint64_t a)
{
    emit((uint32_t)a);
    emit((uint32_t)(a >> 32));
}

static void emit_u64(uint64_t a)
{
    emit((uint32_t)(big ? a >> 32 : a));
    emit((uint32_t)(big ? a : a >> 32));
}

static void widen_chunk(size_t off, size_t len)
{
    size_t start = n_wide, pos = sizeof(struct litifut_chunk_header);
    for (int i = 0; i < 3; i++)
        emit(get(off + 4 * i));
    emit((uint32_t)(2 * len));
    if (get(off + 4) == LITIFUT_PAIRS_TID) {
        for (; pos + sizeof(struct litifut_pair) <= len && get(off + pos); pos += 24) {
            size_t p = off + pos;
            emit(get(p));
            emit(get(p + offsetof(struct litifut_pair, count)));
            emit_u64(get(p + offsetof(struct litifut_pair, target)) + WIDE_SHIFT);
            emit_u64(0);
            emit(get(p + offsetof(struct litifut_pair, ns_lo)));
            emit(get(p + offsetof(struct litifut_pair, ns_hi)));
        }
    }
    while (get(off + 4) != LITIFUT_PAIRS_TID && pos + 4 <= len) {
        uint32_t w = get(off + pos);
        size_t n = LITIFUT_REC_PAYLOAD(w), p = off + pos + 4;
        emit(w);
        if (LITIFUT_REC_TAG(w) == LITIFUT_REC_CALL_TARGET) {
            if (pos + 8 <= len)
                emit_addr(get(p) + WIDE_SHIFT);
            pos += 8;
            continue;
        }
        pos += 4;
        if (!w || LITIFUT_REC_TAG(w) != LITIFUT_REC_CONTROL || (w & 0xfc) || pos + 4 * n > len)
            continue;
        pos += 4 * n;
        if (LITIFUT_REC_TYPE(w) == LITIFUT_REC_OBJECT && n > LITIFUT_OBJECT_RECORD_WORDS) {
            n_wide -= 4;
            emit(w + (1u << 8));        /* the load bias's high half */
            uint64_t bias = get(p + offsetof(struct litifut_object_record, load_bias)) + WIDE_SHIFT;
            for (size_t i = 0; i < n; i++) {
                if (i == LITIFUT_OBJECT_RECORD_WORDS)
                    emit((uint32_t)(bias >> 32));
                emit(4 * i == offsetof(struct litifut_object_record, load_bias) ? (uint32_t)bias
                                                                               : get(p + 4 * i));
            }
        } else if (LITIFUT_REC_TYPE(w) == LITIFUT_REC_CHUNK && n >= LITIFUT_CHUNK_REC_WORDS) {
            n_wide -= 4;
            emit(w + ((uint32_t)(n - LITIFUT_CHUNK_REC_WORDS) << 8));   /* 2 words an address */
            for (size_t i = 0; i < n; i++) {
                uint32_t v = get(p + 4 * i);
                if (i < LITIFUT_CHUNK_REC_WORDS)
                    emit(v);
                else
                    emit_addr(v ? v + WIDE_SHIFT : 0);
            }
        } else {
            for (size_t i = 0; i < n; i++)
                emit(get(p + 4 * i));
        }
    }
    while (n_wide < start + 2 * len)
        emit(0);
}

static int widen(const char *trace, const char *maps)
{
    FILE *f = fopen(trace, "r+b");
    if (!f)
        return 1;
    size_t total = fread(buf, 1, sizeof buf, f), off;
    const uint32_t hsize = get(offsetof(struct litifut_trace_header, header_size));
    const uint32_t csize = get(offsetof(struct litifut_trace_header, chunk_size));
    const uint32_t version = get(offsetof(struct litifut_trace_header, version));
    if (hsize > total)
        return 1;
    memcpy(wide, buf, hsize);
    wide[offsetof(struct litifut_trace_header, word_size)] = 8;
    n_wide = offsetof(struct litifut_trace_header, chunk_size);
    emit(2 * csize);
    n_wide = hsize;
    for (off = hsize; off + sizeof(struct litifut_chunk_header) <= total;) {
        uint32_t len = version == 4 ? csize : get(off + 12);
        if (get(off) != LITIFUT_CHUNK_MAGIC || !len) {
            off += version == 4 ? csize : LITIFUT_MIN_CHUNK;
            continue;
        }
        widen_chunk(off, len < total - off ? len : (total - off) & ~(size_t)3);
        off += len;
    }
    rewind(f);
    if (fwrite(wide, 1, n_wide, f) != n_wide || fclose(f) != 0)
        return 1;
    /* maps: start-end rest, both up */
    static char line[8192];
    FILE *in = fopen(maps, "r"), *out = in ? tmpfile() : NULL;
    unsigned long long start, end;
    int at;
    while (out && fgets(line, sizeof line, in))
        if (sscanf(line, "%llx-%llx%n", &start, &end, &at) == 2)
            fprintf(out, "%llx-%llx%s", start + WIDE_SHIFT, end + WIDE_SHIFT, line + at);
    if (!out || fclose(in) != 0 || !(in = fopen(maps, "w")))
        return 1;
    rewind(out);
    while (fgets(line, sizeof line, out))
        fputs(line, in);
    return fclose(in) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "widen") == 0) {
        big = strcmp(argv[4], "big") == 0;
        return widen(argv[2], argv[3]);
    }
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

# emu_seed SEED FILE: $d/FILE run under litifut-emu, its trace as the
# seed SEED: the program as /target/FILE, the libraries as /lib/...
emu_seed() {
    local r=$d/$1 t lib
    mkdir -p "$r"
    (cd "$d" && "$BIN/litifut-emu" -o "$r" "./$2" > /dev/null) || :     # (calls.c exits with 3)
    t=$(ls "$r"/litifut.*.trace)
    { printf '%s' "/target/$2"; head -c $((1024 - 8 - ${#2})) /dev/zero; } |
        dd of="$t" bs=1 seek="$EXE_OFF" conv=notrunc status=none
    rename_object "$t" "$d/$2" "/target/$2" "$endian"
    for lib in /usr/$triple/lib/*.so*; do
        grep -qaF -- "$lib" "$t" && rename_object "$t" "$lib" "/lib/${lib##*/}" "$endian"
    done
    sed -e "s|$d/|/target/|g" -e "s|/usr/$triple/lib/|/lib/|g" "${t%.trace}.maps" > "$r/maps"
    postproc_input "$t" "$r/maps" "$OUT/postproc/$1"
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
    # (a trace stopped before its first OBJECT record has none to rename)
    if grep -qaF -- "$d/$prog" <(tail -c +4097 "$t"); then
        rename_object "$t" "$d/$prog" "$name" "$endian"
    fi
    postproc_input "$t" "$d/maps" "$OUT/postproc/$seed"
}

# wide_seed NAME TRACE MAPS ENDIAN [tsv]: TRACE and MAPS widened to word
# size 8 (seedtool widen), as the post-processor input NAME
wide_seed() {
    cp "$2" "$WORK/wide.trace"
    cp "$3" "$WORK/wide.maps"
    "$WORK/seedtool" widen "$WORK/wide.trace" "$WORK/wide.maps" "$4"
    postproc_input "$WORK/wide.trace" "$WORK/wide.maps" "$OUT/postproc/$1" ${5:-}
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
        # gzip'ed (the reader inflates anything with gzip's magic: gz.c)
        gzip -9n < "$trace" > "$d/trace.gz"
        postproc_input "$d/trace.gz" "$d/maps" "$OUT/postproc/$prog-gz"
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
        # callees put back at run time (a SKIPPED record)
        run_seed "$prog-skip" LITIFUT_EXCLUDE_CALLEE=cmd_*,strlen
        # what calls were given and gave back (ARGS records)
        run_seed "$prog-args" "LITIFUT_ARGS=strlen;word_sum@arg1/s,retval;qsort@arg1/x16,arg2,arg3"
        # a trace that stopped at a file size limit (header and STOPPED)
        SEED_FSIZE=5 run_seed "$prog-stopped" LITIFUT_TIME_EVERY=1
        # a flight recorder's, frozen by a call (the ring's header
        # fields, a snapshot; its chunks' CHUNK records list open calls)
        run_seed "$prog-ring" LITIFUT_MODE=ring LITIFUT_RING=64K LITIFUT_SNAPSHOT_AT=cmd_longest
        wide_seed "$prog-count-wide" "$(ls "$d/$prog-count"/litifut.*.trace)" "$d/maps" "$endian"
        wide_seed "$prog-ring-wide" "$(ls "$d/$prog-ring"/litifut.*.trace)" "$d/maps" "$endian"
        # litifut-emu's traces (SITE_ADDR objects without a DB, the
        # instruction clock): the same program, and tests/progs/calls.c
        # built plainly (SIGNAL and SIGNAL_END records; its file is not
        # among the seeds: its calls are read without names)
        "$triple-gcc" -O2 -o "$d/calls" "$ROOT/tests/progs/calls.c"
        emu_seed "$prog-emu" "$prog"
        emu_seed "$arch-calls-emu" calls
    fi
    if [ "$arch" != mipsel ]; then
        wide_seed "$prog-wide" "$trace" "$d/maps" "$endian" ${endian/little/}
    fi
    if [ "$arch" != mipsel ]; then
        demolib_seeds "$triple" "$arch" "$endian"
    fi
done
du -sh "$OUT"
