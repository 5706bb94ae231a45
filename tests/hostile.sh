# Hostile input for litifut-postproc: traces, maps files and programs
# that are damaged, made up, or not regular files at all.  Each must
# give one clear line per problem, never crash or hang, and decode what
# still can be decoded.  The post-processor always runs under
# `timeout 20`: a hang is a failure, not a stuck suite.
#
# The trace is an ARM one (little endian); header offsets are those of
# struct litifut_trace_header, OBJECT record offsets those of struct
# litifut_object_record (include/litifut/trace-format.h).  Records are
# damaged where they are, or made up in a chunk appended to the trace.

HOSTILE_HEADER_SIZE=16 HOSTILE_CHUNK_SIZE=20 HOSTILE_PID=24 HOSTILE_VERSION=12
HOSTILE_EXE=56 HOSTILE_EXE_MAX=1024
HOSTILE_CHUNK0=4096                     # header_size as the tracer writes it
HOSTILE_CHUNK_MAGIC=$((0x4b43544c))
# in an OBJECT record, from its base word: n_sites, build_id_size, path
HOSTILE_OBJ_SITES=4 HOSTILE_OBJ_BUILD_ID_SIZE=16 HOSTILE_OBJ_PATH=52
HOSTILE_FAR=1000000                     # a site id beyond the demo's objects
HOSTILE_SITE_LIMIT=$(((1 << 22) - 1))   # site ids are below this
# record words (trace-format.h): a call to site id S, a control record
call_word() { echo $(((($1) + 1) << 2)); }
control_word() { echo $((($1) << 24 | ($2) << 8 | 3)); }

# poke32 FILE OFFSET VALUE: stores a little-endian word.
poke32() {
    local v=$3
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((v & 255)) $((v >> 8 & 255)) \
              $((v >> 16 & 255)) $((v >> 24 & 255)))" |
        dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

poke8() {
    printf "$(printf '\\%03o' $(($3 & 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null
}

# peek32 FILE OFFSET: the little-endian word there.
peek32() {
    od -An -j "$2" -N4 -tu4 --endian=little "$1" | tr -d ' '
}

