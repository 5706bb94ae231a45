/*
 * litifut-postproc: turns raw traces (litifut.<pid>.trace, with the
 * saved litifut.<pid>.maps) into a call log with durations, a profile,
 * a call graph, a Chrome trace, folded stacks, a per-callee summary or
 * the trace headers (report.c and view.h have the formats).  The
 * traces and every file they name come from a device and are checked
 * before use: a FIFO or device is never opened for reading, damage is
 * one line per problem.  Options are in the style of uftrace and gprof.
 * Each trace is read once, in the order forks.c plans (a fork child's
 * parent first: the stack the child inherits comes from its trace).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "postproc/drive.h"
#include "postproc/views/output.h"
#include "postproc/views/report.h"
#include "lib/error.h"

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: litifut-postproc [OPTIONS] DIR|TRACE...\n"
        "Shows the calls recorded in litifut traces (every litifut.*.trace in DIR and\n"
        "the directories below it, or litifut.*.trace.gz: gzip'ed traces and maps are\n"
        "read as they are);\n"
        "several traces (processes) add up in one output.\n"
        "\n"
        "What to show (one of):\n"
        "  (default)          the calls: --format=log (text), tsv, chrome, folded, svg\n"
        "                     or html\n"
        "  --profile          per function: calls, total (inclusive) and self time,\n"
        "                     average, min, max, self %% of the threads' time (flat, as gprof),\n"
        "                     p50, p90, p99 of the calls' durations (within 1%%)\n"
        "  --graph[=FUNC]     the call graph (as gprof's): each function's callers and\n"
        "                     callees with calls and time; =FUNC: that function only\n"
        "  --summary          calls per callee, most called first\n"
        "  --coverage         per instrumented object, the functions a traced call\n"
        "                     reached and the ones none did\n"
        "  --info             the trace headers and the instrumented objects\n"
        "  --processes        the processes as a tree in order of start (a boot chart):\n"
        "                     start, end, calls, threads, how each began (fork, exec,\n"
        "                     spawn) and its top functions by self time\n"
        "A LITIFUT_MODE=dedup or count trace holds (caller, callee) pairs, not calls\n"
        "in order: the log and --format=tsv list the pairs (first call, calls), and\n"
        "--coverage, --summary and (count) --profile count them\n"
        "How:\n"
        "  --format=log       text for people (default); the calls: start time,\n"
        "                     duration, tid, caller -> callee indented by depth\n"
        "                     (like uftrace replay)\n"
        "  --format=tsv       tab-separated values with a header line:\n"
        "                       calls:   pid tid seq site_rt target_rt site_obj site_addr\n"
        "                                site_sym target_obj target_addr target_sym\n"
        "                                callee_sym [site_line callee_line] [args]\n"
        "                                parent (args: with LITIFUT_ARGS)\n"
        "                       profile: calls total_ns self_ns avg_ns min_ns max_ns\n"
        "                                self_pct function object [srcline] [estimate]\n"
        "                                p50_ns p90_ns p99_ns\n"
        "                       diff:    calls_base calls total_base_ns total_ns\n"
        "                                total_change_ns self_base_ns self_ns\n"
        "                                self_change_ns self_change_pct function\n"
        "                                object [estimate]\n"
        "                       graph:   caller caller_obj callee callee_obj calls\n"
        "                                total_ns self_ns [estimate] [retvals]\n"
        "                       summary: calls callee callee_obj\n"
        "                       pairs:   pid calls first_ns site_rt target_rt site_obj\n"
        "                                site_addr site_sym target_obj target_addr\n"
        "                                target_sym callee_sym (calls: - in dedup)\n"
        "                       coverage: object function calls\n"
        "                       processes: pid ppid how parent_pid start_ns end_ns\n"
        "                                duration_ns calls threads program trace top\n"
        "                                (ppid: getppid() at its start; parent_pid:\n"
        "                                the traced process it came from, 0 if none)\n"
        "                       info:    trace exe pid arch endian load_bias chunk_size\n"
        "                                time_every clock clock_hz clock_read_ns returns\n"
        "                                recording stopped\n"
        "                                budget mode pairs\n"
        "                                sites threads\n"
        "                                calls entries record_bytes\n"
        "                                db_bytes bridge build_id objects untraced\n"
        "                     (load_bias db_bytes bridge build_id: the main program's,\n"
        "                     empty if it is not instrumented; sites: of every object;\n"
        "                     as text, then a line per object: object=BASE SITES\n"
        "                     0xLOAD_BIAS PATH, BASE being its first site id, and\n"
        "                     site_rules=RULES PATH if it was linked with\n"
        "                     LITIFUT_EXCLUDE or LITIFUT_ONLY, callees_skipped=SITES\n"
        "                     RULE=SITES,... PATH if LITIFUT_EXCLUDE_CALLEE was set\n"
        "                     at run time)\n"
        "                     *_rt: runtime addresses; *_addr: link-time addresses in\n"
        "                     *_obj (the file as the target named it, ? if unknown);\n"
        "                     *_sym: function+0xoffset (? if none); callee: a function\n"
        "                     name, or 0x<address> if it has none; *_ns: nanoseconds;\n"
        "                     estimate (only if a trace has estimates, below): 1 if\n"
        "                     the row's times include estimates\n"
        "  --format=chrome    the calls as Chrome trace events (JSON): open in\n"
        "                     ui.perfetto.dev or chrome://tracing\n"
        "  --format=html      one HTML report (no network): the profile table (sort,\n"
        "                     filter, callers and callees), the flame graph, a timeline\n"
        "                     per thread (the first 20000 calls), the traces' --info\n"
        "  --format=svg       the flame graph of the folded stacks, one SVG file\n"
        "                     (click to zoom, Search; nothing fetched from the network)\n"
        "  --format=folded    folded stacks weighted by self time in ns, for\n"
        "                     flamegraph.pl and speedscope\n"
        "  --sort=KEY         --profile's order: self (default), total or calls\n"
        "  --diff=OTHER       with --profile or --format=html: each function's calls,\n"
        "                     total and self\n"
        "                     time in OTHER (a DIR or trace: the base, e.g. the run\n"
        "                     before a change) and here, the change and its share of\n"
        "                     the base, the largest change (of the --sort key) first;\n"
        "                     functions matched by name, so two builds compare\n"
        "  --srcline          add file:line (DWARF) of call sites and functions\n"
        "  --auto-args        name the values LITIFUT_ARGS recorded and show them as\n"
        "                     their types (open(pathname=..., flags=O_RDONLY)): from\n"
        "                     the function's DWARF, else a table of C library functions\n"
        "Filters (every view but --info):\n"
        "  --pid=PID[,PID..]  only the traces of these processes\n"
        "  --per-process      --profile, --graph, --summary (text): each process's\n"
        "                     table first, then all of them added up\n"
        "  --per-program      the same per program: all processes of each executable\n"
        "                     (a boot's, a test suite's, every run's below DIR)\n"
        "  --tid=TID[,TID..]  only these threads\n"
        "  --function=FUNC    only calls of FUNC and what they call (repeatable)\n"
        "  --exclude=FUNC     leave out calls of FUNC and what they call (repeatable)\n"
        "                     (FUNC: a name as shown, a symbol, or a C++ name without\n"
        "                     its parameters)\n"
        "  --depth=N          only N levels of calls (from the thread's first, or from\n"
        "                     FUNC with --function)\n"
        "  --time-range=A~B   only calls starting from A to B after the trace's start\n"
        "                     (A or B may be left out; units s (default), ms, us, ns;\n"
        "                     in: instructions, of a litifut-emu trace)\n"
        "Where the files are:\n"
        "  --binary-dir DIR   find the program and libraries here, by file name; if\n"
        "                     that one is another build or stripped, the file in DIR's\n"
        "                     tree with the traced build-id (busybox_unstripped for a\n"
        "                     device's busybox), one with symbols first\n"
        "  --sysroot DIR      find target paths under DIR (e.g. /usr/arm-linux-gnueabi)\n"
        "  --debug-dir DIR    a stripped file's symbols (and DWARF) from its separate\n"
        "                     debug file, DIR/.build-id/xx/rest.debug by build-id\n"
        "                     (objcopy --only-keep-debug; /usr/lib/debug's layout)\n"
        "  -o, --output=FILE  write the output into FILE, whole or not at all (a\n"
        "                     temporary file beside it, renamed when done), gzip-\n"
        "                     compressed if FILE ends in .gz (ui.perfetto.dev opens\n"
        "                     a .json.gz as it is)\n"
        "  -h, --help         this help\n"
        "\n"
        "Functions are named \"function\" in the program, \"function (library)\" elsewhere,\n"
        "C++ names demangled; a call through a PLT entry (or the tracer's wrapper of\n"
        "vfork, setjmp, ...) counts as a call of the function it stands for.  Without\n"
        "return records a call ends when its caller (or a function below it) makes\n"
        "its next traced call; a fork child starts with its parent's frames at the\n"
        "fork if the parent's trace is there.  So where a trace has no return records\n"
        "or no per-call clock (LITIFUT_CLOCK=marks: times interpolated between time\n"
        "marks), its durations are estimates: the log, --profile and --graph say so\n"
        "in their header and put ~ before each (\"~12.345 ms\"), Chrome events get\n"
        "args.estimate and the document otherData, folded stacks a note on stderr\n"
        "if it is a terminal.  Progress goes to stderr when it is a terminal.\n");
}

/* litifut.*.trace, or litifut.*.trace.gz (gzip'ed: gz.c) */
static int is_trace_name(const char *name)
{
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
        n -= 3;
    return strncmp(name, "litifut.", 8) == 0 && n > 14 && strncmp(name + n - 6, ".trace", 6) == 0;
}

