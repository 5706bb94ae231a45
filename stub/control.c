/*
 * Recording on and off while the program runs: LITIFUT_SIGNAL=SIG
 * toggles it, LITIFUT_RECORD=off starts with it off, and calls of the
 * functions LITIFUT_START_AT / LITIFUT_STOP_AT turn it on (that call
 * recorded first) / off (after that call).  Off, every copy's sleds go
 * to the "off" code (the cost of finding the target) and the slow path
 * records nothing; on, back to the hot path the copy chose.  While a
 * function trigger can fire (off with START_AT, on with STOP_AT), the
 * sleds go to the slow path, which compares each call's target.  The
 * switch itself, and the STATE record each change leaves so that the
 * reader knows the windows, are recording.c's.  Snapshots (a ring's
 * freeze: tracefile_snapshot) asked by a call of LITIFUT_SNAPSHOT_AT
 * (watched while recording is on) or the control file's word
 * `snapshot`.  Also: a refill with what comes due at one
 * (control_refill).
 */
#include <elf.h>
#include <stdint.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"
#include "litifut/trace-format.h"

#define P (litifut_copy.proc)

/* The C library's sigaction: the wrapper links the program's calls of
 * sigaction (and the tracer's) to events.c's __wrap_sigaction (ld
 * --wrap), which keeps the program's actions; the tracer's own handlers
 * go straight to the real one.  Weak, as every __real_ reference: ld
 * --wrap binds it (and asks for it in a static link). */
extern int __real_sigaction(int, const struct sigaction *, struct sigaction *)
    __attribute__((weak));

/* A fork child whose recording is off: its own trace starts now and
 * says so, and the budget's record with it, so that the calls it makes
 * are accounted for (counted from 0) even if it never records one. */
void control_after_fork_child(void)
{
    if (!P->control_started || !P->recording_off)
        return;
    recording_mark_start();
    budget_poll();
}

/* thread_refill with what comes due at a refill: the budget's charge
 * for the records since the last one (LITIFUT_BUDGET: it may pause
 * recording), and the control file's poll (LITIFUT_CONTROL: every 64th
 * refill, a time mark or a chunk; every 4th with a clock per event,
 * whose refills are 8 times further apart). */
uint32_t *control_refill(struct litifut_thread *t)
{
    uint32_t words;
    uint64_t start = budget_refill_start(t, &words);   /* 0: no budget */
    uint32_t *p = thread_refill(t);
    if (!p)
        return NULL;
    if (start)
        budget_refill_end(t, words, start);
    control_poll(tracefile_time_every() ? 64 : 4);
    return t->cur;
}

/* --- function triggers --- */

/* The value of the defined function symbol `name` in the ELF file at
 * `path` (this copy's object), or 0.  The file is mapped for the look-up
 * and checked field by field: it is the object the process runs, but
 * the tracer must not crash on whatever it finds. */
static uintptr_t symbol_value(const char *path, const char *name)
{
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    long size = arch_syscall6(__NR_lseek, fd, 0, 2 /* SEEK_END */, 0, 0, 0);
    const unsigned char *f = size > 0 ? map_aside((unsigned long)size, PROT_READ,
                                                  MAP_PRIVATE, fd, 0) : NULL;
    sys_close(fd);
    if (!f || sys_mmap_failed((void *)f))
        return 0;
    uintptr_t value = 0;
    unsigned long n = (unsigned long)size;
    const ELF(Ehdr) *eh = (const ELF(Ehdr) *)f;
    if (n >= sizeof *eh && eh->e_shentsize == sizeof(ELF(Shdr)) && eh->e_shoff < n &&
        eh->e_shnum <= (n - eh->e_shoff) / sizeof(ELF(Shdr))) {
        const ELF(Shdr) *sh = (const ELF(Shdr) *)(f + eh->e_shoff);
        for (unsigned i = 0; i < eh->e_shnum && !value; i++) {
            if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum ||
                sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset)
                continue;
            const ELF(Shdr) *str = &sh[sh[i].sh_link];
            if (str->sh_offset > n || str->sh_size > n - str->sh_offset || !str->sh_size)
                continue;
            const char *strings = (const char *)f + str->sh_offset;
            const ELF(Sym) *sym = (const ELF(Sym) *)(f + sh[i].sh_offset);
            for (unsigned long k = 0; k < sh[i].sh_size / sizeof *sym; k++) {
                if (ELF32_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_shndx == SHN_UNDEF ||
                    sym[k].st_name >= str->sh_size)
                    continue;
                const char *s = strings + sym[k].st_name, *end = strings + str->sh_size;
                const char *q = name;
                while (s < end && *q && *s == *q)
                    s++, q++;
                if (!*q && s < end && !*s) {
                    value = sym[k].st_value;
                    break;
                }
            }
        }
    }
    sys_munmap((void *)f, n);
    return value;
}

