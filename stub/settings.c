/*
 * The tracer's settings, from the environment: LITIFUT_TRACE,
 * LITIFUT_DIR, LITIFUT_CHUNK_KB, LITIFUT_TIME_EVERY, LITIFUT_CLOCK,
 * LITIFUT_RETURNS, LITIFUT_COPY_TO, LITIFUT_SIGNAL, LITIFUT_RECORD,
 * LITIFUT_START_AT, LITIFUT_STOP_AT, LITIFUT_MODE, LITIFUT_CONTROL,
 * LITIFUT_BUDGET, LITIFUT_RING, LITIFUT_SNAPSHOT_AT, LITIFUT_SNAPSHOT_SIGNAL,
 * LITIFUT_MAX_SIZE, LITIFUT_MAX_TOTAL, LITIFUT_EXCLUDE_CALLEE.  A value a setting does not take is one line at
 * start (what it takes) and no trace, never a default taken silently.
 * Read from
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
#define DEFAULT_RING_KB    8192u    /* LITIFUT_MODE=ring without LITIFUT_RING: 8 MB */
#define MIN_RING_KB        64u
#define MAX_RING_KB        (2048u * 1024u)  /* 2 GB: the header's ring_size is 32 bits */
#define MAX_SIZE_KB        0xffffffffu      /* LITIFUT_MAX_SIZE: 4 TB, in the header's 32 bits */

/* "4M", "512K", "1G", "65536" (bytes) at v: KB, or -1 if not such, not
 * a whole number of KB or above max_kb. */
static int64_t size_kb(const char *v, uint64_t max_kb)
{
    uint64_t n = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9' && n < (1ull << 40); p++)
        n = n * 10 + (uint64_t)(*p - '0');
    if (p == v || (*p && n >= (1ull << 33)))
        return -1;
    uint64_t kb = *p == 'K' || *p == 'k'   ? n
                  : *p == 'M' || *p == 'm' ? n << 10
                  : *p == 'G' || *p == 'g' ? n << 20
                  : *p == 'T' || *p == 't' ? n << 30
                  : !*p && !(n & 1023)     ? n >> 10 : ~0ull;
    if (*p && p[1])
        return -1;
    return kb > max_kb ? -1 : (int64_t)kb;
}

/* A whole number, all of `v`, at most `max`; -1 if `v` is not one. */
static int64_t number(const char *v, uint32_t max)
{
    uint64_t n = 0;
    const char *p = v;
    for (; *p >= '0' && *p <= '9' && n <= max; p++)
        n = n * 10 + (uint64_t)(*p - '0');
    return p == v || *p || n > max ? -1 : (int64_t)n;
}

/* A signal the program can spare for LITIFUT_SIGNAL: "SIGUSR2", "USR2",
 * "RTMIN+3" or a number; 0 if not such.  Refused: the signals that
 * report faults or stop, kill or continue the process (the program's
 * fate must not change), and glibc's two internal real-time ones. */
