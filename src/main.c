/*
 * litifut-rewrite: the call-site rewriter on its own.  The ld wrapper
 * runs the same steps in-process; this command is for inspecting a
 * program and for running the steps by hand.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/rewriter.h"
#include "src/linkmap.h"
#include "src/site-report.h"
#include "lib/error.h"

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: litifut-rewrite [OPTIONS] PROGRAM\n"
        "Finds the call sites of PROGRAM, a program linked with the litifut tracer.\n"
        "\n"
        "  --map FILE            leave alone the crt objects and the tracer, as placed\n"
        "                        by the link map FILE (ld -Map)\n"
        "  --exclude-object F    also leave alone input file F (as named in the map)\n"
        "  --exclude A-B         also leave alone addresses [A, B) (hex)\n"
        "  --db FILE             write the instruction DB for the sites as assembly, its\n"
        "                        words in FILE.bin (pass 1)\n"
        "  --sites FILE          write the sites as TSV\n"
        "  --expect FILE         fail unless the sites equal those of this sites TSV\n"
        "  -o FILE               rewrite: PROGRAM must link the DB for its own sites\n"
        "                        (pass 2); the result goes to FILE\n"
        "  --entries             the constructors and destructors get entry thunks\n"
        "                        (a shared C library calls them; both passes)\n"
        "  --placeholder ARCH    write the empty DB for ARCH to the --db file and exit\n"
        "  -q, --quiet           no summary line\n"
        "  -h, --help            this help\n");
}

int main(int argc, char **argv)
{
    set_program_name("litifut-rewrite");
    static const struct option longopts[] = {
        { "map", required_argument, NULL, 'm' },
        { "exclude-object", required_argument, NULL, 'O' },
        { "exclude", required_argument, NULL, 'x' },
        { "db", required_argument, NULL, 'd' },
        { "sites", required_argument, NULL, 's' },
        { "expect", required_argument, NULL, 'e' },
        { "placeholder", required_argument, NULL, 'P' },
        { "entries", no_argument, NULL, 'E' },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *map_path = NULL, *db_c = NULL, *expect = NULL, *out = NULL, *placeholder = NULL;
    const char **objects = xcalloc((size_t)argc + 1, sizeof *objects);
    size_t n_objects = 0;
    struct exclusions ex = { NULL, 0 };
    struct rewriter_opts o = { &ex, stdout, NULL, NULL, NULL, NULL, NULL, 0, 0 };
    int c;
    while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': map_path = optarg; break;
        case 'O': objects[n_objects++] = optarg; break;
        case 'x': {
            uint32_t a, b;
            if (sscanf(optarg, "%" SCNx32 "-%" SCNx32, &a, &b) != 2 || a >= b) {
                error("--exclude %s: expected START-END in hex", optarg);
                return 2;
            }
            exclusions_add(&ex, NULL, a, b);
            break;
        }
        case 'd': db_c = optarg; break;
        case 's': o.sites_tsv = optarg; break;
        case 'e': expect = optarg; break;
        case 'o': out = optarg; break;
        case 'P': placeholder = optarg; break;
        case 'E': o.entries = 1; break;
        case 'q': o.summary = NULL; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (placeholder) {
        const struct arch_ops *arch = arch_by_name(placeholder);
        free(objects);
        exclusions_free(&ex);
        if (!arch || !db_c) {
            error(arch ? "--placeholder needs --db FILE" : "unknown architecture %s", placeholder);
            return 2;
        }
        return rewriter_placeholder_db(arch, db_c) == 0 ? 0 : 1;
    }
    if (optind + 1 != argc) {
        usage(stderr);
        return 2;
    }
    const char *program = argv[optind];
    if (map_path) {
        struct link_map map;
        if (link_map_read(map_path, &map) != 0)
            return 1;
        exclusions_from_map(&map, objects, &ex);
        link_map_free(&map);
    }
    struct site_list expected = { NULL, 0 };
    if (expect) {
        struct elf_image img;
        const struct arch_ops *arch;
        if (elf_image_open(&img, program) != 0)
            return 1;
        arch = arch_of_image(&img);
        elf_image_close(&img);
        if (!arch) {
            error("%s: unsupported machine", program);
            return 1;
        }
        if (read_sites_tsv(arch, expect, &expected) != 0)
            return 1;
    }
    int rc;
    if (out) {
        rc = rewriter_rewrite(program, &o, expect ? &expected : NULL, out);
    } else {
        struct site_list sites = { NULL, 0 };  /* freed on every path */
        rc = rewriter_scan(program, &o, db_c, &sites);
        if (rc == 0 && expect) {
            struct elf_image img;
            if (elf_image_open(&img, program) == 0) {
                rc = compare_site_lists(arch_by_machine(img.machine), &expected, &sites, program);
                elf_image_close(&img);
            } else {
                rc = -1;
            }
        }
        site_list_free(&sites);
    }
    site_list_free(&expected);
    exclusions_free(&ex);
    free(objects);
    return rc == 0 ? 0 : 1;
}
