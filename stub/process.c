/*
 * The process block: what every copy of the tracer in a process shares
 * (see struct litifut_process in tracer.h).  The first copy that needs
 * it makes it; the others find it through a pointer that the dynamic
 * linker binds to one definition for all of them:
 *   - an instrumented executable defines and exports litifut_process
 *     (the wrapper links it with --export-dynamic-symbol); libraries
 *     refer to it as an undefined weak symbol, which no version script
 *     can hide, so every library, also one loaded later with dlopen,
 *     finds the executable's;
 *   - with a plain executable, libraries use litifut_process_shared,
 *     which each defines and exports: bound to the first library's in
 *     load order;
 *   - a copy whose pointer is still empty (a library whose version
 *     script hides litifut_process_shared, or loaded RTLD_LOCAL with no
 *     instrumented library in the global scope) looks in
 *     /proc/self/maps for the block by its name: it is mapped from a
 *     memfd named "litifut-process" (privately, so a fork child gets a
 *     copy of its own).  Where memfd_create is missing (Linux < 3.17)
 *     the block is anonymous and such a library gets a block, and a
 *     trace file, of its own.
 * Each copy keeps the pointer it found, so unloading the copy whose
 * definition was bound loses nothing.
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

extern const char __ehdr_start[] __attribute__((weak, visibility("hidden")));

#ifdef LITIFUT_SHARED
extern struct litifut_process *volatile litifut_process
    __attribute__((weak, visibility("default")));
__attribute__((visibility("default"))) struct litifut_process *volatile litifut_process_shared;
#define RENDEZVOUS (&litifut_process ? &litifut_process : &litifut_process_shared)
#else
__attribute__((visibility("default"))) struct litifut_process *volatile litifut_process;
#define RENDEZVOUS (&litifut_process)
#endif

struct copy litifut_copy = { .returns = -1, .mode = -1 };

#define PROCESS_SIZE ((sizeof(struct litifut_process) + 4095) & ~4095u)

/* --- the lock --- */

void process_block_signals(uint32_t *saved)
{
    uint32_t all[SIGSET_WORDS];
    for (unsigned i = 0; i < SIGSET_WORDS; i++)
        all[i] = ~0u;
    sys_sigprocmask(SIG_BLOCK, all, saved);
}

void process_restore_signals(const uint32_t *saved)
{
    sys_sigprocmask(SIG_SETMASK, saved, NULL);
}

/* The lock holds its owner's tid and is held with every signal
 * blocked, so no signal handler can run on its holder: none can wait
 * for it (no deadlock) and none can leave it held by jumping out with
 * siglongjmp.  lock_signals_blocked is for callers that have blocked
 * them already (the chunk switch). */
static int lock_take(int give_up_if_mine)
{
    volatile uint32_t *l = &litifut_copy.proc->lock;
    uint32_t tid = (uint32_t)sys_gettid();
    while (!arch_cmpxchg(l, 0, tid)) {
        if (give_up_if_mine && *l == tid)
            return 0;
        sys_sched_yield();
    }
    return 1;
}

void lock_signals_blocked(void)
{
    lock_take(0);
}

void unlock_signals_blocked(void)
{
    __asm__ volatile("" ::: "memory");
    litifut_copy.proc->lock = 0;
}

void lock(uint32_t *saved_mask)
{
    process_block_signals(saved_mask);
    lock_take(0);
}

int lock_unless_mine(uint32_t *saved_mask)
{
    process_block_signals(saved_mask);
    if (lock_take(1))
        return 1;
    process_restore_signals(saved_mask);
    return 0;
}

void unlock(const uint32_t *saved_mask)
{
    unlock_signals_blocked();
    process_restore_signals(saved_mask);
}

/* --- finding the process block --- */

#define BLOCK_NAME "litifut-process"

static int block_is_ours(const struct litifut_process *p)
{
    return p->magic == PROCESS_MAGIC && p->pid == (uint32_t)sys_getpid();
}

