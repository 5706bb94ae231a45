/*
 * A boot in miniature, for the trace-tree tests (tests/tracedirs.sh):
 * one program under several names (hard links or copies: each name is
 * a program of its own in the traces), the role from argv[0]'s name.
 *
 *   boot-init DIR   starts, in this order: boot-svc as a daemon (it
 *                   forks, the parent exits, the child works and
 *                   exits), three boot-job workers (fork + exec), one
 *                   boot-crash (fork + exec; it dies of SIGSEGV), one
 *                   boot-hang (fork + exec; killed with SIGKILL once it
 *                   has said it is ready), one boot-job by posix_spawn,
 *                   and one fork child that works without exec; waits
 *                   for all and prints each one's fate
 *   boot-job N      N rounds of work, exit 0
 *   boot-svc        forks; the child works, the parent exits at once
 *   boot-crash      works, then writes through a null pointer
 *   boot-hang FILE  works, makes FILE (init waits for it), sleeps
 *
 * BOOT_RUNNER (and BOOT_SYSROOT), if set, runs each program: under
 * qemu-user, which has no binfmt_misc here, "qemu-arm -L SYSROOT
 * PROGRAM ARG" (the pid stays the one that exec'd, as on a device).
 *
 * The work: work() calls leaf() N times, so each process's calls are
 * known: boot-job N makes N work calls and N * 10 leaf calls.
 */
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile int sink;

__attribute__((noinline)) void leaf(int i)
{
    sink += i;
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void work(int n)
{
    for (int i = 0; i < 10; i++)
        leaf(i + n);
}

__attribute__((noinline)) void rounds(int n)
{
    for (int i = 0; i < n; i++)
        work(i);
}

static const char *dir;

/* The argv that runs `name` (with one argument or none). */
static char **command(const char *name, const char *arg, char *path, size_t size)
{
    static char *v[8];
    const char *runner = getenv("BOOT_RUNNER"), *sysroot = getenv("BOOT_SYSROOT");
    int n = 0;
    snprintf(path, size, "%s/%s", dir, name);
    if (runner && *runner) {
        v[n++] = (char *)runner;
        if (sysroot && *sysroot) {
            v[n++] = "-L";
            v[n++] = (char *)sysroot;
        }
        v[n++] = "-0";
        v[n++] = (char *)name;
    }
    v[n++] = path;
    if (arg)
        v[n++] = (char *)arg;
    v[n] = NULL;
    return v;
}

static pid_t start(const char *name, const char *arg)
{
    char path[4096];
    char **argv = command(name, arg, path, sizeof path);
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static void report(const char *what, pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid)
        printf("%s: lost\n", what);
    else if (WIFEXITED(st))
        printf("%s: exit %d\n", what, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        printf("%s: signal %d\n", what, WTERMSIG(st));
}

static int init(void)
{
    rounds(5);
    report("svc", start("boot-svc", NULL));
    pid_t jobs[3];
    for (int i = 0; i < 3; i++)
        jobs[i] = start("boot-job", i == 0 ? "20" : i == 1 ? "30" : "40");
    pid_t crash = start("boot-crash", NULL);
    char ready[4096];
    snprintf(ready, sizeof ready, "%s/hang.%d", dir, (int)getpid());
    unlink(ready);
    pid_t hang = start("boot-hang", ready);
    for (int i = 0; i < 60000 && access(ready, F_OK) != 0; i++)
        usleep(1000);
    kill(hang, SIGKILL);
    unlink(ready);
    char path[4096];
    char **argv = command("boot-job", "7", path, sizeof path);
    pid_t spawned;
    if (posix_spawn(&spawned, argv[0], NULL, NULL, argv, environ) != 0)
        return 1;
    pid_t worker = fork();
    if (worker == 0) {
        rounds(3);
        _exit(0);
    }
    for (int i = 0; i < 3; i++)
        report("job", jobs[i]);
    report("crash", crash);
    report("hang", hang);
    report("spawned", spawned);
    report("worker", worker);
    rounds(2);
    return 0;
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (!strcmp(name, "boot-init") && argc > 1) {
        dir = argv[1];
        return init();
    }
    if (!strcmp(name, "boot-job") && argc > 1) {
        rounds(atoi(argv[1]));
        return 0;
    }
    if (!strcmp(name, "boot-svc")) {
        pid_t pid = fork();
        if (pid == 0) {
            rounds(4);
            _exit(0);
        }
        return pid < 0;
    }
    if (!strcmp(name, "boot-crash")) {
        rounds(2);
        *(volatile int *)(uintptr_t)sink = 1;   /* sink is small: an unmapped page */
        return 0;
    }
    if (!strcmp(name, "boot-hang")) {
        rounds(1);
        if (argc < 2 || fclose(fopen(argv[1], "w")) != 0)
            return 1;
        for (;;)
            pause();
    }
    fprintf(stderr, "boot: unknown role %s\n", name);
    return 2;
}
