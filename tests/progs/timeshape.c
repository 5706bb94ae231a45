/*
 * timeshape.c - a program whose time shape is known, for the
 * post-processor's duration views (tests/views.sh).  Each function
 * spins until the wall clock has moved on by a fixed time, so the
 * times do not depend on how fast qemu runs the code:
 *
 *   function  calls  self    total   thread
 *   hot         1    80 ms   80 ms   main
 *   outer       1    20 ms   60 ms   main   (calls inner after its spin)
 *   inner       1    40 ms   40 ms   main
 *   rec         4    12 ms   12 ms   main   (recursive: 3 ms per level)
 *   tick       10    10 ms   10 ms   main   (through a function pointer)
 *   side        1    50 ms   50 ms   worker (started first, runs alongside)
 *
 * With returns inferred (the default trace) a call ends when its caller
 * (or a function below it) makes its next traced call, and the
 * program is written for that:
 *   - the spins read the clock with an inline system call, not a
 *     library call: a clock_gettime() call in the loop would take the
 *     spin's time as its own;
 *   - each function spins before its calls, never after them;
 *   - no call is in tail position (a tail call is a jump, not a call:
 *     the callee's time would be its caller's), and no function is
 *     inlined, cloned or found free of side effects (noipa);
 *   - the worker calls thread_done() after side(): the trace has no
 *     record of a thread's exit, so a thread's last call ends at its
 *     last event.
 * Exit status 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>

#define NOINLINE __attribute__((noipa))
#define ALWAYS_INLINE inline __attribute__((always_inline))

struct kernel_timespec {
    long sec, nsec;             /* the 32-bit kernel's struct (no 64-bit time
                                   here); on AArch64 the only one */
};

/* clock_gettime(CLOCK_MONOTONIC) as a system call of our own. */
static ALWAYS_INLINE void clock_now(struct kernel_timespec *ts)
{
#if defined(__arm__)
    /* r7 holds the number; it may be the frame pointer (Thumb), so it is
     * saved in ip around the call rather than named as a clobber */
    register long r0 __asm__("r0") = CLOCK_MONOTONIC;
    register long r1 __asm__("r1") = (long)ts;
    __asm__ volatile("mov ip, r7\n\tmov r7, %[nr]\n\tsvc #0\n\tmov r7, ip"
                     : "+r"(r0)
                     : "r"(r1), [nr] "r"((long)SYS_clock_gettime)
                     : "ip", "memory");
#elif defined(__mips__)
    register long v0 __asm__("$2") = SYS_clock_gettime;
    register long a0 __asm__("$4") = CLOCK_MONOTONIC;
    register long a1 __asm__("$5") = (long)ts;
    register long a3 __asm__("$7");
    __asm__ volatile("syscall"
                     : "+r"(v0), "=r"(a3)
                     : "r"(a0), "r"(a1)
                     : "$1", "$3", "$8", "$9", "$10", "$11", "$12", "$13", "$14", "$15",
                       "$24", "$25", "hi", "lo", "memory");
#elif defined(__aarch64__)
    register long x0 __asm__("x0") = CLOCK_MONOTONIC;
    register long x1 __asm__("x1") = (long)ts;
    register long x8 __asm__("x8") = SYS_clock_gettime;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x1), "r"(x8) : "memory");
#elif defined(__riscv)
    register long a0 __asm__("a0") = CLOCK_MONOTONIC;
    register long a1 __asm__("a1") = (long)ts;
    register long a7 __asm__("a7") = SYS_clock_gettime;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a7) : "memory");
#else
#error "timeshape.c: ARM, MIPS, AArch64 or RISC-V only"
#endif
}

static ALWAYS_INLINE long long now_ns(void)
{
    struct kernel_timespec ts;
    clock_now(&ts);
    return ts.sec * 1000000000LL + ts.nsec;
}

/* Busy until `ms` milliseconds of wall-clock time have passed. */
static ALWAYS_INLINE void spin(long ms)
{
    long long end = now_ns() + ms * 1000000LL;
    while (now_ns() < end)
        ;
}

static volatile int after;       /* stores that keep calls out of tail position */

NOINLINE static void hot(void) { spin(80); }
NOINLINE static void inner(void) { spin(40); }
NOINLINE static void tick(void) { spin(1); }
NOINLINE static void side(void) { spin(50); }
NOINLINE static void thread_done(void) { after = 1; }

NOINLINE static void outer(void)
{
    spin(20);
    inner();
    after = 1;
}

NOINLINE static void rec(int n)
{
    spin(3);
    if (n > 0)
        rec(n - 1);
    after = n;
}

NOINLINE static void *worker(void *arg)
{
    side();
    thread_done();
    return arg;
}

/* Read through a volatile pointer: a call through a register. */
static void (*volatile tick_ptr)(void) = tick;

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 1;
    hot();
    outer();
    for (int i = 0; i < 10; i++)
        tick_ptr();
    rec(3);
    pthread_join(t, NULL);
    puts("timeshape done");
    return 0;
}
