/*
 * The tools an instrumented link needs (toolchain.h): the real linker,
 * never this program; the architecture and the tracer module, chosen
 * by the ELF relocatable objects on the command line, recognised by
 * their contents as ld recognises its inputs (archives, linker scripts
 * and the rest are left to ld, whatever their names); the compiler
 * for the instruction DB.
 */
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "wrapper/toolchain.h"
#include "src/arch-rewrite.h"
#include "src/linkmap.h"
#include "lib/error.h"
#include "lib/files.h"

static char *self_path(void)
{
    char *p = realpath("/proc/self/exe", NULL);
    return p ? p : xstrdup("");
}

/* First executable `name` in PATH that is not this program. */
static char *search_path(const char *name, const char *self)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        char *cand = xasprintf("%.*s/%s", (int)len, len ? path : ".", name);
        char *real = access(cand, X_OK) == 0 ? realpath(cand, NULL) : NULL;
        int ok = real && strcmp(real, self) != 0;
        free(real);
        if (ok)
            return cand;
        free(cand);
        path += len + (path[len] == ':');
    }
    return NULL;
}

/* "arm-linux-gnueabi-ld" -> "arm-linux-gnueabi" (NULL if no prefix). */
static char *triple_from_ld_name(const char *argv0)
{
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    const char *suffix = strstr(base, "-ld");
    if (!suffix || suffix == base || (suffix[3] && suffix[3] != '.'))
        return NULL;
    return strndup(base, (size_t)(suffix - base));
}

/* "/usr/bin/arm-linux-gnueabi-gcc-12" -> "arm-linux-gnueabi". */
static char *triple_from_driver(const char *driver)
{
    static const char *const names[] = { "-gcc", "-g++", "-c++", "-cc", NULL };
    const char *base = strrchr(driver, '/');
    base = base ? base + 1 : driver;
    for (const char *const *n = names; *n; n++) {
        const char *at = strstr(base, *n);
        if (at && at != base)
            return strndup(base, (size_t)(at - base));
    }
    return NULL;
}

int find_real_linker(struct toolchain *tc, const char *argv0, const struct link_args *la)
{
    memset(tc, 0, sizeof *tc);
    const char *env = getenv("LITIFUT_REAL_LD"), *emulation_triple = NULL;
    if (la->emulation)
        tc->arch = arch_by_emulation(la->emulation, &emulation_triple);
    tc->triple = triple_from_ld_name(argv0);
    if (!tc->triple && getenv("COLLECT_GCC"))
        tc->triple = triple_from_driver(getenv("COLLECT_GCC"));
    if (!tc->triple && emulation_triple)
        tc->triple = xstrdup(emulation_triple);
    if (env && *env) {
        tc->real_ld = xstrdup(env);
        return 0;
    }
    if (strchr(argv0, '/')) {
        /* installed into a toolchain (litifut-ld --install): the
         * linker we replaced is beside us, under a name of its own */
        char *saved = xasprintf("%s.litifut-real", argv0);
        if (access(saved, X_OK) == 0) {
            tc->real_ld = saved;
            tc->installed = 1;
            return 0;
        }
        free(saved);
    }
    char *self = self_path();
    if (tc->triple) {
        char *name = xasprintf("%s-ld", tc->triple);
        tc->real_ld = search_path(name, self);
        free(name);
        if (!tc->real_ld) {
            char *cand = xasprintf("/usr/%s/bin/ld", tc->triple);
            char *real = realpath(cand, NULL);
            if (real && strcmp(real, self) != 0 && access(cand, X_OK) == 0)
                tc->real_ld = cand;
            else
                free(cand);
            free(real);
        }
    } else {
        tc->real_ld = search_path("ld", self);
    }
    free(self);
    if (!tc->real_ld)
        return error("cannot find the real linker%s%s%s (set LITIFUT_REAL_LD)",
                     tc->triple ? " " : "", tc->triple ? tc->triple : "",
                     tc->triple ? "-ld" : "");
    return 0;
}

/* The -m options of the gcc run that started this link, so the DB is
 * compiled for the same ABI: '-march=armv5te' '-mfloat-abi=soft' ... */
static void add_driver_machine_options(struct argv_builder *cc)
{
    const char *opts = getenv("COLLECT_GCC_OPTIONS");
    while (opts && *opts) {
        const char *q = strchr(opts, '\'');
        if (!q)
            break;
        const char *e = strchr(q + 1, '\'');
        if (!e)
            break;
        if (q[1] == '-' && q[2] == 'm') {
            char *opt = strndup(q + 1, (size_t)(e - q - 1));
            argv_push(cc, opt);
            free(opt);
        }
        opts = e + 1;
    }
}

