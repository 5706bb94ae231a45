#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/sites.h"
#include "lib/error.h"
#include "lib/funcnames.h"

void stats_skip(struct scan_stats *st, const char *what, uint64_t bytes)
{
    unsigned i;
    for (i = 0; i < st->n_skipped; i++)
        if (strcmp(st->skipped[i].what, what) == 0)
            break;
    if (i == MAX_SKIPPED) {
        i = MAX_SKIPPED - 1;    /* lump the rest into the last bucket */
    } else if (i == st->n_skipped) {
        st->n_skipped++;
        st->skipped[i].what = what;
    }
    st->skipped[i].count++;
    st->skipped[i].bytes += bytes;
}

void stats_untraced(struct scan_stats *st, uint64_t addr, const char *why, uint64_t bytes)
{
    stats_skip(st, why, bytes);
    if (st->n_untraced == st->untraced_cap) {
        st->untraced_cap = st->untraced_cap * 2 + 64;
        st->untraced = xrealloc(st->untraced, st->untraced_cap * sizeof *st->untraced);
    }
    st->untraced[st->n_untraced++] = (struct untraced_call){ addr, why };
}

void scan_stats_free(struct scan_stats *st)
{
    free(st->untraced);
    st->untraced = NULL;
    st->n_untraced = st->untraced_cap = 0;
}

static int by_addr(const void *a, const void *b)
{
    const struct untraced_function *x = a, *y = b;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

static int by_count(const void *a, const void *b)
{
    const struct untraced_function *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count ? 1 : -1) : (x->addr > y->addr) - (x->addr < y->addr);
}

size_t untraced_by_function(const struct elf_image *img, const struct scan_stats *st,
                            struct untraced_function **out)
{
    struct untraced_function *v = xcalloc(st->n_untraced + 1, sizeof *v);
    struct function_index fx;
    size_t n = 0;
    function_index_build(img, &fx);
    for (size_t i = 0; i < st->n_untraced; i++) {
        const struct indexed_function *f = function_index_find(&fx, st->untraced[i].addr);
        v[n++] = (struct untraced_function){ f ? f->sym->name : NULL,
                                             f ? f->start : st->untraced[i].addr, 1 };
    }
    function_index_free(&fx);
    /* one entry per function: sorted by address, then merged */
    qsort(v, n, sizeof *v, by_addr);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && v[m - 1].addr == v[i].addr && (v[m - 1].name != NULL) == (v[i].name != NULL))
            v[m - 1].count++;
        else
            v[m++] = v[i];
    }
    n = m;
    qsort(v, n, sizeof *v, by_count);
    *out = v;
    return n;
}

static int range_cmp(const void *a, const void *b)
{
    const struct code_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int excluded_range_at(const struct excluded_range *r, const struct elf_section *s,
                      uint64_t *start, uint64_t *end)
{
    if (r->section && (!s || strcmp(r->section, s->name) != 0))
        return 0;
    uint64_t shift = r->section && r->section_addr ? s->addr - r->section_addr : 0;
    *start = r->start + shift;
    *end = r->end + shift;
    return 1;
}

void exclusions_for_section(const struct exclusions *ex, const struct elf_section *s,
                            struct code_range **out, size_t *n)
{
    struct code_range *v = xcalloc(ex->n + 1, sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < ex->n; i++) {
        uint64_t start, end;
        if (excluded_range_at(&ex->v[i], s, &start, &end))
            v[m++] = (struct code_range){ .start = start, .end = end };
    }
    qsort(v, m, sizeof *v, range_cmp);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && v[i].start <= v[k - 1].end) {
            if (v[i].end > v[k - 1].end)
                v[k - 1].end = v[i].end;
        } else {
            v[k++] = v[i];
        }
    }
    *out = v;
    *n = k;
}

char mapping_symbol_letter(const char *name)
{
    if (name[0] != '$' || name[1] == 0)
        return 0;
    /* ($x, $x.N; RISC-V's $x names its ISA: "$xrv64i2p1_m2p0_...") */
    return name[2] == 0 || name[2] == '.' || (name[1] == 'x' && strncmp(name + 2, "rv", 2) == 0)
               ? name[1] : 0;
}

struct mapping_symbol { uint64_t addr; char letter; };

