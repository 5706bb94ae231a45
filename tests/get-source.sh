#!/usr/bin/env bash
# get-source.sh PACKAGE DIR: unpacks Debian's source package PACKAGE into
# DIR (once), enabling deb-src in APT's sources first if needed.  Used by
# `make sources` for the real-program tests; needs root or sudo.
# A mirror may list a version it does not serve (a security update's
# index ahead of its pool: 404): then each other version listed is
# tried, newest first.
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
if ! (cd "$dir" && apt-get source -q "$pkg"); then
    ok=
    for v in $(apt-cache showsrc "$pkg" | sed -n 's/^Version: //p' | sort -u -r -V); do
        echo "get-source.sh: trying $pkg=$v" >&2
        if (cd "$dir" && apt-get source -q "$pkg=$v"); then ok=1; break; fi
    done
    [ -n "$ok" ] || { echo "get-source.sh: no version of $pkg could be fetched" >&2; exit 1; }
fi
touch "$dir/.$pkg.done"
