/*
 * -o FILE (output.c): the view's output into FILE, whole or not at all.
 */
#ifndef LITIFUT_POSTPROC_OUTPUT_H
#define LITIFUT_POSTPROC_OUTPUT_H

struct output {
    const char *path;           /* FILE, or NULL: stdout as it is */
    char *tmp;                  /* the temporary file stdout writes meanwhile */
    int gz;                     /* FILE ends in .gz: compressed when done */
};

/* Sends stdout to a temporary file beside `path` (or, if `path` is an
 * existing device or FIFO, to it directly): 0, or -1 with one error
 * line. */
int output_begin(struct output *out, const char *path);

/* After the view: with ok, the temporary file becomes `path`
 * (gzip-compressed if its name ends in .gz), else it is removed: 0, or
 * -1 with one error line. */
int output_finish(struct output *out, int ok);

#endif
