/*
 * ARM for the rewriter and the wrapper: a call becomes a bl<c> to its
 * entry of the sled (arch/arm/stub.S); the input objects' float ABI
 * picks the tracer module.
 */
#include <inttypes.h>
#include <string.h>
#include "arch/arm/host-arm.h"
#include "src/arch-rewrite.h"
#include "lib/error.h"

/* bl<c> to entry k of the (one) sled, keeping the call's condition. */
static int arm_encode_redirect(const struct call_site *site, unsigned k,
                               const struct sled_set *sleds, uint32_t *word, int *bridged)
{
    uint32_t entry = sleds->base[0] + 8 * k;
    int64_t off = (int64_t)entry - ((int64_t)site->addr + 8);
    *bridged = 0;
    if (off < -(INT64_C(1) << 25) || off >= (INT64_C(1) << 25))
        return error("call at 0x%08" PRIx32 ": the tracer sled at 0x%08" PRIx32
                     " is out of bl range (+-32 MB)", site->addr, entry);
    uint32_t cond = site->kind == KIND_BLX_IMM ? 0xE : site->insn >> 28;
    *word = cond << 28 | 0x0B000000 | ((uint32_t)(off >> 2) & 0xFFFFFF);
    return 0;
}

/* ULEB128 at *p (before end); 0 past the end. */
static uint32_t uleb(const uint8_t **p, const uint8_t *end)
{
    uint32_t v = 0;
    for (unsigned shift = 0; *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        if (shift < 32)
            v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    return v;
}

/* Tag_ABI_VFP_args of an object's "aeabi" file attributes: 1 if it
 * passes floating-point arguments in VFP registers (hard float). */
static int vfp_args_of(const uint8_t *a, size_t size)
{
    const uint8_t *end = a + size, *p = a + 1;
    if (size < 1 || a[0] != 'A')
        return 0;
    while (end - p >= 4) {                      /* vendor subsections */
        uint32_t len = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
        if (len < 4 || len > (size_t)(end - p))
            return 0;
        const uint8_t *sub_end = p + len, *q = p + 4;
        const char *vendor = (const char *)q;
        while (q < sub_end && *q)
            q++;
        if (q < sub_end && strcmp(vendor, "aeabi") == 0 && sub_end - ++q >= 5 && *q == 1) {
            q += 5;                             /* Tag_File and its size */
            while (q < sub_end) {
                uint32_t tag = uleb(&q, sub_end);
                if (tag == 28)
                    return uleb(&q, sub_end) == 1;
                if (tag == 32)                  /* Tag_compatibility: ULEB, string */
                    uleb(&q, sub_end);
                if (tag == 4 || tag == 5 || tag == 67 || tag == 32 || (tag > 32 && tag % 2)) {
                    while (q < sub_end && *q)   /* a string */
                        q++;
                    q++;
                } else {
                    uleb(&q, sub_end);
                }
            }
        }
        p = sub_end;
    }
    return 0;
}

/* The float ABI of an input object picks the tracer module:
 * arm-linux-gnueabihf's for hard float, else arm-linux-gnueabi's. */
static const char *arm_module_triple(const char *object_path, const char *triple)
{
    struct elf_image obj;
    if (elf_image_open(&obj, object_path) != 0)
        return NULL;
    const char *fit = triple;
    for (size_t si = 1; si < obj.n_sections; si++) {
        const struct elf_section *s = &obj.sections[si];
        if (s->type == SHT_ARM_ATTRIBUTES && (uint64_t)s->offset + s->size <= obj.size) {
            fit = vfp_args_of(obj.data + s->offset, s->size) ? "arm-linux-gnueabihf"
                                                             : "arm-linux-gnueabi";
            break;
        }
    }
    elf_image_close(&obj);
    return fit;
}

const struct arch_rewrite_ops arch_arm_rewrite = {
    .encode_redirect = arm_encode_redirect,
    .module_triple = arm_module_triple,
};