/* A block another copy made, found by its memfd's name in our maps. */
static struct litifut_process *process_find_mapped(void)
{
    unsigned long len;
    struct litifut_process *found = NULL;
    char *buf = read_proc_file("/proc/self/maps", &len);
    for (const char *line = buf; buf && *line && !found;) {
        const char *p = line;
        uintptr_t start = str_parse_hex(&p);
        const char *end = line;
        while (*end && *end != '\n')
            end++;
        for (const char *q = p; q < end; q++) {
            if (*q == '/' && str_after(q, "/memfd:" BLOCK_NAME) &&
                block_is_ours((const struct litifut_process *)start)) {
                found = (struct litifut_process *)start;
                break;
            }
        }
        line = *end ? end + 1 : end;
    }
    if (buf)
        free_proc_file(buf);
    return found;
}

/* A new block: from a named memfd (so that copies that cannot see each
 * other's symbols find it), else anonymous. */
static void *process_map_new(void)
{
    void *m = (void *)-1;
    /* a memfd is a file: a file size limit below the block's size makes
     * it anonymous (never a SIGXFSZ the program would not have had) */
    int fd = sys_file_size_limit() < PROCESS_SIZE ? -1
             : (int)arch_syscall6(__NR_memfd_create, (long)BLOCK_NAME, 1 /* MFD_CLOEXEC */,
                                  0, 0, 0, 0);
    if (fd >= 0) {
        uint32_t mask[SIGSET_WORDS];
        process_block_signals(mask);
        int was = xfsz_pending();
        long err = arch_ftruncate64(fd, PROCESS_SIZE);
        xfsz_undo(err, was);
        process_restore_signals(mask);
        if (err == 0)
            m = map_aside(PROCESS_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        sys_close(fd);
    }
    if (sys_mmap_failed(m))
        m = map_aside(PROCESS_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m;
}

static struct litifut_process *process_find_or_make(void)
{
    struct litifut_process *volatile *rendezvous = RENDEZVOUS;
    struct litifut_process *p = *rendezvous;
    if (!p && (p = process_find_mapped()) != NULL &&
        !cmpxchg_ptr((volatile uintptr_t *)rendezvous, 0, (uintptr_t)p))
        p = *rendezvous;
    if (!p) {
        void *m = process_map_new();
        if (sys_mmap_failed(m))
            return NULL;
        struct litifut_process *n = m;
        n->magic = PROCESS_MAGIC;
        n->layout = PROCESS_LAYOUT;
        n->size = sizeof *n;
        n->pid = (uint32_t)sys_getpid();
        n->fd = -1;
        __asm__ volatile("" ::: "memory");
        if (cmpxchg_ptr((volatile uintptr_t *)rendezvous, 0, (uintptr_t)n)) {
            p = n;
        } else {
            sys_munmap(m, PROCESS_SIZE);
            p = *rendezvous;
        }
    }
    if (p->magic != PROCESS_MAGIC || p->layout != PROCESS_LAYOUT || p->size != sizeof *p) {
        static const char msg[] = "litifut: another version of the tracer is in this process; "
                                  "this object is not traced\n";
        sys_write(2, msg, sizeof msg - 1);
        return NULL;
    }
    return p;
}

/* --- objects --- */

static void find_build_id(struct litifut_object_record *r, uintptr_t bias)
{
    if (!__ehdr_start)
        return;
    const ELF(Ehdr) *eh = (const ELF(Ehdr) *)__ehdr_start;
    const ELF(Phdr) *ph = (const ELF(Phdr) *)(__ehdr_start + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(ph[i].p_vaddr + bias);
        const uint8_t *end = p + ph[i].p_filesz;
        while (p + sizeof(ELF(Nhdr)) <= end) {
            const ELF(Nhdr) *n = (const ELF(Nhdr) *)p;
            const uint8_t *name = p + sizeof *n;
            const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
                name[0] == 'G' && name[1] == 'N' && name[2] == 'U') {
                uint32_t len = n->n_descsz < sizeof r->build_id ? n->n_descsz
                                                                : sizeof r->build_id;
                for (uint32_t j = 0; j < len; j++)
                    r->build_id[j] = desc[j];
                r->build_id_size = len;
                return;
            }
            p = desc + ((n->n_descsz + 3) & ~3u);
        }
    }
}

/* Room for one more object entry (under the lock); 0 if none. */
static int objects_grow(struct litifut_process *p)
{
    if (p->n_objects < p->cap_objects)
        return 1;
    uint32_t cap = p->cap_objects ? 2 * p->cap_objects : 8;
    unsigned long size = (cap * sizeof(struct object_entry) + 4095) & ~4095ul;
    void *m = map_aside(size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (sys_mmap_failed(m))
        return 0;
    /* word by word: a struct assignment could become a call of memcpy */
    uint32_t *to = m;
    const uint32_t *from = (const uint32_t *)p->objects;
    for (unsigned long i = 0; i < p->n_objects * sizeof(struct object_entry) / 4; i++)
        to[i] = from[i];
    if (p->objects)
        sys_munmap(p->objects, (p->cap_objects * sizeof(struct object_entry) + 4095) & ~4095ul);
    p->objects = m;
    p->cap_objects = cap;
    return 1;
}

/* Registers this copy's object: its range of site ids and its entry.
 * Done once, by the first call through the copy. */
int copy_register(void)
{
    struct litifut_process *p = process_find_or_make();
    if (!p) {
        litifut_copy.state = COPY_OFF;
        return 0;
    }
    litifut_copy.proc = p;
    uint32_t mask[SIGSET_WORDS];
    if (!lock_unless_mine(mask))
        return 0;                       /* try again on a later call */
    if (litifut_copy.state == COPY_NEW) {
        uint32_t n = db_header()->n_sites;
        if (n > LITIFUT_SITE_ID_LIMIT - p->next_base || !objects_grow(p)) {
            litifut_copy.state = COPY_OFF;      /* site ids used up; no memory */
        } else {
            struct object_entry *e = &p->objects[p->n_objects];
            for (unsigned long i = 0; i < sizeof *e; i++)
                ((char *)e)[i] = 0;
            e->rec.base = p->next_base;
            e->rec.n_sites = n;
            e->rec.db_checksum = db_header()->checksum;
            e->rec.load_bias = (uint32_t)object_load_bias();
#if TRACER_LP64
            e->load_bias_hi = (uint32_t)(object_load_bias() >> 32);  /* (right after rec) */
#endif
            find_build_id(&e->rec, object_load_bias());
            if (!own_path(e->path, sizeof e->path))
                e->path[0] = 0;
            uint32_t len = 0;
            while (e->path[len])
                len++;
            e->words = LITIFUT_OBJECT_RECORD_WORDS + WORD_WORDS - 1 + (len + 4) / 4;
            e->live = 1;
            e->set_recording = copy_set_recording;      /* this copy's */
            p->n_objects++;
            p->objects_pending++;
            litifut_copy.base = p->next_base;
            /* the hot path's record word: rec_delta + &site word */
            litifut_copy.rec_delta = ((litifut_copy.base + 1) << LITIFUT_REC_SITE_SHIFT) -
                (uint32_t)(uintptr_t)db_sites();
            p->next_base += n;
            __asm__ volatile("" ::: "memory");
            litifut_copy.state = COPY_READY;
        }
    }
    unlock(mask);
    return litifut_copy.state == COPY_READY;
}

long object_take_pending(uint32_t *to, uint32_t room)
{
    struct litifut_process *p = litifut_copy.proc;
    for (uint32_t i = 0; i < p->n_objects; i++) {
        struct object_entry *e = &p->objects[i];
        if (e->emitted && e->skip_words && !e->skip_emitted) {
            if (room < 1 + e->skip_words)
                return -1;
            for (uint32_t k = 0; k < e->skip_words; k++)
                to[1 + k] = e->skip[k];
            __asm__ volatile("" ::: "memory");
            to[0] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_SKIPPED, e->skip_words);
            e->skip_emitted = 1;
            p->objects_pending--;
            return 1 + e->skip_words;
        }
        if (e->emitted)
            continue;
        if (room < 1 + e->words)
            return -1;
        const uint32_t *w = (const uint32_t *)&e->rec;
        for (uint32_t k = 0; k < e->words; k++)     /* path words: zero-padded */
            to[1 + k] = w[k];
        /* the control word last: a reader of the file (a stream's agent,
         * without the lock) never sees the record before its payload */
        __asm__ volatile("" ::: "memory");
        to[0] = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_OBJECT, e->words);
        e->emitted = 1;
        p->objects_pending--;
        return 1 + e->words;
    }
    p->objects_pending = 0;
    return 0;
}

