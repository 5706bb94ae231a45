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
 *   thrd_create      the same for a C11 thread (its start returns int);
 *   qsort, qsort_r, bsearch, lfind, lsearch, tsearch, tfind, tdelete,
 *   twalk, twalk_r, tdestroy, ftw, nftw, scandir (and the 64-bit file
 *   offset names), pthread_once, dl_iterate_phdr  each call of the
 *                    comparator, visitor, filter, freer or init routine
 *                    (LITIFUT_ENTRY_CALLBACK), inside "qsort" and so on;
 *   __cxa_atexit, on_exit  each exit handler and C++ static destructor
 *                    (glibc's atexit calls __cxa_atexit), inside "exit".
 * What an entry needs beside the function goes where it can be found
 * without malloc (the C library's may be traced): a function the C
 * library calls with no context (qsort's comparator, twalk's visitor),
 * in the calling thread's state (struct litifut_thread.callback, the innermost one: a nested
 * or signal handler's qsort saves and puts back the outer's); a thread
 * start's in a page of its own, which the new thread unmaps; an exit
 * handler's in a block of the process's that lives to the end.  With
 * nothing recorded in this process, or no room, a call goes straight to
 * the C library; so does, in a library's copy, a thread start or an exit
 * handler of another object's (own_function).
 */
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <search.h>
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
typedef void (*walk_t)(const void *, VISIT, int);
typedef void (*walk_r_t)(const void *, VISIT, void *);
typedef void (*free_t)(void *);
/* (the stat and dirent structures only passed on: any of their sizes) */
typedef int (*ftw_t)(const char *, const void *, int);
typedef int (*nftw_t)(const char *, const void *, int, void *);
typedef int (*filter_t)(const void *);
typedef int (*dirent_compare_t)(const void *, const void *);
typedef int (*thrd_start_t)(void *);
extern void __real_twalk_r(const void *, walk_r_t, void *) __attribute__((weak));
extern void __real_tdestroy(void *, free_t) __attribute__((weak));
extern int __real_ftw(const char *, ftw_t, int) __attribute__((weak));
extern int __real_ftw64(const char *, ftw_t, int) __attribute__((weak));
extern int __real_nftw(const char *, nftw_t, int, int) __attribute__((weak));
extern int __real_nftw64(const char *, nftw_t, int, int) __attribute__((weak));
extern int __real_scandir(const char *, void *, filter_t, dirent_compare_t) __attribute__((weak));
extern int __real_scandir64(const char *, void *, filter_t, dirent_compare_t)
    __attribute__((weak));
extern int __real_thrd_create(void *, thrd_start_t, void *) __attribute__((weak));
typedef int (*phdr_visit_t)(struct dl_phdr_info *, size_t, void *);
extern int __real_pthread_once(pthread_once_t *, void (*)(void)) __attribute__((weak));
extern void *__real_tsearch(const void *, void **, compare_t) __attribute__((weak));
extern void *__real_tfind(const void *, void *const *, compare_t) __attribute__((weak));
extern void *__real_tdelete(const void *, void **, compare_t) __attribute__((weak));
extern void __real_twalk(const void *, walk_t) __attribute__((weak));
extern void *__real_lfind(const void *, const void *, size_t *, size_t, compare_t)
    __attribute__((weak));
extern void *__real_lsearch(const void *, void *, size_t *, size_t, compare_t)
    __attribute__((weak));
extern int __real_dl_iterate_phdr(phdr_visit_t, void *) __attribute__((weak));
extern int __real_on_exit(void (*)(int, void *), void *) __attribute__((weak));

/* Whether this process records entries now (else: straight through). */
static int recording(void)
{
    return copy_wraps_now() && litifut_copy.proc->settings.mode == LITIFUT_MODE_FULL &&
           thread_is_real(thread_self());
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
    entry_enter(&mark, LITIFUT_REC_ENTRY, (how), (uintptr_t)(fn), FRAME_ADDRESS(), NULL)
#define LEAVE() entry_leave(&mark)

/* --- entries with no frame of the tracer's ---
 *
 * main (LITIFUT_ENTRY_START): the wrapper links the start files' call
 * of __libc_start_main (musl's too; uClibc-ng's __uClibc_main) to
 * __wrap___libc_start_main (arch/<arch>/stub.S), which keeps main in
 * litifut_main and gives the C library litifut_main_entry instead; and
 * the constructors and destructors that the dynamic linker or the C
 * library call through .preinit_array, .init_array and .fini_array
 * (LITIFUT_ENTRY_INIT, _FINI), whose words the rewriter points at
 * thunks of their own (src/rewrite.c), which put the function in a
 * register (arch_entry_function) and go to litifut_init_entry or
 * litifut_fini_entry.  Those (stub.S) push a frame of every register,
 * come here, and go on to the function with every register and sp as
 * its caller left them: it runs as if called directly (its locals
 * where they were untraced), and with exact returns its return,
 * hooked here, ends the entry. */
HIDDEN uintptr_t litifut_main;

HIDDEN uintptr_t litifut_entry(struct arch_frame *frame, uint32_t how);
HIDDEN uintptr_t litifut_entry(struct arch_frame *frame, uint32_t how)
{
    uintptr_t fn = how == LITIFUT_ENTRY_START ? litifut_main : arch_entry_function(frame);
    if (recording()) {
        struct signal_mark mark;
        entry_enter(&mark, LITIFUT_REC_ENTRY, how, fn, (uintptr_t)(frame + 1),
                    arch_return_address_slot(frame));
    }
    return fn;
}

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

/* A C11 thread's start (its thread's state as a POSIX one's). */
static int thrd_entry(void *page)
{
    struct thread_start *ts = page;
    thrd_start_t start = (thrd_start_t)(uintptr_t)ts->start;
    void *arg = ts->arg;
    sys_munmap(page, THREAD_START_BYTES);
    ENTER(start, LITIFUT_ENTRY_THREAD);
    int r = start(arg);
    LEAVE();
    return r;
}

int __wrap_thrd_create(void *thr, thrd_start_t start, void *arg);
int __wrap_thrd_create(void *thr, thrd_start_t start, void *arg)
{
    if (!__real_thrd_create)
        return 2;                   /* (thrd_error; never: no thrd_create, no call of it) */
    struct thread_start *ts = recording() && own_function((uintptr_t)start)
                                  ? sys_mmap(0, THREAD_START_BYTES, PROT_READ | PROT_WRITE,
                                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                                  : NULL;
    if (!ts || sys_mmap_failed(ts))
        return __real_thrd_create(thr, start, arg);
    ts->start = (void *(*)(void *))(uintptr_t)start;
    ts->arg = arg;
    int r = __real_thrd_create(thr, thrd_entry, ts);
    if (r != 0)                     /* (thrd_success is 0) */
        sys_munmap(ts, THREAD_START_BYTES);
    return r;
}

/* --- callbacks with no context: the thread's innermost one --- */

/* Sets the thread's callback to `fn` for a call of the C library's,
 * giving back the outer one, which callback_done() puts back; 0 and
 * nothing set if this process records no entries (then the call goes
 * straight through). */
static int callback_begin(uintptr_t fn, uintptr_t *outer)
{
    if (!recording())
        return 0;
    struct litifut_thread *t = thread_self();
    *outer = t->callback;
    t->callback = fn;
    return 1;
}

static void callback_done(uintptr_t outer)
{
    thread_self()->callback = outer;
}

static int compare_entry(const void *a, const void *b)
{
    compare_t compare = (compare_t)thread_self()->callback;
    ENTER(compare, LITIFUT_ENTRY_CALLBACK);
    int r = compare(a, b);
    LEAVE();
    return r;
}

/* `call` with the comparator through compare_entry, or as given. */
#define WITH_COMPARE(compare, call_with) \
    do { \
        uintptr_t outer; \
        if (!callback_begin((uintptr_t)(compare), &outer)) { \
            compare_t cmp_ = (compare); \
            call_with; \
        } else { \
            compare_t cmp_ = compare_entry; \
            call_with; \
            callback_done(outer); \
        } \
    } while (0)

void __wrap_qsort(void *base, size_t n, size_t size, compare_t compare);
void __wrap_qsort(void *base, size_t n, size_t size, compare_t compare)
{
    if (__real_qsort)
        WITH_COMPARE(compare, __real_qsort(base, n, size, cmp_));
}

void *__wrap_bsearch(const void *key, const void *base, size_t n, size_t size,
                     compare_t compare);
void *__wrap_bsearch(const void *key, const void *base, size_t n, size_t size,
                     compare_t compare)
{
    void *r = NULL;
    if (__real_bsearch)
        WITH_COMPARE(compare, r = __real_bsearch(key, base, n, size, cmp_));
    return r;
}

void *__wrap_tsearch(const void *key, void **root, compare_t compare);
void *__wrap_tsearch(const void *key, void **root, compare_t compare)
{
    void *r = NULL;
    if (__real_tsearch)
        WITH_COMPARE(compare, r = __real_tsearch(key, root, cmp_));
    return r;
}

void *__wrap_tfind(const void *key, void *const *root, compare_t compare);
void *__wrap_tfind(const void *key, void *const *root, compare_t compare)
{
    void *r = NULL;
    if (__real_tfind)
        WITH_COMPARE(compare, r = __real_tfind(key, root, cmp_));
    return r;
}

void *__wrap_tdelete(const void *key, void **root, compare_t compare);
void *__wrap_tdelete(const void *key, void **root, compare_t compare)
{
    void *r = NULL;
    if (__real_tdelete)
        WITH_COMPARE(compare, r = __real_tdelete(key, root, cmp_));
    return r;
}

void *__wrap_lfind(const void *key, const void *base, size_t *n, size_t size, compare_t compare);
void *__wrap_lfind(const void *key, const void *base, size_t *n, size_t size, compare_t compare)
{
    void *r = NULL;
    if (__real_lfind)
        WITH_COMPARE(compare, r = __real_lfind(key, base, n, size, cmp_));
    return r;
}

void *__wrap_lsearch(const void *key, void *base, size_t *n, size_t size, compare_t compare);
void *__wrap_lsearch(const void *key, void *base, size_t *n, size_t size, compare_t compare)
{
    void *r = NULL;
    if (__real_lsearch)
        WITH_COMPARE(compare, r = __real_lsearch(key, base, n, size, cmp_));
    return r;
}

static void walk_entry(const void *node, VISIT visit, int depth)
{
    walk_t action = (walk_t)thread_self()->callback;
    ENTER(action, LITIFUT_ENTRY_CALLBACK);
    action(node, visit, depth);
    LEAVE();
}

void __wrap_twalk(const void *root, walk_t action);
void __wrap_twalk(const void *root, walk_t action)
{
    uintptr_t outer;
    if (!__real_twalk)
        return;
    if (!callback_begin((uintptr_t)action, &outer)) {
        __real_twalk(root, action);
        return;
    }
    __real_twalk(root, walk_entry);
    callback_done(outer);
}

static void free_entry(void *node)
{
    free_t fn = (free_t)thread_self()->callback;
    ENTER(fn, LITIFUT_ENTRY_CALLBACK);
    fn(node);
    LEAVE();
}

void __wrap_tdestroy(void *root, free_t free_node);
void __wrap_tdestroy(void *root, free_t free_node)
{
    uintptr_t outer;
    if (!__real_tdestroy)
        return;
    if (!callback_begin((uintptr_t)free_node, &outer)) {
        __real_tdestroy(root, free_node);
        return;
    }
    __real_tdestroy(root, free_entry);
    callback_done(outer);
}

static int ftw_entry(const char *path, const void *st, int flag)
{
    ftw_t fn = (ftw_t)thread_self()->callback;
    ENTER(fn, LITIFUT_ENTRY_CALLBACK);
    int r = fn(path, st, flag);
    LEAVE();
    return r;
}

static int nftw_entry(const char *path, const void *st, int flag, void *ftw)
{
    nftw_t fn = (nftw_t)thread_self()->callback;
    ENTER(fn, LITIFUT_ENTRY_CALLBACK);
    int r = fn(path, st, flag, ftw);
    LEAVE();
    return r;
}

/* ftw and nftw (and their 64-bit file offsets' names, the same code
 * with other structures) with the visitor through ftw_entry or
 * nftw_entry, or as given. */
static int ftw_as(int (*real)(const char *, ftw_t, int), const char *dir, ftw_t fn, int fds)
{
    uintptr_t outer;
    if (!real)
        return -1;
    if (!callback_begin((uintptr_t)fn, &outer))
        return real(dir, fn, fds);
    int r = real(dir, ftw_entry, fds);
    callback_done(outer);
    return r;
}

static int nftw_as(int (*real)(const char *, nftw_t, int, int), const char *dir, nftw_t fn,
                   int fds, int flags)
{
    uintptr_t outer;
    if (!real)
        return -1;
    if (!callback_begin((uintptr_t)fn, &outer))
        return real(dir, fn, fds, flags);
    int r = real(dir, nftw_entry, fds, flags);
    callback_done(outer);
    return r;
}

int __wrap_ftw(const char *dir, ftw_t fn, int fds);
int __wrap_ftw(const char *dir, ftw_t fn, int fds)
{
    return ftw_as(__real_ftw, dir, fn, fds);
}

int __wrap_ftw64(const char *dir, ftw_t fn, int fds);
int __wrap_ftw64(const char *dir, ftw_t fn, int fds)
{
    return ftw_as(__real_ftw64, dir, fn, fds);
}

int __wrap_nftw(const char *dir, nftw_t fn, int fds, int flags);
int __wrap_nftw(const char *dir, nftw_t fn, int fds, int flags)
{
    return nftw_as(__real_nftw, dir, fn, fds, flags);
}

int __wrap_nftw64(const char *dir, nftw_t fn, int fds, int flags);
int __wrap_nftw64(const char *dir, nftw_t fn, int fds, int flags)
{
    return nftw_as(__real_nftw64, dir, fn, fds, flags);
}

/* scandir's two: the thread's callback is a pair of them */
struct scandir_calls {
    filter_t filter;
    dirent_compare_t compare;
};

static int scandir_filter_entry(const void *d)
{
    const struct scandir_calls *c = (const struct scandir_calls *)thread_self()->callback;
    ENTER(c->filter, LITIFUT_ENTRY_CALLBACK);
    int r = c->filter(d);
    LEAVE();
    return r;
}

static int scandir_compare_entry(const void *a, const void *b)
{
    const struct scandir_calls *c = (const struct scandir_calls *)thread_self()->callback;
    ENTER(c->compare, LITIFUT_ENTRY_CALLBACK);
    int r = c->compare(a, b);
    LEAVE();
    return r;
}

static int scandir_as(int (*real)(const char *, void *, filter_t, dirent_compare_t),
                      const char *dir, void *list, filter_t filter, dirent_compare_t compare)
{
    uintptr_t outer;
    struct scandir_calls c = { filter, compare };
    if (!real)
        return -1;
    if (!callback_begin((uintptr_t)&c, &outer))
        return real(dir, list, filter, compare);
    int r = real(dir, list, filter ? scandir_filter_entry : NULL,
                 compare ? scandir_compare_entry : NULL);
    callback_done(outer);
    return r;
}

int __wrap_scandir(const char *dir, void *list, filter_t filter, dirent_compare_t compare);
int __wrap_scandir(const char *dir, void *list, filter_t filter, dirent_compare_t compare)
{
    return scandir_as(__real_scandir, dir, list, filter, compare);
}

int __wrap_scandir64(const char *dir, void *list, filter_t filter, dirent_compare_t compare);
int __wrap_scandir64(const char *dir, void *list, filter_t filter, dirent_compare_t compare)
{
    return scandir_as(__real_scandir64, dir, list, filter, compare);
}

static void once_entry(void)
{
    void (*init)(void) = (void (*)(void))thread_self()->callback;
    ENTER(init, LITIFUT_ENTRY_CALLBACK);
    init();
    LEAVE();
}

int __wrap_pthread_once(pthread_once_t *once, void (*init)(void));
int __wrap_pthread_once(pthread_once_t *once, void (*init)(void))
{
    uintptr_t outer;
    if (!__real_pthread_once)
        return EINVAL;
    if (!callback_begin((uintptr_t)init, &outer))
        return __real_pthread_once(once, init);
    int r = __real_pthread_once(once, once_entry);
    callback_done(outer);
    return r;
}

/* --- callbacks with a context: it carries the function too --- */

struct phdr_visit {
    phdr_visit_t visit;
    void *data;
};

static int phdr_entry(struct dl_phdr_info *info, size_t size, void *pv)
{
    const struct phdr_visit *v = pv;
    ENTER(v->visit, LITIFUT_ENTRY_CALLBACK);
    int r = v->visit(info, size, v->data);
    LEAVE();
    return r;
}

int __wrap_dl_iterate_phdr(phdr_visit_t visit, void *data);
int __wrap_dl_iterate_phdr(phdr_visit_t visit, void *data)
{
    if (!__real_dl_iterate_phdr)
        return 0;
    if (!recording())
        return __real_dl_iterate_phdr(visit, data);
    struct phdr_visit v = { visit, data };
    return __real_dl_iterate_phdr(phdr_entry, &v);
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

struct walk_r {
    walk_r_t action;
    void *closure;
};

static void walk_r_entry(const void *node, VISIT visit, void *wr)
{
    const struct walk_r *w = wr;
    ENTER(w->action, LITIFUT_ENTRY_CALLBACK);
    w->action(node, visit, w->closure);
    LEAVE();
}

void __wrap_twalk_r(const void *root, walk_r_t action, void *closure);
void __wrap_twalk_r(const void *root, walk_r_t action, void *closure)
{
    if (!__real_twalk_r)
        return;
    if (!recording()) {
        __real_twalk_r(root, action, closure);
        return;
    }
    struct walk_r w = { action, closure };
    __real_twalk_r(root, walk_r_entry, &w);
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