# poke_exe FILE PATH: the program path in the header.
poke_exe() {
    { printf '%s' "$2"; head -c $((HOSTILE_EXE_MAX - ${#2})) /dev/zero; } |
        dd of="$1" bs=1 seek=$HOSTILE_EXE conv=notrunc 2> /dev/null
}

# text_words TEXT [NUL]: TEXT as little-endian words, one per line; with
# NUL, NUL-terminated and zero-padded as a record's path is (else the
# text must be whole words).
text_words() {
    local pad=0
    [ -n "${2:-}" ] && pad=$((4 - ${#1} % 4))
    { printf '%s' "$1"; head -c "$pad" /dev/zero; } | od -An -v -tu4 -w4 --endian=little
}

# object_record BASE N_SITES CHECKSUM BIAS BUILD_ID_SIZE PATH_WORDS...:
# the words of an OBJECT record (a zero build-id).
object_record() {
    local fields="$1 $2 $3 $4 $5"; shift 5
    echo $(control_word 2 $((13 + $#))) $fields 0 0 0 0 0 0 0 0 "$@"
}

# append_chunk TRACE WORDS...: one more chunk of the main thread (its tid
# is the pid) after the trace's last (its index: larger than any the
# tracer gave, as a later chunk's is), holding WORDS as its records.
append_chunk() {
    local t=$1; shift
    local csize off index i=0 w
    csize=$(peek32 "$t" $HOSTILE_CHUNK_SIZE)
    off=$(stat -c %s "$t")
    index=$((off / 512 + 1000))
    truncate -s $((off + csize)) "$t"
    for w in $HOSTILE_CHUNK_MAGIC "$(peek32 "$t" $HOSTILE_PID)" "$index" "$csize" "$@"; do
        poke32 "$t" $((off + 4 * i)) "$w"
        i=$((i + 1))
    done
}

# object_at TRACE PATH: the offset of the OBJECT record (its base word)
# whose path is PATH, found by the path (after the header).
object_at() {
    local off
    off=$(grep -obUaF -- "$2" "$1" | cut -d: -f1 | awk -v h=$HOSTILE_CHUNK0 '$1 >= h' | head -1)
    echo $((off - HOSTILE_OBJ_PATH))
}

# hostile_copy NAME: a fresh copy of the reference trace and maps in
# $HD/NAME (as litifut.1.trace, litifut.1.maps); prints the trace's path.
hostile_copy() {
    rm -rf "${HD:?}/$1"
    mkdir -p "$HD/$1"
    cp "$HD"/run/litifut.*.trace "$HD/$1/litifut.1.trace"
    cp "$HD"/run/litifut.*.maps "$HD/$1/litifut.1.maps"
    echo "$HD/$1/litifut.1.trace"
}

# hostile_pp NAME ARGS...: runs the post-processor; its stdout, stderr
# and exit status go to $HD/NAME.{out,err,rc}.
hostile_pp() {
    local name=$1; shift
    timeout 20 "$BIN/litifut-postproc" "$@" > "$HD/$name.out" 2> "$HD/$name.err" < /dev/null
    echo $? > "$HD/$name.rc"
}

# hostile_why NAME: what happened, for a FAIL line.
hostile_why() {
    local rc
    rc=$(cat "$HD/$1.rc")
    case $rc in
    124) echo "hung (killed after 20 s)" ;;
    1[2-9][0-9]) echo "killed by signal $((rc - 128))" ;;
    *) echo "exit $rc, stderr: $(head -c 400 "$HD/$1.err")" ;;
    esac
}

# expect_refused NAME PATTERN ARGS...: exit 1 with exactly one line on
# stderr, matching PATTERN.
expect_refused() {
    local name=$1 pattern=$2; shift 2
    hostile_pp "$name" "$@"
    if [ "$(cat "$HD/$name.rc")" = 1 ] && [ "$(wc -l < "$HD/$name.err")" = 1 ] &&
       grep -q -- "$pattern" "$HD/$name.err"; then
        pass "hostile: $name: $(cat "$HD/$name.err")"
    else
        fail "hostile: $name: expected exit 1 and one line matching '$pattern'; $(hostile_why "$name")"
    fi
}

# expect_warned NAME PATTERN N ARGS...: exit 0, stderr is N warning
# lines, one of them matching PATTERN.
expect_warned() {
    local name=$1 pattern=$2 n=$3; shift 3
    hostile_pp "$name" "$@"
    if [ "$(cat "$HD/$name.rc")" = 0 ] && [ "$(wc -l < "$HD/$name.err")" = "$n" ] &&
       [ "$(grep -c '^litifut-postproc: warning: ' "$HD/$name.err")" = "$n" ] &&
       grep -q -- "$pattern" "$HD/$name.err"; then
        return 0
    fi
    fail "hostile: $name: expected exit 0 and $n warning(s), one matching '$pattern';" \
         "$(hostile_why "$name")"
    return 1
}

# tsv_rows NAME: data rows of $HD/NAME.out.
tsv_rows() {
    echo $(($(wc -l < "$HD/$1.out") - 1))
}

test_hostile() {
    set_arch arm
    HD=$WORK/hostile
    local pp=$BIN/litifut-postproc t n
    rm -rf "$HD"
    mkdir -p "$HD/run"
    if ! LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$HD/run/prog" "$ROOT/tests/progs/demo.c" ||
       ! (cd "$HD/run" && LITIFUT_DIR=. LITIFUT_RETURNS=0 LITIFUT_CLOCK=marks \
              "$QEMU" -L "$SYSROOT" ./prog > /dev/null); then   # (the offsets below are this layout's)
        fail "hostile: cannot build and trace tests/progs/demo.c"
        return
    fi
    "$pp" --format=tsv "$HD/run" > "$HD/ref.tsv"
    "$pp" --info "$HD/run" > "$HD/ref.info"
    n=$(($(wc -l < "$HD/ref.tsv") - 1))
    # (the calls TSV's rows; the summary and the log also count qsort's
    # calls of demo's comparator: the tracer's entries, --info entries=)
    local calls=$((n + $(sed -n 's/^entries=//p' "$HD/ref.info")))
    hostile_header
    hostile_records "$n" "$calls"
    hostile_objects "$n"

    # --- files that are not regular files (each used to hang in open) ---

    mkdir -p "$HD/fifo"
    mkfifo "$HD/fifo/prog" "$HD/fifo/litifut.2.trace"
    t=$(hostile_copy object-fifo)
    append_chunk "$t" $(object_record $HOSTILE_FAR 0 0 0 0 $(text_words "$HD/fifo/prog" nul))
    expect_refused object-fifo "fifo/prog: not a regular file (a FIFO)" "$t"
    expect_refused binary-dir-fifo "fifo/prog: not a regular file (a FIFO)" \
        --binary-dir "$HD/fifo" "$HD/run"
    expect_refused trace-fifo "litifut.2.trace: not a regular file (a FIFO)" "$HD/fifo/litifut.2.trace"
    t=$(hostile_copy maps-fifo)
    rm "$HD/maps-fifo/litifut.1.maps"
    mkfifo "$HD/maps-fifo/litifut.1.maps"
    if expect_warned maps-fifo "litifut.1.maps: not a regular file (a FIFO)" 1 --format=tsv "$t"; then
        check "hostile: a FIFO as the maps file: ignored, every call kept" \
            [ "$(tsv_rows maps-fifo)" = "$n" ]
    fi
    t=$(hostile_copy lib-fifo)
    mkfifo "$HD/lib-fifo/libc.so.6"
    sed -i "s|$SYSROOT/lib/libc.so.6|$HD/lib-fifo/libc.so.6|" "$HD/lib-fifo/litifut.1.maps"
    if expect_warned lib-fifo "libc.so.6: not a regular file (a FIFO)" 1 "$t"; then
        pass "hostile: a FIFO as a library in the maps: one warning, its names left out"
    fi

    # --- a damaged maps file ---

    t=$(hostile_copy maps-garbage)
    { echo "garbage"; echo "ffffffff0-fffffffff r-xp 00000000 00:00 0 /huge";
      echo "00001000-00000fff r-xp 00000000 00:00 0 /backwards";
      printf '00001000-00002000 r-xp 00000000 00:00 0 /ctl\033[0m\n'; } >> "$HD/maps-garbage/litifut.1.maps"
    if expect_warned maps-garbage "litifut.1.maps: line [0-9]* is not a maps line" 1 --format=tsv "$t"; then
        check "hostile: malformed maps lines: skipped with one warning, the rest used" \
            cmp -s <(cut -f 1-5,7,8,10- "$HD/ref.tsv") <(cut -f 1-5,7,8,10- "$HD/maps-garbage.out")
    fi

    # --- the program: stripped, truncated ---

    mkdir -p "$HD/stripped" "$HD/truncated"
    "$TRIPLE-strip" -o "$HD/stripped/prog" "$HD/run/prog"
    expect_refused stripped "stripped (no symbol table).*--binary-dir" --binary-dir "$HD/stripped" "$HD/run"
    head -c 3000 "$HD/run/prog" > "$HD/truncated/prog"
    expect_refused truncated "truncated/prog: truncated: the file has 3000 bytes" \
        --binary-dir "$HD/truncated" "$HD/run"

    # --- options ---

    hostile_pp summary-tsv --summary --format=tsv "$HD/run"
    check "hostile: --summary --format=tsv is the summary as TSV (calls callee callee_obj)" \
        summary_tsv_ok "$HD/summary-tsv" "$calls"
    hostile_pp options --summary --info "$HD/run"
    check "hostile: --summary with --info: one error line, exit 2" \
        eval '[ "$(cat "$HD/options.rc")" = 2 ] && [ "$(wc -l < "$HD/options.err")" = 1 ] &&
              grep -q "choose one view" "$HD/options.err"'
    hostile_pp options2 --format=tsv --format=log "$HD/run"
    check "hostile: two different --format: one error line, exit 2" \
        eval '[ "$(cat "$HD/options2.rc")" = 2 ] && [ "$(wc -l < "$HD/options2.err")" = 1 ]'

    hostile_naming arm
    hostile_naming mips
}

# The header: a field the records cannot be read without is one error.
hostile_header() {
    local t
    t=$(hostile_copy version)
    poke32 "$t" $HOSTILE_VERSION 1
    expect_refused version "trace format version 1 (an older litifut's tracer); this post-processor reads versions 4 to 7" "$t"
    t=$(hostile_copy chunk-size)
    poke32 "$t" $HOSTILE_CHUNK_SIZE 0xfffff000
    expect_refused chunk-size "chunk_size 4294963200" "$t"
    t=$(hostile_copy chunk-size-odd)
    poke32 "$t" $HOSTILE_CHUNK_SIZE 6000
    expect_refused chunk-size-odd "corrupt trace header: chunk_size 6000" "$t"
    t=$(hostile_copy header-size)
    poke32 "$t" $HOSTILE_HEADER_SIZE 0x7ffff000
    expect_refused header-size "corrupt trace header: header_size" "$t"
    t=$(hostile_copy header-size-small)
    poke32 "$t" $HOSTILE_HEADER_SIZE 16
    expect_refused header-size-small "corrupt trace header: header_size 16" "$t"
    t=$(hostile_copy endian)
    poke8 "$t" 8 9
    expect_refused endian "corrupt trace header: byte-order mark 9" "$t"
    t=$(hostile_copy arch)
    poke8 "$t" 9 77
    expect_refused arch "corrupt trace header: unknown architecture 77" "$t"
    t=$(hostile_copy word-size)
    poke8 "$t" 10 6
    expect_refused word-size "corrupt trace header: word size 6" "$t"
    t=$(hostile_copy exe-unterminated)
    head -c $HOSTILE_EXE_MAX /dev/zero | tr '\0' A |
        dd of="$t" bs=1 seek=$HOSTILE_EXE conv=notrunc 2> /dev/null
    expect_refused exe-unterminated "program path is not NUL-terminated" "$t"
    t=$(hostile_copy exe-control)
    poke_exe "$t" "$(printf '/tmp/\033[31mred')"
    expect_refused exe-control "program path has control characters" "$t"
}

# Chunks and call records (N: the calls of the reference trace).
hostile_records() {   # hostile_records ROWS CALLS: the calls TSV's rows, the log's calls
    local n=$1 calls=$2 t
    t=$(hostile_copy chunk-index)
    local last
    last=$(stat -c %s "$t")
    append_chunk "$t" $(call_word 0)
    poke32 "$t" $((last + 8)) 0           # (the first chunk's: indices only go up)
    if expect_warned chunk-index "a chunk header is damaged or missing" 1 --format=tsv "$t"; then
        check "hostile: a chunk header whose index goes back: that chunk skipped, the others read" \
            cmp -s "$HD/ref.tsv" "$HD/chunk-index.out"
    fi
    t=$(hostile_copy control)
    poke32 "$t" $((HOSTILE_CHUNK0 + 16)) $(control_word 5 3)     # (STATE has 1 or 2 words)
    if expect_warned control "control record 0x05000303" 1 --format=tsv "$t"; then
        check "hostile: an unknown control record: the rest of its chunk skipped" \
            [ "$(tsv_rows control)" = 0 ]
    fi
    t=$(hostile_copy budget-length)
    append_chunk "$t" $(control_word 6 2) 1 2                   # (BUDGET has 3 words)
    if expect_warned budget-length "control record 0x06000203" 1 --format=tsv "$t"; then
        check "hostile: a BUDGET record of the wrong length: the rest of its chunk skipped" \
            cmp -s "$HD/ref.tsv" "$HD/budget-length.out"
    fi
    t=$(hostile_copy budget-values)
    append_chunk "$t" $(control_word 6 3) 1 4294967295 4294967295
    hostile_pp budget-values --info "$t"
    check "hostile: a BUDGET record with absurd values is shown as it is" \
        eval '[ "$(cat "$HD/budget-values.rc")" = 0 ] && [ ! -s "$HD/budget-values.err" ] &&
              grep -q "^budget=1us/4294967295us, a recorded call reckoned at 4194304.0 ns" "$HD/budget-values.out"'
    t=$(hostile_copy object-length)
    append_chunk "$t" $(control_word 2 5) 1 2 3 4 5
    if expect_warned object-length "control record 0x02000503" 1 --format=tsv "$t"; then
        check "hostile: an OBJECT record too short for its fields: the rest of its chunk skipped" \
            cmp -s "$HD/ref.tsv" "$HD/object-length.out"
    fi
    t=$(hostile_copy no-object)
    append_chunk "$t" $(call_word $HOSTILE_FAR)
    if expect_warned no-object "records call site id $HOSTILE_FAR, which no object's range holds" \
         1 --format=tsv "$t"; then
        check "hostile: a call record in no object's site range: skipped, every other call kept" \
            cmp -s "$HD/ref.tsv" "$HD/no-object.out"
    fi
    t=$(hostile_copy unload)
    append_chunk "$t" $(control_word 3 1) $HOSTILE_FAR
    if expect_warned unload "UNLOAD record names the object at site id $HOSTILE_FAR" 1 \
         --format=tsv "$t"; then
        check "hostile: an UNLOAD record of an unknown object: ignored, every call kept" \
            cmp -s "$HD/ref.tsv" "$HD/unload.out"
    fi
}

# OBJECT records: the program's own, damaged, and made-up ones (N: the
# calls of the reference trace).
hostile_objects() {
    local n=$1 t o words
    local path base sites
    read -r base sites _ path < <(sed -n 's/^object=//p' "$HD/ref.info")
    check "hostile: --info: one object, the program (object=BASE SITES 0xBIAS PATH)" \
        eval '[ "$(grep -c "^object=" "$HD/ref.info")" = 1 ] && grep -q "^objects=1$" "$HD/ref.info" &&
              [ "$path" -ef "$HD/run/prog" ] &&
              grep -q "^object=$base $sites 0x[0-9a-f]\{8\} " "$HD/ref.info"'

    # The record's site count is not the program's, and a call names a
    # site within that count but far beyond the DB: report.c would index
    # its site table with it.  The DB (checksum-matched) is believed;
    # the record is skipped.
    t=$(hostile_copy sites)
    o=$(object_at "$t" "$path")
    poke32 "$t" $((o + HOSTILE_OBJ_SITES)) $((HOSTILE_SITE_LIMIT - base))
    append_chunk "$t" $(call_word $((base + 3000000)))
    if expect_warned sites "records call site 3000000 of " 2 --format=tsv "$t"; then
        check "hostile: a site beyond the program's DB: that record skipped, the other $n kept" \
            eval 'grep -q "says $((HOSTILE_SITE_LIMIT - base)) call sites, its DB has $sites" "$HD/sites.err" &&
                  cmp -s "$HD/ref.tsv" "$HD/sites.out"'
    fi
    hostile_pp sites-log "$t"
    hostile_pp sites-info --info "$t"
    check "hostile: the same trace as a call log and --info (which counts the program's sites)" \
        eval '[ "$(cat "$HD/sites-log.rc")" = 0 ] && [ "$(cat "$HD/sites-info.rc")" = 0 ] &&
              [ "$(grep -v "^#" "$HD/sites-log.out" | grep " -> " | grep -vc "(untraced) -> ")" = "$calls" ] &&
              [ "$(grep "^sites=" "$HD/sites-info.out")" = "$(grep "^sites=" "$HD/ref.info")" ]'

    t=$(hostile_copy build-id)
    poke32 "$t" $(($(object_at "$t" "$path") + HOSTILE_OBJ_BUILD_ID_SIZE)) 255
    if expect_warned build-id "build-id length 255" 1 --format=tsv "$t"; then
        check "hostile: a build-id length beyond its field: one warning, every call kept" \
            cmp -s "$HD/ref.tsv" "$HD/build-id.out"
    fi
    t=$(hostile_copy build-id-other)
    o=$(object_at "$t" "$path")
    poke32 "$t" $((o + HOSTILE_OBJ_BUILD_ID_SIZE + 4)) 0x12345678
    expect_refused build-id-other \
        "litifut.1.trace: .*/run/prog is not the build that was traced (build-id [0-9a-f]*, traced 78563412" \
        "$t"

    t=$(hostile_copy repeated)
    o=$(object_at "$t" "$path")
    words=$(od -An -v -j $((o - 4)) -N $((4 + 4 * ($(peek32 "$t" $((o - 4))) >> 8 & 0xffff))) \
               -tu4 -w4 --endian=little "$t")
    append_chunk "$t" $words
    hostile_pp repeated --format=tsv "$t"
    hostile_pp repeated-info --info "$t"
    check "hostile: an OBJECT record repeated (as a fork child's trace does): one object, no warning" \
        eval '[ ! -s "$HD/repeated.err" ] && cmp -s "$HD/ref.tsv" "$HD/repeated.out" &&
              grep -q "^objects=1$" "$HD/repeated-info.out"'

    hostile_made_up_object huge "OBJECT record whose site ids go past" 1 \
        $(object_record $HOSTILE_FAR $((0xfffffff0)) 0 0 0 $(text_words /lib/libhuge.so nul))
    hostile_made_up_object unterminated "OBJECT record whose path is not NUL-terminated" 1 \
        $(object_record $HOSTILE_FAR 1 0 0 0 $(text_words /lib/libx.so))
    hostile_made_up_object object-control "OBJECT record whose path has control characters" 1 \
        $(object_record $HOSTILE_FAR 1 0 0 0 $(text_words "$(printf '/lib/\033[31mred')" nul))
    t=$(hostile_copy overlap)
    append_chunk "$t" $(object_record "$base" 1 0 0 0 $(text_words /lib/libover.so nul))
    if expect_warned overlap "OBJECT records of .*/lib/libover.so.* overlap" 2 --format=tsv "$t"; then
        check "hostile: OBJECT records with overlapping site ranges: both skipped, and their calls" \
            eval '[ "$(tsv_rows overlap)" = 0 ] && grep -q "which no object.s range holds" "$HD/overlap.err"'
    fi
    t=$(hostile_copy library-gone)
    append_chunk "$t" $(object_record $HOSTILE_FAR 0 0 0 0 $(text_words /nonexistent/libgone.so nul))
    expect_refused library-gone "cannot read the traced library /nonexistent/libgone.so" --format=tsv "$t"
    check "hostile: a library that cannot be read: the program's calls still decoded" \
        cmp -s "$HD/ref.tsv" "$HD/library-gone.out"
}

# hostile_made_up_object NAME PATTERN WARNINGS WORDS...: WORDS appended to
# the trace (in a chunk of their own) give that many warnings, one
# matching PATTERN, and every call of the reference trace.
hostile_made_up_object() {
    local name=$1 pattern=$2 warnings=$3 t; shift 3
    t=$(hostile_copy "$name")
    append_chunk "$t" "$@"
    if expect_warned "$name" "$pattern" "$warnings" --format=tsv "$t"; then
        check "hostile: $name: a bad OBJECT record skipped, every call kept" \
            cmp -s "$HD/ref.tsv" "$HD/$name.out"
    fi
}

# summary_tsv_ok BASE CALLS: BASE.out is a summary TSV of CALLS calls,
# with strlen in libc among them; nothing on BASE.err.
summary_tsv_ok() {
    [ "$(cat "$1.rc")" = 0 ] && [ ! -s "$1.err" ] &&
    [ "$(head -1 "$1.out")" = "$(printf 'calls\tcallee\tcallee_obj')" ] &&
    [ "$(awk -F '\t' 'NR > 1 && NF == 3 { s += $1 } END { print s }' "$1.out")" = "$2" ] &&
    grep -q "^[0-9]*	strlen	.*/libc.so.6\$" "$1.out"
}

# hostile_naming ARCH: a libc function called through the PLT (ARM) or
# straight (MIPS, once bound) has the same name in the log and the
# summary: "strlen (libc.so.6)", never "strlen@plt".
hostile_naming() {
    set_arch "$1"
    local d=$HD/naming-$ARCH
    mkdir -p "$d"
    LITIFUT=1 LITIFUT_QUIET=1 "$TCC" -B"$BIN/" -O2 -o "$d/prog" "$ROOT/tests/progs/demo.c"
    (cd "$d" && LITIFUT_DIR=. "$QEMU" -L "$SYSROOT" ./prog > /dev/null)
    "$BIN/litifut-postproc" "$d" > "$d/log" 2>&1
    "$BIN/litifut-postproc" --summary "$d" > "$d/summary" 2>&1
    check "hostile: $ARCH: libc callees named \"strlen (libc.so.6)\" in the log and the summary" \
        eval 'grep -q " -> strlen (libc.so.6)$" "$d/log" && ! grep -q "@plt" "$d/log" "$d/summary" &&
              [ "$(grep -c " strlen (libc.so.6)$" "$d/summary")" = 1 ]'
    "$BIN/litifut-postproc" --format=tsv "$d" > "$d/tsv" 2>&1
    # the PLT hop stays visible (ARM: target_sym strlen@plt+0x0), and
    # callee_sym names the function it reached
    check "hostile: $ARCH: TSV callee_sym names the function a call reached (strlen+0x0)" \
        eval '[ "$(head -1 "$d/tsv" | cut -f 11-)" = "$(printf "target_sym\tcallee_sym\tparent")" ] &&
              awk -F "\t" "\$12 == \"strlen+0x0\" { n++ } END { exit !n }" "$d/tsv" &&
              ! awk -F "\t" "NR > 1 && \$12 ~ /@plt/ { bad = 1 } END { exit !bad }" "$d/tsv" &&
              { [ "$ARCH" != arm ] ||
                awk -F "\t" "\$11 == \"strlen@plt+0x0\" && \$12 == \"strlen+0x0\" { n++ } END { exit !n }" "$d/tsv"; }'
}
