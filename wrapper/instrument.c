/*
 * The instrumented link:
 *   1. compile the placeholder DB; link the program with the tracer
 *      module and it (pass 1, with a link map);
 *   2. find the call sites of pass 1, leaving out the crt objects and
 *      the tracer (by the map); write the DB for them as C, compile it;
 *   3. link again with that DB (pass 2); the DB lies after all code, so
 *      every call site must be where it was (checked);
 *   4. rewrite pass 2's call sites into a temporary file next to the
 *      output and rename it into place (an output that is not a file,
 *      -o /dev/null, is written into: lib/files.h).
 * ld's stdout and stderr go to files of the work directory; pass 1's
 * are shown once, as ld itself would have shown them, pass 2's only if
 * it fails.  A first link that fails is the user's link failing: its
 * messages and exit status only, as without litifut.
 * LITIFUT_KEEP=1 keeps the intermediate files in OUTPUT.litifut/ (a
 * real directory of this user's, next to a regular output only).
 * Silent on success; LITIFUT_VERBOSE and LITIFUT_LOG (report_line).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "wrapper/instrument.h"
#include "wrapper/farsleds.h"
#include "wrapper/libsearch.h"
#include "src/rewriter.h"
#include "src/linkmap.h"
#include "lib/error.h"
#include "lib/files.h"

struct work {
    const struct link_args *la;
    const struct toolchain *tc;
    char *dir;                  /* mkdtemp */
    struct site_rules *rules;
    int one_stream;             /* our stdout and stderr are one file (>out 2>&1) */
    unsigned char *far_after;   /* per argument: a far sled follows it (ARM), or NULL */
    int far_first;              /* a far sled precedes the first input */
    const char **wrapped;       /* the functions linked through the tracer (--wrap) */
    unsigned char *ask_for;     /* per wrapped function: --undefined (a static link
                                   whose archives define it: wrapper/libsearch.c) */
    int entries;                /* the C library is a shared one (its start is wrapped):
                                   the constructors and destructors get entry thunks */
};

static char *work_path(const struct work *w, const char *name)
{
    return xasprintf("%s/%s", w->dir, name);
}

/* The DB is assembly (src/db.c): the target compiler's driver runs the
 * assembler with the target's options (byte order, float ABI). */
static int compile_db(const struct work *w, const char *s_file, const char *o_file)
{
    struct argv_builder a = { 0 };
    for (int i = 0; i < w->tc->cc.n; i++)
        argv_push(&a, w->tc->cc.v[i]);
    const char *fixed[] = { "-c", "-o", o_file, "-x", "assembler", s_file, NULL };
    for (const char **f = fixed; *f; f++)
        argv_push(&a, *f);
    int st = run_command(a.v);
    if (st > 0)
        error("compiling the instruction DB with %s failed (exit %d)", a.v[0], st);
    argv_free(&a);
    return st == 0 ? 0 : -1;
}

/* Whether `s` (before `end`) goes on with a file name's characters:
 * "pass1" is followed by ':' or ' ' in a message, "pass1.map" is
 * another file. */
static int name_goes_on(const char *s, const char *end)
{
    return s < end && (isalnum((unsigned char)*s) || *s == '_' || *s == '-' ||
                       (*s == '.' && s + 1 < end && isalnum((unsigned char)s[1])));
}

/* Copies what ld wrote to the file `capture` to `fd`, as ld would have
 * written it to the user: a message's prefix, the real linker's path
 * (ld prints its argv[0], which stays the real linker's so that ld
 * finds its sysroot and plugins), becomes the name we were run as, and
 * the work directory's `linked` (the output ld was given) the user's
 * output.  Line by line through a buffer: ld may print hundreds of MB
 * (-M, --verbose). */
