/* libwords: the demo's shared library (see main.c). */
#ifndef WORDS_H
#define WORDS_H
#include <stddef.h>

void words_sort(const char **v, size_t n);
unsigned words_checksum(const char *const *v, size_t n);
/* calls fn(word, arg) for each word: a callback into the program */
void words_each(const char *const *v, size_t n, void (*fn)(const char *, void *), void *arg);

#endif
