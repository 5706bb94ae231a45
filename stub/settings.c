/*
 * The tracer's settings, from the environment: LITIFUT_TRACE,
 * LITIFUT_DIR, LITIFUT_CHUNK_KB, LITIFUT_TIME_EVERY, LITIFUT_CLOCK,
 * LITIFUT_RETURNS, LITIFUT_COPY_TO, LITIFUT_SIGNAL, LITIFUT_RECORD,
 * LITIFUT_START_AT, LITIFUT_STOP_AT, LITIFUT_MODE, LITIFUT_CONTROL,
 * LITIFUT_BUDGET.  Read from
 * /proc/self/environ, which works before libc has set up `environ` (a
 * static program's first calls); `__environ` is the fallback without
 * /proc.  No libc.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"

extern char **__environ __attribute__((weak));

#define DEFAULT_CHUNK_KB   128u
#define DEFAULT_TIME_EVERY 256u

/* "SIGUSR2", "USR2" or "12": the target's number (0: none or unknown) */
static int signal_number(const char *v)
{
    static const struct { const char *name; int sig; } names[] = {
        { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP }, { "INT", SIGINT },
        { "QUIT", SIGQUIT }, { "TERM", SIGTERM }, { "ALRM", SIGALRM }, { "WINCH", SIGWINCH },
        { "PWR", SIGPWR }, { "URG", SIGURG },
    };
    const char *name = str_after(v, "SIG");
    if (!name)
        name = v;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (str_eq(name, names[i].name))
            return names[i].sig;
    uint32_t n = str_to_uint(v);
    return n > 0 && n < 64 && n != SIGKILL && n != SIGSTOP ? (int)n : 0;
}

/* "250us", "2ms", "1s" at *s (advanced past it): microseconds; 0 if
 * not such.  (No division: the tracer has no libgcc.) */
