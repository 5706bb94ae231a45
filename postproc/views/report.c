/*
 * The per-call and per-trace views: the calls as TSV, the summary,
 * the info; and what every view shares (clean strings; durations:
 * estimates.c).  The time views are in their own files (view.h).
 * Each has a text form for people and a TSV form for tools: a header
 * line, then rows of tab-separated fields.
 *
 * calls (the default view; as text it is the log, replay.c)
 *   TSV   pid tid seq site_rt target_rt site_obj site_addr site_sym
 *         target_obj target_addr target_sym callee_sym
 *         [site_line callee_line with --srcline] [args] parent
 *         One row per call, per thread in recording order; seq counts
 *         from 0 per thread (every call, also those a filter hides);
 *         parent is the seq of the call it was made in (the call tree
 *         every view draws: the nearest enclosing call record, over
 *         frames of functions entered without one and signal frames),
 *         "-" for none.
 *         *_rt are runtime addresses; *_addr
 *         link-time addresses in *_obj, the file as the target named
 *         it ("?" if unknown): site_obj is the instrumented object the
 *         call is in, target_obj whatever file holds the target; *_sym
 *         "function+0xoffset" ("?" if none).  This is exactly where each
 *         call went: a call through a PLT goes to "name@plt+0x0" in the
 *         caller's object, a call of vfork to the tracer's
 *         "__wrap_vfork+0x0".  callee_sym is the function that was
 *         called, as every view names it (names.c), by its symbol (not
 *         demangled), with the offset the call reached into the symbol
 *         it hit: the PLT hop and the tracer's wrapper resolved
 *         ("memcpy+0x0", "vfork+0x0").  site_line, callee_line:
 *         file:line of the call site and of the target (DWARF), empty
 *         if unknown.  A trace of a run with LITIFUT_ARGS (version 7)
 *         has args before parent (which stays last): the call's
 *         recorded arguments as the log prints them, empty if none.
 *         (No return value: a row is written at its call, in order;
 *         --graph's TSV has the values each edge returned.)
 * summary (--summary)
 *   text  "calls  callee", most called first, then the total
 *   TSV   calls callee callee_obj
 *         One row per callee (per function, whatever way it was
 *         reached), most called first, no total row.  callee is the
 *         function's name as the other views have it, without the
 *         object (demangled; 0x<address> if it has no symbol:
 *         link-time in callee_obj, runtime if callee_obj is "?");
 *         callee_obj is the file as the target named it, "?" if
 *         unknown.
 * info (--info)
 *   text  key=value lines per trace (keys: info_keys below), then one
 *         line per instrumented object, by base:
 *         "object=<base> <sites> 0x<load bias> <path>" (base: its first
 *         site id; sites: its DB's, or its record's if it could not be
 *         loaded).  load_bias, bridge and build_id are the main
 *         program's (ET_EXEC or with PT_INTERP; a file that could not
 *         be loaded: the object of the header's program path, its
 *         record's bias and build-id), empty if it is not
 *         instrumented; signals_unrecorded the deliveries that came
 *         while the tracer worked for their thread (history says so
 *         too); sites and db_bytes count every object's (DB
 *         bytes: of the objects that could be loaded); objects is how
 *         many there are; entries the functions entered by no
 *         traced call that the trace records (ENTRY records: thread
 *         start routines, comparators, exit handlers); untraced counts the call instructions in
 *         the objects' code that the link left untraced (a Thumb
 *         16-bit blx rM, ARM blx lr, ...: its summary's count and
 *         untraced.tsv's; program.c), the crt objects' and the
 *         tracer's code left out as the link leaves it; after the
 *         object lines, one "untraced_in=<calls> <function> <path>"
 *         line per function holding any, most first.  After an
 *         object's line, "site_rules=<rules> <path>" if it was linked
 *         with any, and "callees_skipped=<sites> <rule>=<sites>,...
 *         <path>" if LITIFUT_EXCLUDE_CALLEE was set at run time
 *         ("callees_skipped=failed <rule>=0,... <path>: <why>" where
 *         the object could not apply it).
 *   TSV   the same keys as columns, one row per trace (no object lines)
 *
 * Callees (the summary, callee_sym) are functions as every view has
 * them (names.c): a function of the main program is "name", one of
 * another object "name (file name)"; a PLT entry stands for the
 * function it imports, in the object the dynamic linker would bind it
 * to, and the tracer's __wrap_NAME for NAME, so that on ARM (through
 * the caller's PLT) and on MIPS (straight into the library, once
 * bound) a call reads "memcpy (libc.so.6)" and counts as one callee;
 * where symbols share an address, one rule names the function in
 * every view (symbols.c: glibc's free is "free", not its alias
 * "cfree").  "name@plt" remains only where no known object defines the
 * name (no maps file, the library not found, a static program's IFUNC
 * slots).  An address without a symbol is "0x<address>".
 *
 * Strings from the target's files (paths, symbol names) are printed
 * with control characters as '?': a crafted name can neither break a
 * TSV row nor send escape sequences to a terminal.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "postproc/util/grow.h"
#include "postproc/views/report.h"
#include "lib/arch.h"
#include "lib/error.h"

struct summary_entry {
    uint32_t fid;               /* the callee (names.h) */
    unsigned long long calls;
};

