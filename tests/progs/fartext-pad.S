/* 12 MB of padding in .text for fartext.c: data (a $d region on ARM),
 * so the scans skip it, but code as far as reach is concerned. */
    .text
    .p2align 2
    .fill   (12 << 20) / 4, 4, 0
    .section .note.GNU-stack, "", %progbits