static uint64_t duration_us(const char **s)
{
    static const struct { const char *unit; uint32_t us; } units[] = {
        { "us", 1 }, { "ms", 1000 }, { "s", 1000000 },
    };
    uint64_t v = 0;
    const char *p = *s;
    for (; *p >= '0' && *p <= '9' && v < 1000000000ull; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (p == *s || (*p >= '0' && *p <= '9'))
        return 0;
    for (unsigned i = 0; i < sizeof units / sizeof units[0]; i++) {
        const char *rest = str_after(p, units[i].unit);
        if (rest && (*rest == '/' || !*rest)) {
            *s = rest;
            return v * units[i].us;
        }
    }
    return 0;
}

/* LITIFUT_BUDGET=B/T: 1 if it is one the tracer keeps (B from 1 us,
 * below T; T up to a minute: spent time is counted in 32 bits). */
static int parse_budget(struct settings *st, const char *v)
{
    uint64_t b = duration_us(&v), t = 0;
    if (*v++ == '/')
        t = duration_us(&v);
    if (*v || !b || b >= t || t > 60000000)
        return 0;
    st->budget_us = (uint32_t)b;
    st->period_us = (uint32_t)t;
    return 1;
}

/* A path setting into dst; 1 if it does not fit (then it is not used). */
static int put_path(char *dst, unsigned long size, const char *v)
{
    str_put(dst, dst + size, v);
    return str_len(v) >= size;
}

static void apply_setting(struct settings *st, const char *var)
{
    const char *v;
    if (!(var = str_after(var, "LITIFUT_")))
        return;
    if ((v = str_after(var, "TRACE=")))
        st->off = str_eq(v, "0");
    else if ((v = str_after(var, "DIR=")))
        st->dir_too_long = put_path(st->dir, sizeof st->dir, v);
    else if ((v = str_after(var, "CHUNK_KB=")))
        st->chunk_kb = str_to_uint(v);
    else if ((v = str_after(var, "TIME_EVERY=")))
        st->time_every = str_to_uint(v);
    else if ((v = str_after(var, "COPY_TO=")))
        st->copy_to_too_long = put_path(st->copy_to, sizeof st->copy_to, v);
    else if ((v = str_after(var, "CONTROL=")))
        st->control_too_long = put_path(st->control, sizeof st->control, v);
    else if ((v = str_after(var, "SIGNAL=")))
        st->toggle_signal = signal_number(v);
    else if ((v = str_after(var, "RECORD=")))
        st->record_off = str_eq(v, "off");
    else if ((v = str_after(var, "START_AT=")))
        str_put(st->start_at, st->start_at + sizeof st->start_at, v);
    else if ((v = str_after(var, "STOP_AT=")))
        str_put(st->stop_at, st->stop_at + sizeof st->stop_at, v);
    else if ((v = str_after(var, "MODE=")))
        st->mode = str_eq(v, "full") || !*v ? LITIFUT_MODE_FULL
                   : str_eq(v, "dedup")     ? LITIFUT_MODE_DEDUP
                   : str_eq(v, "count")     ? LITIFUT_MODE_COUNT : MODE_UNKNOWN;
    else if ((v = str_after(var, "BUDGET=")))
        st->budget_bad = *v && !parse_budget(st, v);
    else if ((v = str_after(var, "RETURNS=")))
        st->returns = str_eq(v, "1");
    else if ((v = str_after(var, "CLOCK=")))
        st->clock = str_eq(v, "monotonic") ? LITIFUT_CLOCK_MONOTONIC
                    : str_eq(v, "marks")   ? LITIFUT_CLOCK_MARKS
                    : str_eq(v, "counter") ? ARCH_COUNTER_CLOCK : 0;   /* 0: auto */
}

/* The directory made absolute, so that a program that changes
 * directory (a daemon) can still have its trace file reopened and its
 * maps copied.  0 if the result does not fit in `size` bytes. */
static int make_absolute(char *dir, unsigned long size)
{
    static char rel[PATH_SIZE];         /* callers hold the tracer's lock */
    if (dir[0] == '/')
        return 1;
    str_put(rel, rel + sizeof rel, dir[0] ? dir : ".");
    long n = arch_syscall6(__NR_getcwd, (long)dir, (long)size, 0, 0, 0, 0);
    if (n == -ERANGE)
        return 0;
    if (n <= 0) {
        str_put(dir, dir + size, rel);  /* no getcwd: relative it stays */
        return 1;
    }
    if (str_eq(rel, "."))
        return 1;
    unsigned long len = str_len(dir);
    if (len + 1 + str_len(rel) >= size)
        return 0;
    str_put(str_put(dir + len, dir + size, "/"), dir + size, rel);
    return 1;
}

void read_settings(struct settings *st)
{
    st->off = 0;
    st->dir_too_long = 0;
    st->chunk_kb = DEFAULT_CHUNK_KB;
    st->time_every = DEFAULT_TIME_EVERY;
    st->clock = 0;
    st->returns = 0;
    st->returns_ignored = 0;
    st->dir[0] = 0;
    st->copy_to[0] = 0;
    st->copy_to_too_long = 0;
    st->control[0] = 0;
    st->control_too_long = 0;
    st->toggle_signal = 0;
    st->record_off = 0;
    st->start_at[0] = st->stop_at[0] = 0;
    st->mode = LITIFUT_MODE_FULL;
    st->budget_us = st->period_us = 0;
    st->budget_bad = 0;
    unsigned long len;
    char *buf = read_proc_file("/proc/self/environ", &len);
    if (buf) {
        for (unsigned long i = 0; i < len; i += str_len(buf + i) + 1)
            apply_setting(st, buf + i);
        free_proc_file(buf);
    } else if (&__environ && __environ) {
        for (char **e = __environ; *e; e++)
            apply_setting(st, *e);
    }
    if (!st->dir_too_long && !make_absolute(st->dir, sizeof st->dir))
        st->dir_too_long = 1;
    if (st->copy_to[0] && !st->copy_to_too_long &&
        !make_absolute(st->copy_to, sizeof st->copy_to))
        st->copy_to_too_long = 1;
    if (st->copy_to_too_long)
        st->copy_to[0] = 0;
    if (st->control[0] && !st->control_too_long &&
        !make_absolute(st->control, sizeof st->control))
        st->control_too_long = 1;
    if (st->control_too_long)
        st->control[0] = 0;
    st->budget_ignored = st->budget_us && st->mode != LITIFUT_MODE_FULL;
    if (st->budget_ignored)
        st->budget_us = st->period_us = 0;  /* the modes have no refill to check it at */
    st->returns_ignored = st->returns && st->mode != LITIFUT_MODE_FULL;
    if (st->returns_ignored)
        st->returns = 0;            /* exact returns need the full trace */
    if (st->chunk_kb < 4)
        st->chunk_kb = 4;
    if (st->chunk_kb > 65536)
        st->chunk_kb = 65536;
    st->chunk_kb &= ~3u;                /* whole pages */
}
