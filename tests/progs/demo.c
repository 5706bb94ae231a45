/*
 * demo.c - a small, friendly program for the README: sorts a built-in
 * word list with qsort (comparison callback), computes a checksum with a
 * recursive helper, and dispatches a few "commands" through a table of
 * function pointers.  Makes only a few hundred calls so its trace stays
 * readable.  Exits with status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *words[] = { "pear", "apple", "fig", "banana", "cherry" };
#define NWORDS (sizeof words / sizeof words[0])

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* checksum of one word, one recursive call per character */
static unsigned word_sum(const char *s)
{
    return *s ? (unsigned char)*s + 31u * word_sum(s + 1) : 0;
}

static unsigned checksum(size_t i)
{
    return i == NWORDS ? 0 : word_sum(words[i]) ^ checksum(i + 1);
}

static void cmd_list(void)
{
    char line[80] = " ";
    for (size_t i = 0; i < NWORDS; i++) {
        strcat(line, " ");
        strcat(line, words[i]);
    }
    puts(line);
}

static void cmd_longest(void)
{
    size_t best = 0;
    for (size_t i = 1; i < NWORDS; i++)
        if (strlen(words[i]) > strlen(words[best]))
            best = i;
    fputs("  longest: ", stdout);
    puts(words[best]);
}

static void cmd_checksum(void)
{
    printf("  checksum: %08x\n", checksum(0));
}

struct command {
    const char *name;
    void (*run)(void);
};

static const struct command commands[] = {
    { "list", cmd_list },
    { "longest", cmd_longest },
    { "checksum", cmd_checksum },
};

int main(void)
{
    qsort(words, NWORDS, sizeof words[0], by_name);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fputs(commands[i].name, stdout);
        puts(":");
        commands[i].run();
    }
    return 0;
}
