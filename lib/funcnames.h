/*
 * What a function symbol's name says of it, for a tail jump's two ends
 * (lib/sites.c tail_jump_at, emu/plugin.c): GCC's cold parts ("f.cold",
 * "f.cold.N": still f's code) and GNU ld's stubs between a branch and
 * its target (long-branch veneers "__f_veneer", ARM's interworking
 * stubs "__f_from_thumb", "__f_from_arm": a stub's jump is its way on).
 * Header only: the emulator's plugin links no lib/ file.
 */
#ifndef LITIFUT_FUNCNAMES_H
#define LITIFUT_FUNCNAMES_H

#include <string.h>

static inline int is_cold_part(const char *name)
{
    const char *c = strstr(name, ".cold");
    return c && (c[5] == 0 || c[5] == '.');
}

/* The length of the name without a cold part's suffix. */
static inline size_t base_name_len(const char *name)
{
    const char *c = strstr(name, ".cold");
    return c && (c[5] == 0 || c[5] == '.') ? (size_t)(c - name) : strlen(name);
}

static inline int is_linker_stub(const char *name)
{
    static const char *const suffixes[] = { "_veneer", "_from_thumb", "_from_arm" };
    size_t n = strlen(name);
    if (strncmp(name, "__", 2) != 0)
        return 0;
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && strcmp(name + n - k, suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

#endif
