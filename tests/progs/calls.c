/*
 * calls.c - exercises many kinds of calls for the call tracer:
 *   direct calls, recursion, mutual recursion, function-pointer tables,
 *   varargs (va_list + vsnprintf), libc callbacks (qsort/bsearch),
 *   setjmp/longjmp out of nested calls, a signal handler that calls
 *   functions, and (on ARM mode only) a conditional "blne" call from asm.
 * Prints one deterministic line per feature and exits with status 3.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

/* ---- direct calls ---- */
NOINLINE static int add(int a, int b) { return a + b; }
NOINLINE static int mul(int a, int b) { return a * b; }
NOINLINE static int mul_add(int a, int b, int c) { return add(mul(a, b), c); }

static void test_direct(void)
{
    printf("direct: %d %d %d\n", add(2, 3), mul(4, 5), mul_add(6, 7, 8));
}

/* ---- recursion ---- */
NOINLINE static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static void test_recursion(void)
{
    printf("recursion: fib(10)=%d fib(15)=%d\n", fib(10), fib(15));
}

/* ---- mutual recursion ---- */
NOINLINE static int is_odd(unsigned n);
NOINLINE static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
NOINLINE static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static void test_mutual(void)
{
    printf("mutual: is_even(10)=%d is_odd(7)=%d is_even(25)=%d\n",
           is_even(10), is_odd(7), is_even(25));
}

/* ---- function pointers ---- */
NOINLINE static int op_inc(int x) { return x + 1; }
NOINLINE static int op_dbl(int x) { return x * 2; }
NOINLINE static int op_sqr(int x) { return x * x; }
NOINLINE static int op_neg(int x) { return -x; }

static int (*const ops[])(int) = { op_inc, op_dbl, op_sqr, op_neg };

static void test_fnptr(void)
{
    int (*volatile fp)(int);            /* volatile: keep indirect calls */
    int x = 3;
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            fp = ops[i];
            x = fp(x) % 1000;
        }
    printf("fnptr: result=%d\n", x);
}

/* ---- varargs ---- */
NOINLINE static int sum(int n, ...)
{
    va_list ap;
    int total = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        total += va_arg(ap, int);
    va_end(ap);
    return total;
}

NOINLINE static int format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return r;
}

static void test_varargs(void)
{
    char buf[64];
    int len = format(buf, sizeof buf, "%s-%d-%c", "abc", sum(4, 1, 2, 3, 4), 'z');
    printf("varargs: sum=%d sum0=%d fmt=\"%s\" len=%d\n",
           sum(5, 10, 20, 30, 40, 50), sum(0), buf, len);
}

/* ---- libc callbacks ---- */
static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void test_callbacks(void)
{
    int v[] = { 42, 7, 19, 3, 88, 61, 25, 14, 50, 1 };
    size_t n = sizeof v / sizeof v[0];
    qsort(v, n, sizeof v[0], cmp_int);
    printf("callbacks: sorted=");
    for (size_t i = 0; i < n; i++)
        printf("%s%d", i ? "," : "", v[i]);
    int key1 = 61, key2 = 60;
    int *hit = bsearch(&key1, v, n, sizeof v[0], cmp_int);
    int *miss = bsearch(&key2, v, n, sizeof v[0], cmp_int);
    printf(" find61=%d find60=%s\n", hit ? (int)(hit - v) : -1, miss ? "yes" : "no");
}

/* ---- setjmp/longjmp ---- */
static jmp_buf jb;
static volatile int jmp_depth;

NOINLINE static void level3(int v) { jmp_depth = 3; if (v > 0) longjmp(jb, v); }
NOINLINE static void level2(int v) { jmp_depth = 2; level3(v * 2); jmp_depth = -2; }
NOINLINE static void level1(int v) { jmp_depth = 1; level2(v + 1); jmp_depth = -1; }

static void test_longjmp(void)
{
    int r = setjmp(jb);
    if (r == 0) {
        level1(4);
        printf("longjmp: not taken\n");
    } else {
        printf("longjmp: r=%d depth=%d\n", r, jmp_depth);
    }
}

/* ---- signal handler that calls functions ---- */
static volatile sig_atomic_t sig_count;
static volatile sig_atomic_t sig_acc;

NOINLINE static int sig_helper_a(int x) { return x * 3 + 1; }
NOINLINE static int sig_helper_b(int x) { return sig_helper_a(x) + 2; }

static void on_usr1(int sig)
{
    sig_count = sig_count + 1;
    sig_acc = sig_acc + sig_helper_b(sig_count) + (sig == SIGUSR1);
}

static void test_signal(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0) {
        perror("sigaction");
        return;
    }
    for (int i = 0; i < 3; i++)
        raise(SIGUSR1);
    printf("signal: count=%d acc=%d\n", (int)sig_count, (int)sig_acc);
}

/* ---- conditional call (ARM "blne") ---- */
static int cond_hits;

__attribute__((used, noinline)) void cond_target(void) { cond_hits++; }

#if defined(__arm__) && !defined(__thumb__)
void cond_call(int flag);
__asm__(
    "   .pushsection .text\n"
    "   .arm\n"
    "   .align 2\n"
    "   .global cond_call\n"
    "   .type cond_call, %function\n"
    "cond_call:\n"
    "   push {r4, lr}\n"
    "   cmp r0, #0\n"
    "   blne cond_target\n"
    "   pop {r4, pc}\n"
    "   .size cond_call, .-cond_call\n"
    "   .popsection\n");
#else
NOINLINE static void cond_call(int flag) { if (flag) cond_target(); }
#endif

static void test_condcall(void)
{
    static const int flags[] = { 0, 1, 1, 0, 1, 0, 0, 1 };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        cond_call(flags[i]);
    printf("condcall: calls=%d hits=%d\n", (int)(sizeof flags / sizeof flags[0]), cond_hits);
}

int main(void)
{
    test_direct();
    test_recursion();
    test_mutual();
    test_fnptr();
    test_varargs();
    test_callbacks();
    test_longjmp();
    test_signal();
    test_condcall();
    return 3;
}
