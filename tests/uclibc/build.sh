#!/usr/bin/env bash
# build.sh OUT TRIPLE...: uClibc-ng (Buildroot's default C library) for
# each glibc cross triple given (arm-linux-gnueabi, mipsel-linux-gnu),
# from Debian's uclibc-source (the upstream uClibc-ng tarball, in
# /usr/src), against Debian's cross kernel headers, with NPTL threads
# and TLS as Buildroot configures it; used static (its shared libraries, run
# under qemu-user, met the host's /etc/ld.so.cache: not yet).  Each
# triple gets OUT/TRIPLE/: its sysroot (usr/include, usr/lib with crt1.o
# and libc.a) and uclibc.specs, which turns TRIPLE-gcc into a uClibc-ng
# compiler of static programs (as musl-gcc.specs does for musl).  Built once: OUT/TRIPLE/stamp holds this script's checksum.
# About 2 minutes per triple on two cores.
set -eu
mkdir -p "$1"
out=$(cd "$1" && pwd)
shift
tarball=$(ls /usr/src/uClibc-ng-*.tar.xz 2> /dev/null | sort | tail -1)
if [ -z "$tarball" ]; then
    echo "tests/uclibc/build.sh: no /usr/src/uClibc-ng-*.tar.xz (apt-get install uclibc-source)" >&2
    exit 1
fi
sum=$( (cat "$0"; md5sum < "$tarball") | md5sum | cut -c1-32)
for triple in "$@"; do
    dir=$out/$triple
    if [ -f "$dir/stamp" ] && [ "$(cat "$dir/stamp")" = "$sum" ]; then
        continue
    fi
    case $triple in
    arm-linux-gnueabi) arch=arm
        opts="CONFIG_ARM_EABI=y ARCH_LITTLE_ENDIAN=y ARCH_WANTS_LITTLE_ENDIAN=y UCLIBC_HAS_SOFT_FLOAT=y
              CONFIG_ARM_V5TE=y COMPILE_IN_THUMB_MODE=n" ;;
    mipsel-linux-gnu) arch=mips
        opts="CONFIG_MIPS_O32_ABI=y ARCH_LITTLE_ENDIAN=y ARCH_WANTS_LITTLE_ENDIAN=y CONFIG_MIPS_ISA_MIPS32R2=y
              UCLIBC_HAS_FPU=y" ;;
    *) echo "tests/uclibc/build.sh: no uClibc-ng configuration for $triple" >&2; exit 1 ;;
    esac
    rm -rf "$dir"
    mkdir -p "$dir/sysroot"
    tar -C "$dir" -xf "$tarball"
    src=$(ls -d "$dir"/uClibc-ng-*/)
    cd "$src"
    make ARCH=$arch defconfig > "$dir/config.log" 2>&1
    # Buildroot's choices (NPTL, TLS, shared, the wide and locale-free
    # stdio most packages need), the cross compiler and kernel headers
    for o in $opts UCLIBC_HAS_THREADS_NATIVE=y UCLIBC_HAS_TLS=y HAVE_SHARED=y UCLIBC_HAS_WCHAR=y \
             UCLIBC_HAS_LFS=y UCLIBC_HAS_IPV6=y UCLIBC_HAS_RPC=n UCLIBC_HAS_UTMPX=y \
             UCLIBC_SUSV3_LEGACY=y UCLIBC_SUSV4_LEGACY=y UCLIBC_HAS_BACKTRACE=n DOSTRIP=n \
             "KERNEL_HEADERS=\"/usr/$triple/include\"" "CROSS_COMPILER_PREFIX=\"$triple-\"" \
             'RUNTIME_PREFIX="/"' 'DEVEL_PREFIX="/usr/"' 'UCLIBC_EXTRA_CFLAGS=""'; do
        name=${o%%=*}
        sed -i "/^$name=/d; /^# $name is not set/d" .config
        if [ "${o#*=}" = n ]; then echo "# $name is not set" >> .config; else echo "$o" >> .config; fi
    done
    yes '' | make ARCH=$arch oldconfig >> "$dir/config.log" 2>&1
    make -j"$(nproc)" ARCH=$arch CROSS_COMPILE="$triple-" > "$dir/build.log" 2>&1 ||
        { tail -20 "$dir/build.log" >&2; exit 1; }
    make ARCH=$arch CROSS_COMPILE="$triple-" DESTDIR="$dir/sysroot" install >> "$dir/build.log" 2>&1 ||
        { tail -20 "$dir/build.log" >&2; exit 1; }
    # the kernel's headers beside the C library's (as a toolchain's sysroot has them)
    for h in asm asm-generic linux mtd; do
        [ -e "/usr/$triple/include/$h" ] && ln -sfn "/usr/$triple/include/$h" "$dir/sysroot/usr/include/$h"
    done
    s=$dir/sysroot
    # Debian's libgcc_eh.a is glibc's: its unwinder asks glibc 2.35's
    # _dl_find_object first (MIPS: threads' cancellation links it); -1
    # sends it to dl_iterate_phdr, as a toolchain built for uClibc-ng does
    printf 'int _dl_find_object(void *pc, void *result);\n%s\n' \
        'int _dl_find_object(void *pc, void *result) { (void)pc; (void)result; return -1; }' > "$dir/dlfo.c"
    "$triple-gcc" -O2 -c -o "$dir/dlfo.o" "$dir/dlfo.c"
    "$triple-ar" rc "$s/usr/lib/libdlfo.a" "$dir/dlfo.o"
    cat > "$dir/uclibc.specs" <<EOF
%rename cpp_options old_cpp_options

*cpp_options:
-nostdinc -isystem $s/usr/include -isystem include%s %(old_cpp_options)

*cc1:
%(cc1_cpu) -nostdinc -isystem $s/usr/include -isystem include%s

*link_libgcc:
-L$s/usr/lib -L$s/lib -L .%s

*libgcc:
libgcc.a%s %:if-exists(libgcc_eh.a%s) -ldlfo

*startfile:
$s/usr/lib/crt1.o $s/usr/lib/crti.o crtbeginT.o%s

*endfile:
crtend.o%s $s/usr/lib/crtn.o

*link:
-static --sysroot=$s -nostdlib %{rdynamic:-export-dynamic}
EOF
    rm -rf "$src"
    echo "$sum" > "$dir/stamp"
done
