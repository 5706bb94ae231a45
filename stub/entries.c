/*
 * The program's functions that a shared C library calls back, entered
 * through the tracer so that each entry is recorded (#39): no rewritten
 * call site reaches them, so without this they had no call record.
 * The wrapper links the program's calls of the functions that take
 * them (lib/arch.c, arch_entry_wrapped; only where the C library is a
 * shared one: wrapper/instrument.c) to the __wrap_ functions below,
 * which give the C library an entry of the tracer's in the program's
 * function's place.  Each entry brackets the function with call.c's
 * entry_enter and entry_leave: an ENTRY record (how, the function's
 * address) and ENTRY_END, so that the views count it as a call of the
 * function, inside the frame of the C library function running then:
 *   pthread_create   the start routine (LITIFUT_ENTRY_THREAD), at its
 *                    thread's root, ending when it returns (before the
 *                    thread's TSD destructors);
 *   qsort, qsort_r, bsearch  each call of the comparator
 *                    (LITIFUT_ENTRY_CALLBACK), inside "qsort";
 *   __cxa_atexit, on_exit  each exit handler and C++ static destructor
 *                    (glibc's atexit calls __cxa_atexit), inside "exit".
 * What an entry needs beside the function goes where it can be found
 * without malloc (the C library's may be traced): the comparator of
 * qsort and bsearch, which pass no context, in the calling thread's
 * state (struct litifut_thread.callback, the innermost one: a nested
 * or signal handler's qsort saves and puts back the outer's); a thread
 * start's in a page of its own, which the new thread unmaps; an exit
 * handler's in a block of the process's that lives to the end.  With
 * nothing recorded in this process, or no room, a call goes straight to
 * the C library; so does, in a library's copy, a thread start or an exit
 * handler of another object's (own_function).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include <sys/mman.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "litifut/trace-format.h"

/* The C library's (ld --wrap binds each __real_NAME to NAME; weak, so
 * that nothing is pulled in that the program does not use). */
typedef int (*compare_t)(const void *, const void *);
typedef int (*compare_r_t)(const void *, const void *, void *);
extern int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)
    __attribute__((weak));
extern void __real_qsort(void *, size_t, size_t, compare_t) __attribute__((weak));
extern void __real_qsort_r(void *, size_t, size_t, compare_r_t, void *) __attribute__((weak));
extern void *__real_bsearch(const void *, const void *, size_t, size_t, compare_t)
    __attribute__((weak));
extern int __real___cxa_atexit(void (*)(void *), void *, void *) __attribute__((weak));
extern int __real_on_exit(void (*)(int, void *), void *) __attribute__((weak));

/* Whether this process records entries now (else: straight through). */
static int recording(void)
{
    struct litifut_process *p = litifut_copy.proc;
    if (!litifut_copy.ctor_done || litifut_copy.state != COPY_READY || !p || !p->settings_read ||
        p->settings.off || p->trace == TRACE_OFF || p->settings.mode != LITIFUT_MODE_FULL)
        return 0;
    struct litifut_thread *t = thread_self();
    /* (not a vfork child on its parent's memory) */
    return thread_is_real(t) && !(t->busy == BUSY_SPAWN && (uint32_t)sys_getpid() != t->spawn_pid);
}

#ifdef LITIFUT_SHARED
/* Whether `fn` is this object's own code.  A library's copy gives the
 * entries that outlive the call (a thread start, an exit handler) only
 * for its own functions: the library may be unloaded while a thread
 * runs, or before exit, and its entry with it (its own function too,
 * then: no change to the program's fate). */
extern const char __ehdr_start[] __attribute__((weak, visibility("hidden")));
static int own_function(uintptr_t fn)
{
    if (!__ehdr_start)
        return 0;
    const ELF(Ehdr) *eh = (const ELF(Ehdr) *)__ehdr_start;
    const ELF(Phdr) *ph = (const ELF(Phdr) *)(__ehdr_start + eh->e_phoff);
    uintptr_t bias = 0, at = fn & ~(uintptr_t)1;        /* (the Thumb bit) */
    int first = 1;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD)
            continue;
        if (first)
            bias = (uintptr_t)__ehdr_start - (uintptr_t)(ph[i].p_vaddr - ph[i].p_offset);
        first = 0;
        if ((ph[i].p_flags & PF_X) && at - (ph[i].p_vaddr + bias) < ph[i].p_memsz)
            return 1;
    }
    return 0;
}
#else
static int own_function(uintptr_t fn)
{
    (void)fn;
    return 1;                       /* (the executable is never unloaded) */
}
#endif

#define ENTER(fn, how) \
    struct signal_mark mark; \
    entry_enter(&mark, LITIFUT_REC_ENTRY, (how), (uintptr_t)(fn), FRAME_ADDRESS())
#define LEAVE() entry_leave(&mark)

/* --- thread starts --- */

struct thread_start {
    void *(*start)(void *);
    void *arg;
};
#define THREAD_START_BYTES 4096ul

