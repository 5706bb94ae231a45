#include <errno.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "error.h"
#include "process.h"

extern char **environ;

int run_command(char *const argv[])
{
    pid_t pid;
    int err = strchr(argv[0], '/') ? posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)
                                   : posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (err != 0)
        return error("cannot run %s: %s", argv[0], strerror(err));
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return error("waiting for %s: %s", argv[0], strerror(errno));
    if (WIFSIGNALED(status))
        return error("%s died from signal %d", argv[0], WTERMSIG(status));
    return WEXITSTATUS(status);
}

int exec_command(char *const argv[])
{
    if (strchr(argv[0], '/'))
        execv(argv[0], argv);
    else
        execvp(argv[0], argv);
    return error("cannot run %s: %s", argv[0], strerror(errno));
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
