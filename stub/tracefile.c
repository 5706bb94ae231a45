/*
 * The process-wide side of the tracer: the trace file, its header, the
 * chunks threads record into, the copy of /proc/self/maps, and the
 * fork and exit hooks.  Everything here runs on slow paths, with the
 * calling thread marked busy so that calls it makes are not traced.
 */
#include <stddef.h>
#include <stdint.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include "tracer-arch.h"
#include "tracer.h"
#include "sys.h"
#include "text.h"
#include "litifut/db-format.h"
#include "litifut/trace-format.h"

extern const struct litifut_db_header litifut_db_header HIDDEN;
extern const char __ehdr_start[] __attribute__((weak, visibility("hidden")));
extern int pthread_atfork(void (*)(void), void (*)(void), void (*)(void));

#define HEADER_SIZE 4096u

enum { PROC_NEW = 0, PROC_ON, PROC_OFF };

static struct {
    volatile uint32_t lock;     /* taken with every signal blocked: see lock() */
    uint32_t state;
    int fd;                     /* the trace file, while header is mapped */
    uint32_t chunk_size;
    uint32_t time_every;
    uint32_t next_chunk;
    uint64_t file_size;
    struct litifut_trace_header *header;
    char base[PATH_SIZE];       /* dir/litifut.<pid>[.<n>], absolute */
    char path[PATH_SIZE + 16];  /* the trace file (absolute) */
    struct file_id id;          /* ... and which file that is */
    int libc_ready;             /* our constructor has run */
    int atfork_done;
    uintptr_t fork_busy;        /* busy mark saved across fork() */
    uint32_t fork_sigmask[SIGSET_WORDS];
    /* Buffers for the code below, which runs under the lock; static so
     * that the tracer's stack stays small (it may run in a signal
     * handler on a small alternate stack). */
    char io[4096];
    char scratch[2][PATH_SIZE + 16];
    char msg[PATH_SIZE + 128];
    struct settings settings;
} proc;                         /* all zero: in .bss, no file space */

void tracefile_block_signals(uint32_t *saved)
{
    uint32_t all[SIGSET_WORDS];
    for (unsigned i = 0; i < SIGSET_WORDS; i++)
        all[i] = ~0u;
    sys_sigprocmask(SIG_BLOCK, all, saved);
}

void tracefile_restore_signals(const uint32_t *saved)
{
    sys_sigprocmask(SIG_SETMASK, saved, NULL);
}

/* The lock is held with every signal blocked, so no signal handler can
 * run on its holder: none can wait for it (no deadlock) and none can
 * leave it held by jumping out with siglongjmp.  lock_signals_blocked
 * is for callers that have blocked them already (the chunk switch). */
static void lock_signals_blocked(void)
{
    while (!arch_cmpxchg(&proc.lock, 0, 1))
        sys_sched_yield();
}

static void unlock_signals_blocked(void)
{
    arch_cmpxchg(&proc.lock, 1, 0);
}

static void lock(uint32_t *saved_mask)
{
    tracefile_block_signals(saved_mask);
    lock_signals_blocked();
}

static void unlock(const uint32_t *saved_mask)
{
    unlock_signals_blocked();
    tracefile_restore_signals(saved_mask);
}

/* The C library's text for the errors the tracer can meet. */
static const char *error_text(long err)
{
    switch (-err) {
    case EPERM: return "Operation not permitted";
    case ENOENT: return "No such file or directory";
    case EIO: return "Input/output error";
    case EBADF: return "Bad file descriptor";
    case ENOMEM: return "Cannot allocate memory";
    case EACCES: return "Permission denied";
    case EEXIST: return "File exists";
    case ENOTDIR: return "Not a directory";
    case EISDIR: return "Is a directory";
    case EINVAL: return "Invalid argument";
    case ENFILE: return "Too many open files in system";
    case EMFILE: return "Too many open files";
    case EFBIG: return "File too large";
    case ENOSPC: return "No space left on device";
    case EROFS: return "Read-only file system";
    case ENAMETOOLONG: return "File name too long";
    case ELOOP: return "Too many levels of symbolic links";
    case EDQUOT: return "Disk quota exceeded";
    case ENODEV: return "No such device";
    default: return NULL;
    }
}

