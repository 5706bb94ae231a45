/*
 * dlhost.c - a program built plain (not instrumented) that loads the
 * instrumented libplugin.so with dlopen, calls it through dlsym (the
 * plugin calls back into this program), writes the load map (argv[1],
 * if given: loadmap.h), and unloads it.  Only the plugin is traced: its
 * constructor, its functions, its destructor.  Exit status 0 if the
 * results are the expected ones, 1 if not, 2 if the plugin cannot be
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
    if (argc > 1 && write_loadmap(argv[1]) != 0)
        printf("cannot write %s\n", argv[1]);
    if (dlclose(plugin) != 0) {
        printf("dlclose: %s\n", dlerror());
        return 1;
    }
    printf("%s\n", got == want ? "ok" : "FAILED");
    return got != want;
}
