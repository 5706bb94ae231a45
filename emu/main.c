/*
 * litifut-emu: the traces and views of litifut with no device.  Runs a
 * program (plain, stripped, closed, or instrumented) under Debian's
 * qemu-user with litifut's QEMU plugin (emu/plugin.c), which writes
 * litifut.<pid>.trace and .maps as the device's tracer does, with the
 * guest instruction count as the clock: two runs of the same program
 * and input give the same profile.
 *
 *   litifut-emu [OPTION]... [--] PROGRAM [ARG]...
 *
 * The architecture and the sysroot (-L) come from the program's ELF
 * header (lib/arches.def's triples); qemu replaces this process
 * (execvp with an argv array), so the exit status, signals and pid are
 * the program's.  The program runs with LITIFUT_TRACE=0: an
 * instrumented program's own tracer stays off, and the plugin passes
 * over the code its link left alone, so that each rewritten call is
 * seen as the call it was.  Errors are one line naming the file, and
 * exit status 2, before qemu starts.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct triple {
    const char *triple, *qemu;
};

static const struct triple triples[] = {
#define TRIPLE(triple, folder, test_name, qemu, ldso, tracer_flags, musl) { triple, qemu },
#include "lib/arches.def"
};

static const char usage_text[] =
    "usage: litifut-emu [OPTION]... [--] PROGRAM [ARG]...\n"
    "Runs PROGRAM under qemu-user and writes litifut's trace of every call it makes\n"
    "(litifut.<pid>.trace, litifut.<pid>.maps), for litifut-postproc: no device, no\n"
    "instrumentation needed, the guest's instructions as a deterministic clock.\n"
    "\n"
    "  -o, --output=DIR    where the trace goes (default: $LITIFUT_DIR, else .)\n"
    "      --clock=CLOCK   insns: each thread's guest instructions (the default; the\n"
    "                      same program and input give the same trace); wall: the\n"
    "                      host's CLOCK_MONOTONIC (times of the emulator, not a device)\n"
    "      --no-returns    record calls only (returns are then inferred)\n"
    "      --start-at=F    recording starts off and goes on at a call of function F\n"
    "      --stop-at=G     recording goes off after a call of function G\n"
    "      --control=FILE  FILE's first word, on or off, turns recording on or off\n"
    "      --record=off    recording starts off\n"
    "  -L, --sysroot=DIR   the target's root for the dynamic linker and libraries\n"
    "                      (default: /usr/TRIPLE, as Debian's cross packages install)\n"
    "      --qemu=PATH     the qemu-user program (default: qemu-ARCH, on PATH)\n"
    "      --plugin=PATH   the plugin (default: ../lib/litifut/litifut-emu.so from here)\n"
    "  -h, --help          this text\n"
    "\n"
    "LITIFUT_DIR, LITIFUT_START_AT, LITIFUT_STOP_AT, LITIFUT_CONTROL and LITIFUT_RECORD\n"
    "are read as the tracer reads them; options win.  The exit status is PROGRAM's.\n";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    fputs("litifut-emu: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* The program's triple from its ELF header; NULL (and said why) if none. */
static const struct triple *triple_of(const char *path)
{
    unsigned char h[52];
    int f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0) {
        fail("%s: %s", path, strerror(errno));
        return NULL;
    }
    ssize_t n = read(f, h, sizeof h);
    close(f);
    if (n < (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0) {
        fail("%s: not an ELF program", path);
        return NULL;
    }
    int be = h[EI_DATA] == ELFDATA2MSB, is64 = h[EI_CLASS] == ELFCLASS64;
    unsigned machine = be ? (unsigned)h[18] << 8 | h[19] : (unsigned)h[19] << 8 | h[18];
    uint32_t flags = be ? (uint32_t)h[36] << 24 | (uint32_t)h[37] << 16 | (uint32_t)h[38] << 8 | h[39]
                        : (uint32_t)h[39] << 24 | (uint32_t)h[38] << 16 | (uint32_t)h[37] << 8 | h[36];
    if (is64)   /* e_flags sits 12 bytes further in ELF64 (three 8-byte fields) */
        flags = 0;
    const char *want = machine == EM_ARM && !is64
                           ? (flags & EF_ARM_ABI_FLOAT_HARD ? "arm-linux-gnueabihf" : "arm-linux-gnueabi")
                       : machine == EM_MIPS && !is64 ? (be ? "mips-linux-gnu" : "mipsel-linux-gnu")
                       : machine == EM_AARCH64 && is64 && !be ? "aarch64-linux-gnu"
                       : machine == 243 /* EM_RISCV */ && is64 && !be ? "riscv64-linux-gnu"
                                                              : NULL;
    for (size_t i = 0; want && i < sizeof triples / sizeof triples[0]; i++)
        if (!strcmp(triples[i].triple, want))
            return &triples[i];
    fail("%s: an ELF program of a machine litifut-emu does not run (machine %u, %s, %s-endian)",
         path, machine, is64 ? "64-bit" : "32-bit", be ? "big" : "little");
    return NULL;
}

/* The plugin beside this program: ../lib/litifut/litifut-emu.so, or in
 * the same directory. */
static char *default_plugin(void)
{
    char self[PATH_MAX], *path = NULL;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    const char *tails[] = { "/../lib/litifut/litifut-emu.so", "/litifut-emu.so" };
    for (size_t i = 0; i < 2; i++) {
        if (asprintf(&path, "%s%s", self, tails[i]) < 0)
            return NULL;
        if (access(path, R_OK) == 0)
            return path;
        free(path);
    }
    return NULL;
}

