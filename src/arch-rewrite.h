/*
 * What the rewriter needs to know about an architecture beyond struct
 * arch_ops (lib/arch.h): how a call is redirected to the sled, and which
 * tracer module an input object needs.  Each
 * arch/<arch>/rewrite-<arch>.c fills one struct arch_rewrite_ops.
 */
#ifndef LITIFUT_ARCH_REWRITE_H
#define LITIFUT_ARCH_REWRITE_H

#include "lib/arch.h"
#include "lib/sites.h"

struct arch_rewrite_ops {
    /* The word that sends `site` to entry k of a sled it can reach
     * (*bridged set if that is the bridge), or to its thunk at `thunk`
     * (its kind's thunk_size > 0); -1 with one error line if none can
     * be reached. */
    int (*encode_redirect)(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                           uint64_t thunk, uint32_t *word, int *bridged);
    /* Optional (NULL: every site reaches a sled, encode_redirect finds
     * it): -1 with one error line naming `program` if a site reaches no
     * sled, which the link then cannot have (an arch without far sleds
     * yet). */
    int (*check_reach)(const struct site_list *sites, const struct sled_set *sleds,
                       const char *program);
    /* The thunk_size bytes of `site`'s thunk at `thunk`, which goes on
     * to entry k (NULL op: no kind has one); -1 with one error line if
     * the sled is out of its reach. */
    int (*encode_thunk)(const struct call_site *site, unsigned k, const struct sled_set *sleds,
                        uint64_t thunk, uint8_t *bytes);
    /* The DB site word of `site`, whose word is linked at `word_addr`
     * (include/litifut/db-format.h): its fixed target relative to the
     * word, or the register it calls through (arch/<arch>/sled.h); a
     * tail jump's (its thunk at `thunk`): the thunk's continuation. */
    uint32_t (*site_word)(const struct call_site *site, uint64_t word_addr, uint64_t thunk);
    /* The triple whose tracer module fits an input object file (e.g.
     * its float ABI), given the toolchain's triple (NULL op: that one);
     * NULL with one error line if the object cannot be read.  (The
     * wrapper's.) */
    const char *(*module_triple)(const char *object_path, const char *triple);
    /* The variant of the tracer module an input object allows (a suffix
     * of its file name; "" for the plain one; NULL op: none), NULL with
     * one error line if it cannot be read.  The wrapper uses a variant
     * only if every object of the program allows it. */
    const char *(*module_variant)(const char *object_path);
    /* Optional (0: none): the bytes of a constructor's or destructor's
     * entry thunk (src/entries.h), and its instruction words at
     * `thunk` (the caller stores them in the object's byte order): it
     * goes to `fn` (Thumb: bit 0 set) through the tracer's `common`
     * (litifut_init_entry, litifut_fini_entry: arch/<arch>/stub.S);
     * -1 with one error line if out of reach. */
    unsigned entry_thunk_size;
    int (*encode_entry_thunk)(uint64_t thunk, uint64_t fn, uint64_t common, uint32_t *words);
    /* Optional: assembly the DB object adds (pass 1's placeholder too):
     * AArch64's GNU property note, without which ld would take BTI and
     * PAC marking away from a program linked with the DB. */
    const char *db_asm;
};

/* The rewrite ops of `arch` (every arch has them). */
const struct arch_rewrite_ops *arch_rewrite_ops(const struct arch_ops *arch);

#endif