/* Where an address is. */
struct place {
    struct object *o;           /* NULL if no known file holds it */
    const char *obj;            /* o's path, or "?" */
    uint64_t addr;              /* link-time in o; runtime if o is NULL */
    struct func_symbol *sym;
    uint64_t off;
};

static int is_control(char c)
{
    return (unsigned char)c < 0x20 || c == 0x7f;
}

void put_clean(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc(is_control(*s) ? '?' : *s, out);
}

void put_markup(FILE *out, const char *s, size_t n)
{
    for (; n && *s; s++, n--)
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            fputc(*s == '\n' || ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f) ? *s : '?',
                  out);
        }
}

void html_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '<' || *p == '>' || *p == '&')
            fprintf(out, "\\u%04x", *p);  /* never "</script>" inside a script */
        else
            fputc(*p < 0x20 || *p >= 0x7f ? '?' : *p, out);
    }
    fputc('"', out);
}

static void place_in(struct object *o, uint64_t link, struct place *pl)
{
    memset(pl, 0, sizeof *pl);
    pl->o = o;
    pl->obj = o->path;
    pl->addr = link;
    pl->sym = object_symbol(o, link, &pl->off);
}

static void place_of(struct address_space *as, uint64_t rt, struct place *pl)
{
    struct object *o;
    uint64_t link;
    if (resolve_address(as, rt, &o, &link) == 0) {
        place_in(o, link, pl);
    } else {
        memset(pl, 0, sizeof *pl);
        pl->obj = "?";
        pl->addr = rt;
    }
}

/* Where a call went, and from where. */
struct call_places {
    const struct program *p;
    uint64_t site_rt, target_rt;
    int direct;                 /* a direct call: its target is the site's (call_target) */
    struct place from, to;
    const struct func *callee;  /* the function called (names.c) */
};

static void call_places(const struct view_trace *vt, const struct trace_event *c,
                        struct call_places *cp)
{
    uint64_t tlink;
    cp->p = &vt->ps->v[c->object];
    cp->target_rt = call_target(cp->p, c, &cp->direct, &tlink);
    place_in(cp->p->obj, cp->p->site_addr[c->site], &cp->from);
    cp->site_rt = (cp->from.addr + cp->p->bias) & cp->p->addr_mask;
    if (cp->direct)
        place_in(cp->p->obj, tlink, &cp->to);
    else
        place_of(vt->as, cp->target_rt, &cp->to);
    cp->callee = &vt->tf->ft->v[trace_funcs_callee(vt->tf, c)];
}

/* --- summary --- */

/* Calls of function `fid` counted, `n` of them. */
static void summarize(struct report *r, uint32_t fid, uint64_t n)
{
    r->entry_of = grow_to_hold(r->entry_of, &r->n_entry_of, fid, sizeof *r->entry_of, 0xff);
    if (r->entry_of[fid] == UINT32_MAX) {
        r->entries = grow_for_one(r->entries, r->n_entries, &r->cap, sizeof *r->entries);
        r->entries[r->n_entries] = (struct summary_entry){ fid, 0 };
        r->entry_of[fid] = (uint32_t)r->n_entries++;
    }
    r->entries[r->entry_of[fid]].calls += n;
    r->total += n;
}

/* For qsort: most calls first, then by name and file. */
static const struct func_table *sorting_ft;

static int by_calls(const void *a, const void *b)
{
    const struct summary_entry *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    const struct func *fx = &sorting_ft->v[x->fid], *fy = &sorting_ft->v[y->fid];
    int c = strcmp(fx->bare, fy->bare);
    return c ? c : strcmp(fx->obj, fy->obj);
}

