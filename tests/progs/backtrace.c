/*
 * backtrace.c - backtrace() three calls deep, and the frames' symbols:
 * with exact returns the unwinder meets return trampolines, which the
 * program must not see.  Prints each frame's "(symbol+offset)", "()"
 * for a static function, "(?)" where there is no symbol (addresses, the
 * program's path and offsets from nothing differ between builds), and
 * the count; exit status 0.  Build with -rdynamic -funwind-tables.
 */
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int inner(int depth)
{
    void *frames[32];
    int n = backtrace(frames, 32);
    char **names = backtrace_symbols(frames, n);
    for (int i = 0; i < n; i++) {
        const char *open = strchr(names[i], '(');
        const char *close = open ? strchr(open, ')') : NULL;
        if (!close || open[1] == '+')
            printf("(?)\n");       /* (no symbol: an offset in the object, which differs) */
        else
            printf("%.*s\n", (int)(close - open + 1), open);
    }
    free(names);
    return n + depth;
}

NOINLINE int middle(int depth) { return inner(depth + 1) * 2; }
NOINLINE int outer(int depth) { return middle(depth + 1) * 2; }

int main(void)
{
    printf("%d\n", outer(0));
    return 0;
}
