/*
 * cyg-ring.h - the ring the bench's -finstrument-functions handlers
 * (cyg-ringbuf.c, cyg-timed.c) store into: RING_ENTRIES records of the
 * including file's struct ring_entry (defined before, with RING_NAME),
 * per thread.  Local-exec TLS in an executable; built -fPIC
 * -DRING_IN_LIBRARY for a shared library, initial-exec (loaded at
 * start-up): never __tls_get_addr.
 *
 * At exit one line on stderr, "RING_NAME: N records of SIZE bytes"
 * (the main thread's ring's count, one write(2)), from which
 * tests/bench.sh reckons the bytes each traced call writes.  Not part
 * of the per-call cost; the program's stdout is untouched.
 */
#include <unistd.h>

#define RING_ENTRIES 4096       /* a power of two */

#ifdef RING_IN_LIBRARY
#define RING_TLS_MODEL "initial-exec"
#else
#define RING_TLS_MODEL "local-exec"
#endif

static __thread struct {
    unsigned next;
    struct ring_entry e[RING_ENTRIES];
} ring __attribute__((tls_model(RING_TLS_MODEL)));

/* the handlers: hidden, so a shared library that links its own copy
 * calls it directly, not through the PLT */
#define HANDLER __attribute__((no_instrument_function, visibility("hidden")))

__attribute__((destructor, no_instrument_function)) static void ring_count(void)
{
    char line[96], digits[12];
    const char *head = RING_NAME ": ", *tail = " records of ";
    unsigned n = ring.next, size = sizeof ring.e[0], k = 0, len = 0;
    do digits[k++] = (char)('0' + n % 10); while ((n /= 10) != 0);
    while (*head) line[len++] = *head++;
    while (k) line[len++] = digits[--k];
    while (*tail) line[len++] = *tail++;
    do digits[k++] = (char)('0' + size % 10); while ((size /= 10) != 0);
    while (k) line[len++] = digits[--k];
    for (tail = " bytes\n"; *tail; ) line[len++] = *tail++;
    (void)!write(2, line, len);
}