/* One line on stderr: "litifut: WHAT PATH: ERROR; tracing disabled".
 * Called under the lock (it uses proc.msg). */
static void warn(const char *what, const char *path, long err)
{
    char *msg = proc.msg, *p = msg, *end = msg + sizeof proc.msg;
    p = str_put(p, end, "litifut: ");
    p = str_put(p, end, what);
    if (path) {
        p = str_put(p, end, " ");
        p = str_put(p, end, path);
    }
    if (err) {
        const char *text = error_text(err);
        p = str_put(p, end, ": ");
        if (text) {
            p = str_put(p, end, text);
        } else {
            p = str_put(p, end, "error ");
            p = str_put_uint(p, end, (uint32_t)-err);
        }
    }
    p = str_put(p, end, "; tracing disabled\n");
    sys_write(2, msg, (unsigned long)(p - msg));
}

/* --- the header --- */

static void find_build_id(struct litifut_trace_header *h, uintptr_t bias)
{
    if (!__ehdr_start)
        return;
    const Elf32_Ehdr *eh = (const Elf32_Ehdr *)__ehdr_start;
    const Elf32_Phdr *ph = (const Elf32_Phdr *)(__ehdr_start + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(ph[i].p_vaddr + bias);
        const uint8_t *end = p + ph[i].p_filesz;
        while (p + sizeof(Elf32_Nhdr) <= end) {
            const Elf32_Nhdr *n = (const Elf32_Nhdr *)p;
            const uint8_t *name = p + sizeof *n;
            const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                name[0] == 'G' && name[1] == 'N' && name[2] == 'U') {
                uint32_t len = n->n_descsz < sizeof h->build_id ? n->n_descsz
                                                                : sizeof h->build_id;
                for (uint32_t j = 0; j < len; j++)
                    h->build_id[j] = desc[j];
                h->build_id_size = (uint8_t)len;
                return;
            }
            p = desc + ((n->n_descsz + 3) & ~3u);
        }
    }
}

static void fill_header(struct litifut_trace_header *h)
{
    static const char magic[8] = LITIFUT_TRACE_MAGIC;
    uintptr_t bias = program_load_bias();
    for (int i = 0; i < 8; i++)
        h->magic[i] = magic[i];
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    h->endian = LITIFUT_BIG_ENDIAN;
#else
    h->endian = LITIFUT_LITTLE_ENDIAN;
#endif
    h->arch = ARCH_ID;
    h->word_size = 4;
    h->version = LITIFUT_TRACE_VERSION;
    h->header_size = HEADER_SIZE;
    h->chunk_size = proc.chunk_size;
    h->pid = (uint32_t)sys_getpid();
    h->time_every = proc.time_every;
    h->db_checksum = litifut_db_header.checksum;
    h->db_sites = litifut_db_header.n_sites;
    h->load_bias = (uint32_t)bias;
    h->start_ns = sys_monotonic_ns();
    find_build_id(h, bias);
    if (!own_path(h->exe, sizeof h->exe)) {
        long n = sys_readlink("/proc/self/exe", h->exe, sizeof h->exe - 1);
        h->exe[n > 0 ? n : 0] = 0;
    }
}

static int same_file(const struct file_id *a, const struct file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

/* Daemons close every descriptor when they start, and may then get our
 * number for a file of their own: before using the descriptor, check
 * that it still is the trace file (device and inode), and reopen that
 * by path if not: never through a symbolic link, and only if the path
 * still names the very file we created.  0: the trace file is gone or
 * was replaced (warned).  Called under the lock. */
static int trace_fd_usable(void)
{
    struct file_id id;
    if (file_id_of(proc.fd, &id) == 0 && same_file(&id, &proc.id))
        return 1;
    int fd = sys_open(proc.path, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);
    if (fd < 0) {
        warn("cannot reopen trace file", proc.path, fd);
        return 0;
    }
    if (file_id_of(fd, &id) != 0 || !same_file(&id, &proc.id)) {
        sys_close(fd);
        warn("trace file was replaced:", proc.path, 0);
        return 0;
    }
    proc.fd = fd;                       /* the old number is not ours any more */
    return 1;
}

/* Creates dir/litifut.<pid>.trace; if that exists (an exec in the same
 * process, or a reused pid), litifut.<pid>.1.trace and so on. */
static int create_trace_file(const char *dir)
{
    char *path = proc.scratch[0];
    const unsigned long path_size = sizeof proc.scratch[0];
    uint32_t pid = (uint32_t)sys_getpid();
    for (uint32_t n = 0; n < 100; n++) {
        char *end = proc.base + sizeof proc.base;
        char *p = str_put(proc.base, end, dir);
        p = str_put(p, end, "/litifut.");
        p = str_put_uint(p, end, pid);
        if (n) {
            p = str_put(p, end, ".");
            p = str_put_uint(p, end, n);
        }
        str_put(str_put(path, path + path_size, proc.base), path + path_size, ".trace");
        int fd = sys_open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) {
            str_put(proc.path, proc.path + sizeof proc.path, path);
            if (file_id_of(fd, &proc.id) != 0) {
                warn("cannot stat trace file", path, -EBADF);
                sys_close(fd);
                return -1;
            }
            return fd;
        }
        if (fd != -EEXIST) {
            warn("cannot create trace file", path, fd);
            return -1;
        }
    }
    warn("cannot create trace file", path, -EEXIST);
    return -1;
}

