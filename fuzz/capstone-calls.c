/*
 * libcapstone's own calls of the C library's string functions, without
 * the sanitizers' interceptors and libFuzzer's compare hooks.
 *
 * capstone 4 builds each instruction's text with vsnprintf and looks
 * instructions up by name with strcmp (about 60 strcmp calls per MIPS
 * instruction).  In a fuzzing build each of these calls goes through
 * AddressSanitizer's interceptor (format parsing, shadow checks) and
 * libFuzzer's compare tracing: a scan of the MIPS seed took twice as
 * long with them (measured; ARM about 1.3 times).  capstone is not
 * instrumented, so neither the checks nor the compares tell anything
 * about the code under test.  Calls from anywhere else (the code under
 * test) still go to the interceptors: checks, compare tracing and all.
 *
 * Compiled without sanitizers (fuzz.mk).  fuzz_capstone_calls_init(),
 * called from each harness's LLVMFuzzerInitialize, finds capstone's
 * code and the C library's functions; until then every call is
 * intercepted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <capstone/capstone.h>

static uintptr_t cs_lo, cs_hi;

#define FROM_CAPSTONE() \
    ((uintptr_t)__builtin_return_address(0) - cs_lo < cs_hi - cs_lo)

static int find_code(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t a = (uintptr_t)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
        if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && a >= lo && a < hi) {
            cs_lo = lo;
            cs_hi = hi;
            return 1;
        }
    }
    return 0;
}

/* Each bypassed function: the sanitizer's interceptor (what the
 * symbol would be without this file) and the C library's. */
#define FUNCS(X) \
    X(int, strcmp, (const char *a, const char *b), (a, b)) \
    X(int, strncmp, (const char *a, const char *b, size_t n), (a, b, n)) \
    X(size_t, strlen, (const char *s), (s)) \
    X(char *, strchr, (const char *s, int c), (s, c)) \
    X(char *, strrchr, (const char *s, int c), (s, c)) \
    X(char *, strstr, (const char *s, const char *t), (s, t)) \
    X(char *, strcpy, (char *d, const char *s), (d, s)) \
    X(char *, strncpy, (char *d, const char *s, size_t n), (d, s, n)) \
    X(void *, memcpy, (void *d, const void *s, size_t n), (d, s, n)) \
    X(void *, memmove, (void *d, const void *s, size_t n), (d, s, n)) \
    X(int, vsnprintf, (char *s, size_t n, const char *f, va_list ap), (s, n, f, ap))

#define DECLARE(ret, name, params, args) \
    ret __interceptor_##name params; \
    static ret (*libc_##name) params;
FUNCS(DECLARE)

void fuzz_capstone_calls_init(void)
{
#define LOOKUP(ret, name, params, args) \
    libc_##name = (ret (*) params)dlsym(RTLD_NEXT, #name); \
    if (!libc_##name) \
        return;
    FUNCS(LOOKUP)
    dl_iterate_phdr(find_code, (void *)(uintptr_t)&cs_disasm_iter);  /* enables them */
}

#define DEFINE(ret, name, params, args) \
    ret name params \
    { \
        if (FROM_CAPSTONE()) \
            return libc_##name args; \
        return __interceptor_##name args; \
    }
FUNCS(DEFINE)