static void replay_output(const struct work *w, const char *capture, int fd, const char *linked)
{
    if (fcntl(fd, F_GETFD) < 0)
        return;                     /* closed: ld's writes would have failed */
    FILE *in = fopen(capture, "re");
    int out_fd = in ? dup(fd) : -1;
    FILE *out = out_fd >= 0 ? fdopen(out_fd, "w") : NULL;
    if (!out) {
        if (out_fd >= 0)
            close(out_fd);
        if (in)
            fclose(in);
        return;                     /* nothing captured */
    }
    const char *real = w->tc->real_ld, *output = w->la->output;
    size_t real_len = strlen(real), linked_len = strlen(linked);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) > 0) {
        const char *p = line, *end = line + len;
        if ((size_t)len > real_len + 2 && memcmp(line, real, real_len) == 0 &&
            memcmp(line + real_len, ": ", 2) == 0) {
            fputs(w->la->invoked_as, out);
            p += real_len;
        }
        const char *at;
        while ((at = memmem(p, (size_t)(end - p), linked, linked_len))) {
            fwrite(p, 1, (size_t)(at - p), out);
            p = at + linked_len;
            fputs(name_goes_on(p, end) ? linked : output, out);
        }
        fwrite(p, 1, (size_t)(end - p), out);
    }
    free(line);
    fclose(in);
    fclose(out);                    /* as for any diagnostic: best effort */
}

/* What a link printed, replayed (replay_output): one file for both
 * streams if ours are one file, so that their order is kept. */
static void replay_link(const struct work *w, const char *out, const char *err,
                        const char *linked)
{
    replay_output(w, out, STDOUT_FILENO, linked);
    if (err)
        replay_output(w, err, STDERR_FILENO, linked);
}

/* One link: the user's arguments (without the output and strip
 * options), the tracer and the DB; through a response file, so that
 * huge command lines work.  What ld prints goes to files: pass 1's is
 * shown once, as ld would have shown it (replay_output), pass 2's only
 * if pass 2 fails (else it repeats pass 1's).  `pass`: 1, 2 or 3 (its
 * response file is passN.args).  Returns ld's exit status, or -1 with
 * one error line. */
static int link_pass(const struct work *w, const char *db_o, const char *out,
                     const char *map, int pass)
{
    int first = pass == 1;
    const struct link_args *la = w->la;
    struct argv_builder a = { 0 };
    argv_push(&a, "--undefined=pthread_atfork");   /* before any archive is searched */
    argv_push(&a, "--undefined=litifut_sled");     /* survives --gc-sections */
    /* Calls that may start a child sharing the caller's memory go
     * through the tracer first (stub/call.c, litifut_before_spawn), and
     * more (w->wrapped).  The wrappers' __real_ references are weak, so
     * that nothing is pulled in that the program does not use; in a
     * link against libc.a, --undefined brings the real functions in all
     * the same (those its archives have), because a wrapped call no
     * longer asks for them. */
    for (int f = 0; w->wrapped[f]; f++) {
        char *opt = xasprintf("--wrap=%s", w->wrapped[f]);
        argv_push(&a, opt);
        free(opt);
        if (w->ask_for[f]) {
            opt = xasprintf("--undefined=%s", w->wrapped[f]);
            argv_push(&a, opt);
            free(opt);
        }
    }
    if (!la->shared)
        /* libraries loaded later (dlopen) join the executable's tracer */
        argv_push(&a, "--export-dynamic-symbol=litifut_process");
    if (w->tc->island_object) {
        /* a sled copy at the start of the code; the tracer's is at its end */
        argv_push(&a, "--undefined=litifut_island_sled");
        argv_push(&a, w->tc->island_object);
    }
    /* far sleds among the inputs (farsleds.c): the same in both passes */
    int far_before = w->far_first;
    for (int i = 0; i < la->args.n; i++) {
        if (la->drop[i])
            continue;
        if (far_before && la->input[i]) {
            argv_push(&a, w->tc->far_sled_object);
            far_before = 0;
        }
        argv_push(&a, la->args.v[i]);
        if (w->far_after && w->far_after[i])
            argv_push(&a, w->tc->far_sled_object);
    }
    argv_push(&a, w->tc->tracer_object);
    argv_push(&a, db_o);
    if (map)
        argv_push(&a, "-Map");
    if (map)
        argv_push(&a, map);
    argv_push(&a, "-o");
    argv_push(&a, out);
    char *rsp = xasprintf("%s/pass%d.args", w->dir, pass);
    int st = write_response_file(rsp, a.v, a.n);
    argv_free(&a);
    if (st == 0) {
        char *at = xasprintf("@%s", rsp);
        char *said = xasprintf("%s.out", out), *said_err = xasprintf("%s.err", out);
        char *argv[] = { w->tc->real_ld, at, NULL };
        st = run_command_captured(argv, said, w->one_stream ? NULL : said_err);
        if (first || st != 0)
            replay_link(w, said, w->one_stream ? NULL : said_err, out);
        if (st > 0 && !first)
            st = error("%s: %s link failed (%s exit %d)", la->output,
                       pass == 2 ? "second" : "third", w->tc->real_ld, st);
        free(said);
        free(said_err);
        free(at);
    }
    free(rsp);
    return st;
}