/* e_machine of `path` if it is an ELF relocatable object (32- or
 * 64-bit), else -1: decided by its contents, as ld decides, never by
 * its name.  So an archive (empty, thin, or named *.o as BusyBox's
 * built-in.o), a linker script (libc.so, or one named *.o), a shared
 * library, a file that cannot be read (ld will say so) or is not a
 * regular one: none of these is looked at further. */
static int relocatable_machine(const char *path)
{
    unsigned char eh[20];
    int fd = try_open_regular_file(path);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, eh, sizeof eh);
    close(fd);
    if (got != (ssize_t)sizeof eh || memcmp(eh, ELFMAG, SELFMAG) != 0)
        return -1;
    int big = eh[EI_DATA] == ELFDATA2MSB;
    unsigned type = big ? eh[16] << 8 | eh[17] : eh[17] << 8 | eh[16];
    if (type != ET_REL)
        return -1;
    return big ? eh[18] << 8 | eh[19] : eh[19] << 8 | eh[18];
}

/* The relocatable objects on the command line that choose the
 * architecture and the tracer module: the program's own (`v`, in
 * order) and, if there is none, the toolchain's first crt object,
 * whose build attributes may say less (armhf's crti.o does not say its
 * float ABI).  Archives' members are not looked at: which of them are
 * linked only ld knows, and without them the choice is as safe as
 * before (the ARMv6K variant needs every object looked at to allow it;
 * the program's own objects make it need that CPU anyway). */
struct program_objects {
    const char **v;
    int n;
    const char *first;          /* v[0], else the first crt object, else NULL */
    int machine;                /* first's e_machine, or -1 */
};

static void find_program_objects(const struct link_args *la, struct program_objects *po)
{
    const char *crt = NULL;
    int crt_machine = -1;
    memset(po, 0, sizeof *po);
    po->v = xcalloc((size_t)la->args.n + 1, sizeof *po->v);
    po->machine = -1;
    for (int i = 0; i < la->args.n; i++) {
        const char *a = la->args.v[i];
        int machine = la->input[i] ? relocatable_machine(a) : -1;
        if (machine < 0)
            continue;
        if (!is_crt_object(a)) {
            if (!po->n)
                po->machine = machine;
            po->v[po->n++] = a;
        } else if (!crt) {
            crt = a;
            crt_machine = machine;
        }
    }
    po->first = po->n ? po->v[0] : crt;
    if (!po->n)
        po->machine = crt_machine;
}

/* The tracer module variant every program object allows ("" if they
 * differ, or there is none); NULL with one error line. */
static const char *module_variant(const struct arch_rewrite_ops *rw,
                                  const struct program_objects *po)
{
    const char *all = NULL;
    if (!rw->module_variant)
        return "";
    for (int i = 0; i < po->n; i++) {
        const char *v = rw->module_variant(po->v[i]);
        if (!v)
            return NULL;
        if (!all)
            all = v;
        else if (strcmp(all, v) != 0)
            return "";
    }
    return all ? all : "";
}

/* A name for an ELF machine litifut has no tracer for. */
static const char *machine_name(int machine)
{
    switch (machine) {
    case EM_AARCH64: return "aarch64";
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_RISCV: return "riscv";
    case EM_PPC: return "powerpc";
    case EM_PPC64: return "powerpc64";
    case EM_SPARC: return "sparc";
    default: return NULL;
    }
}

/* One error line naming what the link is for, which litifut cannot
 * instrument. */
static int unsupported_target(const struct toolchain *tc, const struct link_args *la,
                              const char *object, int machine)
{
    const char *supported = arch_supported_triples();
    if (object) {
        const char *name = machine_name(machine);
        if (name)
            return error("%s: cannot instrument for %s (%s); litifut supports %s",
                         la->output, name, object, supported);
        return error("%s: cannot instrument for ELF machine %d (%s); litifut supports %s",
                     la->output, machine, object, supported);
    }
    if (la->emulation)
        return error("%s: cannot instrument for emulation %s%s%s; litifut supports %s",
                     la->output, la->emulation, tc->triple ? ", triple " : "",
                     tc->triple ? tc->triple : "", supported);
    if (tc->triple)
        return error("%s: cannot instrument for %s; litifut supports %s",
                     la->output, tc->triple, supported);
    return error("%s: cannot tell the target architecture (no -m option, no object file); "
                 "litifut supports %s", la->output, supported);
}

static int choose_tools(struct toolchain *tc, const struct link_args *la,
                        const struct program_objects *po);

