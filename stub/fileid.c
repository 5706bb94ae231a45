/*
 * Which file a descriptor is (and its size, owner and mode): fstat64 with the kernel's own struct
 * stat64, which differs between ARM and MIPS and from libc's struct
 * stat (so this file includes no libc header that defines one); a
 * 64-bit kernel (AArch64) has fstat and its struct stat only.
 */
#include <stdint.h>
#include <asm/stat.h>
#include "tracer.h"

int file_id_of(int fd, struct file_id *out)
{
#ifdef __NR_fstat64
    struct stat64 st;
    int err = (int)arch_syscall6(__NR_fstat64, fd, (long)&st, 0, 0, 0, 0);
#else
    struct stat st;
    int err = (int)arch_syscall6(__NR_fstat, fd, (long)&st, 0, 0, 0, 0);
#endif
    if (err)
        return err;
    out->dev = st.st_dev;
    out->ino = st.st_ino;
    out->size = (uint64_t)st.st_size;
    out->uid = (uint32_t)st.st_uid;
    out->mode = (uint32_t)st.st_mode;
    return 0;
}
