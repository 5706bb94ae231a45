/*
 * litifut-postproc: turns raw traces (litifut.<pid>.trace, with the
 * saved litifut.<pid>.maps) into a symbolized call log, a TSV table or
 * a per-callee summary.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "report.h"
#include "error.h"

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: litifut-postproc [OPTIONS] DIR|TRACE...\n"
        "Prints the calls recorded in litifut traces (every litifut.*.trace in DIR).\n"
        "\n"
        "  --format=log      call log, one line per call (default)\n"
        "  --format=tsv      one tab-separated row per call, with a header line\n"
        "  --summary         calls per callee, most called first\n"
        "  --info            the trace headers, as key=value lines\n"
        "  --binary-dir DIR  find the program and libraries here, by file name\n"
        "  --sysroot DIR     find target paths under DIR (e.g. /usr/arm-linux-gnueabi)\n"
        "  -h, --help        this help\n");
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

static int process(struct report *r, const char *path, const struct path_options *paths)
{
    struct trace_file t;
    struct address_space as;
    struct program p;
    if (trace_read(path, &t) != 0)
        return -1;
    address_space_init(&as, paths);
    address_space_load_maps(&as, t.maps_path);
    int rc = program_load(&p, &as, &t);
    if (rc == 0)
        report_trace(r, &t, &p, &as);
    program_free(&p);
    address_space_free(&as);
    trace_free(&t);
    return rc;
}

int main(int argc, char **argv)
{
    set_program_name("litifut-postproc");
    static const struct option longopts[] = {
        { "format", required_argument, NULL, 'f' },
        { "summary", no_argument, NULL, 's' },
        { "info", no_argument, NULL, 'i' },
        { "binary-dir", required_argument, NULL, 'b' },
        { "sysroot", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct report r = { .format = REPORT_LOG, .out = stdout };
    struct path_options paths = { NULL, NULL };
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (strcmp(optarg, "log") == 0)
                r.format = REPORT_LOG;
            else if (strcmp(optarg, "tsv") == 0)
                r.format = REPORT_TSV;
            else {
                error("--format=%s: expected log or tsv", optarg);
                return 2;
            }
            break;
        case 's': r.format = REPORT_SUMMARY; break;
        case 'i': r.format = REPORT_INFO; break;
        case 'b': paths.binary_dir = optarg; break;
        case 'r': paths.sysroot = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
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
                return 1;
        } else {
            traces = xrealloc(traces, (n + 1) * sizeof *traces);
            traces[n++] = xstrdup(argv[i]);
        }
    }
    if (!n) {
        error("no litifut.*.trace files in %s", argv[optind]);
        return 1;
    }
    int rc = 0;
    report_begin(&r);
    for (size_t i = 0; i < n; i++) {
        if (process(&r, traces[i], &paths) != 0)
            rc = 1;
        free(traces[i]);
    }
    report_end(&r);
    free(traces);
    return rc;
}