/* One file of OUTPUT.litifut/ (the directory `dfd`): made afresh, never
 * through a symlink. */
static int keep_file(const struct work *w, int dfd, const char *dir, const char *from,
                     const char *to)
{
    char *src = work_path(w, from);
    int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
    struct stat st;
    int err = in < 0 || fstat(in, &st) != 0 ? errno : 0;
    if (!err && unlinkat(dfd, to, 0) != 0 && errno != ENOENT)
        err = errno;
    if (!err && (out = openat(dfd, to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                              0600)) < 0)
        err = errno;
    if (!err)
        err = copy_fd(in, out);
    if (!err && fchmod(out, st.st_mode & 07777) != 0)
        err = errno;
    if (out >= 0 && close(out) != 0 && !err)
        err = errno;
    if (in >= 0)
        close(in);
    free(src);
    if (err)
        return error("%s/%s: cannot write: %s", dir, to, strerror(err));
    return 0;
}

/* OUTPUT.litifut/: what a user needs to check or redo the rewrite.
 * Only for an output that is a regular file (not -o /dev/null), and
 * only into a directory that is not a symlink and is this user's: made
 * now, or by an earlier link. */
static int keep_intermediates(const struct work *w)
{
    static const char *const files[][2] = {
        { "unrewritten", "unrewritten" }, { "sites.tsv", "sites.tsv" }, { "db.s", "db.s" },
        { "db.s.bin", "db.s.bin" },
        { "untraced.tsv", "untraced.tsv" },
        { "pass1.map", "pass1.map" }, { "pass1", "pass1" },
        { "pass1.args", "pass1.args" }, { "pass2.args", "pass2.args" },
    };
    struct stat st;
    if (lstat(w->la->output, &st) != 0 || !S_ISREG(st.st_mode)) {
        report_warning("%s: not a regular file, LITIFUT_KEEP keeps nothing for it",
                       w->la->output);
        return 0;
    }
    char *dir = xasprintf("%s.litifut", w->la->output);
    int rc = 0, dfd = -1;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        rc = error("%s: cannot create: %s", dir, strerror(errno));
    else if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
             fstat(dfd, &st) != 0 || st.st_uid != geteuid())
        rc = error("%s: not a directory of this user's (a symlink is not followed); "
                   "LITIFUT_KEEP keeps nothing there", dir);
    for (size_t i = 0; rc == 0 && i < sizeof files / sizeof files[0]; i++)
        rc = keep_file(w, dfd, dir, files[i][0], files[i][1]);
    /* a third link's (run_passes) */
    static const char *const third[] = { "pass3.map", "pass3.args" };
    for (size_t i = 0; rc == 0 && i < sizeof third / sizeof third[0]; i++) {
        char *p = work_path(w, third[i]);
        if (access(p, F_OK) == 0)
            rc = keep_file(w, dfd, dir, third[i], third[i]);
        free(p);
    }
    if (dfd >= 0)
        close(dfd);
    free(dir);
    return rc;
}

