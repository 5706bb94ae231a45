/*
 * jumps.c - functions entered by tail jumps (sibling calls: `return
 * g(x);` compiled to a jump at -O2), each counting its own entries:
 *   - to_leaf: entered by jumps only (jumper's, and chained ones'),
 *     never called;
 *   - a chain: chain1 jumps to chain2, which jumps to chain3, which
 *     calls leaf;
 *   - a conditional jump: maybe_jump jumps to odd_case or calls even_case;
 *   - mutual recursion by jumps: is_even and is_odd jump to each other
 *     200 deep, then return;
 *   - a jump into the C library (strlen, through the PLT);
 *   - a function called through a pointer that jumps on (via_pointer);
 *   - a jump through a register (by_register jumps to what it is
 *     given: reg_target), and computed gotos inside a function
 *     (computed: no call);
 *   - a loop in main that calls jumper 10 times.
 * Prints "calls name=N ..." (as entries.c does) and one line of results;
 * exit status 0.
 */
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

enum { F_TO_LEAF, F_JUMPER, F_CHAIN1, F_CHAIN2, F_CHAIN3, F_LEAF, F_MAYBE, F_ODD, F_EVEN,
       F_IS_EVEN, F_IS_ODD, F_VIA_POINTER, F_LENGTH, F_REG_TARGET, F_BY_REGISTER, F_COMPUTED,
       N_F };
static const char *const names[N_F] = { "to_leaf", "jumper", "chain1", "chain2", "chain3", "leaf",
                                        "maybe_jump", "odd_case", "even_case", "is_even", "is_odd",
                                        "via_pointer", "length", "reg_target", "by_register",
                                        "computed" };
static volatile unsigned counts[N_F];
static volatile int acc;
static char text[] = "tail jumps are calls too";

NOINLINE int leaf(int x) { counts[F_LEAF]++; acc += x; return x + 1; }
NOINLINE int to_leaf(int x) { counts[F_TO_LEAF]++; acc ^= x; return x * 3; }
NOINLINE int jumper(int x) { counts[F_JUMPER]++; leaf(x); return to_leaf(x + 2); }
NOINLINE int chain3(int x) { counts[F_CHAIN3]++; leaf(x); return to_leaf(x); }
NOINLINE int chain2(int x) { counts[F_CHAIN2]++; acc += x; return chain3(x * 2); }
NOINLINE int chain1(int x) { counts[F_CHAIN1]++; acc -= x; return chain2(x + 1); }
NOINLINE int odd_case(int x) { counts[F_ODD]++; acc += 2 * x; return x - 1; }
NOINLINE int even_case(int x) { counts[F_EVEN]++; acc += 3 * x; return x + 5; }
NOINLINE int maybe_jump(int x)
{
    counts[F_MAYBE]++;
    if (x & 1)
        return odd_case(x);             /* a jump (conditional, or after a branch) */
    return even_case(x) + 1;            /* a call */
}
NOINLINE int is_odd(unsigned n);
NOINLINE int is_even(unsigned n) { counts[F_IS_EVEN]++; return n == 0 ? 1 : is_odd(n - 1); }
NOINLINE int is_odd(unsigned n) { counts[F_IS_ODD]++; return n == 0 ? 0 : is_even(n - 1); }
NOINLINE size_t length(const char *s) { counts[F_LENGTH]++; return strlen(s + (acc & 1)); }
NOINLINE int via_pointer(int x) { counts[F_VIA_POINTER]++; return to_leaf(x + 7); }

static int (*volatile indirect)(int) = via_pointer;

NOINLINE int reg_target(int x) { counts[F_REG_TARGET]++; acc += x; return x - 3; }
NOINLINE int by_register(int x, int (*f)(int)) { counts[F_BY_REGISTER]++; return f(x * 2); }
static int (*volatile reg_fn)(int) = reg_target;
NOINLINE int computed(int x)
{
    static void *const labels[] = { &&one, &&two, &&three };
    counts[F_COMPUTED]++;
    goto *labels[x % 3];
one:
    return x + 1;
two:
    acc += x;
    return x + 2;
three:
    return x * 5;
}

int main(int argc, char **argv)
{
    (void)argv;
    int r = 0;
    for (int i = 0; i < 10; i++)
        r += jumper(i + argc);
    for (int i = 0; i < 4; i++)
        r += chain1(i);
    for (int i = 0; i < 7; i++)
        r += maybe_jump(i);
    r += is_even(200) + is_even(17);
    r += (int)length(text);
    r += indirect(3) + indirect(4);
    for (int i = 0; i < 5; i++)
        r += by_register(i, reg_fn);
    for (int i = 0; i < 6; i++)
        r += computed(i + argc);
    fputs("calls", stdout);
    for (int i = 0; i < N_F; i++)
        printf(" %s=%u", names[i], counts[i]);
    printf("\njumps: %d %d\n", r & 0xffff, acc & 0xff);
    return 0;
}