/* By directory, then by file name, shorter (pids) first. */
static int name_cmp(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    const char *bx = strrchr(x, '/'), *by = strrchr(y, '/');
    size_t dx = bx ? (size_t)(bx - x) : 0, dy = by ? (size_t)(by - y) : 0;
    int c = strncmp(x, y, dx < dy ? dx : dy);
    if (c || dx != dy)
        return c ? c : dx < dy ? -1 : 1;
    size_t lx = strlen(x), ly = strlen(y);
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

#define TREE_DEPTH 16     /* directories below the one given */

/* A run's LITIFUT_MAX_TOTAL count (trace-format.h: LITIFUT_TOTAL_FILE):
 * the processes it left without a trace, said once. */
static void say_total(const char *path)
{
    unsigned char w[12];
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);   /* (no FIFO waits) */
    ssize_t n = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, w, sizeof w) : 0;
    if (fd >= 0)
        close(fd);
    if (n != (ssize_t)sizeof w)
        return;
    uint32_t le[3], be[3];
    for (int i = 0; i < 3; i++) {
        le[i] = (uint32_t)w[4 * i] | (uint32_t)w[4 * i + 1] << 8 | (uint32_t)w[4 * i + 2] << 16 |
                (uint32_t)w[4 * i + 3] << 24;
        be[i] = (uint32_t)w[4 * i + 3] | (uint32_t)w[4 * i + 2] << 8 |
                (uint32_t)w[4 * i + 1] << 16 | (uint32_t)w[4 * i] << 24;
    }
    const uint32_t *v = le[0] == LITIFUT_TOTAL_MAGIC ? le : be[0] == LITIFUT_TOTAL_MAGIC ? be : NULL;
    if (v && v[2])
        warning("%s: the run's traces reached LITIFUT_MAX_TOTAL (%.1f MB); %" PRIu32
                " process%s started after it left no trace", path, (double)v[1] / 2048.0, v[2],
                v[2] == 1 ? "" : "es");
}