static int signal_number(const char *v)
{
    static const struct { const char *name; int sig; } names[] = {
        { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "HUP", SIGHUP }, { "INT", SIGINT },
        { "QUIT", SIGQUIT }, { "TERM", SIGTERM }, { "ALRM", SIGALRM }, { "WINCH", SIGWINCH },
        { "PWR", SIGPWR }, { "URG", SIGURG }, { "PROF", SIGPROF }, { "VTALRM", SIGVTALRM },
        { "IO", SIGIO },
    };
    const char *name = str_after(v, "SIG");
    if (!name)
        name = v;
    const char *rt = str_after(name, "RTMIN+");
    int64_t n = rt ? number(rt, ARCH_NSIG) : number(name, ARCH_NSIG);
    if (rt)
        n = n >= 0 ? n + 34 : -1;       /* glibc's SIGRTMIN */
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (str_eq(name, names[i].name) || n == names[i].sig)
            return names[i].sig;
    return n >= 34 && n <= ARCH_NSIG ? (int)n : 0;
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

/* LITIFUT_DIR's % patterns are those tracefile.c expands: 1 if all are. */
static int dir_patterns_known(const char *v)
{
    for (; *v; v++) {
        if (*v != '%')
            continue;
        char c = *++v;
        if (c != 'p' && c != 'e' && c != 't' && c != 'u' && c != 'h' && c != '%')
            return 0;
    }
    return 1;
}

/* A path setting into dst; 1 if it does not fit (then it is not used). */
static int put_path(char *dst, unsigned long size, const char *v)
{
    str_put(dst, dst + size, v);
    return str_len(v) >= size;
}

/* What each setting takes, for the one line a bad value gets (the
 * first bad one: enum bad_setting). */
static const char *const accepted[] = {
    [BAD_TRACE] = "LITIFUT_TRACE: expected 0 or 1",
    [BAD_CHUNK_KB] = "LITIFUT_CHUNK_KB: expected a power of 2 from 4 to 65536 (KB)",
    [BAD_TIME_EVERY] = "LITIFUT_TIME_EVERY: expected a number of record words from 1 to 65536",
    [BAD_CLOCK] = "LITIFUT_CLOCK: expected auto, marks, monotonic or counter",
    [BAD_RETURNS] = "LITIFUT_RETURNS: expected 0 or 1",
    [BAD_RECORD] = "LITIFUT_RECORD: expected on or off",
    [BAD_SIGNAL] = "LITIFUT_SIGNAL: expected a signal the program can spare: USR1, USR2, "
                   "HUP, INT, QUIT, TERM, ALRM, WINCH, PWR, URG, PROF, VTALRM, IO or "
                   "RTMIN+N (SIG prefix or number)",
    [BAD_MODE] = "LITIFUT_MODE: expected full, ring, dedup or count",
    [BAD_RING] = "LITIFUT_RING: expected a size from 64K to 2G such as 4M (K, M, G)",
    [BAD_SNAPSHOT_AT] = "LITIFUT_SNAPSHOT_AT: expected a function name of at most 127 bytes",
    [BAD_SNAPSHOT_SIGNAL] = "LITIFUT_SNAPSHOT_SIGNAL: expected a signal the program can spare "
                            "(as LITIFUT_SIGNAL)",
    [BAD_SNAPSHOT_SAME] = "LITIFUT_SNAPSHOT_SIGNAL: expected a signal other than LITIFUT_SIGNAL's",
    [BAD_BUDGET] = "LITIFUT_BUDGET: expected B/T such as 2ms/100ms (us, ms, s; B from 1us, "
                   "below T; T up to 60s)",
    [BAD_START_AT] = "LITIFUT_START_AT: expected a function name of at most 127 bytes",
    [BAD_STOP_AT] = "LITIFUT_STOP_AT: expected a function name of at most 127 bytes",
    [BAD_DIR] = "LITIFUT_DIR: expected a directory whose patterns are %p (pid), %e (program), "
                "%t (start time), %h (host name), %u (user id) or %%",
    [BAD_MAX_SIZE] = "LITIFUT_MAX_SIZE: expected a size from 64K to 4T such as 100M (K, M, G, T)",
    [BAD_MAX_TOTAL] = "LITIFUT_MAX_TOTAL: expected a size from 64K to 4T such as 10G (K, M, G, T)",
    [BAD_EXCLUDE_CALLEE] = "LITIFUT_EXCLUDE_CALLEE: expected at most 1023 bytes of function "
                           "names (more in an @FILE)",
    [BAD_ARGS] = "LITIFUT_ARGS: expected at most 1023 bytes of rules such as "
                 "'open;strcmp@arg1/s,arg2/s,retval' (argN, retval; /s, /sLEN, /xLEN; "
                 "fpargN, retval/f, /f32 on armhf and AArch64)",
    [BAD_ARGS_MODE] = "LITIFUT_ARGS: records calls' values in LITIFUT_MODE full or ring only",
};

const char *settings_problem(const struct settings *st)
{
    return st->bad > 0 && st->bad < (int)(sizeof accepted / sizeof accepted[0])
               ? accepted[st->bad] : NULL;
}

static void bad(struct settings *st, enum bad_setting which)
{
    if (!st->bad)
        st->bad = which;
}

/* `v` is one of the words (NULL-terminated list): its index, else -1.
 * An empty value is the default, the first word. */
static int word_of(const char *v, const char *const *words)
{
    if (!*v)
        return 0;
    for (int i = 0; words[i]; i++)
        if (str_eq(v, words[i]))
            return i;
    return -1;
}

/* LITIFUT_MAX_SIZE, LITIFUT_MAX_TOTAL: 64K to 4T into *kb ("": none). */
static void size_cap(struct settings *st, const char *v, uint32_t *kb, enum bad_setting which)
{
    int64_t n = *v ? size_kb(v, MAX_SIZE_KB) : 0;
    if (*v && n < MIN_RING_KB)
        bad(st, which);
    else
        *kb = (uint32_t)n;
}

static void apply_setting(struct settings *st, const char *var)
{
    static const char *const off_on[] = { "1", "0", NULL };     /* LITIFUT_TRACE */
    static const char *const no_yes[] = { "0", "1", NULL };
    static const char *const on_off[] = { "on", "off", NULL };
    static const char *const modes[] = { "full", "dedup", "count", "ring", NULL };
    static const char *const clocks[] = { "auto", "marks", "monotonic", "counter", NULL };
    static const uint32_t clock_ids[] = { 0, LITIFUT_CLOCK_MARKS, LITIFUT_CLOCK_MONOTONIC,
                                          ARCH_COUNTER_CLOCK };
    const char *v;
    int w;
    int64_t n;
    if (!(var = str_after(var, "LITIFUT_")))
        return;
    if ((v = str_after(var, "TRACE="))) {
        if ((w = word_of(v, off_on)) < 0)
            bad(st, BAD_TRACE);
        st->off = w == 1;
    } else if ((v = str_after(var, "DIR="))) {
        st->dir_too_long = put_path(st->dir, sizeof st->dir, v);
        if (!dir_patterns_known(v))
            bad(st, BAD_DIR);
    } else if ((v = str_after(var, "MAX_TOTAL="))) {
        size_cap(st, v, &st->max_total_kb, BAD_MAX_TOTAL);
    } else if ((v = str_after(var, "ARGS="))) {
        if (put_path(st->args, sizeof st->args, v) || (v[0] && args_spec_problem(v)))
            bad(st, BAD_ARGS);
    } else if ((v = str_after(var, "EXCLUDE_CALLEE="))) {
        if (put_path(st->exclude_callee, sizeof st->exclude_callee, v))
            bad(st, BAD_EXCLUDE_CALLEE);
    } else if ((v = str_after(var, "MAX_SIZE="))) {
        size_cap(st, v, &st->max_size_kb, BAD_MAX_SIZE);
    } else if ((v = str_after(var, "CHUNK_KB="))) {
        n = *v ? number(v, 65536) : DEFAULT_CHUNK_KB;
        if (n < 4 || (n & (n - 1)))
            bad(st, BAD_CHUNK_KB);
        else
            st->chunk_kb = (uint32_t)n;
    } else if ((v = str_after(var, "TIME_EVERY="))) {
        n = *v ? number(v, 65536) : DEFAULT_TIME_EVERY;
        if (n < 1)
            bad(st, BAD_TIME_EVERY);
        else
            st->time_every = (uint32_t)n;
    } else if ((v = str_after(var, "COPY_TO="))) {
        st->copy_to_too_long = put_path(st->copy_to, sizeof st->copy_to, v);
    } else if ((v = str_after(var, "CONTROL="))) {
        st->control_too_long = put_path(st->control, sizeof st->control, v);
    } else if ((v = str_after(var, "SIGNAL="))) {
        st->toggle_signal = *v ? signal_number(v) : 0;
        if (*v && !st->toggle_signal)
            bad(st, BAD_SIGNAL);
    } else if ((v = str_after(var, "RECORD="))) {
        if ((w = word_of(v, on_off)) < 0)
            bad(st, BAD_RECORD);
        st->record_off = w == 1;
    } else if ((v = str_after(var, "START_AT="))) {
        if (put_path(st->start_at, sizeof st->start_at, v))
            bad(st, BAD_START_AT);
    } else if ((v = str_after(var, "STOP_AT="))) {
        if (put_path(st->stop_at, sizeof st->stop_at, v))
            bad(st, BAD_STOP_AT);
    } else if ((v = str_after(var, "MODE="))) {
        if ((w = word_of(v, modes)) < 0)
            bad(st, BAD_MODE);
        st->mode = w == 1 ? LITIFUT_MODE_DEDUP : w == 2 ? LITIFUT_MODE_COUNT : LITIFUT_MODE_FULL;
        st->ring = w == 3;
        st->mode_set = *v != 0;
    } else if ((v = str_after(var, "RING="))) {
        n = *v ? size_kb(v, MAX_RING_KB) : DEFAULT_RING_KB;
        if (n < MIN_RING_KB)
            bad(st, BAD_RING);
        else
            st->ring_kb = (uint32_t)n;
    } else if ((v = str_after(var, "SNAPSHOT_AT="))) {
        if (put_path(st->snapshot_at, sizeof st->snapshot_at, v))
            bad(st, BAD_SNAPSHOT_AT);
    } else if ((v = str_after(var, "SNAPSHOT_SIGNAL="))) {
        st->snapshot_signal = *v ? signal_number(v) : 0;
        if (*v && !st->snapshot_signal)
            bad(st, BAD_SNAPSHOT_SIGNAL);
    } else if ((v = str_after(var, "BUDGET="))) {
        if (*v && !parse_budget(st, v))
            bad(st, BAD_BUDGET);
    } else if ((v = str_after(var, "RETURNS="))) {
        if ((w = word_of(v, no_yes)) < 0)
            bad(st, BAD_RETURNS);
        st->returns = w == 1;
        st->returns_set = 1;
    } else if ((v = str_after(var, "CLOCK="))) {
        if ((w = word_of(v, clocks)) < 0)
            bad(st, BAD_CLOCK);
        st->clock = w < 0 ? 0 : clock_ids[w];       /* 0: auto */
    }
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
    st->returns = 1;                /* exact returns by default: true durations */
    st->returns_set = 0;
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
    st->mode_set = st->ring = 0;
    st->ring_kb = 0;
    st->snapshot_at[0] = 0;
    st->snapshot_signal = 0;
    st->budget_us = st->period_us = 0;
    st->max_size_kb = st->max_total_kb = 0;
    st->exclude_callee[0] = 0;
    st->args[0] = 0;
    st->bad = 0;
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
    /* (one handler per signal: the toggle's would replace the snapshot's) */
    if (st->snapshot_signal && st->snapshot_signal == st->toggle_signal)
        bad(st, BAD_SNAPSHOT_SAME);
    if (st->control[0] && !st->control_too_long &&
        !make_absolute(st->control, sizeof st->control))
        st->control_too_long = 1;
    if (st->control_too_long)
        st->control[0] = 0;
    /* LITIFUT_RING alone asks for a ring; with dedup or count it is said once */
    if (st->ring_kb && !st->mode_set)
        st->ring = 1;
    st->ring_ignored = st->ring_kb && st->mode != LITIFUT_MODE_FULL;
    if (st->ring && !st->ring_kb)
        st->ring_kb = DEFAULT_RING_KB;
    if (!st->ring)
        st->ring_kb = 0;
    st->budget_ignored = st->budget_us && st->mode != LITIFUT_MODE_FULL;
    if (st->budget_ignored)
        st->budget_us = st->period_us = 0;  /* the modes have no refill to check it at */
    if (st->args[0] && st->mode != LITIFUT_MODE_FULL)
        bad(st, BAD_ARGS_MODE);             /* (ring is the full mode's) */
    if (st->mode != LITIFUT_MODE_FULL) {    /* exact returns need the full trace */
        st->returns_ignored = st->returns && st->returns_set;
        st->returns = 0;
    }
}
