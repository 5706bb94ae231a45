/*
 * litifut-ld: stands in for the target's ld.
 *
 * Without LITIFUT=1 in the environment it runs the real linker with
 * the same arguments, so the output is exactly a plain link's.  With
 * LITIFUT=1 it instruments the program or shared library
 * (wrapper/instrument.c).  Relocatable links always pass through.
 * Silent on success, as ld is: libtool's configure checks that the
 * linker prints nothing.  A failed instrumented link exits with ld's
 * status if ld failed (the user's own link error), else 1, and
 * removes the output only as ld does (unlink_if_ordinary).
 *
 * Its own options, taken only as the first argument because GNU ld has
 * none of that name: --install/--uninstall TRIPLE (wrapper/install.c).
 * `--help` is ld's (build systems probe it), except under the name
 * litifut-ld, which is not a linker's name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/error.h"
#include "lib/files.h"
#include "wrapper/install.h"
#include "wrapper/instrument.h"
#include "wrapper/linkargs.h"
#include "wrapper/process.h"
#include "wrapper/toolchain.h"

/* The real linker with the same arguments.  Installed into a toolchain
 * (beside it as NAME.litifut-real), it runs under the name it was
 * called by, as without litifut: its messages name it so, and whatever
 * it finds from its own name it finds in the same directory. */
static int pass_through(const struct toolchain *tc, int argc, char **argv)
{
    char **args = xcalloc((size_t)argc + 1, sizeof *args);
    args[0] = tc->installed ? argv[0] : tc->real_ld;
    for (int i = 1; i < argc; i++)
        args[i] = argv[i];
    exec_command_as(tc->real_ld, args);
    free(args);
    return 127;
}

static int is_option(const char *arg, const char *name)
{
    return arg && strcmp(arg, name) == 0;
}

int main(int argc, char **argv)
{
    set_program_name("litifut-ld");
    if (is_option(argv[1], "--install") || is_option(argv[1], "--uninstall")) {
        if (argc != 3) {
            error("usage: litifut-ld %s TRIPLE", argv[1]);
            return 1;
        }
        int rc = strcmp(argv[1], "--install") == 0 ? install_wrapper(argv[2])
                                                   : uninstall_wrapper(argv[2]);
        return rc == 0 ? 0 : 1;
    }
    const char *base = strrchr(argv[0], '/');
    if (argc == 2 && is_option(argv[1], "--help") &&
        strcmp(base ? base + 1 : argv[0], "litifut-ld") == 0) {
        print_usage();
        return 0;
    }

    struct link_args la;
    struct toolchain tc;
    const char *mode = getenv("LITIFUT");
    int instrument = mode && strcmp(mode, "1") == 0;

    if (link_args_parse(&la, argc, argv) != 0)
        return 1;
    if (find_real_linker(&tc, argv[0], &la) != 0)
        return 1;
    if (!instrument || la.relocatable || !la.has_input)
        return pass_through(&tc, argc, argv);
    struct site_rules rules;
    if (site_rules_parse(&rules, getenv("LITIFUT_EXCLUDE"), getenv("LITIFUT_ONLY"),
                         getenv("LITIFUT_EXCLUDE_CALLEE")) != 0)
        return 1;
    const struct site_rule *whole = site_rules_excluded_output(&rules, la.output);
    if (whole) {
        char *line = xasprintf("%s: %s: not instrumented (LITIFUT_EXCLUDE: %s)\n",
                               program_name(), la.output, whole->pattern);
        report_line(line);
        free(line);
        return pass_through(&tc, argc, argv);
    }
    catch_termination_signals();
    int rc = find_instrumenting_tools(&tc, &la) != 0 ? 1 : instrument_link(&la, &tc, &rules);
    if (rc != 0 || pending_signal())
        /* never a stale or half-made program; but, as ld, only a file
         * or a symlink is removed (never -o /dev/null) */
        unlink_if_ordinary(la.output);
    die_by_pending_signal();        /* everything temporary is gone by now */
    site_rules_free(&rules);
    link_args_free(&la);
    toolchain_free(&tc);
    return rc;
}