/* The traces in `dir` and the directories below it (LITIFUT_DIR's
 * patterns make a tree: boot/%e/%p), onto out[]; symbolic links to
 * directories are not followed (no loops).  0, or -1 if one could not
 * be read (said). */
static int list_tree(const char *dir, char ***out, size_t *n, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return error("%s: cannot open the directory", dir);
    struct dirent *e;
    char **subdirs = NULL;
    size_t n_subdirs = 0;
    int rc = 0;
    while ((e = readdir(d))) {
        if (is_trace_name(e->d_name)) {
            *out = xrealloc(*out, (*n + 1) * sizeof **out);
            (*out)[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
            continue;
        }
        if (strcmp(e->d_name, LITIFUT_TOTAL_FILE) == 0) {
            char *path = xasprintf("%s/%s", dir, e->d_name);
            say_total(path);
            free(path);
            continue;
        }
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        struct stat st;
        char *sub = xasprintf("%s/%s", dir, e->d_name);
        if ((e->d_type == DT_DIR || e->d_type == DT_UNKNOWN) && lstat(sub, &st) == 0 &&
            S_ISDIR(st.st_mode) && depth < TREE_DEPTH) {
            subdirs = xrealloc(subdirs, (n_subdirs + 1) * sizeof *subdirs);
            subdirs[n_subdirs++] = sub;
        } else {
            free(sub);
        }
    }
    closedir(d);
    for (size_t i = 0; i < n_subdirs; i++) {
        if (list_tree(subdirs[i], out, n, depth + 1) != 0)
            rc = -1;
        free(subdirs[i]);
    }
    free(subdirs);
    return rc;
}

/* The traces in `dir`'s tree, sorted (by directory, then shorter pids
 * first); of X and X.gz (gzip -k) X only. */
static int list_traces(const char *dir, char ***out, size_t *n)
{
    size_t first = *n;
    int rc = list_tree(dir, out, n, 0);
    if (*n > first)
        qsort(*out + first, *n - first, sizeof **out, name_cmp);
    size_t kept = first;
    for (size_t i = first; i < *n; i++) {
        size_t len = strlen((*out)[i]);
        if (kept > first && len > 3 && strcmp((*out)[i] + len - 3, ".gz") == 0 &&
            strlen((*out)[kept - 1]) == len - 3 && strncmp((*out)[kept - 1], (*out)[i], len - 3) == 0)
            free((*out)[i]);
        else
            (*out)[kept++] = (*out)[i];
    }
    *n = kept;
    return rc;
}

/* What the options asked for.  Each may be given once (again with the
 * same value is fine), but for the repeatable filters; two views at
 * once make no sense. */
struct options {
    struct view_options view;
    struct path_options paths;
    const char *format, *sort, *depth, *time_range, *output, *diff;
    int summary, info, profile, graph, coverage, processes, filters, per_process, per_program;
    /* --per-program: a view per program (the traces' exe), in order of first trace */
    struct program_view { char *exe; struct view *view; size_t traces; } *programs;
    size_t n_programs;
    int pairs_ok;               /* the view shows dedup and count traces (view_ops.pair) */
    int count_traces;           /* the first trace is a count trace */
    const char **functions, **excludes;
    size_t n_functions, n_excludes;
    uint32_t *tids, *pids;
    size_t n_tids, n_pids;
    unsigned char *pid_seen;    /* per --pid: some trace has it */
    struct stack_filters flt;
};

/* A trace with its objects. */
struct loaded {
    struct trace_file t;
    struct address_space as;
    struct program_set ps;
};

/* Opens the trace at `path` and loads every object it names that can
 * be (the calls of one that cannot be are left out: one error line
 * each, and *rc = -1).  0 if there is no trace to read: it could not
 * be opened (*rc = -1), or --pid leaves it out.  `parent_only`: it is
 * read as a fork child's parent (forks.h), not shown. */
static int load(const struct options *o, const char *path, struct loaded *l, int *rc,
                int parent_only)
{
    if (trace_open(path, &l->t) != 0) {
        *rc = -1;
        return 0;
    }
    /* litifut-emu's clock counts instructions, every other ns: the
     * first trace read says which, and one of the other kind is not
     * added up with it */
    static int clock_kind;              /* 0 not yet, 1 ns, 2 instructions */
    int kind = l->t.header.clock == LITIFUT_CLOCK_INSNS ? 2 : 1;
    if (clock_kind && kind != clock_kind && l->t.header.mode == LITIFUT_MODE_FULL && !o->info) {
        error("%s: its times are %s, the first trace's %s: read it apart (--pid, or another "
              "directory)", path, kind == 2 ? "instructions" : "ns",
              kind == 2 ? "ns" : "instructions");
        trace_free(&l->t);
        *rc = -1;
        return 0;
    }
    if (!clock_kind && l->t.header.mode == LITIFUT_MODE_FULL)
        clock_kind = kind;
    durations_set_instructions(clock_kind == 2);
    uint8_t mode = l->t.header.mode;
    if (mode != LITIFUT_MODE_FULL && !o->info && !parent_only &&
        (!o->pairs_ok || (mode == LITIFUT_MODE_DEDUP && (o->summary || o->profile)))) {
        error("%s: a LITIFUT_MODE=%s trace has (caller, callee) pairs%s, not calls in order: "
              "%s", path, mode == LITIFUT_MODE_DEDUP ? "dedup" : "count",
              mode == LITIFUT_MODE_DEDUP ? " without counts" : " with counts",
              mode == LITIFUT_MODE_DEDUP ? "the log, --format=tsv and --coverage show it"
                                         : "the log, --format=tsv, --profile, --summary and "
                                           "--coverage show it");
        trace_free(&l->t);
        *rc = -1;
        return 0;
    }
    if (!parent_only && !id_wanted(o->pids, o->n_pids, o->pid_seen, l->t.header.pid)) {
        trace_free(&l->t);
        return 0;
    }
    address_space_init(&l->as, &o->paths, l->t.header.word_size);
    address_space_load_maps(&l->as, l->t.maps_path);
    if (programs_load(&l->ps, &l->as, &l->t) != 0)   /* the objects say which sites there are */
        *rc = -1;
    return 1;
}

static void unload(struct loaded *l)
{
    programs_free(&l->ps);
    address_space_free(&l->as);
    trace_free(&l->t);
}

/* The view the options ask for. */
static struct view *make_view(const struct options *o, struct func_table *ft);

/* Trace i of the plan, read once: the stacks its fork children inherit
 * (if it is a parent), then its --info, or its calls into d's view
 * (with --per-process, into a view of its own first, under a heading
 * line; *shown counts those; with --per-program, also into its
 * program's view, whose table read_into prints at the end). */
static int process(struct options *o, struct drive *d, struct forks *f, size_t i,
                   size_t *shown)
{
    struct loaded l;
    int rc = 0;
    if (o->info && !f->v[i].wanted)
        return 0;                       /* (no stacks in --info) */
    if (!load(o, f->v[i].path, &l, &rc, !f->v[i].wanted))
        return rc;
    if (f->v[i].needed && !o->info)
        forks_replay(f, i, &l.t, &l.ps, &l.as, d->ft);
    if (f->v[i].wanted && o->info) {
        print_info(stdout, o->view.tsv, &l.t, &l.ps);
    } else if (f->v[i].wanted) {
        if (o->per_program) {
            struct view *all = d->view;
            struct options *w = o;
            size_t k = 0;
            while (k < w->n_programs && strcmp(w->programs[k].exe, l.t.header.exe) != 0)
                k++;
            if (k == w->n_programs) {
                w->programs = xrealloc(w->programs, (k + 1) * sizeof *w->programs);
                w->programs[k] = (struct program_view){ xstrdup(l.t.header.exe),
                                                        make_view(o, d->ft), 0 };
                w->n_programs++;
            }
            w->programs[k].traces++;
            d->view = w->programs[k].view;
            drive_trace(d, &l.t, &l.ps, &l.as, &f->v[i].origin);
            d->view = all;
        }
        if (o->per_process) {
            struct view *all = d->view;
            ++*shown;
            printf("# pid %" PRIu32 ": ", l.t.header.pid);
            put_clean(stdout, l.t.header.exe);
            printf(" (%s)\n", l.t.path);
            d->view = make_view(o, d->ft);
            drive_trace(d, &l.t, &l.ps, &l.as, &f->v[i].origin);
            d->view->ops->end(d->view);
            d->view = all;
        }
        drive_trace(d, &l.t, &l.ps, &l.as, &f->v[i].origin);
    }
    unload(&l);
    return rc;
}

/* Every trace at once into d's view, which interleaves them (the log);
 * parents read only for their children's stacks are let go at once. */
static int process_together(const struct options *o, struct drive *d, struct forks *f)
{
    struct loaded *l = xcalloc(f->n_order + 1, sizeof *l);
    struct drive_input *in = xcalloc(f->n_order + 1, sizeof *in);
    size_t k = 0;
    int rc = 0;
    for (size_t j = 0; j < f->n_order; j++) {
        size_t i = f->order[j];
        if (!load(o, f->v[i].path, &l[k], &rc, !f->v[i].wanted))
            continue;
        if (f->v[i].needed)
            forks_replay(f, i, &l[k].t, &l[k].ps, &l[k].as, d->ft);
        if (!f->v[i].wanted) {
            unload(&l[k]);
            continue;
        }
        in[k] = (struct drive_input){ &l[k].t, &l[k].ps, &l[k].as, &f->v[i].origin };
        k++;
    }
    if (k)
        drive_traces(d, in, k);
    for (size_t i = 0; i < k; i++)
        unload(&l[i]);
    free(in);
    free(l);
    return rc;
}

/* Sets *slot to `value` unless it has another value already. */
static int set_once(const char **slot, const char *value, const char *option)
{
    if (*slot && strcmp(*slot, value) != 0) {
        error("%s given twice (%s and %s)", option, *slot, value);
        return -1;
    }
    *slot = value;
    return 0;
}

static void add_name(const char ***v, size_t *n, const char *name)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = name;
}

