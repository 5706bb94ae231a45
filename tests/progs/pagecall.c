/*
 * pagecall: a call in a page's last word (tests/emu.sh).  On MIPS its
 * delay slot lies on the next page, and QEMU runs it as a block of its
 * own: a reader of blocks must take the block after it for the call's
 * target.  (Other archs: the same calls from ordinary places.)  And a
 * call through a pointer whose load is a 32-bit Thumb instruction.  Prints
 * what leaf returned; exit status 0.
 */
#include <stdio.h>

volatile int sink;
__attribute__((noinline)) int leaf(int x) { sink += x; return x + 1; }

#if defined(__mips__)
int pagecall(int x);
/* pagecall: its bal in the last word of a page (the function starts a
 * page: 2 words, 1021 nops, the bal at 0xffc, its delay slot at 0x1000),
 * to pageleaf (which needs no $gp: a bal does not set $t9) */
__asm__(".text\n"
        ".balign 4096\n"
        ".globl pagecall\n"
        ".type pagecall, @function\n"
        ".set push\n.set noreorder\n.set nomacro\n"
        "pagecall:\n"
        "    addiu $sp, $sp, -32\n"
        "    sw $ra, 28($sp)\n"
        "    .fill 1021, 4, 0\n"
        "    bal pageleaf\n"
        "    nop\n"
        "    lw $ra, 28($sp)\n"
        "    jr $ra\n"
        "    addiu $sp, $sp, 32\n"
        ".size pagecall, . - pagecall\n"
        ".type pageleaf, @function\n"
        "pageleaf:\n"
        "    jr $ra\n"
        "    addiu $v0, $a0, 1\n"
        ".size pageleaf, . - pageleaf\n"
        ".set pop\n");
#else
__attribute__((noinline)) int pagecall(int x) { return leaf(x); }
#endif

/* A call through a pointer far into a struct: on Thumb-2 `ldr.w rN,
 * [rM, #404]; blx rN`, a pair whose first instruction is 32-bit (the
 * rewriter moves it into a thunk; the blx stays after the bl). */
struct table {
    char pad[404];
    int (*fn)(int);
};
__attribute__((noinline)) int through(const struct table *t, int x) { return t->fn(x) * 2; }

int main(void)
{
    static struct table t = { .fn = leaf };
    int r = 0;
    for (int i = 0; i < 5; i++)
        r += pagecall(i) + through(&t, i);
    printf("%d\n", r);
    return 0;
}
