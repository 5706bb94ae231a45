#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/error.h"
#include "wrapper/process.h"

extern char **environ;

/* A termination signal is only noted here (and passed on to the child
 * we are waiting for); the code that owns temporary files checks
 * pending_signal() at its next step, cleans up and dies by it. */
static volatile sig_atomic_t caught_signal;
static volatile pid_t running_child;

static void on_termination_signal(int sig)
{
    int saved = errno;
    caught_signal = sig;
    if (running_child > 0)
        kill(running_child, sig);
    errno = saved;
}

void catch_termination_signals(void)
{
    static const int sigs[] = { SIGHUP, SIGINT, SIGTERM };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_termination_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* a signal the caller ignored (nohup, a background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

int pending_signal(void)
{
    return caught_signal;
}

void die_by_pending_signal(void)
{
    int sig = caught_signal;
    if (!sig)
        return;
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

static int spawn_and_wait(char *const argv[], const posix_spawn_file_actions_t *fa)
{
    pid_t pid;
    if (caught_signal)
        return error("interrupted by signal %d", (int)caught_signal);
    int err = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], fa, NULL, argv, environ)
                                   : posix_spawnp(&pid, argv[0], fa, NULL, argv, environ);
    if (err != 0)
        return error("cannot run %s: %s", argv[0], strerror(err));
    running_child = pid;
    if (caught_signal)                  /* came between the check and the spawn */
        kill(pid, caught_signal);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            running_child = 0;
            return error("waiting for %s: %s", argv[0], strerror(errno));
        }
    running_child = 0;
    if (caught_signal)
        return -1;                      /* the caller cleans up and dies by it */
    if (WIFSIGNALED(status))
        return error("%s died from signal %d", argv[0], WTERMSIG(status));
    return WEXITSTATUS(status);
}

int run_command(char *const argv[])
{
    return spawn_and_wait(argv, NULL);
}

int run_command_captured(char *const argv[], const char *out, const char *err)
{
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NOCTTY;
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return error("cannot run %s: %s", argv[0], strerror(errno));
    int e = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out, flags, 0600);
    if (!e)
        e = err ? posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err, flags, 0600)
                : posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    int st = e ? error("cannot run %s: %s", argv[0], strerror(e)) : spawn_and_wait(argv, &fa);
    posix_spawn_file_actions_destroy(&fa);
    return st;
}

int exec_command(char *const argv[])
{
    return exec_command_as(argv[0], argv);
}

int exec_command_as(const char *path, char *const argv[])
{
    if (strchr(path, '/'))
        execv(path, argv);
    else
        execvp(path, argv);
    return error("cannot run %s: %s", path, strerror(errno));
}

void argv_push(struct argv_builder *a, const char *arg)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap * 2 + 16;
        a->v = xrealloc(a->v, (size_t)a->cap * sizeof *a->v);
    }
    a->v[a->n++] = xstrdup(arg);
    a->v[a->n] = NULL;
}

void argv_free(struct argv_builder *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}