/* "123,456": thread or process ids (--tid, --pid) onto ids[]. */
static int parse_ids(const char *option, const char *what, const char *arg, uint32_t **ids,
                     size_t *n)
{
    const char *s = arg;
    for (;;) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || *s == '-' || *s == '+' || errno || v == 0 || v > UINT32_MAX ||
            (*end && *end != ','))
            return error("%s=%s: expected %s ids, separated by commas", option, arg, what);
        *ids = xrealloc(*ids, (*n + 1) * sizeof **ids);
        (*ids)[(*n)++] = (uint32_t)v;
        if (!*end)
            return 0;
        s = end + 1;
    }
}

/* A time after the trace's start: "1.5", "1.5s", "200ms", "30us", "100ns";
 * or "2500000in": instructions, litifut-emu's clock (its "ns"). */
static int parse_time(const char *s, size_t len, uint64_t *ns)
{
    static const struct { const char *unit; double ns; } units[] = {
        { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 }, { "in", 1 },
    };
    char buf[64];
    if (len == 0 || len >= sizeof buf || s[0] == '-' || s[0] == '+')
        return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || errno || !(v >= 0) || v > 1e19)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(end, units[i].unit) == 0 && v * units[i].ns <= 1.8e19) {
            *ns = (uint64_t)(v * units[i].ns + 0.5);
            return 0;
        }
    return -1;
}

