/*
 * litifut-postproc: turns raw traces (litifut.<pid>.trace, with the
 * saved litifut.<pid>.maps) into a symbolized call log, a per-callee
 * summary or the trace headers, as text or TSV (report.c has the
 * columns and how callees are named).  The traces and every file they
 * name come from a device and are checked before use: a FIFO or device
 * is never opened for reading, damage is one line per problem.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "postproc/report.h"
#include "lib/error.h"

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: litifut-postproc [OPTIONS] DIR|TRACE...\n"
        "Prints the calls recorded in litifut traces (every litifut.*.trace in DIR).\n"
        "\n"
        "What to print (one of):\n"
        "  (default)         the calls, one line (row) per call\n"
        "  --summary         calls per callee, most called first\n"
        "  --info            the trace headers and the instrumented objects\n"
        "How:\n"
        "  --format=log      text for people (default)\n"
        "  --format=tsv      tab-separated values with a header line:\n"
        "                      calls:   pid tid seq site_rt target_rt site_obj site_addr\n"
        "                               site_sym target_obj target_addr target_sym\n"
        "                               callee_sym\n"
        "                      summary: calls callee callee_obj\n"
        "                      info:    trace exe pid arch endian load_bias chunk_size\n"
        "                               time_every sites threads calls record_bytes\n"
        "                               db_bytes bridge build_id objects\n"
        "                    (load_bias db_bytes bridge build_id: the main program's,\n"
        "                    empty if it is not instrumented; sites: of every object;\n"
        "                    as text, then a line per object: object=BASE SITES\n"
        "                    0xLOAD_BIAS PATH, BASE being its first site id)\n"
        "                    *_rt: runtime addresses; *_addr: link-time addresses in\n"
        "                    *_obj (the file as the target named it, ? if unknown);\n"
        "                    *_sym: function+0xoffset (? if none); callee: a function\n"
        "                    name, or 0x<address> if it has none\n"
        "Where the files are:\n"
        "  --binary-dir DIR  find the program and libraries here, by file name\n"
        "  --sysroot DIR     find target paths under DIR (e.g. /usr/arm-linux-gnueabi)\n"
        "  -h, --help        this help\n"
        "\n"
        "Callees are named \"function\" in the program, \"function (library)\" elsewhere;\n"
        "a call through a PLT entry counts as a call of the function it imports.\n");
}

static int is_trace_name(const char *name)
{
    size_t n = strlen(name);
    return strncmp(name, "litifut.", 8) == 0 && n > 14 && strcmp(name + n - 6, ".trace") == 0;
}

static int name_cmp(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t lx = strlen(x), ly = strlen(y);          /* shorter pids first */
    return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* The traces in `dir`, sorted. */
static int list_traces(const char *dir, char ***out, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return error("%s: cannot open the directory", dir);
    struct dirent *e;
    while ((e = readdir(d)))
        if (is_trace_name(e->d_name)) {
            *out = xrealloc(*out, (*n + 1) * sizeof **out);
            (*out)[(*n)++] = xasprintf("%s/%s", dir, e->d_name);
        }
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, name_cmp);
    return 0;
}

/* One trace: every object it names that can be loaded is; the calls of
 * one that cannot be are left out (one error line each, exit 1). */
static int process(struct report *r, const char *path, const struct path_options *paths)
{
    struct trace_file t;
    struct address_space as;
    struct program_set ps;
    if (trace_open(path, &t) != 0)
        return -1;
    address_space_init(&as, paths);
    address_space_load_maps(&as, t.maps_path);
    int rc = programs_load(&ps, &as, &t);
    trace_read_records(&t);             /* the objects loaded say which sites there are */
    report_trace(r, &t, &ps, &as);
    programs_free(&ps);
    address_space_free(&as);
    trace_free(&t);
    return rc;
}

/* What the options asked for.  Each may be given once (again with the
 * same value is fine); two views at once make no sense. */
struct options {
    struct report report;
    struct path_options paths;
    const char *format;
    int summary, info;
};

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

static int check_options(struct options *o)
{
    if (o->summary && o->info) {
        error("--summary and --info: choose one view");
        return -1;
    }
    if (o->format && strcmp(o->format, "log") != 0 && strcmp(o->format, "tsv") != 0) {
        error("--format=%s: expected log or tsv", o->format);
        return -1;
    }
    o->report.view = o->summary ? VIEW_SUMMARY : o->info ? VIEW_INFO : VIEW_CALLS;
    o->report.tsv = o->format && strcmp(o->format, "tsv") == 0;
    return 0;
}

/* 0 and the options, 1 after --help, -1 after one error line. */
static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "summary", no_argument, NULL, 's' },
        { "info", no_argument, NULL, 'i' },
        { "binary-dir", required_argument, NULL, 'b' },
        { "sysroot", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c, rc = 0;
    while (rc == 0 && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': rc = set_once(&o->format, optarg, "--format"); break;
        case 's': o->summary = 1; break;
        case 'i': o->info = 1; break;
        case 'b': rc = set_once(&o->paths.binary_dir, optarg, "--binary-dir"); break;
        case 'r': rc = set_once(&o->paths.sysroot, optarg, "--sysroot"); break;
        case 'h': usage(stdout); return 1;
        default: return -1;             /* getopt said what */
        }
    }
    return rc == 0 ? check_options(o) : -1;
}

int main(int argc, char **argv)
{
    set_program_name("litifut-postproc");
    struct options o;
    memset(&o, 0, sizeof o);
    o.report.out = stdout;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (optind == argc) {
        usage(stderr);
        return 2;
    }
    char **traces = NULL;
    size_t n = 0;
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (list_traces(argv[i], &traces, &n) != 0)
                rc = 1;
        } else {
            traces = xrealloc(traces, (n + 1) * sizeof *traces);
            traces[n++] = xstrdup(argv[i]);
        }
    }
    if (!n) {
        if (rc == 0)
            error("no litifut.*.trace files in %s", argv[optind]);
        free(traces);
        return 1;
    }
    report_begin(&o.report);
    for (size_t i = 0; i < n; i++) {
        if (process(&o.report, traces[i], &o.paths) != 0)
            rc = 1;
        free(traces[i]);
    }
    report_end(&o.report);
    free(traces);
    return rc;
}