char *tracer_module_dir(const char *triple)
{
    const char *libdir = getenv("LITIFUT_LIBDIR");
    if (libdir && *libdir)
        return xasprintf("%s/%s", libdir, triple);
    char *self = self_path();
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = 0;
    char *dir = xasprintf("%s/../lib/litifut/%s", self, triple);
    free(self);
    return dir;
}

int find_instrumenting_tools(struct toolchain *tc, const struct link_args *la)
{
    struct program_objects po;
    find_program_objects(la, &po);
    int rc = choose_tools(tc, la, &po);
    free(po.v);
    return rc;
}

static int choose_tools(struct toolchain *tc, const struct link_args *la,
                        const struct program_objects *po)
{
    /* The objects decide: a link run for one triple may be handed
     * objects of another (a bad -m, a mixed-up PATH). */
    int machine = po->machine;
    if (machine >= 0) {
        const struct arch_ops *by_object = arch_by_machine(machine);
        if (!by_object || (tc->arch && tc->arch != by_object))
            return unsupported_target(tc, la, po->first, machine);
        tc->arch = by_object;
    }
    if (!tc->arch && tc->triple)
        tc->arch = arch_by_triple(tc->triple);
    if (!tc->arch || (tc->triple && arch_by_triple(tc->triple) != tc->arch))
        return unsupported_target(tc, la, NULL, 0);
    /* the tracer module that fits the objects' ABI (ARM: float ABI) */
    const struct arch_rewrite_ops *rw = arch_rewrite_ops(tc->arch);
    if (tc->triple && arch_row_triple(tc->triple))     /* (its arch is tc->arch: above) */
        tc->module_triple = xstrdup(arch_row_triple(tc->triple));
    if (machine >= 0 && tc->module_triple && rw && rw->module_triple) {
        const char *fit = rw->module_triple(po->first, tc->module_triple);
        if (!fit)
            return -1;
        if (strcmp(fit, tc->module_triple) != 0) {
            free(tc->module_triple);
            tc->module_triple = xstrdup(fit);
        }
    }
    tc->c_library = link_c_library(la, tc->triple);

    const char *cc = getenv("LITIFUT_CC");
    if (cc && *cc) {
        argv_push(&tc->cc, cc);
    } else if (getenv("COLLECT_GCC") && *getenv("COLLECT_GCC")) {
        argv_push(&tc->cc, getenv("COLLECT_GCC"));
        add_driver_machine_options(&tc->cc);
    } else if (tc->triple) {
        char *name = xasprintf("%s-gcc", tc->triple);
        argv_push(&tc->cc, name);
        free(name);
    } else {
        return error("cannot tell which compiler to use for the instruction DB (set LITIFUT_CC)");
    }

    /* The tracer module is built per triple: ABI and byte order differ. */
    if (!tc->module_triple)
        return error("cannot tell the target triple (set LITIFUT_REAL_LD and LITIFUT_CC, "
                     "or link through <triple>-gcc)");
    const char *variant = machine >= 0 && rw ? module_variant(rw, po) : "";
    if (!variant)
        return -1;
    char *dir = tracer_module_dir(tc->module_triple);
    /* a library gets the variant built for position-independent code
     * with initial-exec TLS (stub/tracer.h) */
    char *tracer = xasprintf("%s/%s%s%s.o", dir, la->shared ? "tracer-shared" : "tracer", variant,
                             tc->c_library == C_LIBRARY_MUSL ? "-musl" : "");
    char *island = xasprintf("%s/%s", dir, la->shared ? "island-shared.o" : "island.o");
    tc->tracer_object = realpath(tracer, NULL);
    tc->island_object = realpath(island, NULL);      /* only where the arch has islands */
    char *far = xasprintf("%s/far-sled.o", dir);
    tc->far_sled_object = realpath(far, NULL);      /* only where the arch has far sleds */
    free(far);
    char *db0 = xasprintf("%s/db0.o", dir);
    tc->placeholder_db = realpath(db0, NULL);       /* (else made per link) */
    free(db0);
    free(dir);
    free(island);
    if (!tc->tracer_object) {
        error("%s: tracer module not found (set LITIFUT_LIBDIR)", tracer);
        free(tracer);
        return -1;
    }
    free(tracer);
    return 0;
}

void toolchain_free(struct toolchain *tc)
{
    free(tc->real_ld);
    free(tc->triple);
    free(tc->module_triple);
    argv_free(&tc->cc);
    free(tc->tracer_object);
    free(tc->island_object);
    free(tc->far_sled_object);
    free(tc->placeholder_db);
    memset(tc, 0, sizeof *tc);
}
