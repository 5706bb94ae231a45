/*
 * shmain.c - the program of the shared-library tests (tests/shlib.sh):
 * linked against libcalc.so.1 and libshapes.so.1, it
 *  - calls into both (libcalc calls libshapes in turn), passes a
 *    callback to libcalc (a call from the library into the program);
 *  - dlopens libplugin.so, calls it through dlsym (with a callback),
 *    writes the load map (argv[1], if given: loadmap.h) while the
 *    plugin is loaded, dlcloses it, and goes on making calls;
 *  - runs 4 threads that each call into libcalc ITERS times, joined
 *    (main first makes the same calls itself, for the expected results,
 *    which also resolves every lazy binding the threads use before they
 *    start: on MIPS a call through an unresolved GOT entry goes to a
 *    stub, and threads racing to it would make timing-dependent calls);
 *  - prints every result (in a fixed order), checks each against a
 *    value computed here, and exits with 0 if all agree, 1 if not, 2 if
 *    the plugin cannot be loaded.
 */
#define _GNU_SOURCE                     /* dl_iterate_phdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "loadmap.h"
#include "shlib.h"

#define NOINLINE __attribute__((noinline))
#define NTHREADS 4
#define ITERS 1500

static int bad;

NOINLINE static void expect(const char *what, long got, long want)
{
    printf("%s = %ld\n", what, got);
    if (got != want) {
        printf("  wrong: expected %ld\n", want);
        bad = 1;
    }
}

NOINLINE static int scale(int value, void *ctx)         /* libcalc calls back */
{
    return value * *(int *)ctx;
}

NOINLINE static int negate(int value)                   /* the plugin calls back */
{
    return -value;
}

struct worker {
    pthread_t thread;
    int index;
    unsigned result;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->result = calc_thread_work(w->index, ITERS);
    return NULL;
}

int main(int argc, char **argv)
{
    static const int values[] = { 3, 1, 4, 1, 5, 9, 2, 6 };
    static const int sides[] = { 2, -1, 3, -4, 5 };
    const int n = sizeof values / sizeof values[0];
    int k = 3, errors = 0;

    expect("calc_init_total", calc_init_total, 33);
    expect("calc_poly(5)", calc_poly(5), 47);
    expect("calc_sum", calc_sum(values, n), 31);
    expect("calc_map_reduce", calc_map_reduce(values, n, scale, &k), 2 * 3 * 31);
    int with_shapes = calc_with_shapes(4);
    expect("calc_with_shapes(4) - shapes_total_area(4)", with_shapes - shapes_total_area(4),
           calc_poly(4));
    expect("shapes_checked_sum", shapes_checked_sum(sides, 5, &errors), 5 + 10 + 26);
    expect("shapes_checked_sum errors", errors, 2);

    void *plugin = dlopen("libplugin.so", RTLD_NOW);
    if (!plugin) {
        printf("dlopen: %s\n", dlerror());
        return 2;
    }
    plugin_apply_fn apply = (plugin_apply_fn)dlsym(plugin, "plugin_apply");
    plugin_name_fn name = (plugin_name_fn)dlsym(plugin, "plugin_name");
    if (!apply || !name) {
        printf("dlsym: %s\n", dlerror());
        return 2;
    }
    printf("plugin %s\n", name());
    int want = 0;
    for (int i = 0; i < 5; i++)
        want = want * 31 - (7 + i + 1000);
    expect("plugin_apply(7, negate)", apply(7, negate), want);
    if (argc > 1 && write_loadmap(argv[1]) != 0)
        printf("cannot write %s\n", argv[1]);
    if (dlclose(plugin) != 0) {
        printf("dlclose: %s\n", dlerror());
        bad = 1;
    }

    unsigned single[NTHREADS];                  /* also resolves the threads' bindings */
    for (int i = 0; i < NTHREADS; i++)
        single[i] = calc_thread_work(i, ITERS);
    struct worker workers[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        workers[i].index = i;
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
            printf("pthread_create failed\n");
            return 1;
        }
    }
    for (int i = 0; i < NTHREADS; i++) {
        char what[32];
        pthread_join(workers[i].thread, NULL);
        snprintf(what, sizeof what, "thread %d", i);
        expect(what, workers[i].result, single[i]);
    }

    expect("after dlclose: calc_poly(9)", calc_poly(9), 81 + 27 + 7);
    printf("%s\n", bad ? "FAILED" : "ok");
    return bad;
}
