/*
 * dlhost.c - a program built plain (not instrumented) that loads the
 * instrumented libplugin.so with dlopen, calls it through dlsym (the
 * plugin calls back into this program), writes the load map (argv[1],
 * if given: loadmap.h), and unloads it.  Then it loads libcalc.so.1
 * (which needs libshapes.so.1) the same way, RTLD_LOCAL: neither sees
 * the plugin's symbols, so their tracer copies can find the plugin's
 * process block only through /proc/self/maps, and the process must
 * still write one trace.  Only the libraries are traced: their
 * constructors, functions and destructors.  Exit status 0 if the
 * results are the expected ones, 1 if not, 2 if a library cannot be
 * loaded.
 */
#define _GNU_SOURCE                     /* dl_iterate_phdr */
#include <dlfcn.h>
#include <stdio.h>

#include "loadmap.h"
#include "shlib.h"

static int twice(int value)
{
    return 2 * value;
}

int main(int argc, char **argv)
{
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
    int got = apply(4, twice), want = 0;
    for (int i = 0; i < 5; i++)
        want = want * 31 + 2 * (4 + i + 1000);
    printf("plugin %s\nplugin_apply(4, twice) = %d\n", name(), got);

    void *calc = dlopen("libcalc.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!calc) {
        printf("dlopen: %s\n", dlerror());
        return 2;
    }
    int (*poly)(int) = (int (*)(int))dlsym(calc, "calc_poly");
    int (*with_shapes)(int) = (int (*)(int))dlsym(calc, "calc_with_shapes");
    if (!poly || !with_shapes) {
        printf("dlsym: %s\n", dlerror());
        return 2;
    }
    int p = poly(5);
    printf("calc_poly(5) = %d\ncalc_with_shapes(3) = %d\n", p, with_shapes(3));
    if (p != 5 * 5 + 3 * 5 + 7)
        got = -1;

    if (argc > 1 && write_loadmap(argv[1]) != 0)    /* everything is loaded now */
        printf("cannot write %s\n", argv[1]);
    if (dlclose(plugin) != 0 || dlclose(calc) != 0) {
        printf("dlclose: %s\n", dlerror());
        return 1;
    }
    printf("%s\n", got == want ? "ok" : "FAILED");
    return got != want;
}