/* Appends ",key=value" to the plugin's argument; a value with a comma
 * cannot be passed (QEMU splits on it). */
static int plugin_arg(char **arg, const char *key, const char *value, const char *what)
{
    if (!value || !*value)
        return 0;
    if (strchr(value, ','))
        return fail("%s: %s has a comma, which QEMU's plugin arguments cannot hold", value, what);
    char *s;
    if (asprintf(&s, "%s,%s=%s", *arg, key, value) < 0)
        return fail("out of memory");
    free(*arg);
    *arg = s;
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "output", required_argument, NULL, 'o' }, { "clock", required_argument, NULL, 'c' },
        { "no-returns", no_argument, NULL, 'n' }, { "start-at", required_argument, NULL, 's' },
        { "stop-at", required_argument, NULL, 'S' }, { "control", required_argument, NULL, 'C' },
        { "record", required_argument, NULL, 'r' }, { "sysroot", required_argument, NULL, 'L' },
        { "qemu", required_argument, NULL, 'q' }, { "plugin", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    const char *dir = getenv("LITIFUT_DIR"), *clock = "insns", *sysroot = NULL, *qemu = NULL;
    const char *start_at = getenv("LITIFUT_START_AT"), *stop_at = getenv("LITIFUT_STOP_AT");
    const char *control = getenv("LITIFUT_CONTROL"), *record = getenv("LITIFUT_RECORD");
    char *plugin = NULL;
    int returns = 1, c;
    opterr = 0;                         /* (its own one line below) */
    while ((c = getopt_long(argc, argv, "+o:L:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': dir = optarg; break;
        case 'c': clock = optarg; break;
        case 'n': returns = 0; break;
        case 's': start_at = optarg; break;
        case 'S': stop_at = optarg; break;
        case 'C': control = optarg; break;
        case 'r': record = optarg; break;
        case 'L': sysroot = optarg; break;
        case 'q': qemu = optarg; break;
        case 'p': plugin = strdup(optarg); break;
        case 'h': fputs(usage_text, stdout); return 0;
        default:
            return optopt && optopt != '?' && strchr("oL", optopt)
                       ? fail("-%c needs a value (see --help)", optopt)
                       : fail("unknown option %s (see --help)", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return fail("no program to run (see --help)");
    if (strcmp(clock, "insns") && strcmp(clock, "wall"))
        return fail("--clock=%s: expected insns or wall", clock);
    if (record && *record && strcmp(record, "on") && strcmp(record, "off"))
        return fail("LITIFUT_RECORD=%s: expected on or off", record);
    const char *program = argv[optind];
    const struct triple *t = triple_of(program);
    if (!t)
        return 2;
    char outdir[PATH_MAX], sysroot_buf[PATH_MAX], control_abs[PATH_MAX];
    const char *out = dir && *dir ? dir : ".";
    if (mkdir(out, 0755) != 0 && errno != EEXIST)   /* (the trace's directory, made if new) */
        return fail("%s: cannot make the output directory: %s", out, strerror(errno));
    if (!realpath(out, outdir))
        return fail("%s: %s", out, strerror(errno));
    struct stat st;
    if (stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fail("%s: not a directory", outdir);
    if (!sysroot) {
        snprintf(sysroot_buf, sizeof sysroot_buf, "/usr/%s", t->triple);
        sysroot = sysroot_buf;
    }
    if (control && *control && control[0] != '/') {     /* (qemu's working directory is ours) */
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd) ||
            snprintf(control_abs, sizeof control_abs, "%s/%s", cwd, control) >= (int)sizeof control_abs)
            return fail("%s: path too long", control);
        control = control_abs;
    }
    if (!plugin && !(plugin = default_plugin()))
        return fail("litifut-emu.so: not found beside litifut-emu (give it with --plugin)");
    if (access(plugin, R_OK) != 0)
        return fail("%s: %s", plugin, strerror(errno));
    char *parg = strdup(plugin);
    if (!parg || strchr(plugin, ','))
        return fail("%s: the plugin's path has a comma, which QEMU cannot take", plugin);
    if (plugin_arg(&parg, "dir", outdir, "--output") || plugin_arg(&parg, "clock", clock, "--clock") ||
        plugin_arg(&parg, "returns", returns ? "on" : "off", "--no-returns") ||
        plugin_arg(&parg, "start_at", start_at, "--start-at") ||
        plugin_arg(&parg, "stop_at", stop_at, "--stop-at") ||
        plugin_arg(&parg, "control", control, "--control") ||
        plugin_arg(&parg, "record", record, "--record"))
        return 2;
    const char *qemu_prog = qemu ? qemu : t->qemu;
    size_t n = (size_t)(argc - optind);
    const char **args = calloc(n + 10, sizeof *args);
    if (!args)
        return fail("out of memory");
    size_t k = 0;
    args[k++] = qemu_prog;
    args[k++] = "-L";
    args[k++] = sysroot;
    args[k++] = "-plugin";
    args[k++] = parg;
    for (int i = optind; i < argc; i++)
        args[k++] = argv[i];
    args[k] = NULL;
    /* an instrumented program's own tracer stays off (it reads
     * /proc/self/environ, which under qemu-user is qemu's: set here) */
    setenv("LITIFUT_TRACE", "0", 1);
    execvp(qemu_prog, (char *const *)args);
    return fail("%s: %s%s", qemu_prog, strerror(errno),
                errno == ENOENT ? " (Debian's qemu-user package has it)" : "");
}
