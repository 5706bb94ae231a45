/*
 * A symbol of a loaded ELF object, from its dynamic section (the object
 * as the dynamic linker or the kernel mapped it): the unwinder glibc
 * loads privately for pthread_exit (returns.c), the vDSO's clock.  Only
 * what a loaded object's dynamic symbol table gives: no versions, no
 * file reads.  Objects of the process's own data model and byte order.
 */
#include <elf.h>
#include <link.h>
#include "tracer.h"

/* The bytes of a DT_ pointer: relocated in place by glibc on most
 * machines, left as linked on MIPS (a read-only dynamic section). */
static uintptr_t dyn_address(uintptr_t base, uintptr_t ptr)
{
    return ptr < base ? base + ptr : ptr;
}

static int same_name(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* The number of entries of the symbol table a DT_GNU_HASH describes:
 * one past the last symbol of the last chain. */
static uint32_t gnu_hash_symbols(const uint32_t *h)
{
    uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];   /* bloom: words */
    const uint32_t *buckets = h + 4 + bloom * WORD_WORDS, *chain = buckets + nbuckets;
    uint32_t last = 0;
    for (uint32_t i = 0; i < nbuckets; i++)
        if (buckets[i] > last)
            last = buckets[i];
    if (last < symoffset)
        return symoffset;
    while (!(chain[last - symoffset] & 1))
        last++;
    return last + 1;
}

uintptr_t elf_symbol(uintptr_t base, const void *phdrs, unsigned phnum, const char *name)
{
    const ELF(Phdr) *phdr = phdrs;
    const ELF(Dyn) *dyn = NULL;
    for (unsigned i = 0; i < phnum; i++)
        if (phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ELF(Dyn) *)(base + phdr[i].p_vaddr);
    if (!dyn)
        return 0;
    const ELF(Sym) *syms = NULL;
    const char *strs = NULL;
    uint32_t n = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB)
            syms = (const ELF(Sym) *)dyn_address(base, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_STRTAB)
            strs = (const char *)dyn_address(base, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_HASH)
            n = ((const uint32_t *)dyn_address(base, dyn->d_un.d_ptr))[1];
        else if (dyn->d_tag == DT_GNU_HASH && !n)
            n = gnu_hash_symbols((const uint32_t *)dyn_address(base, dyn->d_un.d_ptr));
#ifdef DT_MIPS_SYMTABNO
        else if (dyn->d_tag == DT_MIPS_SYMTABNO)
            n = dyn->d_un.d_val;
#endif
    }
    if (!syms || !strs)
        return 0;
    for (uint32_t i = 1; i < n; i++)
        if (syms[i].st_shndx != SHN_UNDEF && syms[i].st_value &&
            (ELF32_ST_TYPE(syms[i].st_info) == STT_FUNC ||
             ELF32_ST_TYPE(syms[i].st_info) == STT_NOTYPE) &&
            same_name(strs + syms[i].st_name, name))
            return base + syms[i].st_value;
    return 0;
}

/* dl_iterate_phdr is weak: a static program has no other objects (its
 * unwinder, if any, is linked in and found by weak references).  A
 * link that wraps it (entries.c: the program's visitors) names the
 * tracer's reference __wrap_dl_iterate_phdr too: the real one is then
 * __real_dl_iterate_phdr, which the tracer calls, never its own entry. */
typedef int (*phdr_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
extern int dl_iterate_phdr(int (*)(struct dl_phdr_info *, size_t, void *), void *)
    __attribute__((weak));
extern int __real_dl_iterate_phdr(int (*)(struct dl_phdr_info *, size_t, void *), void *)
    __attribute__((weak));

struct lookup {
    const char *object, *name;
    uintptr_t found;
};

/* Whether path's last component starts with `object`. */
static int object_named(const char *path, const char *object)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/')
            base = p + 1;
    while (*object && *object == *base)
        object++, base++;
    return !*object;
}

static int lookup_in(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct lookup *l = arg;
    if (!info->dlpi_name || !object_named(info->dlpi_name, l->object))
        return 0;
    l->found = elf_symbol(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum, l->name);
    return l->found != 0;
}

uintptr_t loaded_symbol(const char *object, const char *name)
{
    struct lookup l = { object, name, 0 };
    phdr_fn iterate = __real_dl_iterate_phdr ? __real_dl_iterate_phdr : dl_iterate_phdr;
    if (iterate)
        iterate(lookup_in, &l);
    return l.found;
}
