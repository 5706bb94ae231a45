/*
 * The demo program with a library (make demo): its calls into
 * libwords.so, the library's own calls, the library's calls back into
 * the program and into libc, all in one trace.  A few hundred calls, so
 * the log stays readable.  Exits with status 0.
 */
#include <stdio.h>
#include <string.h>
#include "words.h"

static const char *words[] = { "pear", "apple", "fig", "banana", "cherry" };
#define NWORDS (sizeof words / sizeof words[0])

static void print_word(const char *w, void *arg)
{
    (void)arg;
    printf(" %s", w);
}

static void longest(const char *w, void *arg)
{
    const char **best = arg;
    if (strlen(w) > strlen(*best))
        *best = w;
}

static void cmd_list(void)
{
    fputs(" ", stdout);
    words_each(words, NWORDS, print_word, NULL);
    putchar('\n');
}

static void cmd_longest(void)
{
    const char *best = words[0];
    words_each(words, NWORDS, longest, &best);
    printf("  longest: %s\n", best);
}

static void cmd_checksum(void)
{
    printf("  checksum: %08x\n", words_checksum(words, NWORDS));
}

static void (*const commands[])(void) = { cmd_list, cmd_longest, cmd_checksum };

int main(void)
{
    puts("unsorted:");
    cmd_list();
    words_sort(words, NWORDS);
    puts("sorted:");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        commands[i]();
    return 0;
}