static int parse_time_range(struct options *o, const char *arg)
{
    const char *sep = strchr(arg, '~');
    o->flt.from_ns = 0;
    o->flt.to_ns = UINT64_MAX;
    if (!sep || strchr(sep + 1, '~') || (sep == arg && !sep[1]) ||
        (sep > arg && parse_time(arg, (size_t)(sep - arg), &o->flt.from_ns) != 0) ||
        (sep[1] && parse_time(sep + 1, strlen(sep + 1), &o->flt.to_ns) != 0))
        return error("--time-range=%s: expected START~END (either may be left out), times "
                     "in s, ms, us or ns, or instructions in (e.g. 1.5~2s, 200ms~, 5000in~)",
                     arg);
    if (o->flt.from_ns > o->flt.to_ns)
        return error("--time-range=%s: the range ends before it starts", arg);
    return 0;
}

static int parse_depth(struct options *o)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(o->depth, &end, 10);
    if (end == o->depth || *end || errno || o->depth[0] == '-' || v == 0 || v > UINT32_MAX)
        return error("--depth=%s: expected a number of levels, 1 or more", o->depth);
    o->flt.max_depth = (uint32_t)v;
    return 0;
}

/* The format and the view go together: chrome, folded, svg and html are views of
 * the calls of their own. */