/* This copy's functions named by LITIFUT_START_AT / LITIFUT_STOP_AT
 * into the process's trigger list.  Under the lock. */
static void add_triggers(const struct settings *st)
{
    const char *path = 0;
    if (litifut_copy.state != COPY_READY)
        return;                 /* not registered: no object entry, no base */
    for (uint32_t i = 0; i < P->n_objects; i++)
        if (P->objects[i].rec.base == litifut_copy.base && P->objects[i].live)
            path = P->objects[i].path;
    for (int stop = 0; stop < 3 && path && path[0]; stop++) {
        const char *name = stop == 2 ? st->snapshot_at : stop ? st->stop_at : st->start_at;
        uintptr_t v = name[0] ? symbol_value(path, name) : 0;
        if (v && P->n_triggers < MAX_TRIGGERS) {
            P->triggers[P->n_triggers].addr = ARCH_CODE_ADDRESS(v + object_load_bias());
            P->triggers[P->n_triggers].stop = (uint32_t)stop;
            P->n_triggers++;
        }
    }
}

/* Whether a call to `target` may change recording now. */
static int fires(uintptr_t target, int stop)
{
    for (uint32_t i = 0; i < P->n_triggers; i++)
        if (P->triggers[i].addr == ARCH_CODE_ADDRESS(target) && P->triggers[i].stop == (uint32_t)stop)
            return 1;
    return 0;
}

void control_before_call(uintptr_t target)
{
    if (P->user_off && fires(target, 0))
        recording_set(1, LITIFUT_STATE_BY_FUNCTION);
}

void control_after_call(uintptr_t target)
{
    if (!P->user_off && fires(target, 1))
        recording_set(0, LITIFUT_STATE_BY_FUNCTION);
    if (fires(target, TRIGGER_SNAPSHOT))
        tracefile_freeze(LITIFUT_SNAPSHOT_FUNCTION, 0);
}

/* A trigger that named no function: said once, at the end (a library
 * loaded late may have had it), as nothing may have been recorded. */
void control_at_end(void)
{
    const struct settings *st = &P->settings;
    if (P->recording_off && P->control_started)
        recording_put_state(LITIFUT_STATE_AT_END);    /* the calls not recorded since the last mark */
    int start = 0, stop = 0, snapshot = 0;
    for (uint32_t i = 0; i < P->n_triggers; i++)
        *(P->triggers[i].stop == TRIGGER_SNAPSHOT ? &snapshot
          : P->triggers[i].stop ? &stop : &start) = 1;
    if (P->trace != TRACE_ON)
        return;
    if (st->start_at[0] && !start)
        say("no instrumented object has the function", st->start_at, 0,
            " (LITIFUT_START_AT): nothing was recorded");
    if (st->stop_at[0] && !stop)
        say("no instrumented object has the function", st->stop_at, 0, " (LITIFUT_STOP_AT)");
    if (st->snapshot_at[0] && !snapshot)
        say("no instrumented object has the function", st->snapshot_at, 0,
            " (LITIFUT_SNAPSHOT_AT)");
}

/* --- the control file (LITIFUT_CONTROL) --- */

enum { CONTROL_UNKNOWN, CONTROL_ON, CONTROL_OFF, CONTROL_SNAPSHOT };

/* What the file says: its first word, "on" or "off" (else unknown: a
 * missing file, another word, a FIFO with no writer, a device). */
static int control_read(const char *path)
{
    char buf[16];
    int fd = sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);
    if (fd < 0)
        return CONTROL_UNKNOWN;
    long n = sys_read(fd, buf, sizeof buf - 1);
    sys_close(fd);
    if (n <= 0)
        return CONTROL_UNKNOWN;
    buf[n] = 0;
    char *w = buf;
    while (*w == ' ' || *w == '\t' || *w == '\n')
        w++;
    char *e = w;
    while (*e && *e != ' ' && *e != '\t' && *e != '\n' && *e != '\r')
        e++;
    *e = 0;
    return str_eq(w, "on") ? CONTROL_ON : str_eq(w, "off") ? CONTROL_OFF
           : str_eq(w, "snapshot") ? CONTROL_SNAPSHOT : CONTROL_UNKNOWN;
}

