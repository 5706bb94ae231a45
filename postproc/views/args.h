/*
 * LITIFUT_ARGS' values as the views print them: a call's arguments
 * `"/etc/config", 0, 0x1b6` (--auto-args: `pathname="/etc/config",
 * flags=0, ...`, the names of include/litifut/protos.h), a return value
 * `3`.  From a frame's words (postproc/reader/callstack.h frame_args,
 * frame.ret: an ARGS record as the reader checked and kept it).
 */
#ifndef LITIFUT_POSTPROC_ARGS_H
#define LITIFUT_POSTPROC_ARGS_H

#include <stddef.h>
#include <stdint.h>

/* Bytes args_text may write for n words, its NUL included. */
static inline size_t args_text_max(uint32_t n)
{
    return 40 * (size_t)n + 64;
}

/* The values (n words at w; word_size the trace's) as text into out
 * (args_text_max(n) bytes), comma-separated; `callee`'s argument names
 * before them if `names` (and the callee is in the prototypes).
 * Returns the text's length. */
size_t args_text(char *out, const uint32_t *w, uint32_t n, unsigned word_size, const char *callee,
                 int names);

/* A view's buffer for args_text: the text valid until the next call. */
struct args_buf {
    char *text;
    size_t cap;
};
const char *args_buf_text(struct args_buf *b, const uint32_t *w, uint32_t n, unsigned word_size,
                          const char *callee, int names);
void args_buf_free(struct args_buf *b);

#endif
