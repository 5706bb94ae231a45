/*
 * LITIFUT_ARGS' test program (tests/args.sh): calls with known
 * arguments of every kind the tracer records (integers, negative ones,
 * strings, a string longer than the copy, a bad pointer, NULL, a memory
 * window, a struct by pointer, varargs, doubles and floats), known return values (integers,
 * a string, a double, a float, nested ones from a recursion), from main
 * and from a second thread.  Each
 * function is its own (noinline, used) so that its calls stay calls.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLEE __attribute__((noinline, noipa, used))
/* (keeps a value's call a call, not a tail jump, nor a loop) */
#define KEEP(v) __asm__ volatile("" : "+r"(v))

CALLEE long add3(long a, long b, long c) { return a + b + c; }
CALLEE long neg(long a) { return -a; }
CALLEE const char *greet(const char *who, int n) { return n > 0 ? who : "nobody"; }
CALLEE long window(const char *p) { long n = (long)strlen(p); KEEP(n); return n; }
CALLEE long bad(const char *s) { return s == (const char *)1; }
CALLEE long null_str(const char *s) { return s != NULL; }
CALLEE long longstr(const char *s) { long n = (long)strlen(s); KEEP(n); return n; }
CALLEE long fact(long n)
{
    if (n <= 1)
        return 1;
    long r = fact(n - 1);
    KEEP(r);                /* (a recursion, not a loop) */
    return n * r;
}
CALLEE long worker(long n) { return 2 * n; }
struct point { int x, y; };
CALLEE long norm1(const struct point *p) { return labs(p->x) + labs(p->y); }
CALLEE double scale(double x, double y) { return x * y; }
CALLEE float halve(float x) { return x / 2; }
CALLEE double mix(int n, double x) { return n * x; }
CALLEE float tenth(float a, float b, float c, float d, float e, float f, float g, float h,
                   float i, float j)
{
    return a + b + c + d + e + f + g + h + i + j;
}

CALLEE long sum(int n, ...)
{
    va_list ap;
    long s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static void *thread_main(void *arg)
{
    (void)arg;
    long v = worker(7);
    KEEP(v);
    return (void *)v;
}

/* With an argument, no second thread (a static program's pthread_join
 * takes paths that depend on when the thread ended: no trace compares
 * with the oracle's then) */
int main(int argc, char **argv)
{
    (void)argv;
    static const char eight[] = "ABCDEFGH";
    char many[101];
    memset(many, 'a', 100);
    many[100] = 0;
    int fd = open("/nonexistent/config", O_RDONLY);
    pthread_t th;
    void *r = NULL;
    if (argc < 2 && pthread_create(&th, NULL, thread_main, NULL) == 0)
        pthread_join(th, &r);
    else if (argc >= 2)
        r = (void *)14;
    printf("%ld %ld %s %ld %ld %ld %ld %ld %ld %ld %d\n", add3(1, -2, 100000), neg(5),
           greet("world", 1), window(eight), bad((const char *)1), null_str(NULL),
           longstr(many), fact(5), sum(3, 10, 20, 30), (long)r, fd);
    struct point pt = { 3, -4 };
    printf("%g %g %.17g %ld %g\n", scale(2.5, -1e100), (double)halve(3.0f), mix(3, 0.1), norm1(&pt),
           (double)tenth(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    return 0;
}
