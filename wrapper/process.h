/* Running other programs from argv arrays (never through a shell). */
#ifndef LITIFUT_PROCESS_H
#define LITIFUT_PROCESS_H

/* Runs argv (argv[0] searched in PATH if it has no '/') and waits.
 * Returns its exit status, or -1 with one error line if it could not
 * be run or died from a signal. */
int run_command(char *const argv[]);
/* The same, with the command's stdout written to the file `out` and
 * its stderr to the file `err` (each created afresh, mode 0600, never
 * through a symlink: files of a private directory); `err` NULL: both
 * into `out`, so that their order is kept. */
int run_command_captured(char *const argv[], const char *out, const char *err);

/* SIGHUP, SIGINT and SIGTERM (unless ignored) are noted, passed on to
 * the command run_command is waiting for, and make run_command fail;
 * the caller removes its temporary files, then die_by_pending_signal()
 * ends the process by the same signal, as if it had not been caught. */
void catch_termination_signals(void);
int pending_signal(void);           /* the signal caught, or 0 */
void die_by_pending_signal(void);   /* returns only if none was caught */

/* Replaces this process with argv; returns only on failure (-1, with
 * one error line). */
int exec_command(char *const argv[]);
/* The same, with argv[0] other than the file run (`path`). */
int exec_command_as(const char *path, char *const argv[]);

/* Growable NULL-terminated argv. */
struct argv_builder {
    char **v;
    int n, cap;
};
void argv_push(struct argv_builder *a, const char *arg);
void argv_free(struct argv_builder *a);

#endif