static void print_callee_counts(const struct report *r)
{
    if (!r->tsv)
        fprintf(r->v.out, "%12s  %s\n", "calls", "callee");
    for (size_t i = 0; i < r->n_entries; i++) {
        const struct summary_entry *e = &r->entries[i];
        const struct func *f = &r->v.ft->v[e->fid];
        if (r->tsv) {
            fprintf(r->v.out, "%llu\t", e->calls);
            put_clean(r->v.out, f->bare);
            fputc('\t', r->v.out);
            put_clean(r->v.out, f->obj);
        } else {
            fprintf(r->v.out, "%12llu  ", e->calls);
            put_clean(r->v.out, f->name);
        }
        fputc('\n', r->v.out);
    }
    if (!r->tsv)
        fprintf(r->v.out, "%12llu  total\n", r->total);
}

/* --- info --- */

uint64_t recorded_ns(const struct trace_file *t)
{
    uint64_t on_ns = 0, from = 0;
    /* before the first mark: on, unless that mark is the state at start */
    int on = !t->n_states || t->states[0].why != LITIFUT_STATE_AT_START || t->states[0].on;
    for (size_t i = 0; i < t->n_states; i++) {
        uint64_t at = t->states[i].ns < t->end_ns ? t->states[i].ns : t->end_ns;
        if (on && at > from)
            on_ns += at - from;
        on = t->states[i].on;
        from = at;
    }
    if (on && t->end_ns > from)
        on_ns += t->end_ns - from;
    return on_ns;
}

/* --info's recording=: "" (always on), or how much of the run was
 * recorded and how often recording changed (LITIFUT_SIGNAL, LITIFUT_RECORD). */
static char *recording_text(const struct trace_file *t)
{
    if (!t->n_states)
        return xstrdup("");
    size_t changes = 0;
    for (size_t i = 0; i < t->n_states; i++)
        changes += t->states[i].why != LITIFUT_STATE_AT_START &&
                   t->states[i].why != LITIFUT_STATE_AT_END &&
                   t->states[i].why != LITIFUT_STATE_BY_BUDGET;     /* (budget=) */
    double pct = t->end_ns ? 100.0 * (double)recorded_ns(t) / (double)t->end_ns : 0;
    const struct trace_state *last = &t->states[t->n_states - 1];
    char *counted = last->has_count
                        ? xasprintf(", %" PRIu32 " call%s not recorded", last->unrecorded,
                                    last->unrecorded == 1 ? "" : "s")
                        : xstrdup("");
    char *s = xasprintf("on %.1f%% of the run, %s at start, %zu change%s%s", pct,
                        t->states[0].why == LITIFUT_STATE_AT_START && !t->states[0].on ? "off" : "on",
                        changes, changes == 1 ? "" : "s", counted);
    free(counted);
    return s;
}

/* A time in us, as LITIFUT_BUDGET takes it. */
static char *duration_text(uint32_t us)
{
    return us % 1000000 == 0 ? xasprintf("%" PRIu32 "s", us / 1000000)
           : us % 1000 == 0  ? xasprintf("%" PRIu32 "ms", us / 1000)
                             : xasprintf("%" PRIu32 "us", us);
}

/* --info's budget=: "" (none), or LITIFUT_BUDGET, the cost the tracer
 * reckoned a recorded word at, and how often the budget paused it. */
static char *budget_text(const struct trace_file *t)
{
    if (!t->budget_us)
        return xstrdup("");
    size_t pauses = 0;
    for (size_t i = 0; i < t->n_states; i++)
        pauses += t->states[i].why == LITIFUT_STATE_BY_BUDGET && !t->states[i].on;
    char *b = duration_text(t->budget_us), *p = duration_text(t->period_us);
    double share = t->end_ns ? 100.0 * (double)t->n_calls * t->word_cost / 1024.0 / (double)t->end_ns : 0;
    char *s = xasprintf("%s/%s, a recorded call reckoned at %.1f ns (%.1f%% of the run), "
                        "%zu pause%s", b, p, t->word_cost / 1024.0, share, pauses,
                        pauses == 1 ? "" : "s");
    free(b);
    free(p);
    return s;
}