void object_unloaded(uint32_t base)
{
    struct litifut_process *p = litifut_copy.proc;
    for (uint32_t i = 0; i < p->n_objects; i++)
        if (p->objects[i].rec.base == base)
            p->objects[i].live = 0;
}

int objects_end(uint32_t base)
{
    struct litifut_process *p = litifut_copy.proc;
    int left = 0;
    for (uint32_t i = 0; i < p->n_objects; i++) {
        struct object_entry *e = &p->objects[i];
        if (e->rec.base == base)
            e->ended = 1;
        left += e->live && !e->ended;
    }
    return !left;
}

/* A fork child's trace starts afresh: every object still loaded is
 * described again; unloaded ones are not (the child never calls them). */
void objects_after_fork_child(void)
{
    struct litifut_process *p = litifut_copy.proc;
    p->objects_pending = 0;
    for (uint32_t i = 0; i < p->n_objects; i++) {
        struct object_entry *e = &p->objects[i];
        e->emitted = !e->live;
        e->skip_emitted = !e->live;
        p->objects_pending += e->live + (e->live && e->skip_words);
    }
}

void object_set_skipped(const struct skip_result *r)
{
    struct litifut_process *p = litifut_copy.proc;
    for (uint32_t i = 0; i < p->n_objects; i++) {
        struct object_entry *e = &p->objects[i];
        if (e->rec.base != litifut_copy.base || !e->live || e->skip_words)
            continue;
        e->skip[0] = e->rec.base;
        e->skip[1] = r->sites;
        e->skip[2] = r->status;
        char *text = (char *)&e->skip[3];
        uint32_t len = 0;
        while (r->text[len] && len < LITIFUT_SKIP_TEXT_MAX - 1)
            text[len] = r->text[len], len++;
        for (uint32_t k = len; k < (len + 4) / 4 * 4; k++)
            text[k] = 0;                /* (NUL-terminated, zero-padded) */
        e->skip_emitted = 0;
        e->skip_words = 3 + (len + 4) / 4;
        p->objects_pending++;
        return;
    }
}

