/*
 * MIPS o32 (mips32r2, either byte order) pieces of the tracer runtime.
 * Included by the tracer module's C files only; everything here runs in the traced program
 * and must not call libc.
 */
#ifndef LITIFUT_ARCH_MIPS_TRACER_H
#define LITIFUT_ARCH_MIPS_TRACER_H

#include <stdint.h>
#include <asm/unistd.h>
#include "litifut/trace-format.h"
#include "sled.h"

/* The kernel's stack_t (sigaltstack): MIPS puts the size before the flags. */
struct arch_stack {
    uintptr_t ss_sp;
    unsigned long ss_size;
    int ss_flags;
};

/* Signals in the kernel's sigset_t (rt_sigprocmask's size argument * 8). */
#define ARCH_NSIG          128

#define ARCH_ID LITIFUT_ARCH_MIPS

/* A function's address (MIPS32: no instruction-set bit). */
#define ARCH_CODE_ADDRESS(a) ((uintptr_t)(a))

/* The frame the sled fills (sled.h), by register number; zero, k0, k1
 * and sp are not saved.  The hot path saves only what it uses; the
 * slow path the rest, before it calls C. */
struct arch_frame {
    uint32_t r[32];
    uint32_t hi, lo;
};
_Static_assert(sizeof(struct arch_frame) == FRAME_SIZE, "sled.h");

/* LITIFUT_ARGS (args.c): the integer arguments in registers (a0-a3),
 * and where the C return trampoline (stub.S) saved v0: below the stack
 * pointer the callee returned with. */
#define ARCH_INT_ARGS 4
/* A register site word's bit that sends the call to the slow path
 * (sled.S): LITIFUT_ARGS' selected calls through $t9 take it. */
#define ARCH_SLOW_REG_BIT 1u
static inline uintptr_t arch_frame_arg(const struct arch_frame *f, unsigned i)
{
    return f->r[4 + i];
}
static inline uintptr_t arch_returned_value(uintptr_t sp_ret)
{
    return *(const uint32_t *)(sp_ret - 84 + 4);       /* ($2 at 4 of its 84 bytes) */
}
/* Floating-point arguments are not recorded on MIPS (o32 puts the
 * first two in $f12/$f14 only when no integer comes before them). */
#define ARCH_FP_ARGS 0
#define ARCH_FP_FLOATS 0

static inline uintptr_t arch_return_address(const struct arch_frame *f)
{
    return f->r[31];
}

/* Where the frame keeps it: the callee gets what is there. */
static inline uint32_t *arch_return_address_slot(struct arch_frame *f)
{
    return &f->r[31];
}

/* The register a DB site word below LITIFUT_DB_INDIRECT names:
 * FRAME_R(rs), plus 1 if the hot path does not save rs (sled.S). */
static inline uintptr_t arch_frame_register(const struct arch_frame *f, uint32_t w)
{
    return f->r[(w >> 2) & 31];
}

/* UserLocal, the TLS pointer (0 until libc has set up TLS).  $3 is what
 * kernels that emulate rdhwr expect. */
/* The hardware counter (LITIFUT_CLOCK=counter or auto): CP0 Count
 * through rdhwr $2, 32 bits, which Linux lets user space read on
 * MIPS32r2 processors; `auto` takes it where it advances.  Its rate is
 * not readable: the tracer measures it.  Units of 2^COUNTER_SHIFT
 * ticks (sled.h: the hot paths shift too); a wrap (every 2^32 ticks,
 * seconds) makes the next event's delta too long for the hot path,
 * whose slow path then writes a TIME record (ticks and ns). The
 * qemu-user here (7.2) gives a constant 0: not used unless asked for. */
#define ARCH_COUNTER_CLOCK  LITIFUT_CLOCK_MIPS_CC
#define ARCH_COUNTER_SHIFT  COUNTER_SHIFT
#define ARCH_COUNTER_MASK   0xffffffffull   /* 32 bits: it wraps in seconds */
#define ARCH_HWCAP_COUNTER  0u              /* no such bit: it must advance */
#define ARCH_COUNTER_AUTO   1               /* the default where it advances */

/* The zone the tracer maps its own memory in (stub/aside.c): low, far
 * from the program's mappings, which Linux places top down; it ends
 * below region 2's bridge offset (0x2e000000, bridge.c) */
#define ARCH_ASIDE_START    0x20000000ul
#define ARCH_ASIDE_END      0x2e000000ul
static inline uint64_t arch_counter(void)
{
    uint32_t v;
    __asm__ volatile(".set push\n\t.set mips32r2\n\trdhwr %0, $2\n\t.set pop" : "=r"(v));
    return v;
}
static inline uint64_t arch_counter_hz(void)
{
    return 0;
}

static inline uintptr_t arch_thread_pointer(void)
{
    register uintptr_t v1 __asm__("$3");
    __asm__ volatile(".set push\n\t.set mips32r2\n\trdhwr $3, $29\n\t.set pop" : "=r"(v1));
    return v1;
}