static const char *const info_keys[] = {
    "trace", "exe", "pid", "arch", "endian", "load_bias", "chunk_size", "time_every", "clock",
    "clock_hz", "clock_read_ns", "returns", "recording", "stopped", "budget", "mode", "pairs", "sites",
    "threads", "calls", "entries", "record_bytes", "own_time", "db_bytes", "bridge", "build_id", "objects",
    "untraced", "ring", "history", "snapshot", "source", "signals_unrecorded",
    "max_size", "max_total",
};
#define N_INFO (sizeof info_keys / sizeof info_keys[0])

/* LITIFUT_CLOCK's names (trace_open checked the number). */
static const char *clock_name(uint8_t clock)
{
    switch (clock) {
    case LITIFUT_CLOCK_MONOTONIC:
        return "monotonic";
    case LITIFUT_CLOCK_INSNS:
        return "instructions (the thread's guest instructions, emulator)";
    default:
        if (arch_by_counter_clock(clock))
            return arch_by_counter_clock(clock)->counter_clock_info;
        return "marks";
    }
}

static const char *arch_name(uint32_t trace_arch)
{
    const struct arch_ops *a = arch_by_trace_arch(trace_arch);
    return a ? a->name : "?";
}

/* An object's site count: its DB's if it was loaded, else its record's. */
static uint32_t object_sites(const struct trace_file *t, const struct program_set *ps, size_t i)
{
    return ps->v[i].ok ? ps->v[i].db.header.n_sites : t->objects[i].n_sites;
}

/* The keys that describe the main program: empty if it is not
 * instrumented.  Its load bias and build-id are its OBJECT record's, also
 * when the file could not be loaded (a stripped or missing program: the
 * build-id is what finds it; the object whose path is the header's
 * program); its bridge is its DB's. */
static void main_values(const struct trace_file *t, const struct program_set *ps, char **bias,
                        char **bridge, char **build_id)
{
    char id[2 * LITIFUT_BUILD_ID_MAX + 1] = "";
    const struct trace_object *rec = ps->main ? ps->main->rec : NULL;
    for (size_t i = 0; i < t->n_objects && !rec; i++)
        if (!ps->v[i].ok && strcmp(t->objects[i].path, t->header.exe) == 0)
            rec = &t->objects[i];
    if (!rec) {
        *bias = xstrdup("");
        *bridge = xstrdup("");
        *build_id = xstrdup("");
        return;
    }
    for (uint32_t i = 0; i < rec->build_id_size; i++)
        snprintf(id + 2 * i, 3, "%02x", rec->build_id[i]);
    *bias = xasprintf("0x%08" PRIx64, rec->load_bias);
    *bridge = ps->main ? xasprintf("0x%08" PRIx32, ps->main->db.header.bridge) : xstrdup("");
    *build_id = xstrdup(id);
}

