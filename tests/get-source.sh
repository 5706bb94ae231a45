#!/usr/bin/env bash
# get-source.sh PACKAGE DIR: unpacks Debian's source package PACKAGE into
# DIR (once), enabling deb-src in APT's sources first if needed.  Used by
# `make sources` for the real-program tests; needs root or sudo.
set -eu
pkg=$1 dir=$2
[ -f "$dir/.$pkg.done" ] && exit 0
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
src=/etc/apt/sources.list.d/debian.sources
if [ -f "$src" ] && ! grep -q '^Types:.*deb-src' "$src"; then
    $sudo sed -i 's/^Types: deb$/Types: deb deb-src/' "$src"
    $sudo apt-get update -q
elif ! apt-cache showsrc "$pkg" > /dev/null 2>&1; then
    $sudo apt-get update -q
fi
mkdir -p "$dir"
(cd "$dir" && apt-get source -q "$pkg")
touch "$dir/.$pkg.done"
