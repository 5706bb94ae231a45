/* PAD_MB (default 12) MB of padding in .text for fartext.c: data (a $d
 * region on ARM and AArch64), so the scans skip it, but code as far as
 * reach is concerned. */
#ifndef PAD_MB
#define PAD_MB 12
#endif
    .text
    .p2align 2
    .fill   (PAD_MB << 20) / 4, 4, 0
    .section .note.GNU-stack, "", %progbits