static int check_format(struct options *o)
{
    const char *f = o->format ? o->format : "log";
    int views = o->summary + o->info + o->profile + o->graph + o->coverage + o->processes;
    if (strcmp(f, "log") && strcmp(f, "tsv") && strcmp(f, "chrome") && strcmp(f, "folded") &&
        strcmp(f, "svg") && strcmp(f, "html"))
        return error("--format=%s: expected log, tsv, chrome, folded, svg or html", f);
    if (views && (!strcmp(f, "chrome") || !strcmp(f, "folded") || !strcmp(f, "svg") ||
                  !strcmp(f, "html")))
        return error("--format=%s shows the calls: not with --%s", f,
                     o->summary ? "summary" : o->info ? "info" : o->profile ? "profile"
                     : o->graph ? "graph" : o->coverage ? "coverage" : "processes");
    o->view.tsv = strcmp(f, "tsv") == 0;
    return 0;
}

static int check_sort(struct options *o)
{
    if (!o->sort)
        return 0;
    if (!o->profile)
        return error("--sort=%s orders --profile", o->sort);
    if (!strcmp(o->sort, "self"))
        o->view.sort = SORT_SELF;
    else if (!strcmp(o->sort, "total"))
        o->view.sort = SORT_TOTAL;
    else if (!strcmp(o->sort, "calls"))
        o->view.sort = SORT_CALLS;
    else
        return error("--sort=%s: expected self, total or calls", o->sort);
    return 0;
}

static int check_options(struct options *o)
{
    if (o->summary + o->info + o->profile + o->graph + o->coverage + o->processes > 1)
        return error("--summary, --info, --profile, --graph, --coverage, --processes: choose "
                     "one view");
    if (check_format(o) != 0 || check_sort(o) != 0)
        return -1;
    o->flt.max_depth = UINT32_MAX;
    o->flt.to_ns = UINT64_MAX;
    if (o->info && (o->filters || o->view.srcline))
        return error("--info shows the trace headers: the filters and --srcline do not apply");
    if (o->per_process && (o->view.tsv || !(o->profile || o->graph || o->summary)))
        return error("--per-process: for --profile, --graph or --summary, as text");
    if (o->per_program && (o->view.tsv || !(o->profile || o->graph || o->summary)))
        return error("--per-program: for --profile, --graph or --summary, as text");
    if (o->per_program && o->per_process)
        return error("--per-program, --per-process: choose one");
    int html = o->format && !strcmp(o->format, "html");
    if (o->diff && ((!o->profile && !html) || o->per_process || o->per_program ||
                    o->view.srcline))
        return error("--diff=OTHER: for --profile (text or tsv) or --format=html, without "
                     "--per-process, --per-program and --srcline");
    if ((o->depth && parse_depth(o) != 0) ||
        (o->time_range && parse_time_range(o, o->time_range) != 0))
        return -1;
    o->flt.focus = o->n_functions > 0;
    o->flt.by_function = o->n_functions > 0 || o->n_excludes > 0;
    return 0;
}

enum { OPT_FORMAT = 256, OPT_SUMMARY, OPT_INFO, OPT_PROFILE, OPT_GRAPH, OPT_SORT, OPT_SRCLINE,
       OPT_AUTO_ARGS,
       OPT_TID, OPT_FUNCTION, OPT_EXCLUDE, OPT_DEPTH, OPT_TIME_RANGE, OPT_BINARY_DIR,
       OPT_SYSROOT, OPT_PID, OPT_PER_PROCESS, OPT_PER_PROGRAM, OPT_COVERAGE, OPT_PROCESSES, OPT_OUTPUT, OPT_DIFF, OPT_DEBUG_DIR };

