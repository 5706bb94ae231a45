/*
 * Fuzzes litifut-postproc whole: the trace reader (postproc/trace.c:
 * header, OBJECT and UNLOAD records, calls), the saved maps reader and
 * symbols (symbols.c), the object loader (program.c) and every view
 * (report.c; the inferred call stack, callstack.c, and the time views).
 * postproc/main.c is compiled with -Dmain=litifut_postproc_main and
 * run as the command would be.
 *
 * Input: a 4-byte little-endian word, n bytes of trace (litifut.1.trace),
 * the rest is the saved maps (litifut.1.maps).  The word's bits 28..0
 * are n, bit 31 chooses --format=tsv for every view that has it (else
 * log), bits 30..29 the time view run besides the calls (the log with
 * its call stacks, or the TSV), --summary, --coverage and --info: 0 --profile,
 * 1 --graph, 2 --format=chrome (with bit 31: --format=html), 3
 * --format=folded (with bit 31: --format=svg) (the seeds, whose bits
 * 30..29 are 0, run --profile).  A trace that begins with gzip's magic
 * is inflated first, as any view does (seed arm-demo-gz).
 * Both go into a scratch directory that also holds every seed program
 * (fuzz/corpus/elfdb, copied once); the post-processor runs on that
 * directory with --binary-dir pointing at it, so an OBJECT record
 * naming /target/arm-demo gets the seed program arm-demo.  Each input
 * is run through five views: the calls, --summary, --coverage, --info and the time
 * view its word chooses (each reads the trace and loads its objects
 * again, most of the time an input takes: the format and the time view
 * are chosen by the input rather than multiplying that); stdout goes to
 * /dev/null (FUZZ_SHOW_OUTPUT=1 keeps it, to look at one input).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/common.h"

int litifut_postproc_main(int argc, char **argv);
extern int optind;

static char trace_path[4096], maps_path[4096];
static int devnull = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    char *progs = fuzz_corpus_file("elfdb");
    if (fuzz_copy_dir(progs, fuzz_dir()) == 0)
        fuzz_die("no programs (set LITIFUT_FUZZ_CORPUS) in", progs);
    free(progs);
    fuzz_path(trace_path, sizeof trace_path, "litifut.1.trace");
    fuzz_path(maps_path, sizeof maps_path, "litifut.1.maps");
    const char *show = getenv("FUZZ_SHOW_OUTPUT");
    if (!show || strcmp(show, "1") != 0) {
        devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (devnull < 0)
            fuzz_die("cannot open", "/dev/null");
    }
    return 0;
}

static void run(const char *view, const char *format)
{
    char *argv[8];
    int argc = 0;
    argv[argc++] = (char *)"litifut-postproc";
    if (view)
        argv[argc++] = (char *)view;
    if (format)
        argv[argc++] = (char *)format;
    argv[argc++] = (char *)"--binary-dir";
    argv[argc++] = (char *)fuzz_dir();
    argv[argc++] = (char *)fuzz_dir();
    argv[argc] = NULL;

    int saved = -1;
    fflush(stdout);
    if (devnull >= 0) {
        saved = dup(1);
        dup2(devnull, 1);
    }
    optind = 0;                         /* getopt_long starts over */
    litifut_postproc_main(argc, argv);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, 1);
        close(saved);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    uint32_t w = (uint32_t)data[0] | (uint32_t)data[1] << 8 | (uint32_t)data[2] << 16 |
                 (uint32_t)data[3] << 24;
    static const char *const time_views[] = { "--profile", "--graph", "--format=chrome",
                                              "--format=folded" };
    /* with bit 31 (tsv), chrome and folded give way to html and svg, which
     * hold the profile, the graph's edges and the folded stacks too */
    static const char *const tsv_time_views[] = { "--profile", "--graph", "--format=html",
                                                  "--format=svg" };
    size_t n = w & 0x1fffffff;
    const char *format = w >> 31 ? "--format=tsv" : "--format=log";
    const char *time_view = (w >> 31 ? tsv_time_views : time_views)[(w >> 29) & 3];
    data += 4;
    size -= 4;
    if (n > size)
        n = size;
    fuzz_write_file(trace_path, data, n);
    if (size > n)
        fuzz_write_file(maps_path, data + n, size - n);
    else
        unlink(maps_path);              /* no maps: the program died early */

    run(NULL, format);                  /* the calls */
    run("--summary", format);
    run("--coverage", format);
    run("--info", format);
    run("--processes", format);
    /* chrome, folded, html and svg are formats of their own */
    run(time_view, (w >> 29) & 2 ? NULL : format);

    unlink(trace_path);
    unlink(maps_path);
    return 0;
}
