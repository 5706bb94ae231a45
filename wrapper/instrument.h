#ifndef LITIFUT_INSTRUMENT_H
#define LITIFUT_INSTRUMENT_H

#include "wrapper/linkargs.h"
#include "wrapper/toolchain.h"
#include "src/rules.h"

/* The instrumented link (LITIFUT=1): two links, rewrite, rename into
 * place, with the user's site rules (LITIFUT_EXCLUDE, LITIFUT_ONLY).
 * What ld prints is shown once, as if ld alone had run (pass 1's).
 * Returns the exit status: 0; if the first link fails, ld's status,
 * and ld's messages are the only ones, as without litifut; else 1
 * after one error line.  On failure the caller removes the output as
 * ld would (unlink_if_ordinary).  On success it is silent, as ld is;
 * the summary line, and a warning for each rule that named nothing, go
 * where report_line() sends them. */
int instrument_link(const struct link_args *la, const struct toolchain *tc,
                    struct site_rules *rules);

/* What the wrapper has to say beyond ld's own output (the summary
 * line, a shared library linked plainly, an ignored -s): nothing on
 * stdout or stderr by default, because build systems (libtool's
 * configure) expect a silent linker.  With LITIFUT_VERBOSE=1 it goes
 * to stderr; with LITIFUT_LOG=FILE it is appended to FILE, each line
 * with one write() so that parallel links do not interleave.  An
 * unwritable log is one warning, not a failed link.  (LITIFUT_QUIET=1,
 * which once turned the summary off, is still accepted and changes
 * nothing.)  Errors are not for these: they always go to stderr. */
void report_line(const char *line);     /* one whole line, with its newline */
void report_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