/* A change of the file's word turns recording on or off (a signal or
 * a trigger may have changed it meanwhile: only changes of the file
 * count).  Racy counting of `every` is fine: a poll more or less. */
void control_poll(uint32_t every)
{
    struct litifut_process *p = P;
    if (!p || !p->settings.control[0] || p->trace != TRACE_ON ||
        (++p->control_polls & (every - 1)))       /* (every: a power of 2) */
        return;
    if (p->lock == (uint32_t)sys_gettid())
        return;                 /* a call made by the tracer itself, under its lock */
    int said = control_read(p->settings.control);
    if (said == CONTROL_UNKNOWN || (uint64_t)said == p->control_seen[0])
        return;
    p->control_seen[0] = (uint64_t)said;
    if (said == CONTROL_SNAPSHOT) {
        tracefile_freeze(LITIFUT_SNAPSHOT_CONTROL, 0);
        return;
    }
    if ((said == CONTROL_ON) == !p->user_off)
        return;
    recording_set(said == CONTROL_ON, LITIFUT_STATE_BY_CONTROL);
}

static void on_toggle_signal(int sig)
{
    (void)sig;
    recording_set(P->user_off, LITIFUT_STATE_BY_SIGNAL);     /* (its own signal is blocked) */
}

void control_start(void)
{
    const struct settings *st = tracefile_settings();
    int triggers = st->start_at[0] || st->stop_at[0] || st->snapshot_at[0];
    if ((!st->toggle_signal && !st->record_off && !triggers && !st->control[0] &&
         !st->budget_us) || !tracefile_start())
        return;
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    add_triggers(st);                   /* every copy: its own functions */
    int first = !P->control_started;
    P->control_started = 1;
    unlock(mask);
    if (!first) {
        lock(mask);
        objects_set_recording(!P->recording_off);   /* (its triggers may need every copy's slow path) */
        unlock(mask);
        return;
    }
    if (st->record_off && !st->toggle_signal && !st->start_at[0] && !st->control[0]) {
        lock(mask);
        say("LITIFUT_RECORD=off without LITIFUT_SIGNAL, LITIFUT_START_AT or LITIFUT_CONTROL",
            0, 0, ": nothing will be recorded");
        unlock(mask);
    }
    /* the control file, if it says, decides the state at start */
    int said = st->control[0] ? control_read(st->control) : CONTROL_UNKNOWN;
    P->control_seen[0] = (uint64_t)said;
    int on = said == CONTROL_UNKNOWN || said == CONTROL_SNAPSHOT
                 ? !st->record_off && !st->start_at[0] : said == CONTROL_ON;
    recording_set(on, LITIFUT_STATE_AT_START);
    budget_start();
    if (st->toggle_signal)
        control_own_signal(st->toggle_signal, on_toggle_signal, 0, 0);
}

/* The program's struct signal_slot for a handler of the tracer's own:
 * it stands for the default action it replaced (an action that was not
 * the default stays visible: the program did not install it either,
 * but it is not the default the program would see). */
void control_own_signal(int sig, void (*handler)(int), int only_if_default, int fatal)
{
    struct sigaction old, sa;
    for (unsigned long i = 0; i < sizeof sa; i++)     /* (not `= { 0 }`: GCC calls memset) */
        ((volatile unsigned char *)&sa)[i] = 0;
    sa.sa_handler = handler;
    /* SA_RESTART: the program's system calls go on as if no signal came
     * (a fatal signal's handler ends the process anyway) */
    sa.sa_flags = fatal ? 0 : SA_RESTART;
    if (!__real_sigaction || sig < 1 || sig > ARCH_NSIG || __real_sigaction(sig, 0, &old) != 0 ||
        (only_if_default && old.sa_handler != SIG_DFL))
        return;
    struct signal_slot *s = &P->signals[sig];
    int hide = old.sa_handler == SIG_DFL;
    if (hide) {
        s->handler = (uintptr_t)SIG_DFL;
        s->flags = 0;
        s->entry = (uintptr_t)handler;
        __asm__ volatile("" ::: "memory");
        s->kind = SIGNAL_TRACER;
    }
    if (__real_sigaction(sig, &sa, 0) != 0 && hide)
        s->kind = SIGNAL_RAW;
}