static int mapping_cmp(const void *a, const void *b)
{
    const struct mapping_symbol *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void add_range(struct code_range **out, size_t *n, uint64_t start, uint64_t end,
                      unsigned isa)
{
    *out = xrealloc(*out, (*n + 1) * sizeof **out);
    (*out)[(*n)++] = (struct code_range){ start, end, isa };
}

int mapped_code_ranges(const struct elf_image *img, const char *arch_name, const char *letters,
                       const unsigned *isas, struct code_range **out, size_t *n,
                       struct scan_stats *st)
{
    if (!img->has_symtab)
        return error("%s: no symbol table (stripped?): %s code cannot be told "
                     "from data without mapping symbols", img->path, arch_name);
    *out = NULL;
    *n = 0;
    struct mapping_symbol *ms = xcalloc(img->n_symbols + 1, sizeof *ms);
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (s->type != SHT_PROGBITS || (s->flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
                                           (SHF_ALLOC | SHF_EXECINSTR) || !s->size)
            continue;
        if (strcmp(s->name, ".plt") == 0 || strcmp(s->name, ".iplt") == 0) {
            stats_skip(st, "PLT", s->size);
            continue;
        }
        size_t m = 0;
        for (size_t i = 0; i < img->n_symbols; i++) {
            const struct elf_symbol *y = &img->symbols[i];
            char letter = y->shndx == s->index ? mapping_symbol_letter(y->name) : 0;
            if (letter && (letter == 'd' || strchr(letters, letter)) && y->value >= s->addr &&
                y->value - s->addr < s->size)
                ms[m++] = (struct mapping_symbol){ y->value, letter };
        }
        qsort(ms, m, sizeof *ms, mapping_cmp);
        uint64_t end = s->addr + s->size;
        if (m == 0 || ms[0].addr > s->addr)
            stats_skip(st, "code without a mapping symbol", (m ? ms[0].addr : end) - s->addr);
        for (size_t i = 0; i < m; i++) {
            uint64_t from = ms[i].addr, to = i + 1 < m ? ms[i + 1].addr : end;
            if (from == to)
                continue;
            if (ms[i].letter == 'd')
                stats_skip(st, "data in code", to - from);
            else
                add_range(out, n, from, to, isas[strchr(letters, ms[i].letter) - letters]);
        }
    }
    free(ms);
    if (*n)         /* in address order, whatever the order of the section headers */
        qsort(*out, *n, sizeof **out, range_cmp);
    return 0;
}

static void add_site(struct site_list *out, size_t *cap, const struct call_site *site,
                     struct scan_stats *st)
{
    if (out->n == *cap) {
        *cap = *cap * 2 + 1024;
        out->v = xrealloc(out->v, *cap * sizeof *out->v);
    }
    out->v[out->n++] = *site;
    st->sites_by_kind[site->kind]++;
}

/* Cuts the excluded ranges out of `r`, calling `scan` on what is left. */
static int scan_range(const struct arch_ops *arch, const struct elf_image *img, csh cs,
                      void *state, struct code_range r, struct site_list *out, size_t *cap,
                      struct scan_stats *st)
{
    const unsigned char *code = elf_bytes_at(img, r.start, r.end - r.start);
    if (!code)
        return error("%s: code at 0x%08" PRIx64 " is not in the file", img->path, r.start);
    size_t size = r.end - r.start;
    uint64_t addr = r.start;
    unsigned unit = arch->insn_unit[r.isa];
    cs_insn *insn = arch->disasm_open ? cs_malloc(cs) : NULL;
    st->bytes_scanned += size;
    while (size >= unit) {
        const unsigned char *at = code;
        struct call_site site;
        memset(&site, 0, sizeof site);
        if (arch->quick) {
            uint32_t w = size >= 4 ? elf_get32(img, at) : elf_get16(img, at);
            int has_next = size >= 8, found = 0;
            uint32_t next = has_next ? elf_get32(img, at + 4) : 0;
            unsigned n = arch->quick(state, r.isa, addr, w, next, has_next, &site,
                                     &found, st);
            if (n && n <= size) {
                code += n;
                size -= n;
                addr += n;
                if (found)
                    add_site(out, cap, &site, st);
                continue;
            }
        }
        if (!insn || !cs_disasm_iter(cs, &code, &size, &addr, insn)) {
            stats_skip(st, insn ? "instructions capstone cannot decode"
                                : "instructions cut by the end of their code", unit);
            code = at + unit;
            size -= unit;
            addr += unit;
            continue;
        }
        uint32_t word = insn->size >= 4 ? elf_get32(img, at) : elf_get16(img, at);
        int has_next = size >= 4;           /* the delay slot, on MIPS */
        uint32_t next = has_next ? elf_get32(img, code) : 0;
        if (!arch->classify(state, insn, r.isa, word, next, has_next, &site, st))
            continue;
        site.addr = insn->address;
        add_site(out, cap, &site, st);
    }
    if (insn)
        cs_free(insn, 1);
    return 0;
}

/* Scans `r` minus the excluded ranges `ex` (sorted). */
static int scan_unexcluded(const struct arch_ops *arch, const struct elf_image *img, csh cs,
                           void *state, struct code_range r, const struct code_range *ex,
                           size_t n_ex, struct site_list *out, size_t *cap, struct scan_stats *st)
{
    uint64_t pos = r.start;
    size_t x = 0;
    while (pos < r.end) {
        while (x < n_ex && ex[x].end <= pos)
            x++;
        uint64_t stop = r.end;
        if (x < n_ex && ex[x].start <= pos) {
            stop = ex[x].end < r.end ? ex[x].end : r.end;
            stats_skip(st, "excluded (crt objects, tracer)", stop - pos);
        } else {
            if (x < n_ex && ex[x].start < r.end)
                stop = ex[x].start;
            if (scan_range(arch, img, cs, state, (struct code_range){ pos, stop, r.isa }, out,
                           cap, st) != 0)
                return -1;
        }
        pos = stop;
    }
    return 0;
}

int find_call_sites(const struct arch_ops *arch, const struct elf_image *img,
                    const struct exclusions *excluded, struct site_list *out,
                    struct scan_stats *st)
{
    static const struct exclusions none;
    struct code_range *ranges;
    size_t n_ranges, cap = 0;
    if (!excluded)
        excluded = &none;
    memset(st, 0, sizeof *st);
    out->v = NULL;
    out->n = 0;
    if (arch->code_ranges(img, excluded, &ranges, &n_ranges, st) != 0)
        return -1;
    csh cs[N_ISAS] = { 0 };
    int opened[N_ISAS] = { 0 };
    int rc = 0;
    void *state = arch->scan_begin ? arch->scan_begin(img) : NULL;
    const struct elf_section *sec = NULL;
    struct code_range *ex = NULL;
    size_t n_ex = 0;
    for (size_t i = 0; i < n_ranges && rc == 0; i++) {
        const struct elf_section *s = elf_section_at(img, ranges[i].start);
        if (s != sec) {
            sec = s;
            free(ex);
            exclusions_for_section(excluded, s, &ex, &n_ex);
        }
        unsigned isa = ranges[i].isa;
        if (isa >= N_ISAS || !arch->insn_unit[isa]) {
            rc = error("%s: code in an instruction set %s has not", img->path, arch->name);
            break;
        }
        /* (an arch without a disassembler decides every instruction
         * by its bits: quick) */
        if (!opened[isa] && arch->disasm_open &&
            (rc = arch->disasm_open(img, isa, &cs[isa])) != 0)
            break;
        opened[isa] = arch->disasm_open != NULL;
        rc = scan_unexcluded(arch, img, cs[isa], state, ranges[i], ex, n_ex, out, &cap, st);
    }
    if (arch->scan_end)
        arch->scan_end(state, img, out, st);
    free(ex);
    for (unsigned isa = 0; isa < N_ISAS; isa++)
        if (opened[isa])
            cs_close(&cs[isa]);
    free(ranges);
    if (rc != 0) {
        site_list_free(out);
        scan_stats_free(st);
    }
    return rc;
}

void site_list_free(struct site_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t image_code_end(const struct elf_image *img)
{
    uint64_t end = 0;
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if ((s->flags & SHF_EXECINSTR) && (s->flags & SHF_ALLOC) &&
            strcmp(s->name, ".litifut_thunks") != 0 && s->addr + s->size > end)
            end = s->addr + s->size;
    }
    return (end + 3) & ~UINT64_C(3);
}

int find_sleds(const struct arch_ops *arch, const struct elf_image *img,
               struct sled_set *sleds)
{
    static const char *const names[] = { "litifut_sled", "litifut_island_sled" };
    sleds->n = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct elf_symbol *s = elf_symbol_by_name(img, names[i]);
        if (s)
            sleds->base[sleds->n++] = arch_code_address(arch, s->value);
        else if (i == 0)
            return error("%s: no symbol litifut_sled: not linked with the litifut tracer",
                         img->path);
    }
    size_t first_far = sleds->n;
    for (size_t i = 0; i < img->n_symbols; i++) {
        const struct elf_symbol *s = &img->symbols[i];
        if (s->bind != STB_LOCAL || strcmp(s->name, "litifut_far_sled") != 0)
            continue;
        if (sleds->n == MAX_SLEDS)
            return error("%s: more than %d far sleds", img->path, MAX_SLEDS - 2);
        sleds->base[sleds->n++] = arch_code_address(arch, s->value);
    }
    qsort(sleds->base + first_far, sleds->n - first_far, sizeof sleds->base[0], compare_u64);
    const struct elf_symbol *j = elf_symbol_by_name(img, "litifut_sled_jump");
    sleds->jump = j ? arch_code_address(arch, j->value) : 0;
    const struct elf_symbol *t = elf_symbol_by_name(img, "litifut_thunks");
    /* (a DB object without thunks still has the symbol, at the DB: none) */
    sleds->thunks = t && t->size ? arch_code_address(arch, t->value) : 0;
    sleds->thunks_size = t && t->size ? t->size : 0;
    sleds->code_end = image_code_end(img);
    sleds->fixed_address = img->e_type == ET_EXEC;
    sleds->big_endian = img->big_endian;
    sleds->bridge = arch->bridge_offset;
    return 0;
}