/* --- thread states --- */

/* Unmaps a chunk of the trace file, [base, end) and the STOP_RESERVE
 * words after end that every thread chunk keeps. */
void process_unmap_chunk(uint32_t *base, uint32_t *end)
{
    uintptr_t page = litifut_copy.proc->page;       /* (mapped as whole pages) */
    uintptr_t from = (uintptr_t)base & ~(page - 1), to = (uintptr_t)(end + STOP_RESERVE);
    sys_munmap((void *)from, ((to - from) + page - 1) & ~(page - 1));
}

static void pool_entry_reset(struct litifut_thread *t)
{
    if (t->shadow)
        sys_munmap(shadow_mapping(t), shadow_mapping_bytes(t));
    if (t->chunk)
        process_unmap_chunk(t->chunk, t->chunk_end);
    if (t->prev_chunk)
        process_unmap_chunk(t->prev_chunk, t->prev_chunk_end);
    if (t->stale)
        process_unmap_chunk(t->stale, t->stale_end);
    for (unsigned long i = 0; i < sizeof *t; i++)
        ((char *)t)[i] = 0;
}

/* A fork child's copy of the forking thread's chunk [base, end): it
 * belongs to the parent's file, yet a record store the fork interrupted
 * (a handler forked) may still be made to it: private memory at the
 * same place takes it instead. */
