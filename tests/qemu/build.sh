#!/usr/bin/env bash
# build.sh SOURCES OUT: qemu-arm and qemu-mips (user mode)
# from Debian's qemu source package (unpacked in SOURCES by `make
# sources`), with tests/qemu/counters.patch, into OUT/bin, so that the
# tests run the tracer's counter clock paths (tests/counters.sh):
#   - ARM: CNTVCT and CNTFRQ readable from user space in AArch32 state
#     (qemu 7.2 has only the AArch64 registers in user mode), and
#     HWCAP_EVTSTRM in AT_HWCAP, as Linux gives where its arch timer
#     driver lets user space read the virtual count;
#   - MIPS: rdhwr $2 (CP0 Count) advancing at 100 MHz (qemu 7.2 keeps it
#     at 0 in user mode).  (mipsel: the same code, the other byte order;
#     `tests/qemu/build.sh SOURCES OUT mipsel` builds qemu-mipsel too.)
# Everything else is Debian's qemu.  Built once: OUT/stamp holds the
# patch's checksum.  About 3 minutes on two cores.
set -eu
src=$1
mkdir -p "$2"
out=$(cd "$2" && pwd)
targets="arm mips ${3:-}"
targets=${targets% }
here=$(cd "$(dirname "$0")" && pwd)
patch=$here/counters.patch
sum=$( (cat "$patch" "$0"; echo "$targets") | md5sum | cut -c1-32)
if [ -f "$out/stamp" ] && [ "$(cat "$out/stamp")" = "$sum" ]; then
    exit 0
fi
dir=$(find "$src" -maxdepth 1 -type d -name 'qemu-*' | sort | tail -1)
if [ -z "$dir" ]; then
    echo "tests/qemu/build.sh: no qemu source in $src (make sources)" >&2
    exit 1
fi
rm -rf "$out"
mkdir -p "$out/bin"
cp -a "$dir" "$out/src"
(cd "$out/src" && patch -p1 -s < "$patch")
mkdir -p "$out/src/build"
cd "$out/src/build"
list=
for t in $targets; do list=$list${list:+,}$t-linux-user; done
../configure --target-list="$list" \
    --disable-system --disable-tools --disable-docs --disable-werror \
    --without-default-features --enable-plugins > configure.log 2>&1 ||
    { tail -20 configure.log >&2; exit 1; }
ninja $(printf 'qemu-%s ' $targets) > ninja.log 2>&1 || { tail -20 ninja.log >&2; exit 1; }
for t in $targets; do cp "qemu-$t" "$out/bin/"; done
echo "$sum" > "$out/stamp"