static void info_values(const struct trace_file *t, const struct program_set *ps,
                        char *v[N_INFO])
{
    const struct litifut_trace_header *h = &t->header;
    uint64_t sites = 0, db_bytes = 0, untraced = 0;
    for (size_t i = 0; i < t->n_objects; i++)
        sites += object_sites(t, ps, i);
    for (size_t i = 0; i < ps->n; i++)
        if (ps->v[i].ok) {
            db_bytes += db_size_bytes(&ps->v[i].db);
            untraced += ps->v[i].n_untraced;
        }
    char *bias, *bridge, *build_id;
    main_values(t, ps, &bias, &bridge, &build_id);
    size_t k = 0;
    v[k++] = xstrdup(t->path);
    v[k++] = xstrdup(h->exe);
    v[k++] = xasprintf("%" PRIu32, h->pid);
    v[k++] = xstrdup(arch_name(h->arch));
    v[k++] = xstrdup(h->endian == LITIFUT_BIG_ENDIAN ? "big" : "little");
    v[k++] = bias;
    v[k++] = xasprintf("%" PRIu32, h->chunk_size);
    v[k++] = xasprintf("%" PRIu32, h->time_every);
    v[k++] = xstrdup(clock_name(h->clock));
    v[k++] = t->ns_per_unit > 0 ? xasprintf("%.0f", (double)((uint64_t)1 << h->time_shift) * 1e9 /
                                                      t->ns_per_unit)
                                : xstrdup("");
    v[k++] = h->clock_read_ns ? xasprintf("%" PRIu32, h->clock_read_ns) : xstrdup("");
    v[k++] = !(h->flags & LITIFUT_TRACE_RETURNS) ? xstrdup("inferred")
             : h->returns_resumed ? xasprintf("exact, %" PRIu32 " frame%s closed early (stack switches)",
                                              h->returns_resumed, h->returns_resumed == 1 ? "" : "s")
             : xstrdup("exact");
    v[k++] = recording_text(t);
    char *stopped = trace_stop_text(t);
    v[k++] = stopped ? stopped : xstrdup("");
    v[k++] = budget_text(t);
    v[k++] = xstrdup(h->mode == LITIFUT_MODE_DEDUP ? "dedup"
                     : h->mode == LITIFUT_MODE_COUNT ? "count" : "full");
    v[k++] = xasprintf("%zu", t->n_pairs);
    v[k++] = xasprintf("%" PRIu64, sites);
    v[k++] = xasprintf("%zu", t->n_threads);
    v[k++] = xasprintf("%" PRIu64, t->n_calls);
    v[k++] = xasprintf("%" PRIu64, t->entries);
    v[k++] = xasprintf("%" PRIu64, t->record_bytes);
    v[k++] = xasprintf("%" PRIu64 " ns in %" PRIu64 " new chunk%s", t->own_ns, t->n_own,
                       t->n_own == 1 ? "" : "s");
    v[k++] = xasprintf("%" PRIu64, db_bytes);
    v[k++] = bridge;
    v[k++] = build_id;
    v[k++] = xasprintf("%zu", t->n_objects);
    v[k++] = xasprintf("%" PRIu64, untraced);
    v[k++] = h->ring_size ? xasprintf("%" PRIu32, h->ring_size) : xstrdup("");
    char *history = trace_history_text(t), *snapshot = trace_snapshot_text(t);
    v[k++] = history ? history : xstrdup("");
    v[k++] = snapshot ? snapshot : xstrdup("");
    v[k++] = xstrdup(trace_is_emulated(t) ? "emulator (litifut-emu: qemu-user, no device)"
                                          : "device (the instrumented program's tracer)");
    v[k++] = xasprintf("%" PRIu32, h->signals_unrecorded);
    v[k++] = h->max_size_kb ? xasprintf("%" PRIu32 " KB (LITIFUT_MAX_SIZE)", h->max_size_kb)
                            : xstrdup("");
    v[k++] = h->max_total_kb ? xasprintf("%" PRIu32 " KB (LITIFUT_MAX_TOTAL)", h->max_total_kb)
                             : xstrdup("");
}

/* The site rules the object was linked with (src/rules.h: section
 * .litifut_rules, text up to a NUL or the section's end), or NULL. */
char *site_rules_of(const struct elf_image *img)
{
    for (size_t i = 0; i < img->n_sections; i++) {
        const struct elf_section *s = &img->sections[i];
        if (strcmp(s->name, ".litifut_rules") != 0 || s->type != SHT_PROGBITS ||
            s->offset > img->size || s->size > img->size - s->offset)
            continue;
        const char *text = (const char *)img->data + s->offset;
        return xstrndup(text, strnlen(text, s->size));
    }
    return NULL;
}

/* Text only: one line per object, by base, and its site rules if any. */
static void print_objects(FILE *out, const struct trace_file *t, const struct program_set *ps)
{
    for (size_t i = 0; i < t->n_objects; i++) {
        const struct trace_object *o = &t->objects[i];
        fprintf(out, "object=%" PRIu32 " %" PRIu32 " 0x%08" PRIx64 " ", o->base,
                object_sites(t, ps, i), o->load_bias);
        put_clean(out, o->path);
        fputc('\n', out);
        char *rules = i < ps->n && ps->v[i].ok ? site_rules_of(&ps->v[i].obj->img) : NULL;
        if (rules && *rules) {
            fputs("site_rules=", out);
            put_clean(out, rules);
            fputc(' ', out);
            put_clean(out, o->path);
            fputc('\n', out);
        }
        free(rules);
        for (size_t k = 0; k < t->n_skips; k++) {
            const struct trace_skip *sk = &t->skips[k];
            if (sk->base != o->base)
                continue;
            if (sk->status)
                fputs("callees_skipped=failed ", out);
            else
                fprintf(out, "callees_skipped=%" PRIu32 " ", sk->sites);
            int first = 1;      /* "rule count" lines as rule=count,... */
            for (const char *l = sk->text; *l;) {
                size_t len = strcspn(l, "\n");
                const char *sp = memrchr(l, ' ', len);
                if (sp) {
                    fprintf(out, "%s%.*s=%.*s", first ? "" : ",", (int)(sp - l), l,
                            (int)(l + len - sp - 1), sp + 1);
                    first = 0;
                }
                l += len + (l[len] == '\n');
            }
            fputc(' ', out);
            put_clean(out, o->path);
            if (sk->status)
                fprintf(out, ": %s", trace_skip_why(sk->status));
            fputc('\n', out);
        }
    }
    for (size_t i = 0; i < ps->n; i++) {
        const struct program *p = &ps->v[i];
        for (size_t j = 0; p->ok && j < p->n_untraced_fn; j++) {
            fprintf(out, "untraced_in=%" PRIu32 " ", p->untraced_fn[j].count);
            if (p->untraced_fn[j].name)
                put_clean(out, p->untraced_fn[j].name);
            else
                fprintf(out, "0x%08" PRIx64, p->untraced_fn[j].addr);
            fputc(' ', out);
            put_clean(out, t->objects[i].path);
            fputc('\n', out);
        }
    }
}

