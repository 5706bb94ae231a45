/*
 * entries.c - functions entered by no call the tracer sees at a
 * rewritten site: thread start routines, comparators and exit handlers,
 * called by the C library.
 *
 * NTHREADS threads run worker(), one after the other.  worker() does
 * ROUNDS rounds of work, calling step() after each, and sets a
 * thread-specific value whose destructor, run by the C library after
 * worker() returned, calls after_worker() and then parks the thread
 * for good (pause): main waits for that (a flag, no call), then starts
 * the next thread, and exits with them all parked.  No thread exits
 * and main joins none, so a static program's C library takes the same
 * paths in every run (an exiting thread, a join that waits or not,
 * would change its calls).  worker() times itself from its first
 * statement to its last and main writes the nanoseconds, one line per
 * thread, to durations.txt in the current directory (its time is no
 * output: stdout stays the same from run to run).
 *
 * Then qsort, qsort_r, bsearch (through a pointer: glibc inlines it),
 * tsearch, tfind, twalk, tdelete, lfind, pthread_once and
 * dl_iterate_phdr call functions that make no call and count
 * themselves, and so do tdestroy, twalk_r (glibc), ftw and nftw (over
 * a folder ftw.d of two files they make in the current directory) and
 * scandir (a filter and a comparator), and a C11 thread's start
 * (thrd_create, where the C library has it: it parks too); exit runs an atexit and (glibc) an on_exit handler;
 * stdout says ("calls name=N ...") how many times each ran and which
 * handlers were registered.  A constructor (ctor_one, before main) and
 * a destructor (dtor_one, run by exit) make no call either; main's
 * line counts the constructor's runs.  Exit status 0.
 */
#define _GNU_SOURCE            /* qsort_r, dl_iterate_phdr, tdestroy, twalk_r */
#define _FILE_OFFSET_BITS 64   /* (32-bit: scandir64, nftw64, ftw64; qemu's folders have
                                   inode numbers of 64 bits) */
#include <dirent.h>
#include <ftw.h>
#include <link.h>
#include <pthread.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<threads.h>)
#include <threads.h>
#define HAVE_C11_THREADS 1
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 30)
#define HAVE_TWALK_R 1
#endif

#define NOINLINE __attribute__((noinline))
#define NTHREADS 3
#define ROUNDS 1000

static pthread_key_t key;
static volatile unsigned sink;
static long long durations[NTHREADS];
static volatile int parked[NTHREADS];

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile int ctor_calls;

__attribute__((constructor, noinline)) static void ctor_one(void)
{
    ctor_calls++;
}

__attribute__((destructor, noinline)) static void dtor_one(void)
{
    sink += 7;
}

NOINLINE void step(unsigned x)
{
    sink += x;
}

NOINLINE void after_worker(int index)
{
    step((unsigned)index);
}

NOINLINE void destructor(void *value)
{
    int index = (int)(long)value - 1;
    after_worker(index);
    parked[index] = 1;
    for (;;)
        pause();
}

NOINLINE void *worker(void *arg)
{
    long long start = now_ns();
    int index = (int)(long)arg;
    unsigned rounds = 0;
    pthread_setspecific(key, (void *)(long)(index + 1));
    while (rounds < ROUNDS) {
        for (unsigned i = 0; i < 20000; i++)
            sink += i ^ rounds;
        step(rounds++);
    }
    durations[index] = now_ns() - start;
    return (void *)(long)(rounds > 0);
}

static int compare_calls, compare_r_calls, search_calls, tree_calls, visit_calls, list_calls,
           once_calls, phdr_calls, free_calls, visit_r_calls, ftw_calls, nftw_calls,
           filter_calls, dirent_calls;
static volatile int thrd_calls;
static pthread_once_t once = PTHREAD_ONCE_INIT;

NOINLINE int tree_cmp(const void *a, const void *b)
{
    tree_calls++;
    return *(const int *)a - *(const int *)b;
}

NOINLINE void tree_visit(const void *node, VISIT visit, int depth)
{
    (void)node;
    (void)visit;
    (void)depth;
    visit_calls++;
}

NOINLINE int list_cmp(const void *a, const void *b)
{
    list_calls++;
    return *(const int *)a != *(const int *)b;
}

NOINLINE void tree_free(void *node)
{
    (void)node;                         /* (the nodes are main's) */
    free_calls++;
}

#ifdef HAVE_TWALK_R
NOINLINE void tree_visit_r(const void *node, VISIT visit, void *closure)
{
    (void)node;
    (void)visit;
    visit_r_calls += closure != NULL;
}
#endif

NOINLINE int ftw_visit(const char *path, const struct stat *st, int flag)
{
    (void)path;
    (void)st;
    ftw_calls += flag != FTW_NS;
    return 0;
}

NOINLINE int nftw_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)path;
    (void)st;
    (void)ftw;
    nftw_calls += flag != FTW_NS;
    return 0;
}

NOINLINE int dirent_filter(const struct dirent *d)
{
    filter_calls++;
    return d->d_name[0] != '.';
}