static void chunk_to_private(uint32_t *base, uint32_t *end)
{
    uintptr_t page = litifut_copy.proc->page;
    uintptr_t from = (uintptr_t)base & ~(page - 1), to = (uintptr_t)(end + STOP_RESERVE);
    if (base)
        sys_mmap((void *)from, ((to - from) + page - 1) & ~(page - 1), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

static int thread_alive(uint32_t tid)
{
    return arch_syscall6(__NR_tgkill, sys_getpid(), (long)tid, 0, 0, 0, 0) != -ESRCH;
}

/*
 * A thread's state is found by its tid.  Tids are unique among live
 * threads, so an entry with this tid but another thread pointer was
 * left by a thread that has exited: it is reused (its chunk is
 * complete); but the main thread's is its own whatever its thread
 * pointer.  An entry with the same tid and thread pointer is ours
 * (made through another copy).  When no entry is free, entries of
 * threads that no longer exist are reclaimed before the pool grows.
 */
struct litifut_thread *pool_thread(uint32_t tid, uintptr_t tp)
{
    struct litifut_process *p = litifut_copy.proc;
    struct litifut_thread *free = NULL;
    for (int pass = 0; pass < 2 && !free; pass++) {
        for (struct pool_page *pg = p->pool; pg; pg = pg->next) {
            for (unsigned i = 0; i < sizeof pg->t / sizeof pg->t[0]; i++) {
                struct litifut_thread *t = &pg->t[i];
                if (pass == 0 && t->tid == tid) {
                    /* the main thread (its tid the pid: never reused)
                     * keeps its state when its TLS moves: uClibc-ng's
                     * static start sets TLS up twice, the second time
                     * inside traced calls; another tid with another tp
                     * is a new thread */
                    if (t->tp == tp || tid == (uint32_t)sys_getpid()) {
                        t->tp = tp;
                        return t;
                    }
                    pool_entry_reset(t);
                    t->tid = tid;
                    t->tp = tp;
                    return t;
                }
                if (!free && (!t->tid || (pass == 1 && !thread_alive(t->tid)))) {
                    free = t;
                    if (pass == 1)
                        pool_entry_reset(t);
                }
            }
        }
    }
    if (!free) {
        void *m = map_aside(POOL_PAGE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (sys_mmap_failed(m))
            return NULL;
        struct pool_page *pg = m;
        pg->next = p->pool;
        p->pool = pg;
        free = &pg->t[0];
    }
    free->tid = tid;
    free->tp = tp;
    return free;
}

/* In a fork child only the forking thread exists: every other state is
 * dropped (its chunk belongs to the parent's file). */
struct litifut_thread *pool_after_fork_child(uintptr_t tp)
{
    struct litifut_thread *self = NULL;
    for (struct pool_page *pg = litifut_copy.proc->pool; pg && !self; pg = pg->next)
        for (unsigned i = 0; i < sizeof pg->t / sizeof pg->t[0]; i++)
            if (pg->t[i].tid && pg->t[i].tp == tp)
                self = &pg->t[i];
    for (struct pool_page *pg = litifut_copy.proc->pool; pg; pg = pg->next)
        for (unsigned i = 0; i < sizeof pg->t / sizeof pg->t[0]; i++)
            if (&pg->t[i] != self && pg->t[i].tid)
                pool_entry_reset(&pg->t[i]);
    if (self) {
        uintptr_t busy = self->busy;
        /* its calls return in the child too */
        struct shadow_entry *shadow = self->shadow, *shadow_top = self->shadow_top,
                            *shadow_end = self->shadow_end;
        uint32_t set_aside = self->set_aside;
        uintptr_t callback = self->callback;    /* (a fork inside a comparator: entries.c) */
        /* the child's history branches off here (the trace header) */
        struct litifut_process *p = litifut_copy.proc;
        p->fork_from[0] = p->pid;
        p->fork_from[1] = self->chunk ? self->tid : 0;
        p->fork_from[2] = self->chunk ? ((struct litifut_chunk_header *)self->chunk)->index : 0;
        p->fork_from[3] = self->chunk ? (uint32_t)(self->cur - self->chunk) : 0;
        /* the old chunks become private memory, unmapped at its next chunk */
        chunk_to_private(self->chunk, self->chunk_end);
        chunk_to_private(self->prev_chunk, self->prev_chunk_end);
        if (self->stale)
            process_unmap_chunk(self->stale, self->stale_end);
        uint32_t *stale = self->chunk, *stale_end = self->chunk_end;
        uint32_t *prev = self->prev_chunk, *prev_end = self->prev_chunk_end;
        self->shadow = NULL;
        self->chunk = self->prev_chunk = self->stale = NULL;
        pool_entry_reset(self);
        self->stale = stale;
        self->stale_end = stale_end;
        self->prev_chunk = prev;
        self->prev_chunk_end = prev_end;
        self->shadow = shadow;
        self->shadow_top = shadow_top;
        self->shadow_end = shadow_end;
        self->set_aside = set_aside;
        self->callback = callback;
        self->busy = busy;
        self->tp = tp;
        self->tid = (uint32_t)sys_gettid();
    } else {
        litifut_copy.proc->fork_from[0] = litifut_copy.proc->pid;
        litifut_copy.proc->fork_from[1] = 0;
    }
    return self;
}

void objects_set_recording(int on)
{
    struct litifut_process *p = litifut_copy.proc;
    for (uint32_t i = 0; i < p->n_objects; i++)
        if (p->objects[i].live && p->objects[i].set_recording)
            p->objects[i].set_recording(on);
}

int pool_slot_held(uint32_t slot)
{
    for (struct pool_page *pg = litifut_copy.proc->pool; pg; pg = pg->next)
        for (unsigned i = 0; i < sizeof pg->t / sizeof pg->t[0]; i++)
            if (pg->t[i].tid && (pg->t[i].ring_slot == slot || pg->t[i].ring_prev == slot))
                return 1;
    return 0;
}

uint32_t pool_threads(void)
{
    uint32_t n = 0;
    for (struct pool_page *pg = litifut_copy.proc->pool; pg; pg = pg->next)
        for (unsigned i = 0; i < sizeof pg->t / sizeof pg->t[0]; i++)
            n += pg->t[i].tid && pg->t[i].chunk;
    return n;
}

/* The trace is frozen: where each thread's records end (a FROZEN record
 * per thread with a chunk, as many as fit before `end`).  A hot path
 * under way in another thread stores its record at or after that word,
 * and bumps cur after: the record is not part of the trace. */
uint32_t *pool_frozen(uint32_t *p, uint32_t *end)
{
    for (struct pool_page *pg = litifut_copy.proc->pool; pg; pg = pg->next)
        for (unsigned i = 0; i < sizeof pg->t / sizeof pg->t[0]; i++) {
            struct litifut_thread *t = &pg->t[i];
            uint32_t *chunk = t->chunk, *cur = t->cur;
            /* (cur outside the chunk: between chunks; the reader then
             * cuts the thread at the freeze's time) */
            if (!t->tid || !chunk || cur < chunk || cur > t->chunk_end ||
                end - p < 1 + (long)LITIFUT_FROZEN_REC_WORDS)
                continue;
            *p++ = LITIFUT_REC_CONTROL_WORD(LITIFUT_REC_FROZEN, LITIFUT_FROZEN_REC_WORDS);
            *p++ = t->tid;
            *p++ = ((struct litifut_chunk_header *)chunk)->index;
            *p++ = (uint32_t)(cur - chunk);
        }
    return p;
}

/* Recording resumes: each thread's next record goes to the slow path
 * first, which puts a time mark before it, so that its calls are not
 * placed (interpolated between marks) inside the time recording was
 * off.  A lower limit is always safe: the thread may have moved on
 * (then its next record refills anyway), or be setting its own limit
 * (then that one wins, and its marks stay as before). */
void pool_mark_due(void)
{
    for (struct pool_page *pg = litifut_copy.proc->pool; pg; pg = pg->next)
        for (unsigned i = 0; i < sizeof pg->t / sizeof pg->t[0]; i++)
            if (pg->t[i].tid)
                pg->t[i].lim = pg->t[i].cur;
}