void print_info(FILE *out, int tsv, const struct trace_file *t, const struct program_set *ps)
{
    char *v[N_INFO];
    info_values(t, ps, v);
    for (size_t k = 0; k < N_INFO; k++) {
        if (tsv) {
            fputs(k ? "\t" : "", out);
        } else {
            fprintf(out, "%s=", info_keys[k]);
        }
        put_clean(out, v[k]);
        fputs(tsv && k + 1 < N_INFO ? "" : "\n", out);
        free(v[k]);
    }
    if (!tsv)
        print_objects(out, t, ps);
}

void print_info_header(FILE *out)
{
    for (size_t k = 0; k < N_INFO; k++)
        fprintf(out, "%s%s", info_keys[k], k + 1 < N_INFO ? "\t" : "\n");
}

/* --- calls (TSV) --- */

static void print_sym(struct outbuf *ob, const struct place *pl)
{
    if (pl->sym) {
        ob_clean(ob, pl->sym->name);
        ob_str(ob, "+0x");
        ob_hex(ob, pl->off, 1);
    } else {
        ob_char(ob, '?');
    }
}

static void put_srcline(struct outbuf *ob, struct trace_funcs *tf, const struct place *pl)
{
    const char *line = pl->o ? trace_funcs_srcline(tf, pl->o, pl->addr) : NULL;
    if (line)
        ob_clean(ob, line);
}

static void print_places(struct outbuf *ob, const struct call_places *cp);
static void print_to(struct outbuf *ob, const struct call_places *cp);

/* pid, tid, seq */
static void print_row_start(struct outbuf *ob, const struct callstack *s, const struct frame *f)
{
    ob_u64(ob, s->t->header.pid);
    ob_char(ob, '\t');
    ob_u64(ob, s->th->tid);
    ob_char(ob, '\t');
    ob_u64(ob, f->seq);
    ob_char(ob, '\t');
}

/* args if the TSV has them; parent: the seq of the call the frame was
 * made in (its nearest frame below that is a call record's: the tree
 * the views draw), "-" if none; then the row's end */
static void print_row_end(struct report *r, const struct callstack *s, const struct frame *f)
{
    struct outbuf *ob = &r->ob;
    size_t k = (size_t)(f - s->f);     /* (1 + the parent's index; 0: none) */
    while (k > 0 && !frame_has_site(&s->f[k - 1]))
        k--;
    if (r->values) {
        uint32_t n;
        const uint32_t *w = frame_args(s, f, &n);
        ob_char(ob, '\t');
        if (w)
            ob_str(ob, args_buf_text(&r->args, &r->v.trace->t->header, w, n,
                                     &r->v.ft->v[f->fid], r->auto_args));
    }
    ob_char(ob, '\t');
    if (k)
        ob_u64(ob, s->f[k - 1].seq);
    else
        ob_char(ob, '-');
    ob_char(ob, '\n');
    ob_line_done(ob);
}

static void print_tsv_row(struct report *r, const struct callstack *s, const struct frame *f)
{
    struct call_places places, *cp = &places;
    call_places(r->v.trace, &f->call, cp);
    struct outbuf *ob = &r->ob;
    print_row_start(ob, s, f);
    print_places(ob, cp);
    if (r->srcline) {
        struct trace_funcs *tf = r->v.trace->tf;
        ob_char(ob, '\t');
        put_srcline(ob, tf, &cp->from);
        ob_char(ob, '\t');
        put_srcline(ob, tf, &cp->to);
    }
    print_row_end(r, s, f);
}