/* 0 and the options, 1 after --help, -1 after one error line. */
static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT },
        { "summary", no_argument, NULL, OPT_SUMMARY },
        { "coverage", no_argument, NULL, OPT_COVERAGE },
        { "processes", no_argument, NULL, OPT_PROCESSES },
        { "info", no_argument, NULL, OPT_INFO },
        { "profile", no_argument, NULL, OPT_PROFILE },
        { "graph", optional_argument, NULL, OPT_GRAPH },
        { "sort", required_argument, NULL, OPT_SORT },
        { "srcline", no_argument, NULL, OPT_SRCLINE },
        { "auto-args", no_argument, NULL, OPT_AUTO_ARGS },
        { "tid", required_argument, NULL, OPT_TID },
        { "pid", required_argument, NULL, OPT_PID },
        { "per-process", no_argument, NULL, OPT_PER_PROCESS },
        { "per-program", no_argument, NULL, OPT_PER_PROGRAM },
        { "function", required_argument, NULL, OPT_FUNCTION },
        { "exclude", required_argument, NULL, OPT_EXCLUDE },
        { "depth", required_argument, NULL, OPT_DEPTH },
        { "time-range", required_argument, NULL, OPT_TIME_RANGE },
        { "binary-dir", required_argument, NULL, OPT_BINARY_DIR },
        { "sysroot", required_argument, NULL, OPT_SYSROOT },
        { "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
        { "output", required_argument, NULL, 'o' },
        { "diff", required_argument, NULL, OPT_DIFF },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, rc = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT: rc = set_once(&o->format, optarg, "--format"); break;
        case OPT_SUMMARY: o->summary = 1; break;
        case OPT_COVERAGE: o->coverage = 1; break;
        case OPT_PROCESSES: o->processes = 1; break;
        case OPT_INFO: o->info = 1; break;
        case OPT_PROFILE: o->profile = 1; break;
        case OPT_GRAPH:
            o->graph = 1;
            if (optarg && !*optarg)
                rc = error("--graph=: expected a function name");
            else if (optarg)
                rc = set_once(&o->view.graph_func, optarg, "--graph");
            break;
        case OPT_SORT: rc = set_once(&o->sort, optarg, "--sort"); break;
        case OPT_SRCLINE: o->view.srcline = 1; break;
        case OPT_AUTO_ARGS: o->view.auto_args = 1; break;
        case OPT_TID:
            rc = parse_ids("--tid", "thread", optarg, &o->tids, &o->n_tids);
            o->filters = 1;
            break;
        case OPT_PID: rc = parse_ids("--pid", "process", optarg, &o->pids, &o->n_pids); break;
        case OPT_PER_PROCESS: o->per_process = 1; break;
        case OPT_PER_PROGRAM: o->per_program = 1; break;
        case OPT_FUNCTION: add_name(&o->functions, &o->n_functions, optarg); o->filters = 1; break;
        case OPT_EXCLUDE: add_name(&o->excludes, &o->n_excludes, optarg); o->filters = 1; break;
        case OPT_DEPTH: rc = set_once(&o->depth, optarg, "--depth"); o->filters = 1; break;
        case OPT_TIME_RANGE:
            rc = set_once(&o->time_range, optarg, "--time-range");
            o->filters = 1;
            break;
        case OPT_BINARY_DIR: rc = set_once(&o->paths.binary_dir, optarg, "--binary-dir"); break;
        case OPT_SYSROOT: rc = set_once(&o->paths.sysroot, optarg, "--sysroot"); break;
        case OPT_DEBUG_DIR: rc = set_once(&o->paths.debug_dir, optarg, "--debug-dir"); break;
        case 'o': rc = set_once(&o->output, optarg, "--output"); break;
        case OPT_DIFF: rc = set_once(&o->diff, optarg, "--diff"); break;
        case 'h': usage(stdout); return 1;
        default: return -1;             /* getopt said what */
        }
    }
    return rc == 0 ? check_options(o) : -1;
}

static struct view *make_view(const struct options *o, struct func_table *ft)
{
    const char *f = o->format ? o->format : "log";
    if (o->coverage)
        return coverage_view(stdout, ft, &o->view);
    if (o->processes)
        return processes_view(stdout, ft, &o->view);
    if (o->summary || (o->profile && o->count_traces))
        return summary_view(stdout, ft, &o->view);  /* (a count trace: calls, no times) */
    if (o->profile)
        return profile_view(stdout, ft, &o->view);
    if (o->graph)
        return graph_view(stdout, ft, &o->view);
    if (!strcmp(f, "chrome"))
        return chrome_view(stdout, ft, &o->view);
    if (!strcmp(f, "folded"))
        return folded_view(stdout, ft, &o->view);
    if (!strcmp(f, "svg"))
        return flame_svg_view(stdout, ft, &o->view);
    if (!strcmp(f, "html"))
        return html_view(stdout, ft, &o->view);
    if (o->view.tsv)
        return calls_tsv_view(stdout, ft, &o->view);
    return replay_view(stdout, ft, &o->view);
}

/* A function name given (--function, --exclude, --graph=) that no
 * function of the traces has: said, as it is likely a typo. */
static void warn_unknown(const struct func_table *ft, const char *option, const char *name)
{
    for (size_t i = 0; i < ft->n; i++)
        if (func_matches(&ft->v[i], name))
            return;
    warning("%s=%s: no such function in the traces", option, name);
}

static void free_options(struct options *o)
{
    free(o->functions);
    free(o->excludes);
    free(o->tids);
    free(o->pids);
    free(o->pid_seen);
}

/* Reads the traces of args (directories or trace files) into a view:
 * `given` (--diff's), else the one the options ask for (made here),
 * whose end the caller calls: *view.  ft set up here (the caller frees
 * it after the view's end).  Warns about the filters nothing matched.
 * 0, or 1 if something could not be read. */
