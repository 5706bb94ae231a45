# LITIFUT_COPY_TO (stub/copyout.c) with tests/progs/copyout.c: after a
# normal exit, exit() from a second thread, SIGTERM and SIGSEGV (the
# default action each time; PIE, and static for two of them), the copy in the target directory is
# byte for byte the local trace and maps, with no temporary file left,
# and the run ends as the plain one does.  A full target directory (a
# 64 KB tmpfs) and a missing one give one line on stderr each, nothing
# under the final names, and the local trace whole.

# copyout_small_fs DIR: mounts a 4 KB tmpfs on DIR (0: done): smaller than
# the trace
copyout_small_fs() {
    mkdir -p "$1" && mount -t tmpfs -o size=4k tmpfs "$1" 2> /dev/null
}

# copyout_same HOW LOCAL COPY: the copy is the local trace; where a
# static program's C library makes calls after the copy (exit), or
# another thread still runs while one calls exit (thread-exit: main
# may reach its pthread_join call only after the copy, on a loaded
# machine), the local trace may have more: where they differ, the copy
# has zeros
copyout_same() {
    case $1 in
    static/exit|static/thread-exit|thread-exit)
        [ "$(stat -c %s "$3")" -le "$(stat -c %s "$2")" ] &&
        cmp -l "$2" "$3" 2> /dev/null | awk '$3 != 0 { bad = 1 } END { exit bad }' ;;
    *)  cmp -s "$2" "$3" ;;
    esac
}

copyout_case() {    # copyout_case ARCH
    set_arch "$1" || return
    local d=$WORK/copyout/$ARCH src=$ROOT/tests/progs/copyout.c
    mkdir -p "$d"
    "$TCC" -O2 -pthread -o "$d/plain" "$src" &&
        LITIFUT=1 "$TCC" -B"$BIN/" -O2 -pthread -o "$d/prog" "$src" &&
        "$TCC" -static -O2 -pthread -o "$d/plain-static" "$src" &&
        LITIFUT=1 "$TCC" -B"$BIN/" -static -O2 -pthread -o "$d/prog-static" "$src" ||
        { fail "$ARCH/copyout: cannot build"; return; }
    local how build
    for how in exit thread-exit term segv static/term static/thread-exit; do
        local r=$d/$how name="$ARCH/copyout/$how"
        build=; [ "${how#static/}" != "$how" ] && build=-static
        run_target "$r/plain" "$d/plain$build" "${how#static/}"
        rm -rf "$r/usb"; mkdir -p "$r/usb"
        LITIFUT_COPY_TO=$r/usb run_target "$r/traced" "$d/prog$build" "${how#static/}"
        local trace
        trace=$(cd "$r/traced" && ls litifut.*.trace 2> /dev/null)
        if ! same_run "$r/plain" "$r/traced" || ! cmp -s "$r/plain/err" "$r/traced/err"; then
            fail "$name: the run differs from the plain one (exit $(cat "$r/plain/rc") vs" \
                 "$(cat "$r/traced/rc")): $(head -c 300 "$r/traced/err")"
        elif [ -z "$trace" ] || ! copyout_same "$how" "$r/traced/$trace" "$r/usb/$trace" ||
             ! cmp -s "$r/traced/${trace%.trace}.maps" "$r/usb/${trace%.trace}.maps"; then
            fail "$name: the copy differs from the local files: $(ls -A "$r/usb" | head -5)"
        elif [ "$(ls -A "$r/usb" | wc -l)" != 2 ]; then
            fail "$name: more than the trace and the maps in the target: $(ls -A "$r/usb")"
        elif ! "$BIN/litifut-postproc" --summary "$r/usb" > "$r/usb.summary" 2> "$r/pp.err" ||
             [ -s "$r/pp.err" ] || ! grep -q "work" "$r/usb.summary"; then
            fail "$name: the copy does not post-process: $(head -c 300 "$r/pp.err")"
        else
            pass "$name: exit $(cat "$r/plain/rc") as plain; the copy is the local trace and maps"
        fi
    done

    # a full target: one line, nothing under the final names, the local trace whole
    local r=$d/full
    rm -rf "$r"; mkdir -p "$r"
    if ! copyout_small_fs "$r/usb"; then
        fail "$ARCH/copyout/full: cannot mount a small tmpfs (needs root)"
        return
    fi
    LITIFUT_COPY_TO=$r/usb run_target "$r/traced" "$d/prog" exit
    local left
    left=$(ls -A "$r/usb")
    umount "$r/usb"
    if [ "$(cat "$r/traced/rc")" != 0 ] || [ "$(wc -l < "$r/traced/err")" != 1 ] ||
       ! grep -q "^litifut: cannot copy the trace to $r/usb: No space left on device" \
            "$r/traced/err"; then
        fail "$ARCH/copyout/full: expected one line on stderr, exit 0: $(head -c 300 "$r/traced/err")"
    elif [ -n "$left" ]; then
        fail "$ARCH/copyout/full: files left in the full directory: $left"
    elif ! "$BIN/litifut-postproc" --summary "$r/traced" > "$r/summary" 2> "$r/pp.err" ||
         [ -s "$r/pp.err" ] || ! cmp -s "$r/summary" "$d/exit/usb.summary"; then
        fail "$ARCH/copyout/full: the local trace is not whole: $(head -c 300 "$r/pp.err")"
    else
        pass "$ARCH/copyout/full: one line on stderr, nothing in the full directory, the local trace whole"
    fi

    # a missing target
    r=$d/missing
    LITIFUT_COPY_TO=$r/no/such/dir run_target "$r/traced" "$d/prog" exit
    check "$ARCH/copyout/missing: one line on stderr, the local trace whole" \
        eval '[ "$(cat "$r/traced/rc")" = 0 ] && [ "$(wc -l < "$r/traced/err")" = 1 ] &&
              grep -q "^litifut: cannot copy .*: No such file or directory" "$r/traced/err" &&
              "$BIN/litifut-postproc" --summary "$r/traced" 2>&1 | cmp -s - "$d/exit/usb.summary"'
}

test_copyout() {
    each_folder copyout_case
}
