/*
 * pad.h - PAD_FUNCTION(name): a function of about 400 KB of straight-line
 * code (nops the assembler repeats), never called, that puts distance
 * between call sites and the ends of a program's code (bigtext.c,
 * shlib/libbig.c).  The compiler sees one asm statement, not 20,000 C
 * lines: compiling one such file took 20 to 40 s per arch.
 */
#ifndef PAD_H
#define PAD_H

/* 4-byte nops in every instruction set here (Thumb-2's plain nop is 2) */
#if defined(__thumb2__)
#define PAD_NOP "nop.w"
#else
#define PAD_NOP "nop"
#endif

#define PAD_FUNCTION(name) \
    __attribute__((noinline)) void name(void) \
    { \
        __asm__ volatile(".rept 100000\n\t" PAD_NOP "\n\t.endr"); \
    }

#endif