NOINLINE int dirent_order(const struct dirent **a, const struct dirent **b)
{
    dirent_calls++;
    return (*a)->d_name[0] - (*b)->d_name[0];
}

#ifdef HAVE_C11_THREADS
NOINLINE int thrd_worker(void *arg)
{
    (void)arg;
    thrd_calls++;
    for (;;)
        pause();
    return 0;
}
#endif

NOINLINE void once_init(void)
{
    once_calls++;
}

NOINLINE int phdr_visit(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info;
    (void)size;
    phdr_calls++;
    return data != NULL;
}

NOINLINE int by_value(const void *a, const void *b)
{
    compare_calls++;
    return *(const int *)a - *(const int *)b;
}

NOINLINE int by_value_r(const void *a, const void *b, void *sign)
{
    compare_r_calls++;
    return *(const int *)sign * (*(const int *)a - *(const int *)b);
}

NOINLINE int search_key(const void *key, const void *item)
{
    search_calls++;
    return *(const int *)key - *(const int *)item;
}

NOINLINE void at_exit_handler(void)
{
    step(7);
}

#ifdef __GLIBC__
NOINLINE void on_exit_handler(int status, void *arg)
{
    step((unsigned)status + (unsigned)(long)arg);
}
#endif

static void callbacks(void)
{
    int v[] = { 9, 3, 7, 1, 8, 2, 6, 4, 5, 0, 11, 10 }, n = sizeof v / sizeof v[0], down = -1;
    void *(*volatile search)(const void *, const void *, size_t, size_t,
                             int (*)(const void *, const void *)) = bsearch;
    qsort(v, n, sizeof v[0], by_value);
    int key = 8, *found = search(&key, v, n, sizeof v[0], search_key);
    qsort_r(v, n, sizeof v[0], by_value_r, &down);
    void *tree = NULL;
    for (int i = 0; i < n; i++)
        tsearch(&v[i], &tree, tree_cmp);
    int *hit = tfind(&key, &tree, tree_cmp) ? &key : NULL;
    twalk(tree, tree_visit);
    for (int i = 0; i < n; i++)
        tdelete(&v[i], &tree, tree_cmp);
    for (int i = 0; i < 4; i++)
        tsearch(&v[i], &tree, tree_cmp);
#ifdef HAVE_TWALK_R
    twalk_r(tree, tree_visit_r, &key);
#endif
    tdestroy(tree, tree_free);
    mkdir("ftw.d", 0755);
    fclose(fopen("ftw.d/a", "w"));
    fclose(fopen("ftw.d/b", "w"));
    ftw("ftw.d", ftw_visit, 4);
    nftw("ftw.d", nftw_visit, 4, FTW_PHYS);
    struct dirent **names = NULL;
    int n_names = scandir("ftw.d", &names, dirent_filter, dirent_order);
    for (int i = 0; i < n_names; i++)
        free(names[i]);
    free(names);
#ifdef HAVE_C11_THREADS
    thrd_t c11;
    if (thrd_create(&c11, thrd_worker, NULL) == thrd_success)
        while (!thrd_calls)
            ;
#endif
    size_t len = (size_t)n;
    int *in_list = lfind(&key, v, &len, sizeof v[0], list_cmp);
    pthread_once(&once, once_init);
    pthread_once(&once, once_init);
    dl_iterate_phdr(phdr_visit, NULL);
    printf("found %d %d %d, first %d\n", found ? *found : -1, hit ? *hit : -1,
           in_list ? *in_list : -1, v[0]);
    printf("calls by_value=%d search_key=%d by_value_r=%d tree_cmp=%d tree_visit=%d "
           "list_cmp=%d once_init=%d phdr_visit=%d ctor_one=%d tree_free=%d ftw_visit=%d "
           "nftw_visit=%d dirent_filter=%d dirent_order=%d", compare_calls, search_calls,
           compare_r_calls, tree_calls, visit_calls, list_calls, once_calls, phdr_calls,
           ctor_calls, free_calls, ftw_calls, nftw_calls, filter_calls, dirent_calls);
#ifdef HAVE_TWALK_R
    printf(" tree_visit_r=%d", visit_r_calls);
#endif
#ifdef HAVE_C11_THREADS
    printf(" thrd_worker=%d", thrd_calls);
#endif
    printf("\n");
    atexit(at_exit_handler);
#ifdef __GLIBC__
    on_exit(on_exit_handler, (void *)3L);
    printf("exit handlers: atexit, on_exit\n");
#else
    printf("exit handlers: atexit\n");
#endif
}

int main(void)
{
    pthread_key_create(&key, destructor);
    for (int i = 0; i < NTHREADS; i++) {
        pthread_t th;
        if (pthread_create(&th, NULL, worker, (void *)(long)i) != 0)
            return 1;
        while (!parked[i])
            ;
    }
    FILE *f = fopen("durations.txt", "w");
    if (!f)
        return 1;
    for (int i = 0; i < NTHREADS; i++)
        fprintf(f, "%lld\n", durations[i]);
    fclose(f);
    printf("%d threads ran, each to its destructor\n", NTHREADS);
    callbacks();
    exit(0);
}
