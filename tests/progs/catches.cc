// catches.cc: C++ exceptions whose catch blocks and cleanups make calls,
// and the program's own record of its call tree (tests/tree.sh).
//
// Every function below but main records its entry and its exit (also
// an exit by an exception passing through it: a destructor does it)
// with inline code only, no call: the record is the tree exactly as it
// ran, which the views must draw.  At the end main prints it, one line
// per entry: "<depth> <function>" (depth: the recorded functions open
// around it).  Their names are C names (extern "C"), as the calls TSV
// gives a callee's symbol.
//
//   main: try { thrower } catch { catch_exc(1) }
//   catch_exc(1) -> bar: try { B b; bar1 -> bar2 -> bar3 throws }
//                        (b's destructor calls b_gone during the unwinding)
//                        catch { catch_exc(2) -> baz }
//   main -> cleanup_only: B b; bar1 throws through it (no catch there),
//           caught in main, whose catch block calls baz
//   main -> rethrows: catches, calls baz, rethrows; main catches
//   main -> loop: 5 throws caught inside a loop, each catch calling baz
#include <cstdio>

static int tree_log[4096];
static int n_log;

static inline __attribute__((always_inline)) void note(int id)
{
    if (n_log < 4096)
        tree_log[n_log++] = id;
}

struct Scope {
    int id;
    __attribute__((always_inline)) explicit Scope(int i) : id(i) { note(i); }
    __attribute__((always_inline)) ~Scope() { note(-id); }
};

enum { F_THROWER = 1, F_CATCH_EXC, F_BAR, F_BAR1, F_BAR2, F_BAR3, F_BAZ, F_B_GONE,
       F_CLEANUP_ONLY, F_RETHROWS, F_LOOP, F_N };
static const char *const names[F_N] = { "", "thrower", "catch_exc", "bar", "bar1", "bar2",
                                        "bar3", "baz", "b_gone", "cleanup_only", "rethrows",
                                        "loop" };

struct exc {
    int code;
};
volatile int sink;

extern "C" {
__attribute__((noinline)) void baz(int x) { Scope s(F_BAZ); sink += x; }
__attribute__((noinline)) void b_gone(void) { Scope s(F_B_GONE); sink++; }
__attribute__((noinline)) void bar3(int x) { Scope s(F_BAR3); if (x >= 0) throw exc{ x }; sink++; }
__attribute__((noinline)) void bar2(int x) { Scope s(F_BAR2); bar3(x); sink++; }
__attribute__((noinline)) void bar1(int x) { Scope s(F_BAR1); bar2(x); sink++; }
__attribute__((noinline)) void thrower(void) { Scope s(F_THROWER); throw exc{ 1 }; }
void catch_exc(int level);
}

struct B {
    ~B() { b_gone(); }
};

extern "C" __attribute__((noinline)) void bar(void)
{
    Scope s(F_BAR);
    try {
        B b;
        bar1(3);
    } catch (const exc &e) {
        catch_exc(2);
    }
}

/* (straight-line code: the call of baz after the call of bar, so that
 * a call stack guessing the caller's frame by call-site order gives
 * catch_exc(2)'s call of baz to catch_exc(1)) */
extern "C" __attribute__((noinline)) void catch_exc(int level)
{
    Scope s(F_CATCH_EXC);
    if (level == 1)
        bar();
    sink += level;
    if (level == 2)
        baz(level);
}

extern "C" __attribute__((noinline)) void cleanup_only(void)
{
    Scope s(F_CLEANUP_ONLY);
    B b;
    bar1(5);
}

extern "C" __attribute__((noinline)) void rethrows(void)
{
    Scope s(F_RETHROWS);
    try {
        bar1(2);
    } catch (...) {
        baz(6);
        throw;
    }
}

extern "C" __attribute__((noinline)) void loop(void)
{
    Scope s(F_LOOP);
    for (int i = 0; i < 5; i++) {
        try {
            bar1(i);
        } catch (const exc &e) {
            baz(e.code);
        }
    }
}

int main()
{
    try {
        thrower();
    } catch (const exc &) {
        catch_exc(1);
    }
    try {
        cleanup_only();
    } catch (const exc &e) {
        baz(e.code);
    }
    try {
        rethrows();
    } catch (...) {
        baz(8);
    }
    loop();
    int depth = 0;
    for (int i = 0; i < n_log; i++) {
        if (tree_log[i] > 0)
            printf("%d %s\n", depth++, names[tree_log[i]]);
        else
            depth--;
    }
    return depth != 0;
}