static int read_into(struct options *o, char **args, int n_args, struct func_table *ft,
                     struct view *given, struct view **view)
{
    int rc = 0;
    char **traces = NULL;
    size_t n = 0;
    *view = given;
    memset(ft, 0, sizeof *ft);
    ft->focus = o->functions;
    ft->n_focus = o->n_functions;
    ft->exclude = o->excludes;
    ft->n_exclude = o->n_excludes;
    ft->srcline = o->view.srcline;
    ft->protos = o->view.auto_args;
    for (int i = 0; i < n_args; i++) {
        struct stat st;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (list_traces(args[i], &traces, &n) != 0)
                rc = 1;
        } else {
            traces = xrealloc(traces, (n + 1) * sizeof *traces);
            traces[n++] = xstrdup(args[i]);
        }
    }
    if (!n) {
        if (rc == 0)
            error("no litifut.*.trace files in %s", args[0]);
        free(traces);
        return 1;
    }
    struct drive d;
    memset(&d, 0, sizeof d);
    d.ft = ft;
    d.flt = o->flt;
    d.tids = o->tids;
    d.n_tids = o->n_tids;
    d.tid_seen = xcalloc(o->n_tids + 1, 1);
    d.progress = isatty(STDERR_FILENO);
    o->view.notes = d.progress;         /* (folded stacks: what their weights estimate) */
    free(o->pid_seen);
    o->pid_seen = xcalloc(o->n_pids + 1, 1);
    if (o->info && o->view.tsv)
        print_info_header(stdout);
    else if (!o->info && given)
        d.view = given;
    else if (!o->info) {
        o->count_traces = trace_peek_mode(traces[0]) == LITIFUT_MODE_COUNT;
        d.view = make_view(o, ft);
    }
    if (d.view)
        o->pairs_ok = d.view->ops->pair != NULL;
    size_t shown = 0;           /* --per-process: the processes shown one by one */
    struct forks forks;         /* which trace is whose fork parent; the order to read them */
    forks_plan(&forks, traces, n, o->pids, o->n_pids, o->pid_seen);
    if (d.view && d.view->ops->merged && forks.n_order > 1) {
        if (process_together(o, &d, &forks) != 0)
            rc = 1;
    } else {
        for (size_t j = 0; j < forks.n_order; j++)
            if (process(o, &d, &forks, forks.order[j], &shown) != 0)
                rc = 1;
    }
    forks_free(&forks);
    for (size_t k = 0; k < o->n_programs; k++) {      /* --per-program */
        printf("# program ");
        put_clean(stdout, o->programs[k].exe);
        printf(": %zu process%s\n", o->programs[k].traces,
               o->programs[k].traces == 1 ? "" : "es");
        o->programs[k].view->ops->end(o->programs[k].view);
        free(o->programs[k].exe);
    }
    if (o->n_programs)
        printf("# all %zu programs\n", o->n_programs);
    free(o->programs);
    o->programs = NULL;
    o->n_programs = 0;
    if (o->per_process && shown > 1)
        printf("# all %zu processes\n", shown);
    for (size_t i = 0; i < n; i++)
        free(traces[i]);
    drive_done(&d);
    for (size_t i = 0; i < o->n_pids; i++)
        if (!o->pid_seen[i])
            warning("--pid=%" PRIu32 ": no such process in the traces", o->pids[i]);
    for (size_t i = 0; i < o->n_tids; i++)
        if (!d.tid_seen[i])
            warning("--tid=%" PRIu32 ": no such thread in the traces", o->tids[i]);
    for (size_t i = 0; i < o->n_functions; i++)
        warn_unknown(ft, "--function", o->functions[i]);
    for (size_t i = 0; i < o->n_excludes; i++)
        warn_unknown(ft, "--exclude", o->excludes[i]);
    if (o->view.graph_func)
        warn_unknown(ft, "--graph", o->view.graph_func);
    free(d.tid_seen);
    free(traces);
    *view = d.view;
    return rc;
}

int main(int argc, char **argv)
{
    set_program_name("litifut-postproc");
    /* Views write hundreds of MB: into a file or a pipe, in large
     * writes (a terminal keeps its line buffering) */
    static char stdout_buffer[64 * 1024];
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, stdout_buffer, _IOFBF, sizeof stdout_buffer);
    struct options o;
    memset(&o, 0, sizeof o);
    int rc = parse_options(argc, argv, &o);
    if (rc != 0 || optind == argc) {
        if (rc == 0)
            usage(stderr);
        free_options(&o);
        return rc > 0 ? 0 : 2;
    }
    struct output out = { 0 };
    if (o.output && output_begin(&out, o.output) != 0) {
        free_options(&o);
        return 1;
    }
    struct func_table ft, base_ft;
    struct view *view = NULL, *base = NULL;
    if (o.diff) {               /* --profile --diff=OTHER: OTHER's profile first, kept */
        char *other[] = { (char *)o.diff };
        base = profile_base_view(&base_ft, &o.view);
        rc = read_into(&o, other, 1, &base_ft, base, &base);
        if (rc == 0) {
            struct view *diff;
            if (o.format && !strcmp(o.format, "html")) {
                diff = html_view(stdout, &ft, &o.view);
                html_set_base(diff, base, o.diff);
            } else {
                diff = profile_diff_view(stdout, &ft, &o.view, base, o.diff);
            }
            rc = read_into(&o, argv + optind, argc - optind, &ft, diff, &view);
        }
        else
            memset(&ft, 0, sizeof ft);
    } else {
        rc = read_into(&o, argv + optind, argc - optind, &ft, NULL, &view);
    }
    if (view)
        view->ops->end(view);
    else if (base)
        base->ops->end(base);
    func_table_free(&ft);
    if (o.diff)
        func_table_free(&base_ft);
    free_options(&o);
    if (output_finish(&out, rc == 0) != 0)
        rc = 1;
    return rc;
}
