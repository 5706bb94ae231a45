#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "src/linkmap.h"
#include "lib/error.h"

static int parse_hex(const char *s, uint32_t *v)
{
    char *end;
    if (strncmp(s, "0x", 2) != 0)
        return -1;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 16);
    if (errno || *end)
        return -1;
    *v = (uint32_t)x;
    return 0;
}

/* "0xADDR 0xSIZE FILE..." -> fields; -1 if the line is not like that. */
static int parse_placement(char *p, uint32_t *addr, uint32_t *size, char **file)
{
    char *a = strtok(p, " \t"), *s = strtok(NULL, " \t"), *f = strtok(NULL, "\n");
    if (!a || !s || !f || parse_hex(a, addr) || parse_hex(s, size))
        return -1;
    while (*f == ' ' || *f == '\t')
        f++;
    *file = f;
    return 0;
}

int link_map_read(const char *path, struct link_map *map)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return error("%s: %s", path, strerror(errno));
    map->v = NULL;
    map->n = 0;
    size_t cap = 0;
    char *line = NULL, *pending = NULL, *output = NULL;
    uint32_t output_addr = 0;
    size_t len = 0;
    int in_map = 0;
    while (getline(&line, &len, f) > 0) {
        line[strcspn(line, "\n")] = 0;
        if (!in_map) {
            in_map = strcmp(line, "Linker script and memory map") == 0;
            continue;
        }
        char *rest;
        if (line[0] && line[0] != ' ') {
            free(output);                       /* ".text   0x.. 0x..": an output section */
            output = xstrndup(line, strcspn(line, " \t"));
            /* its address, on this line or (a long name) the next */
            const char *a = line + strlen(output);
            a += strspn(a, " \t");
            output_addr = 0;
            if (!*a && getline(&line, &len, f) > 0)
                a = line + strspn(line, " \t");
            char *end;
            if (strncmp(a, "0x", 2) == 0)
                output_addr = (uint32_t)strtoull(a, &end, 16);
            free(pending);
            pending = NULL;
            continue;
        }
        if (line[0] == ' ' && line[1] != ' ' && line[1] != '*' && line[1]) {
            /* " .text  0x.. 0x.. file", or " .text.long_name" alone */
            free(pending);
            rest = line + 1 + strcspn(line + 1, " \t");
            pending = xstrndup(line + 1, (size_t)(rest - line - 1));
        } else if (pending && strncmp(line, "                0x", 18) == 0) {
            rest = line;
        } else {
            free(pending);
            pending = NULL;
            continue;
        }
        uint32_t addr, size;
        char *file;
        if (parse_placement(rest, &addr, &size, &file) != 0)
            continue;       /* a long name: placement on the next line */
        if (map->n == cap) {
            cap = cap * 2 + 256;
            map->v = xrealloc(map->v, cap * sizeof *map->v);
        }
        map->v[map->n++] = (struct map_input){ xstrdup(output ? output : ""), pending,
                                               xstrdup(file), addr, size, output_addr };
        pending = NULL;
    }
    free(pending);
    free(output);
    free(line);
    fclose(f);
    if (!in_map)
        return error("%s: not a GNU ld link map", path);
    return 0;
}

void link_map_free(struct link_map *map)
{
    for (size_t i = 0; i < map->n; i++) {
        free(map->v[i].output);
        free(map->v[i].section);
        free(map->v[i].file);
    }
    free(map->v);
    map->v = NULL;
    map->n = 0;
}

int is_crt_object(const char *file)
{
    static const char *const names[] = {
        "crt0.o", "crt1.o", "Scrt1.o", "rcrt1.o", "gcrt1.o", "Mcrt1.o", "grcrt1.o",
        "crti.o", "crtn.o", NULL
    };
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (const char *const *n = names; *n; n++)
        if (strcmp(base, *n) == 0)
            return 1;
    /* crtbegin.o crtbeginS.o crtbeginT.o crtend.o crtendS.o ... */
    return (strncmp(base, "crtbegin", 8) == 0 || strncmp(base, "crtend", 6) == 0) &&
           strcmp(base + strlen(base) - 2, ".o") == 0;
}

/* GCC's unwinder, when a static link brings it in (libgcc_eh.a; ARM's
 * is in libgcc.a): it reads the return addresses of the frames it
 * walks, exact returns hook them, and an unwinder whose own calls are
 * hooked meets its own trampolines in the middle of its work (a static
 * C++ program's exceptions failed on MIPS).  Left alone, as dynamic
 * programs' libgcc_s is. */
int is_unwinder_object(const char *file)
{
    const char *member = strrchr(file, '(');
    if (!member)
        return 0;
    const char *base = file;
    for (const char *p = file; p < member; p++)
        if (*p == '/')
            base = p + 1;
    size_t len = (size_t)(member - base);
    member++;
    if (len == 11 && strncmp(base, "libgcc_eh.a", 11) == 0)
        return 1;
    return len == 8 && strncmp(base, "libgcc.a", 8) == 0 &&
           (strncmp(member, "unwind-", 7) == 0 || strncmp(member, "pr-support.o", 12) == 0 ||
            strncmp(member, "libunwind.o", 11) == 0);
}

static void push(struct exclusions *ex, const char *section, uint32_t start, uint32_t end,
                 uint32_t section_addr)
{
    ex->v = xrealloc(ex->v, (ex->n + 1) * sizeof *ex->v);
    ex->v[ex->n++] = (struct excluded_range){ section ? xstrdup(section) : NULL, start, end,
                                              section ? section_addr : 0 };
}

void exclusions_add(struct exclusions *ex, const char *section, uint32_t start, uint32_t end)
{
    if (start < end)
        push(ex, section, start, end, 0);
}

void exclusions_from_map(const struct link_map *map, const char *const *also,
                         struct exclusions *ex)
{
    for (size_t i = 0; i < map->n; i++) {
        const struct map_input *in = &map->v[i];
        int match = is_crt_object(in->file) || is_unwinder_object(in->file);
        for (const char *const *a = also; a && *a && !match; a++)
            match = strcmp(in->file, *a) == 0;
        if (match && in->size)
            push(ex, in->output, in->addr, in->addr + in->size, in->output_addr);
    }
}

void exclusions_free(struct exclusions *ex)
{
    for (size_t i = 0; i < ex->n; i++)
        free((char *)ex->v[i].section);
    free(ex->v);
    ex->v = NULL;
    ex->n = 0;
}
