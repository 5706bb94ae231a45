/*
 * plugin.c - a shared library loaded with dlopen (libplugin.so), for the
 * call tracer.  The program finds plugin_apply and plugin_name with
 * dlsym, calls them (plugin_apply calls the caller's callback: a call
 * from the library into the program, and static helpers), and unloads
 * it with dlclose; a constructor and a destructor make calls when it is
 * loaded and unloaded.  Used by shmain.c (instrumented or not) and by
 * dlhost.c (a plain program).  Deterministic.
 */
#include <stdio.h>

#include "shlib.h"

#define NOINLINE __attribute__((noinline))

static int loads;
static char name[32];

NOINLINE static int offset(int x) { return x + 1000; }
NOINLINE static int fold(int a, int b) { return a * 31 + b; }

__attribute__((constructor)) static void plugin_load(void)
{
    loads = offset(1) - 1000;
    snprintf(name, sizeof name, "plugin-%d", loads);
}

__attribute__((destructor)) static void plugin_unload(void)
{
    loads = fold(loads, 0) - 31;
}

const char *plugin_name(void)
{
    return name;
}

int plugin_apply(int x, plugin_cb cb)
{
    int acc = 0;
    for (int i = 0; i < 5; i++)
        acc = fold(acc, cb(offset(x + i)));
    return acc;
}
