/*
 * Fuzzes the GNU ld link-map parser (src/linkmap.c) and what the
 * wrapper does with its result: the input is a link map (-Map), as
 * litifut-ld reads pass 1's.  The exclusions made from it (crt objects,
 * the tracer) are then applied to a real scan (lib/sites.c) of the seed
 * programs (fuzz/corpus/elfdb/arm-demo.unrewritten and mips-demo, laid
 * out as the pass-1 maps that are the seeds say; the MIPS one if the
 * map says "mips" anywhere), and the result is checked: sites in
 * address order, none inside an excluded range.  Then site rules of
 * every kind (src/rules.h) are resolved through the map and applied:
 * no site left inside an EXCLUDE rule's ranges, every one counted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz/common.h"
#include "src/linkmap.h"
#include "src/rules.h"
#include "lib/sites.h"
#include "lib/error.h"

static struct elf_image images[2];         /* ARM, MIPS */
static const struct arch_ops *arches[2];
static int n_images;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_init();
    static const char *const names[] = { "elfdb/arm-demo.unrewritten", "elfdb/mips-demo" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *path = fuzz_corpus_file(names[i]);
        if (elf_image_open(&images[n_images], path) != 0 ||
            !(arches[n_images] = arch_of_image(&images[n_images]))) {
            fuzz_die("cannot use (set LITIFUT_FUZZ_CORPUS)", path);
        }
        n_images++;             /* path stays allocated: the image names it */
    }
    return 0;
}

/* Was `addr` to be left alone? Only well-formed ranges say so. */
/* Whether addr, in section s, lies in an excluded range as the scan
 * places it (excluded_range_at: a range of a section the map's link put
 * elsewhere moves with it). */
static int excluded(const struct exclusions *ex, const struct elf_section *s, uint64_t addr)
{
    for (size_t i = 0; i < ex->n; i++) {
        uint64_t start, end;
        if (excluded_range_at(&ex->v[i], s, &start, &end) && start < end && addr >= start &&
            addr < end)
            return 1;
    }
    return 0;
}

static void check_rules(const struct arch_ops *arch, const struct elf_image *img,
                        struct site_rules *r, struct site_list *sites, struct scan_stats *st)
{
    size_t before = sites->n;
    site_rules_resolve_functions(r, img);
    site_rules_apply(r, arch, img, sites, st);
    uint32_t removed = 0;
    for (size_t i = 0; i < r->exclude.n; i++)
        removed += r->exclude.v[i].sites;
    for (size_t i = 0; i < r->callee.n; i++)
        removed += r->callee.v[i].sites;
    for (size_t i = 0; i < sites->n; i++)
        for (size_t j = 0; j < r->exclude.n; j++)
            for (size_t k = 0; k < r->exclude.v[j].n_ranges; k++)
                if (r->exclude.v[j].ranges[k].code &&
                    sites->v[i].addr >= r->exclude.v[j].ranges[k].start &&
                    sites->v[i].addr < r->exclude.v[j].ranges[k].end)
                    fuzz_fail("linkmap: a call site left in an excluded rule's range");
    if (!r->only.n && sites->n + removed != before)
        fuzz_fail("linkmap: the rules' counts do not add up");
    free(site_rules_describe(r));
    free(site_rules_text(r));
}

static void check_scan(const struct arch_ops *arch, const struct elf_image *img,
                       const struct exclusions *ex, struct site_rules *r)
{
    struct site_list sites;
    struct scan_stats st;
    if (find_call_sites(arch, img, ex, &sites, &st) != 0)
        return;
    for (size_t i = 0; i < sites.n; i++) {
        const struct elf_section *s = elf_section_at(img, sites.v[i].addr);
        if (i && sites.v[i].addr <= sites.v[i - 1].addr)
            fuzz_fail("linkmap: call sites out of address order");
        if (excluded(ex, s, sites.v[i].addr))
            fuzz_fail("linkmap: a call site in an excluded range");
    }
    check_rules(arch, img, r, &sites, &st);
    site_list_free(&sites);
    scan_stats_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[4096];
    struct link_map map;
    fuzz_temp_file(path, sizeof path, data, size);
    int rc = link_map_read(path, &map);
    unlink(path);
    if (rc != 0)
        return 0;

    /* as litifut-ld does: the crt objects and the tracer (island) objects */
    struct exclusions ex = { NULL, 0 };
    exclusions_from_map(&map, fuzz_tracer_objects, &ex);
    exclusions_add(&ex, NULL, 0, 4);        /* an unnamed range, as --exclude makes */

    /* the ranges of each output section, merged */
    for (size_t i = 0; i <= map.n && i < 64; i++) {
        struct code_range *r;
        size_t n;
        struct elf_section s = { .name = i < map.n ? map.v[i].output : ".text",
                                 .addr = i < map.n ? map.v[i].output_addr : 0 };
        exclusions_for_section(&ex, &s, &r, &n);
        for (size_t j = 1; j < n; j++)
            if (r[j].start <= r[j - 1].end)         /* those would have been merged */
                fuzz_fail("linkmap: exclusions_for_section left overlapping ranges");
        free(r);
    }
    /* scanning is most of the time: only the program of the map's arch */
    int mips = memmem(data, size, "mips", 4) != NULL;
    struct site_rules rules;
    /* every kind of rule, and globs that are not well formed */
    if (site_rules_parse(&rules, "main,*.o,lib*.a,libc.a(*),*(*),libx.so*,[,x*]",
                         mips ? "*" : NULL, "memset,mem*,[,*(*)") != 0)
        fuzz_fail("linkmap: the fixed rules do not parse");
    site_rules_resolve_files(&rules, &map, "libx.so.1");
    check_scan(arches[mips], &images[mips], &ex, &rules);
    site_rules_free(&rules);
    exclusions_free(&ex);
    link_map_free(&map);
    return 0;
}
