# Unit tests of the encoders and decoders both ends must agree on
# (tests/tools/unit.c): DB site words and redirects per arch, the DB's
# page table and checksum, the trace's record words.
test_unit() {
    local out=$WORK/unit.out line rc=0
    "$PLUGINS/unit" "$ROOT" > "$out" 2> "$WORK/unit.err" || rc=$?
    while IFS= read -r line; do
        case $line in
        "ok "*) pass "unit: ${line#ok }" ;;
        *) fail "unit: ${line#FAIL }" ;;
        esac
    done < "$out"
    check "unit: runs to the end (exit 0)" [ "$rc" = 0 -a -s "$out" ]
}
