/*
 * contexts.c - coroutines on stacks of their own (makecontext and
 * swapcontext): two coroutines suspended three calls deep, resumed ten
 * times each from main.  With exact returns a frame suspended on one
 * stack looks gone to calls made on another; its return, when it comes,
 * must still find its real return address.  Then a context saved by
 * getcontext resumed three times by setcontext from a deeper frame:
 * getcontext returns again each time, as setjmp after longjmp.  Prints
 * the coroutines' ends, a checksum and getcontext's returns; exit
 * status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define NOINLINE __attribute__((noinline))
#define STACK (64 * 1024)

static ucontext_t main_ctx, co_ctx[2];
static volatile int sink;

NOINLINE static void leaf(int i) { sink += i; }

NOINLINE static void yield_to_main(int id)
{
    leaf(id);
    swapcontext(&co_ctx[id], &main_ctx);
    leaf(id);
}

NOINLINE static void body(int id, int n)
{
    if (n) {
        body(id, n - 1);
        yield_to_main(id);
    }
}

static void coroutine(int id)
{
    for (int i = 0; i < 3; i++)
        body(id, 3);
    printf("coroutine %d done\n", id);
}

NOINLINE static void resume(int id) { swapcontext(&main_ctx, &co_ctx[id]); }

static ucontext_t again_ctx;
static volatile int again_n;

NOINLINE static void jump_back(void) { setcontext(&again_ctx); }

NOINLINE static int returns_again(void)
{
    getcontext(&again_ctx);
    if (again_n++ < 3)
        jump_back();
    return again_n;
}

int main(void)
{
    for (int id = 0; id < 2; id++) {
        getcontext(&co_ctx[id]);
        co_ctx[id].uc_stack.ss_sp = malloc(STACK);
        co_ctx[id].uc_stack.ss_size = STACK;
        co_ctx[id].uc_link = &main_ctx;
        makecontext(&co_ctx[id], (void (*)(void))coroutine, 1, id);
    }
    for (int round = 0; round < 10; round++)
        for (int id = 0; id < 2; id++)
            resume(id);
    printf("sink %d\n", sink);
    printf("getcontext returned %d times\n", returns_again());
    return 0;
}