void addr_set_add(struct addr_set *s, uint32_t a)
{
    if (s->n == s->cap) {
        s->cap = s->cap * 2 + 256;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    s->v[s->n++] = a;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void addr_set_sort(struct addr_set *s)
{
    if (s->n)
        qsort(s->v, s->n, sizeof *s->v, u32_cmp);
}

int addr_set_has(const struct addr_set *s, uint32_t a)
{
    return s->n && bsearch(&a, s->v, s->n, sizeof *s->v, u32_cmp) != NULL;
}

size_t addr_set_lower_bound(const struct addr_set *s, uint32_t a)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The function whose inside (not its start) code address a names, or
 * NULL. */
static const struct indexed_function *inner_of(const struct tail_targets *tt, uint64_t a)
{
    const struct indexed_function *f = a <= UINT32_MAX ? function_index_find(tt->functions, a)
                                                       : NULL;
    return f && f->start != a ? f : NULL;
}

void tail_targets_build(const struct elf_image *img, const struct arch_ops *arch,
                        const struct function_index *functions, struct tail_targets *tt)
{
    memset(tt, 0, sizeof *tt);
    tt->functions = functions;
    for (size_t i = 0; i < img->n_symbols; i++) {
        const struct elf_symbol *y = &img->symbols[i];
        if (y->type == STT_FUNC && y->shndx != SHN_UNDEF && y->shndx != SHN_ABS &&
            !is_cold_part(y->name) && arch_code_address(arch, y->value) <= UINT32_MAX)
            addr_set_add(&tt->starts, (uint32_t)arch_code_address(arch, y->value));
    }
    addr_set_sort(&tt->starts);
    unsigned n = 0;
    for (size_t si = 1; si < img->n_sections && n < 2; si++) {
        const struct elf_section *s = &img->sections[si];
        if ((strcmp(s->name, ".plt") == 0 || strcmp(s->name, ".iplt") == 0) &&
            s->addr + s->size <= UINT32_MAX) {
            tt->plt_lo[n] = (uint32_t)s->addr;
            tt->plt_hi[n++] = (uint32_t)(s->addr + s->size);
        }
    }
    const struct elf_symbol *t = elf_symbol_by_name(img, "litifut_thunks");
    if (t && t->size && t->value + t->size <= UINT32_MAX) {
        tt->thunks_lo = (uint32_t)arch_code_address(arch, t->value);
        tt->thunks_hi = tt->thunks_lo + (uint32_t)t->size;
    }
    /* the words of allocated data (not the instruction DB's: pass 1's is
     * a placeholder) that name a function's inside next to a word that
     * names the same function's (a table: a lone word is as likely a
     * string's four bytes, "\0ECH" is 0x00454348 on big-endian MIPS,
     * and its place in the code moves between links), and the RELA
     * addends that name one (a relocation is no chance) */
    const struct elf_symbol *db = elf_symbol_by_name(img, "litifut_db");
    uint64_t db_lo = db ? db->value : 0, db_size = db ? db->size : 0;
    unsigned ws = img->word_size == 8 ? 8 : 4;
    for (size_t si = 1; si < img->n_sections; si++) {
        const struct elf_section *s = &img->sections[si];
        if (!(s->flags & SHF_ALLOC) || (s->flags & SHF_EXECINSTR) || s->type != SHT_PROGBITS)
            continue;
        const unsigned char *p = s->size >= ws ? elf_bytes_at(img, s->addr, s->size) : NULL;
        const struct indexed_function *prev_f = NULL;
        uint32_t prev_a = 0;
        for (uint64_t o = 0; p && o + ws <= s->size; o += ws) {
            if (s->addr + o - db_lo < db_size) {
                prev_f = NULL;
                continue;
            }
            uint64_t v = elf_get32(img, p + o);
            if (ws == 8)
                v = img->big_endian ? v << 32 | elf_get32(img, p + o + 4)
                                    : v | (uint64_t)elf_get32(img, p + o + 4) << 32;
            uint64_t a = arch_code_address(arch, v);
            const struct indexed_function *f = inner_of(tt, a);
            if (f)
                addr_set_add(&tt->named, (uint32_t)a);
            if (f && f == prev_f) {
                addr_set_add(&tt->inner, prev_a);
                addr_set_add(&tt->inner, (uint32_t)a);
            }
            prev_f = f;
            prev_a = (uint32_t)a;
        }
    }
    struct elf_dynreloc *rel = NULL;
    size_t n_rel = 0;
    if (elf_dynamic_relocs(img, &rel, &n_rel) == 0)
        for (size_t i = 0; i < n_rel; i++) {
            uint64_t a = arch_code_address(arch, rel[i].addend);
            if (rel[i].rela && inner_of(tt, a)) {
                addr_set_add(&tt->inner, (uint32_t)a);
                addr_set_add(&tt->named, (uint32_t)a);
            }
        }
    free(rel);
    addr_set_sort(&tt->inner);
    addr_set_sort(&tt->named);
}

void tail_targets_free(struct tail_targets *tt)
{
    free(tt->starts.v);
    free(tt->inner.v);
    free(tt->named.v);
    memset(tt, 0, sizeof *tt);
}

int register_jump_at(const struct tail_targets *tt, uint64_t site)
{
    const struct indexed_function *own = function_index_find(tt->functions, site);
    if (!own || is_linker_stub(own->sym->name))
        return 0;
    size_t i = addr_set_lower_bound(&tt->inner, (uint32_t)own->start + 1);
    return !(i < tt->inner.n && tt->inner.v[i] - own->start < own->size);
}

enum tail_jump tail_jump_at(const struct tail_targets *tt, uint64_t site, uint64_t target)
{
    if (target > UINT32_MAX)
        return NOT_TAIL_JUMP;
    uint32_t to = (uint32_t)target;
    if (to >= tt->thunks_lo && to < tt->thunks_hi)
        return TAIL_JUMP_REWRITTEN;
    for (unsigned i = 0; i < 2; i++)
        if (to >= tt->plt_lo[i] && to < tt->plt_hi[i])
            return TAIL_JUMP;
    if (!addr_set_has(&tt->starts, to))
        return NOT_TAIL_JUMP;
    /* not to its own function's start (a loop), nor from a cold part
     * to its function (the same function's code), nor from a linker's
     * stub (its jump is the stub's way on) */
    const struct indexed_function *own = function_index_find(tt->functions, site);
    if (!own)
        return TAIL_JUMP;
    if (is_linker_stub(own->sym->name))
        return NOT_TAIL_JUMP;
    if (own->start == target)
        return NOT_TAIL_JUMP;
    const struct indexed_function *to_fn = function_index_find(tt->functions, target);
    if (to_fn && to_fn->start == target) {
        size_t a = base_name_len(own->sym->name), b = base_name_len(to_fn->sym->name);
        if (a == b && strncmp(own->sym->name, to_fn->sym->name, a) == 0)
            return NOT_TAIL_JUMP;
    }
    return TAIL_JUMP;
}
