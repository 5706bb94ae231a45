/*
 * --srcline: file:line from DWARF (libdw).  The object's file is in
 * memory already (lib/elfimage.c, through libelf): libdw reads its
 * debug sections from that, once per file.  A file without DWARF (or
 * whose DWARF libdw cannot read) gives no lines, silently: --srcline
 * adds what there is.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>
#include "postproc/reader/srcline.h"
#include "lib/error.h"

struct dwarf_file {
    struct object *o;
    Dwarf *dw;                  /* NULL: no DWARF */
};

struct line_entry {
    struct object *o;
    uint64_t addr;              /* link-time */
    char *text;                 /* NULL: none */
};

struct srclines {
    struct dwarf_file *files;
    size_t n_files;
    struct line_entry *lines;   /* open addressing; o NULL: free */
    size_t n_lines, mask;
};

struct srclines *srclines_new(void)
{
    return xcalloc(1, sizeof(struct srclines));
}

static Dwarf *dwarf_of(struct srclines *s, struct object *o)
{
    for (size_t i = 0; i < s->n_files; i++)
        if (s->files[i].o == o)
            return s->files[i].dw;
    Dwarf *dw = object_open(o) == 0 && !o->rejected
                    ? dwarf_begin_elf(o->debug ? o->debug->elf : o->img.elf, DWARF_C_READ, NULL)
                                                   : NULL;
    s->files = xrealloc(s->files, (s->n_files + 1) * sizeof *s->files);
    s->files[s->n_files++] = (struct dwarf_file){ o, dw };
    return dw;
}

Dwarf *srclines_dwarf(struct srclines *s, struct object *o)
{
    return dwarf_of(s, o);
}

static char *find_line(Dwarf *dw, uint64_t addr)
{
    Dwarf_Die cu;
    Dwarf_Line *line;
    int lineno;
    const char *file;
    if (!dw || !dwarf_addrdie(dw, addr, &cu) || !(line = dwarf_getsrc_die(&cu, addr)) ||
        !(file = dwarf_linesrc(line, NULL, NULL)) || dwarf_lineno(line, &lineno) != 0)
        return NULL;
    char *text = xasprintf("%s:%d", file, lineno);
    for (char *c = text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return text;
}

static size_t line_hash(const struct object *o, uint64_t addr)
{
    uint64_t k = (uint64_t)(uintptr_t)o * 31 + addr;
    k ^= k >> 29;
    k *= UINT64_C(0xbf58476d1ce4e5b9);
    return (size_t)(k ^ (k >> 32));
}

static void grow(struct srclines *s)
{
    struct line_entry *old = s->lines;
    size_t old_n = s->lines ? s->mask + 1 : 0;
    s->mask = s->mask ? s->mask * 2 + 1 : 255;
    s->lines = xcalloc(s->mask + 1, sizeof *s->lines);
    for (size_t i = 0; i < old_n; i++) {
        if (!old[i].o)
            continue;
        size_t b = line_hash(old[i].o, old[i].addr) & s->mask;
        while (s->lines[b].o)
            b = (b + 1) & s->mask;
        s->lines[b] = old[i];
    }
    free(old);
}

const char *srclines_lookup(struct srclines *s, struct object *o, uint64_t addr)
{
    if ((s->n_lines + 1) * 2 > (s->lines ? s->mask + 1 : 0))
        grow(s);
    size_t b = line_hash(o, addr) & s->mask;
    for (; s->lines[b].o; b = (b + 1) & s->mask)
        if (s->lines[b].o == o && s->lines[b].addr == addr)
            return s->lines[b].text;
    s->lines[b] = (struct line_entry){ o, addr, find_line(dwarf_of(s, o), addr) };
    s->n_lines++;
    return s->lines[b].text;
}

void srclines_free(struct srclines *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_files; i++)
        if (s->files[i].dw)
            dwarf_end(s->files[i].dw);
    for (size_t i = 0; s->lines && i <= s->mask; i++)
        free(s->lines[i].text);
    free(s->lines);
    free(s->files);
    free(s);
}