static void *thread_entry(void *page)
{
    struct thread_start *ts = page;
    void *(*start)(void *) = ts->start;
    void *arg = ts->arg;
    sys_munmap(page, THREAD_START_BYTES);
    ENTER(start, LITIFUT_ENTRY_THREAD);
    void *r = start(arg);
    LEAVE();
    return r;
}

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg);
int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*start)(void *),
                          void *arg)
{
    if (!__real_pthread_create)     /* (never: a link that could lose it is not wrapped,
                                       wrapper/instrument.c) */
        return EAGAIN;
    if (!recording() || !own_function((uintptr_t)start))
        return __real_pthread_create(th, attr, start, arg);
    struct thread_start *ts = sys_mmap(0, THREAD_START_BYTES, PROT_READ | PROT_WRITE,
                                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sys_mmap_failed(ts))
        return __real_pthread_create(th, attr, start, arg);
    ts->start = start;
    ts->arg = arg;
    int r = __real_pthread_create(th, attr, thread_entry, ts);
    if (r != 0)
        sys_munmap(ts, THREAD_START_BYTES);
    return r;
}

/* --- comparators --- */

static int compare_entry(const void *a, const void *b)
{
    compare_t compare = (compare_t)thread_self()->callback;
    ENTER(compare, LITIFUT_ENTRY_CALLBACK);
    int r = compare(a, b);
    LEAVE();
    return r;
}

void __wrap_qsort(void *base, size_t n, size_t size, compare_t compare);
void __wrap_qsort(void *base, size_t n, size_t size, compare_t compare)
{
    if (!__real_qsort)
        return;
    if (!recording()) {
        __real_qsort(base, n, size, compare);
        return;
    }
    struct litifut_thread *t = thread_self();
    uintptr_t outer = t->callback;
    t->callback = (uintptr_t)compare;
    __real_qsort(base, n, size, compare_entry);
    t->callback = outer;
}

void *__wrap_bsearch(const void *key, const void *base, size_t n, size_t size,
                     compare_t compare);
void *__wrap_bsearch(const void *key, const void *base, size_t n, size_t size,
                     compare_t compare)
{
    if (!__real_bsearch)
        return NULL;
    if (!recording())
        return __real_bsearch(key, base, n, size, compare);
    struct litifut_thread *t = thread_self();
    uintptr_t outer = t->callback;
    t->callback = (uintptr_t)compare;
    void *r = __real_bsearch(key, base, n, size, compare_entry);
    t->callback = outer;
    return r;
}

struct compare_r {
    compare_r_t compare;
    void *arg;
};

static int compare_r_entry(const void *a, const void *b, void *cr)
{
    const struct compare_r *c = cr;
    ENTER(c->compare, LITIFUT_ENTRY_CALLBACK);
    int r = c->compare(a, b, c->arg);
    LEAVE();
    return r;
}

void __wrap_qsort_r(void *base, size_t n, size_t size, compare_r_t compare, void *arg);
void __wrap_qsort_r(void *base, size_t n, size_t size, compare_r_t compare, void *arg)
{
    if (!__real_qsort_r)
        return;
    if (!recording()) {
        __real_qsort_r(base, n, size, compare, arg);
        return;
    }
    struct compare_r c = { compare, arg };
    __real_qsort_r(base, n, size, compare_r_entry, &c);
}

/* --- exit handlers ---
 * Each registration's function and argument in a block that lives as
 * long as the process: pages of this copy's, taken under the process's
 * lock and never given back (a handler may run at any exit, and a C++
 * program registers one per static object). */

struct exit_handler {
    uintptr_t fn;
    void *arg;
};

static struct exit_handler *exit_handler_new(uintptr_t fn, void *arg)
{
    static struct exit_handler *next, *end;     /* (this copy's pages) */
    uint32_t mask[SIGSET_WORDS];
    if (!lock_unless_mine(mask))
        return NULL;                /* (a fork handler of the program's, under the tracer's lock) */
    if (next == end) {
        struct exit_handler *page = sys_mmap(0, THREAD_START_BYTES, PROT_READ | PROT_WRITE,
                                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (sys_mmap_failed(page)) {
            unlock(mask);
            return NULL;
        }
        next = page;
        end = page + THREAD_START_BYTES / sizeof *page;
    }
    struct exit_handler *h = next++;
    h->fn = fn;
    h->arg = arg;
    unlock(mask);
    return h;
}

static void cxa_exit_entry(void *handler)
{
    const struct exit_handler *h = handler;
    void (*fn)(void *) = (void (*)(void *))h->fn;
    ENTER(fn, LITIFUT_ENTRY_CALLBACK);
    fn(h->arg);
    LEAVE();
}

int __wrap___cxa_atexit(void (*fn)(void *), void *arg, void *dso);
int __wrap___cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    if (!__real___cxa_atexit)
        return -1;
    struct exit_handler *h = recording() && own_function((uintptr_t)fn)
                                 ? exit_handler_new((uintptr_t)fn, arg) : NULL;
    if (!h)
        return __real___cxa_atexit(fn, arg, dso);
    return __real___cxa_atexit(cxa_exit_entry, h, dso);
}

static void on_exit_entry(int status, void *handler)
{
    const struct exit_handler *h = handler;
    void (*fn)(int, void *) = (void (*)(int, void *))h->fn;
    ENTER(fn, LITIFUT_ENTRY_CALLBACK);
    fn(status, h->arg);
    LEAVE();
}

int __wrap_on_exit(void (*fn)(int, void *), void *arg);
int __wrap_on_exit(void (*fn)(int, void *), void *arg)
{
    if (!__real_on_exit)
        return -1;
    struct exit_handler *h = recording() && own_function((uintptr_t)fn)
                                 ? exit_handler_new((uintptr_t)fn, arg) : NULL;
    if (!h)
        return __real_on_exit(fn, arg);
    return __real_on_exit(on_exit_entry, h);
}