static void remove_work_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = xasprintf("%s/%s", dir, e->d_name);
        unlink(p);
        free(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* The ranges the scans leave alone, from a link map: the crt objects,
 * the tracer, the island and far sleds; and the user's file rules. */
static int read_exclusions(struct work *w, const char *map, struct exclusions *ex)
{
    struct link_map lm = { NULL, 0 };
    if (link_map_read(map, &lm) != 0)
        return -1;
    const char *also[4] = { w->tc->tracer_object }, **more = also + 1;
    if (w->tc->island_object)
        *more++ = w->tc->island_object;
    if (w->tc->far_sled_object)
        *more++ = w->tc->far_sled_object;
    exclusions_free(ex);
    exclusions_from_map(&lm, also, ex);
    site_rules_resolve_files(w->rules, &lm, w->la->output);
    link_map_free(&lm);
    return 0;
}

/* The last step: rewrite `linked` into the output.  *moved (if not
 * NULL) is set, with no message, if its sites are not `expected`.
 * `relink`: `linked` is a third link (run_passes). */
static int rewrite_output(struct work *w, const char *linked, const struct exclusions *ex,
                          const struct site_list *expected, int *moved, int relink,
                          char **summary)
{
    char *sites_tsv = work_path(w, "sites.tsv"), *untraced_tsv = work_path(w, "untraced.tsv");
    size_t summary_len = 0;
    int rc = -1;
    /* The rewriter prints its summary line to a FILE; catch it in
     * memory and report it only once the program is in place. */
    free(*summary);
    *summary = NULL;
    FILE *summary_out = open_memstream(summary, &summary_len);
    if (!summary_out) {
        error("cannot make an in-memory stream: %s", strerror(errno));
    } else {
        char *prefix = xasprintf("%s: %s", program_name(), w->la->output);
        struct rewriter_opts rw_opts = { ex, summary_out, sites_tsv, prefix, untraced_tsv,
                                         w->rules, moved, w->entries, relink };
        rc = rewriter_rewrite(linked, &rw_opts, expected, w->la->output);
        free(prefix);
        if (fclose(summary_out) != 0 && rc == 0)
            rc = error("%s: cannot keep the summary line: %s", w->la->output, strerror(errno));
    }
    free(sites_tsv);
    free(untraced_tsv);
    return rc;
}

/* On success *summary is the rewriter's summary line (allocated).
 * Returns 0, pass 1's exit status if it failed (ld has said why), or
 * -1 after one error line.
 * Pass 2 normally leaves every call site where pass 1 had it (the DB
 * lies after the code, far sleds are there in pass 1 already).  If a
 * layout makes it move code anyway (a linker script with .rodata before
 * .text, MIPS multi-GOT links whose split the DB's size changes), a
 * third link with pass 2's inputs and a map of its own is rewritten
 * instead: its DB has room for a few pages more, its thunk area (pass
 * 1's DB written again) for a few thunks more (src/rewriter.c), and the
 * rewriter computes everything from that link itself. */
/* Where a link's time goes (LITIFUT_VERBOSE=1: one line after the
 * summary; `make bench` tabulates it). */
struct phase_times {
    double t0, last;
    char text[256];
    size_t len;
};

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void phase_done(struct phase_times *pt, const char *what)
{
    double t = now_seconds();
    if (pt->len < sizeof pt->text)
        pt->len += (size_t)snprintf(pt->text + pt->len, sizeof pt->text - pt->len, "%s%s %.2f",
                                    pt->len ? ", " : "", what, t - pt->last);
    pt->last = t;
}

static int run_passes(struct work *w, char **summary)
{
    struct phase_times pt = { now_seconds(), 0, "", 0 };
    pt.last = pt.t0;
    const struct arch_ops *arch = w->tc->arch;
    char *db0_s = work_path(w, "db0.s"), *db0_o = work_path(w, "db0.o");
    char *db_s = work_path(w, "db.s"), *db_o = work_path(w, "db.o");
    char *pass1 = work_path(w, "pass1"), *pass2 = work_path(w, "pass2");
    char *pass3 = work_path(w, "pass3"), *map3 = work_path(w, "pass3.map");
    char *map = work_path(w, "pass1.map"), *unrewritten = work_path(w, "unrewritten");
    struct site_list sites = { NULL, 0 };
    struct exclusions ex = { NULL, 0 };
    int rc = -1, moved = 0;

    if (w->tc->far_sled_object)
        w->far_after = far_sleds_place(arch, w->la, &w->far_first);
    if (!w->tc->placeholder_db &&
        (rewriter_placeholder_db(arch, db0_s) != 0 || compile_db(w, db0_s, db0_o) != 0))
        goto out;
    int st = link_pass(w, w->tc->placeholder_db ? w->tc->placeholder_db : db0_o, pass1, map, 1);
    if (st > 0)
        rc = st;                    /* the user's link fails: as it would with ld alone */
    if (st != 0 || read_exclusions(w, map, &ex) != 0)
        goto out;
    phase_done(&pt, "pass 1");

    struct rewriter_opts scan_opts = { &ex, NULL, NULL, w->la->output, NULL, w->rules, NULL,
                                       w->entries, 0 };
    if (rewriter_scan(pass1, &scan_opts, db_s, &sites) != 0)
        goto out;
    phase_done(&pt, "scan 1");
    if (compile_db(w, db_s, db_o) != 0)
        goto out;
    phase_done(&pt, "DB");
    if (link_pass(w, db_o, pass2, NULL, 2) != 0)
        goto out;
    phase_done(&pt, "pass 2");
    const char *linked = pass2;
    rc = rewrite_output(w, pass2, &ex, &sites, &moved, 0, summary);
    phase_done(&pt, "rewrite");
    if (rc != 0 && moved) {
        /* pass 1's DB again, its thunk area with room (src/rewriter.c) */
        struct site_list again = { NULL, 0 };
        linked = pass3;
        rc = -1;
        scan_opts.relink = 1;
        if (rewriter_scan(pass1, &scan_opts, db_s, &again) == 0 &&
            compile_db(w, db_s, db_o) == 0 && link_pass(w, db_o, pass3, map3, 3) == 0 &&
            read_exclusions(w, map3, &ex) == 0) {
            phase_done(&pt, "pass 3 (pass 2 moved code)");
            rc = rewrite_output(w, pass3, &ex, NULL, NULL, 1, summary);
            phase_done(&pt, "rewrite 3");
        }
        site_list_free(&again);
    }
    if (rc == 0) {
        /* at the end of the summary line (before its newline) */
        size_t len = *summary ? strlen(*summary) : 0;
        if (len && (*summary)[len - 1] == '\n')
            (*summary)[--len] = 0;
        struct rusage self, children;
        getrusage(RUSAGE_SELF, &self);
        getrusage(RUSAGE_CHILDREN, &children);
        char *line = xasprintf("%s; link %.2f s (%s; peak memory: wrapper %ld MB, linker %ld MB)\n",
                               len ? *summary : "", pt.last - pt.t0, pt.text,
                               self.ru_maxrss / 1024, children.ru_maxrss / 1024);
        free(*summary);
        *summary = line;
    }
    if (rc == 0 && getenv("LITIFUT_KEEP") && strcmp(getenv("LITIFUT_KEEP"), "1") == 0)
        rc = rename(linked, unrewritten) == 0 ? keep_intermediates(w)
                                              : error("%s: cannot rename: %s", linked,
                                                      strerror(errno));
out:
    site_list_free(&sites);
    exclusions_free(&ex);
    free(db0_s); free(db0_o); free(db_s); free(db_o);
    free(pass1); free(pass2); free(pass3); free(map3); free(map); free(unrewritten);
    free(w->far_after);
    w->far_after = NULL;
    return rc;
}

static void warn_unmatched(const char *variable, const char *pattern)
{
    report_warning("%s: %s names nothing in this link", variable, pattern);
}

/* Two descriptors open on one file (a terminal, >out 2>&1). */
static int same_file(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

int instrument_link(const struct link_args *la, const struct toolchain *tc,
                    struct site_rules *rules)
{
    const char *tmp = getenv("TMPDIR");
    struct work w = { la, tc, xasprintf("%s/litifut-XXXXXX", tmp && *tmp ? tmp : "/tmp"),
                      rules, same_file(STDOUT_FILENO, STDERR_FILENO), NULL, 0, NULL, NULL, 0 };
    if (!mkdtemp(w.dir)) {
        error("cannot create a temporary directory in %s: %s", tmp && *tmp ? tmp : "/tmp",
              strerror(errno));
        free(w.dir);
        return 1;
    }
    if (la->strip_option)
        report_warning("%s: ignoring %s: the post-processor needs the symbols", la->output,
                       la->strip_option);
    /* the common list, the entries' and the arch's (struct arch_ops' wrapped) */
    size_t n_wrapped = 0;
    const char *const *lists[] = { arch_common_wrapped, arch_entry_wrapped, tc->arch->wrapped };
    for (unsigned l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (const char *const *f = lists[l]; f && *f; f++)
            n_wrapped++;
    w.wrapped = xcalloc(n_wrapped + 1, sizeof *w.wrapped);
    w.ask_for = xcalloc(n_wrapped + 1, 1);
    n_wrapped = 0;
    for (unsigned l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (const char *const *f = lists[l]; f && *f; f++)
            w.wrapped[n_wrapped++] = *f;
    /* (a library not found: ask for all, as ld would need them) */
    if (la->static_archives && static_link_defines(la, w.wrapped, w.ask_for) != 0)
        memset(w.ask_for, 1, n_wrapped);
    /* An entry's function from an archive (pthread_create, qsort: lib/
     * arch.h): the C library's code that calls back is linked in and
     * instrumented, its call of the program's function traced as any
     * call; the tracer's entries are for a C library outside the output. */
    /* And pthread_create where it may lie in a libpthread of its own
     * (glibc before 2.34, a uClibc-ng built so: its libpthread.a in the
     * link's folders defines it, or there is none there) and --as-needed
     * is given (Debian's gcc gives it): the tracer's weak
     * __real_pthread_create is then the only reference to it, so that
     * library would be dropped, and no thread could start. */
    int as_needed = 0;
    for (int i = 0; i < la->args.n; i++)
        as_needed |= strcmp(la->args.v[i], "--as-needed") == 0 ||
                     strcmp(la->args.v[i], "-as-needed") == 0;
    if (as_needed && link_c_library(la, tc->triple) != C_LIBRARY_MUSL &&
        archive_in_folders_defines(la, "pthread", "pthread_create") != 0)
        for (size_t f = 0; f < n_wrapped; f++)
            w.ask_for[f] |= strcmp(w.wrapped[f], "pthread_create") == 0;
    for (size_t f = 0; f < n_wrapped;) {
        int entry = 0;
        for (const char *const *e = arch_entry_wrapped; *e; e++)
            entry |= strcmp(w.wrapped[f], *e) == 0;
        if (w.ask_for[f] && entry) {
            memmove(w.wrapped + f, w.wrapped + f + 1, (n_wrapped - f) * sizeof *w.wrapped);
            memmove(w.ask_for + f, w.ask_for + f + 1, n_wrapped - f);
            n_wrapped--;
        } else {
            f++;
        }
    }
    /* a C library whose start the link does not bring in (a shared one)
     * calls the constructors and destructors from outside: entries */
    for (size_t f = 0; f < n_wrapped; f++)
        w.entries |= strcmp(w.wrapped[f], "__libc_start_main") == 0;
    char *summary = NULL;
    int rc = run_passes(&w, &summary);
    if (pending_signal())
        rc = -1;                    /* a link stopped by a signal leaves no output */
    if (rc == 0 && summary && *summary)
        report_line(summary);       /* only for a program that is in place */
    if (rc == 0)
        site_rules_unmatched(rules, warn_unmatched);
    free(summary);
    free(w.wrapped);
    free(w.ask_for);
    remove_work_dir(w.dir);
    free(w.dir);
    return rc < 0 ? 1 : rc;
}

static int env_is_1(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* Writes all of `len` bytes with one write(): a file opened O_APPEND
 * takes them as one piece, whatever other links append meanwhile. */
static int write_line(int fd, const char *line, size_t len)
{
    ssize_t n = write(fd, line, len);
    if (n >= 0 && (size_t)n != len)
        errno = EIO;                /* a short write: a full disk */
    return n >= 0 && (size_t)n == len ? 0 : -1;
}

void report_line(const char *line)
{
    size_t len = strlen(line);
    if (env_is_1("LITIFUT_VERBOSE"))
        (void)write_line(STDERR_FILENO, line, len);   /* as for any diagnostic: best effort */
    const char *log = getenv("LITIFUT_LOG");
    static int log_failed;          /* one warning per link, not one per line */
    if (!log || !*log || log_failed)
        return;
    int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    int rc = fd >= 0 ? write_line(fd, line, len) : -1;
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc != 0) {
        log_failed = 1;
        warning("LITIFUT_LOG=%s: cannot append to it: %s", log, strerror(err));
    }
}

void report_warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *line = xasprintf("%s: warning: %s\n", program_name(), msg);   /* as warning() writes it */
    report_line(line);
    free(line);
}
