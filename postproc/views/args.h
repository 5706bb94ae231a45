/*
 * LITIFUT_ARGS' values as the views print them: a call's arguments
 * `"/etc/config", 0, 0x1b6` (--auto-args: `pathname="/etc/config",
 * flags=O_RDONLY, ...`: the names and types of the function's DWARF or
 * of include/litifut/protos.h), a return value `3`.  From a frame's words (postproc/reader/callstack.h frame_args,
 * frame.ret: an ARGS record as the reader checked and kept it).
 */
#ifndef LITIFUT_POSTPROC_ARGS_H
#define LITIFUT_POSTPROC_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include "postproc/reader/names.h"

/* Bytes args_text may write for n words, its NUL included. */
static inline size_t args_text_max(uint32_t n)
{
    return 128 * (size_t)n + 64;    /* (a value: 2 words at least; open's flags, a name) */
}

/* What --auto-args knows of a function: the names of its argument
 * registers (comma-separated by register: integer ones, floating-point
 * ones as doubles and as floats) and their type letters
 * (include/litifut/protos.h: [0] the return value's, [N] integer
 * argument register N's); NULL or "" where it knows none. */
struct args_names {
    const char *names, *fp_names, *fp32_names, *types;
};
/* fn's: from its DWARF (fn->proto, --auto-args), else from the
 * built-in table by its symbol; 0 if neither knows it. */
int args_names_of(const struct func *fn, struct args_names *an);

/* The values (n words at w; word_size and arch the trace's) as text
 * into out (args_text_max(n) bytes), comma-separated; with `an`, each
 * named and shown as its type says.  Returns the text's length. */
size_t args_text(char *out, const uint32_t *w, uint32_t n, unsigned word_size, unsigned arch,
                 const struct args_names *an);

/* A view's buffer for args_text: the text valid until the next call. */
struct args_buf {
    char *text;
    size_t cap;
};
/* The values (n words at w) of a call of `fn` in a trace with header h,
 * as the views print them: with --auto-args (`names`) named and typed
 * as args_names_of says.  fn NULL: no names. */
struct litifut_trace_header;
const char *args_buf_text(struct args_buf *b, const struct litifut_trace_header *h,
                          const uint32_t *w, uint32_t n, const struct func *fn, int names);
void args_buf_free(struct args_buf *b);

#endif