/* "0x%08x" (more digits above 4 GB) */
static void ob_addr(struct outbuf *ob, uint64_t a)
{
    ob_str(ob, "0x");
    ob_hex(ob, a, 8);
}

/* site_rt, then the site_* fields after target_rt */
static void print_from(struct outbuf *ob, const struct call_places *cp)
{
    const struct place *from = &cp->from;
    ob_clean(ob, from->obj);
    ob_char(ob, '\t');
    ob_addr(ob, from->addr);
    ob_char(ob, '\t');
    print_sym(ob, from);
    ob_char(ob, '\t');
}

/* site_rt ... callee_sym of a calls (or pairs) row */
static void print_places(struct outbuf *ob, const struct call_places *cp)
{
    ob_addr(ob, cp->site_rt);
    ob_char(ob, '\t');
    ob_addr(ob, cp->target_rt);
    ob_char(ob, '\t');
    print_from(ob, cp);
    print_to(ob, cp);
}

/* target_obj ... callee_sym */
static void print_to(struct outbuf *ob, const struct call_places *cp)
{
    const struct place *to = &cp->to;
    ob_clean(ob, to->obj);
    ob_char(ob, '\t');
    if (to->o)
        ob_addr(ob, to->addr);
    else
        ob_char(ob, '?');
    ob_char(ob, '\t');
    print_sym(ob, to);
    ob_char(ob, '\t');
    if (cp->callee->symbol) {               /* (the offset into what the call reached) */
        ob_clean(ob, cp->callee->symbol);
        ob_str(ob, "+0x");
        ob_hex(ob, to->sym ? to->off : 0, 1);
    } else {
        ob_char(ob, '?');
    }
}

/* This trace's text of a site (report.h), made on its first call. */
static const struct site_text *site_text(struct report *r, const struct trace_event *c)
{
    const struct view_trace *vt = r->v.trace;
    const struct program *p = &vt->ps->v[c->object];
    r->site_text = grow_to_hold(r->site_text, &r->n_site_text, c->object, sizeof *r->site_text, 0);
    struct site_texts *sts = &r->site_text[c->object];
    if (!sts->v) {
        sts->n = p->db.header.n_sites + 1;
        sts->v = xcalloc(sts->n, sizeof *sts->v);
    }
    if (c->site >= sts->n)
        return NULL;
    struct site_text *st = &sts->v[c->site];
    if (st->text)
        return st;
    struct call_places cp;
    call_places(vt, c, &cp);
    /* built in a buffer of its own (the row's may hold the row's start) */
    if (!r->scratch)
        r->scratch = xcalloc(1, sizeof *r->scratch);
    struct outbuf *ob = r->scratch;
    ob->n = 0;
    if (cp.direct)
        print_places(ob, &cp);
    else
        print_from(ob, &cp);
    st->text = xmalloc(ob->n + 1);
    memcpy(st->text, ob->b, ob->n);
    st->len = (uint32_t)ob->n;
    st->whole = cp.direct;
    return st;
}

/* At a trace's end: the next has its own objects. */
static void free_site_text(struct view *v)
{
    struct report *r = (struct report *)v;
    for (size_t i = 0; i < r->n_site_text; i++) {
        for (uint32_t k = 0; k < r->site_text[i].n; k++)
            free(r->site_text[i].v[k].text);
        free(r->site_text[i].v);
    }
    free(r->site_text);
    r->site_text = NULL;
    r->n_site_text = 0;
}

/* A row of the calls TSV without --srcline: the site's text made once. */
static void print_cached_row(struct report *r, const struct callstack *s, const struct frame *f)
{
    struct outbuf *ob = &r->ob;
    const struct trace_event *c = &f->call;
    const struct site_text *st = site_text(r, c);
    if (!st) {                              /* (no such site: as the uncached row) */
        print_tsv_row(r, s, f);
        return;
    }
    print_row_start(ob, s, f);
    if (st->whole) {
        ob_mem(ob, st->text, st->len);
    } else {
        struct call_places cp;
        call_places(r->v.trace, c, &cp);
        ob_addr(ob, cp.site_rt);
        ob_char(ob, '\t');
        ob_addr(ob, cp.target_rt);
        ob_char(ob, '\t');
        ob_mem(ob, st->text, st->len);
        print_to(ob, &cp);
    }
    print_row_end(r, s, f);
}

