/*
 * btilib.c - a library for AArch64's BTI test (tests/linking.sh): built
 * with -mbranch-protection=standard and linked -z force-bti, so that
 * its code pages are guarded (ld.so maps them PROT_BTI; qemu-user
 * enforces it) and an indirect branch may land only on a landing pad.
 * Its static functions have none (GCC gives them none: only direct
 * calls reach them), and the rewritten calls of them go through the
 * tracer, which goes on to the callee with `ret x16`.  bti_run calls
 * directly, through a pointer and recursively; bti_probe branches
 * with `br` to an instruction that is no landing pad: SIGILL where BTI
 * is enforced (the check that the test means something).
 * Built with -DBTI_MAIN: the program, `btilib [probe]`.
 */
#ifdef BTI_MAIN
#include <stdio.h>
#include <string.h>

unsigned bti_run(unsigned n);
int bti_probe(void);

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "probe") == 0)
        return bti_probe();
    printf("bti_run=%08x\n", bti_run(40));
    return 0;
}
#else
#define NOINLINE __attribute__((noinline))

/* Linked without the start files (Debian's have no BTI landing pads,
 * and ld.so calls their _init): crtbeginS.o's handle, which
 * pthread_atfork (the tracer's) needs. */
__attribute__((visibility("hidden"))) void *__dso_handle = &__dso_handle;

NOINLINE static unsigned leaf(unsigned x) { return x * 2654435761u + 7; }
NOINLINE static unsigned twice(unsigned x) { return leaf(x) ^ leaf(x + 1); }
NOINLINE static unsigned rec(unsigned n) { return n ? rec(n - 1) + leaf(n) : 0; }
static unsigned (*volatile indirect)(unsigned) = twice;

unsigned bti_run(unsigned n)
{
    unsigned h = 0;
    for (unsigned i = 0; i < n; i++)
        h += twice(i) + indirect(i) + rec(i % 5);
    return h;
}

int bti_probe(void)
{
    int r;
    __asm__ volatile("adr x16, 1f\n\tbr x16\n1:\tmov %w0, #3" : "=r"(r) : : "x16");
    return r;
}
#endif