/* Offset of a local-exec TLS symbol from the thread pointer. */
#define ARCH_TPOFF(sym)                                            \
    ({ uintptr_t off_;                                             \
       __asm__("lui %0, %%tprel_hi(" #sym ")\n\t"                  \
               "addiu %0, %0, %%tprel_lo(" #sym ")" : "=r"(off_)); \
       off_; })

/* Offset of an initial-exec TLS symbol from the thread pointer (a
 * library's copy): the compiler loads it from the GOT. */
#define ARCH_TPOFF_IE(sym) ((uintptr_t)&(sym) - arch_thread_pointer())

static inline int arch_cmpxchg(volatile uint32_t *p, uint32_t oldval, uint32_t newval)
{
    return __sync_bool_compare_and_swap(p, oldval, newval);     /* ll/sc, inline */
}

/* o32: number in v0, arguments in a0-a3 and on the stack at 16 and 20;
 * a3 is set on error, with the errno in v0. */
static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
    register long r4 __asm__("$4") = a;
    register long r5 __asm__("$5") = b;
    register long r6 __asm__("$6") = c;
    register long r7 __asm__("$7") = d;
    register long r8 __asm__("$8") = e;
    register long r9 __asm__("$9") = f;
    register long r2 __asm__("$2") = n;
    __asm__ volatile(".set push\n\t.set noreorder\n\t"
                     "subu $sp, $sp, 32\n\t"
                     "sw $8, 16($sp)\n\t"
                     "sw $9, 20($sp)\n\t"
                     "syscall\n\t"
                     "addu $sp, $sp, 32\n\t"
                     ".set pop"
                     : "+r"(r2), "+r"(r7), "+r"(r8), "+r"(r9)
                     : "r"(r4), "r"(r5), "r"(r6)
                     : "memory", "$1", "$3", "$10", "$11", "$12", "$13", "$14", "$15",
                       "$24", "$25", "hi", "lo");
    return r7 ? -r2 : r2;
}

/* o32 passes a 64-bit argument in an aligned register pair (or stack
 * pair), halves in memory order. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARCH_U64_PAIR(x) (long)(uint32_t)((x) >> 32), (long)(uint32_t)(x)
#else
#define ARCH_U64_PAIR(x) (long)(uint32_t)(x), (long)(uint32_t)((x) >> 32)
#endif

static inline long arch_ftruncate64(int fd, uint64_t len)
{
    return arch_syscall6(__NR_ftruncate64, fd, 0, ARCH_U64_PAIR(len), 0, 0);
}

static inline long arch_fallocate(int fd, int mode, uint64_t off, uint64_t len)
{
    return arch_syscall6(__NR_fallocate, fd, mode, ARCH_U64_PAIR(off), ARCH_U64_PAIR(len));
}

static inline long arch_pwrite64(int fd, const void *buf, unsigned long n, uint64_t off)
{
    return arch_syscall6(__NR_pwrite64, fd, (long)buf, (long)n, 0, ARCH_U64_PAIR(off));
}

/* After rewriting code (sleds.c, bridge.c): both caches. */
static inline void arch_flush_icache(uintptr_t start, uintptr_t end)
{
    arch_syscall6(__NR_cacheflush, (long)start, (long)(end - start), 3 /* BCACHE */, 0, 0, 0);
}

/* The hot path (sled.S) reaches the TLS slot with %tprel_lo alone: its
 * words must lie within a signed 16-bit offset of the thread pointer
 * (the executable's TLS block is the first: true unless it is huge). */
#define ARCH_HOT_TPOFF_OK(off) \
    ((intptr_t)(off) >= -32768 && (intptr_t)(off) + TLS_SLOT_SIZE <= 32768)

/* The sled modes (sleds.c) tell the run-time bridges (bridge.c) where
 * this object's bridge entries go now: per sled half, the mode's `_t9`
 * entry point. */
__attribute__((visibility("hidden"))) void bridges_retarget(uint32_t fixed, uint32_t reg);

/* The function an entry thunk (stub/entries.c) names: in at. */
static inline uintptr_t arch_entry_function(const struct arch_frame *f)
{
    return f->r[1];
}

/* A tail jump through a register (a site word of its register's, with
 * LITIFUT_DB_JUMP_REG) goes on here: the jumper's return address
 * popped, then the jump through the register (stub.S). */
extern const char litifut_mips_jump_cont[] __attribute__((visibility("hidden")));
static inline uintptr_t arch_jump_reg_continuation(uint32_t w)
{
    (void)w;                            /* (the thunk put the target in v1: one way) */
    return (uintptr_t)litifut_mips_jump_cont;
}

/* A tail jump's thunk continuation (its site word's target, sled.h):
 * where the jump goes. */
static inline uintptr_t arch_jump_target(uintptr_t cont)
{
    uintptr_t word = cont - JUMP_THUNK_CONT + JUMP_THUNK_TARGET;
    return word + (uintptr_t)(intptr_t) * (const int32_t *)word;
}

#endif