/* A new file at `path`, never through a symbolic link and never one
 * somebody else made: a file left there (by a crash, or planted) is
 * removed first (unlink removes a link itself, not its target). */
static int create_private(const char *path)
{
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = sys_open(path, flags, 0644);
    if (fd == -EEXIST && sys_unlink(path) == 0)
        fd = sys_open(path, flags, 0644);
    return fd;
}

/* Copies /proc/self/maps to <base>.maps (through a temporary file, so
 * the copy is always whole; rename replaces a link at <base>.maps, it
 * never writes through it).  Called under the lock. */
static void copy_maps(void)
{
    char *tmp = proc.scratch[0], *final = proc.scratch[1];
    const unsigned long size = sizeof proc.scratch[0];
    str_put(str_put(tmp, tmp + size, proc.base), tmp + size, ".maps.tmp");
    str_put(str_put(final, final + size, proc.base), final + size, ".maps");
    int in = sys_open("/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);
    if (in < 0)
        return;
    int out = create_private(tmp);
    long n = 0;
    if (out >= 0) {
        while ((n = sys_read(in, proc.io, sizeof proc.io)) > 0)
            if (sys_write(out, proc.io, (unsigned long)n) != n) {
                n = -1;
                break;
            }
        sys_close(out);
        if (n == 0)
            sys_rename(tmp, final);
        else
            sys_unlink(tmp);
    }
    sys_close(in);
}

static void before_fork(void);
static void after_fork_parent(void);
static void after_fork_child(void);

/* pthread_atfork needs an initialised C library: call it from our
 * constructor, or on the first traced call after the constructor. */
static void register_fork_hooks_once(void)
{
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    int now = proc.libc_ready && proc.state == PROC_ON && !proc.atfork_done;
    if (now)
        proc.atfork_done = 1;
    unlock(mask);
    if (now)
        pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

static int open_trace(void)
{
    struct settings *st = &proc.settings;
    read_settings(st);
    if (st->off)
        return 0;
    if (st->dir_too_long) {
        _Static_assert(sizeof st->dir == 536, "the message below names the limit");
        warn("LITIFUT_DIR (made absolute) is longer than 535 bytes, the tracer's limit",
             NULL, 0);
        return 0;
    }
    proc.chunk_size = st->chunk_kb * 1024;
    proc.time_every = st->time_every;
    proc.fd = create_trace_file(st->dir);
    if (proc.fd < 0)
        return 0;
    long err = arch_ftruncate64(proc.fd, HEADER_SIZE);
    void *h = err ? (void *)err
                  : sys_mmap(NULL, HEADER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, proc.fd, 0);
    if (sys_mmap_failed(h)) {
        warn("cannot map trace file", proc.base, (long)h);
        sys_close(proc.fd);
        proc.fd = -1;
        return 0;
    }
    proc.header = h;
    proc.file_size = HEADER_SIZE;
    fill_header(proc.header);
    copy_maps();        /* now, in case the program never exits normally */
    return 1;
}

int tracefile_start(void)
{
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    if (proc.state == PROC_NEW)
        proc.state = open_trace() ? PROC_ON : PROC_OFF;
    int on = proc.state == PROC_ON;
    unlock(mask);
    if (on)
        register_fork_hooks_once();
    return on;
}

uint32_t tracefile_time_every(void)
{
    return proc.time_every;
}

int tracefile_new_chunk(uint32_t tid, struct chunk *out)
{
    lock_signals_blocked();
    if (proc.state != PROC_ON) {
        unlock_signals_blocked();
        return 0;
    }
    if (!trace_fd_usable()) {
        proc.state = PROC_OFF;
        unlock_signals_blocked();
        return 0;
    }
    uint32_t index = proc.next_chunk++;
    uint64_t off = HEADER_SIZE + (uint64_t)index * proc.chunk_size;
    long err = 0;
    if (off + proc.chunk_size > proc.file_size) {
        err = arch_fallocate(proc.fd, proc.file_size, off + proc.chunk_size - proc.file_size);
        if (err == -EOPNOTSUPP || err == -ENOSYS)
            err = arch_ftruncate64(proc.fd, off + proc.chunk_size);
        if (!err)
            proc.file_size = off + proc.chunk_size;
    }
    unlock_signals_blocked();
    void *p = err ? (void *)err
                  : sys_mmap(NULL, proc.chunk_size, PROT_READ | PROT_WRITE, MAP_SHARED, proc.fd, off);
    if (sys_mmap_failed(p)) {
        lock_signals_blocked();
        if (proc.state == PROC_ON)
            warn("cannot extend trace file", proc.path, (long)p);
        proc.state = PROC_OFF;
        unlock_signals_blocked();
        return 0;
    }
    struct litifut_chunk_header *ch = p;
    ch->magic = LITIFUT_CHUNK_MAGIC;
    ch->tid = tid;
    ch->index = index;
    out->base = p;
    out->end = (uint32_t *)((char *)p + proc.chunk_size);
    return 1;
}

void tracefile_drop_chunk(uint32_t *base)
{
    sys_munmap(base, proc.chunk_size);
}

/* --- fork: the child must not write into the parent's file --- */

static void before_fork(void)
{
    struct litifut_thread *t = current_thread();
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    for (unsigned i = 0; i < SIGSET_WORDS; i++)
        proc.fork_sigmask[i] = mask[i];
    proc.fork_busy = busy;
}

static void after_fork_parent(void)
{
    uintptr_t busy = proc.fork_busy;
    unlock(proc.fork_sigmask);
    busy_leave(current_thread(), busy);
}

static void after_fork_child(void)
{
    struct litifut_thread *t = current_thread();
    uintptr_t busy = proc.fork_busy;
    if (t->chunk)
        sys_munmap(t->chunk, proc.chunk_size);
    if (t->prev_chunk)
        sys_munmap(t->prev_chunk, proc.chunk_size);
    thread_forget(t);
    if (proc.header) {                  /* the parent's trace file */
        sys_munmap(proc.header, HEADER_SIZE);
        sys_close(proc.fd);
    }
    proc.header = NULL;
    proc.fd = -1;
    proc.state = PROC_NEW;
    proc.next_chunk = 0;
    proc.file_size = 0;
    proc.atfork_done = 1;       /* handlers stay registered in the child */
    proc.lock = 0;
    busy_leave(t, busy);
    tracefile_restore_signals(proc.fork_sigmask);
}

/* --- start and end of the program --- */

__attribute__((constructor(101))) static void at_start(void)
{
    struct litifut_thread *t = current_thread();
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    uint32_t mask[SIGSET_WORDS];
    lock(mask);
    proc.libc_ready = 1;
    unlock(mask);
    register_fork_hooks_once();
    busy_leave(t, busy);
}

/* Runs late in exit(): records made after it still land in the file
 * (it stays mapped), only the maps copy would miss later mappings. */
__attribute__((destructor(101))) static void at_end(void)
{
    struct litifut_thread *t = current_thread();
    uintptr_t busy = busy_enter(t, FRAME_ADDRESS());
    uint32_t mask[SIGSET_WORDS];
    if (t->state == THREAD_ON && t->cur &&
        (uint32_t)(t->chunk_end - t->cur) >= TIME_MARK_WORDS)
        thread_put_time_mark(t);
    lock(mask);
    if (proc.state == PROC_ON)
        copy_maps();
    unlock(mask);
    busy_leave(t, busy);
}