/* A call the filters show: a row, or counted. */
static void report_push(struct view *v, struct callstack *s, struct frame *f)
{
    struct report *r = (struct report *)v;
    if (!f->shown)
        return;
    if (r->summary) {                       /* (a handler's entry too, as the profile has it) */
        if (frame_counts_as_call(f))
            summarize(r, f->fid, 1);
        return;
    }
    if (!frame_has_site(f))                 /* (a signal's frames are no call records) */
        return;
    if (r->srcline)
        print_tsv_row(r, s, f);
    else
        print_cached_row(r, s, f);
}

/* A pair of a dedup or count trace: a row (calls: its count, "-" in
 * dedup), or its calls counted (the summary of a count trace). */
static void report_pair(struct view *v, const struct trace_event *call, uint32_t calls)
{
    struct report *r = (struct report *)v;
    int count = v->trace->t->header.mode == LITIFUT_MODE_COUNT;
    if (r->summary) {
        summarize(r, trace_funcs_callee(v->trace->tf, call), calls);
        return;
    }
    if (!r->pairs_header) {
        ob_flush(&r->ob);
        fprintf(v->out, "pid\tcalls\tfirst_ns\tsite_rt\ttarget_rt\tsite_obj\tsite_addr\t"
                        "site_sym\ttarget_obj\ttarget_addr\ttarget_sym\tcallee_sym\n");
        r->pairs_header = 1;
    }
    struct call_places cp;
    call_places(v->trace, call, &cp);
    struct outbuf *ob = &r->ob;
    ob_u64(ob, v->trace->t->header.pid);
    ob_char(ob, '\t');
    if (count)
        ob_u64(ob, calls);
    else
        ob_char(ob, '-');
    ob_char(ob, '\t');
    ob_u64(ob, call->time_ns);
    ob_char(ob, '\t');
    print_places(ob, &cp);
    ob_char(ob, '\n');
    ob_line_done(ob);
}

static void report_end(struct view *v)
{
    struct report *r = (struct report *)v;
    ob_flush(&r->ob);
    free_site_text(v);
    free(r->scratch);
    if (r->summary) {
        sorting_ft = v->ft;
        if (r->n_entries)
            qsort(r->entries, r->n_entries, sizeof *r->entries, by_calls);
        print_callee_counts(r);
    }
    free(r->entries);
    free(r->entry_of);
    args_buf_free(&r->args);
    free(r);
}

/* The calls' header line before a full trace's first row; a dedup or
 * count trace's pairs have theirs (report_pair). */
static void calls_trace_begin(struct view *v)
{
    struct report *r = (struct report *)v;
    ob_flush(&r->ob);
    if (r->calls_header || v->trace->t->header.mode != LITIFUT_MODE_FULL)
        return;
    r->values = v->trace->t->header.version > LITIFUT_TRACE_VERSION_NO_ARGS;
    fprintf(v->out, "pid\ttid\tseq\tsite_rt\ttarget_rt\tsite_obj\tsite_addr\tsite_sym\t"
                    "target_obj\ttarget_addr\ttarget_sym\tcallee_sym%s%s\tparent\n",
            r->srcline ? "\tsite_line\tcallee_line" : "", r->values ? "\targs" : "");
    r->calls_header = 1;
}

static struct report *report_new(FILE *out, struct func_table *ft, const struct view_options *o,
                                 int summary)
{
    static const struct view_ops ops = {
        .trace_begin = calls_trace_begin, .push = report_push, .pair = report_pair,
        .trace_end = free_site_text, .end = report_end,
    };
    static const struct view_ops summary_ops = {
        .push = report_push, .pair = report_pair, .end = report_end,
    };
    struct report *r = xcalloc(1, sizeof *r);
    view_init(&r->v, summary ? &summary_ops : &ops, out, ft);
    r->tsv = o->tsv;
    r->ob.out = out;
    r->srcline = o->srcline;
    r->auto_args = o->auto_args;
    r->summary = summary;
    return r;
}

struct view *calls_tsv_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    return &report_new(out, ft, o, 0)->v;
}

struct view *summary_view(FILE *out, struct func_table *ft, const struct view_options *o)
{
    struct report *r = report_new(out, ft, o, 1);
    if (o->tsv)
        fprintf(out, "calls\tcallee\tcallee_obj\n");
    return &r->v;
}
