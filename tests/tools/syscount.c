/*
 * syscount: a QEMU user-mode TCG plugin that counts the system calls a
 * program makes (`make bench`, tests/bench.sh).  Loaded next to
 * ../shared/tools/insncount.so in the same run, so one run gives both
 * numbers:
 *
 *   qemu-arm -plugin build/tools/insncount.so,outfile=insns \
 *            -plugin build/tools/syscount.so,outfile=syscalls -L SYSROOT ./prog
 *
 * writes to outfile (without it, to stderr) the total on the first
 * line, then one line "<number> <count>" per system call number the
 * guest used, lowest number first (the guest's numbers: ARM EABI's,
 * MIPS o32's 4000 + n).  Every system call the guest asks for counts,
 * whether it succeeds or not, exit_group included; a call qemu-user
 * answers itself still counts, as the guest made it.  Counts are exact
 * for any number of threads (each guest thread is a vcpu; atomic
 * increments).
 *
 * Only the small, stable part of the plugin API (version 1, QEMU 7.x)
 * is declared here, as insncount.c does.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

typedef void (*syscall_cb)(qemu_plugin_id_t, unsigned int vcpu_index, int64_t num,
                           uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                           uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);

void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t, syscall_cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);

/* numbers 0..NR_MAX-1 one by one (MIPS o32 is 4000..4500), others together */
#define NR_MAX 8192

static uint64_t total, by_nr[NR_MAX], others;
static char outfile[4096];

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num,
                       uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                       uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    (void)id; (void)vcpu;
    (void)a1; (void)a2; (void)a3; (void)a4; (void)a5; (void)a6; (void)a7; (void)a8;
    __atomic_fetch_add(&total, 1, __ATOMIC_RELAXED);
    if (num >= 0 && num < NR_MAX)
        __atomic_fetch_add(&by_nr[num], 1, __ATOMIC_RELAXED);
    else
        __atomic_fetch_add(&others, 1, __ATOMIC_RELAXED);
}

static void on_exit_cb(qemu_plugin_id_t id, void *p)
{
    (void)id; (void)p;
    FILE *f = outfile[0] ? fopen(outfile, "w") : NULL;
    FILE *out = f ? f : stderr;
    fprintf(out, "%s%llu\n", f ? "" : "syscount: ", (unsigned long long)total);
    for (int i = 0; i < NR_MAX; i++)
        if (by_nr[i])
            fprintf(out, "%d %llu\n", i, (unsigned long long)by_nr[i]);
    if (others)
        fprintf(out, "other %llu\n", (unsigned long long)others);
    if (f)
        fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
                        int argc, char **argv)
{
    (void)info;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "outfile=", 8) == 0)
            snprintf(outfile, sizeof outfile, "%s", argv[i] + 8);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
    return 0;
}
