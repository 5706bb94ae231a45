#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>
#include "src/rules.h"
#include "lib/arch-read.h"
#include "lib/error.h"

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

static const char *last_component(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "libfoo.so", "libfoo.so.1", "libfoo.so*": ".so" then the end, a
 * version or a glob character */
static int names_shared_library(const char *base)
{
    for (const char *s = strstr(base, ".so"); s; s = strstr(s + 1, ".so"))
        if (strchr(".*?[", s[3]) || !s[3])
            return 1;
    return 0;
}

enum rule_kind site_rule_kind(const char *p)
{
    const char *base = last_component(p), *open = strrchr(p, '(');
    if (ends_with(p, ")") && open && open - p >= 2 && !strncmp(open - 2, ".a", 2))
        return RULE_MEMBER;             /* libfoo.a(bar.o), not frame2(int) */
    if (names_shared_library(base))
        return RULE_LIBRARY;
    if (ends_with(base, ".a"))
        return RULE_ARCHIVE;
    if (ends_with(base, ".o") || ends_with(base, ".lo") || ends_with(base, ".obj") ||
        strchr(p, '/'))
        return RULE_OBJECT;
    return RULE_FUNCTION;
}

static void add_rule(struct site_rule_list *l, const char *text, size_t len)
{
    l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    char *pattern = xstrndup(text, len);
    l->v[l->n++] = (struct site_rule){ pattern, site_rule_kind(pattern), NULL, 0, 0, 0 };
}

static int parse_list(struct site_rule_list *l, const char *text, int depth);

static int parse_file(struct site_rule_list *l, const char *path, int depth)
{
    if (depth > 8)
        return error("%s: %s: files named with @ nest too deep", l->variable, path);
    FILE *f = fopen(path, "r");
    if (!f)
        return error("%s: %s: %s", l->variable, path, strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        /* one rule per line, so that it may hold spaces and commas
         * ("f(int, char)"); '#' starts a comment */
        line[strcspn(line, "#\r\n")] = 0;
        char *s = line + strspn(line, " \t"), *e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        *e = 0;
        if (*s == '@')
            rc = parse_list(l, s, depth + 1);
        else if (*s)
            add_rule(l, s, (size_t)(e - s));
    }
    if (rc == 0 && ferror(f))
        rc = error("%s: %s: read error", l->variable, path);
    free(line);
    fclose(f);
    return rc;
}

static int parse_list(struct site_rule_list *l, const char *text, int depth)
{
    static const char separators[] = ", \t\r\n";
    for (const char *s = text ? text : ""; *s;) {
        s += strspn(s, separators);
        size_t len = strcspn(s, separators);
        if (!len)
            break;
        if (*s == '@') {
            char *path = xstrndup(s + 1, len - 1);
            int rc = parse_file(l, path, depth);
            free(path);
            if (rc != 0)
                return rc;
        } else {
            add_rule(l, s, len);
        }
        s += len;
    }
    return 0;
}

int site_rules_parse(struct site_rules *r, const char *exclude, const char *only,
                     const char *callee)
{
    memset(r, 0, sizeof *r);
    r->exclude.variable = "LITIFUT_EXCLUDE";
    r->only.variable = "LITIFUT_ONLY";
    r->callee.variable = "LITIFUT_EXCLUDE_CALLEE";
    if (parse_list(&r->exclude, exclude, 0) != 0 || parse_list(&r->only, only, 0) != 0 ||
        parse_list(&r->callee, callee, 0) != 0) {
        site_rules_free(r);
        return -1;
    }
    for (size_t i = 0; i < r->callee.n; i++)
        r->callee.v[i].kind = RULE_FUNCTION;    /* (callees are functions, by any name) */
    return 0;
}

static void free_ranges(struct site_rule *rule)
{
    for (size_t i = 0; i < rule->n_ranges; i++)
        free(rule->ranges[i].section);
    free(rule->ranges);
    rule->ranges = NULL;
    rule->n_ranges = 0;
}

static void list_free(struct site_rule_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].pattern);
        free_ranges(&l->v[i]);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

void site_rules_free(struct site_rules *r)
{
    list_free(&r->exclude);
    list_free(&r->only);
    list_free(&r->callee);
}

int site_rules_empty(const struct site_rules *r)
{
    return !r->exclude.n && !r->only.n && !r->callee.n;
}

static int glob(const char *pattern, const char *s)
{
    return fnmatch(pattern, s, 0) == 0;
}

static int names_file(const char *pattern, const char *file)
{
    return glob(pattern, file) || glob(pattern, last_component(file));
}

const struct site_rule *site_rules_excluded_output(const struct site_rules *r, const char *path)
{
    for (size_t i = 0; i < r->exclude.n; i++)
        if (r->exclude.v[i].kind == RULE_LIBRARY && glob(r->exclude.v[i].pattern,
                                                         last_component(path)))
            return &r->exclude.v[i];
    return NULL;
}

static void add_range(struct site_rule *rule, uint64_t start, uint64_t end, const char *section)
{
    if (start >= end)
        return;
    rule->ranges = xrealloc(rule->ranges, (rule->n_ranges + 1) * sizeof *rule->ranges);
    rule->ranges[rule->n_ranges++] = (struct rule_range){ start, end,
                                                          section ? xstrdup(section) : NULL,
                                                          !section };
}


/* A file rule's range counts only where it is code of the image: the
 * link map places every input section, .debug_info at address 0 too. */
static void check_code(struct site_rule_list *l, const struct elf_image *img)
{
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = 0; j < l->v[i].n_ranges; j++) {
            struct rule_range *r = &l->v[i].ranges[j];
            if (!r->section)
                continue;
            r->code = 0;
            for (size_t k = 0; k < img->n_sections && !r->code; k++) {
                const struct elf_section *s = &img->sections[k];
                r->code = (s->flags & SHF_ALLOC) && (s->flags & SHF_EXECINSTR) &&
                          strcmp(s->name, r->section) == 0 && r->start >= s->addr &&
                          r->end <= s->addr + s->size;
            }
        }
}

/* Does the file rule name the map's input file ("path" or "archive(member)")? */
static int names_input(const struct site_rule *rule, const char *file)
{
    size_t n = strlen(file);
    const char *open = n && file[n - 1] == ')' ? strrchr(file, '(') : NULL;
    if (!open)
        return rule->kind == RULE_OBJECT && names_file(rule->pattern, file);
    char *archive = xstrndup(file, (size_t)(open - file));
    char *member = xstrndup(open + 1, (size_t)(file + n - 1 - (open + 1)));
    int yes = 0;
    if (rule->kind == RULE_OBJECT) {
        yes = glob(rule->pattern, member);      /* bar.o: also an archive's */
    } else if (rule->kind == RULE_ARCHIVE) {
        yes = names_file(rule->pattern, archive);
    } else if (rule->kind == RULE_MEMBER) {
        const char *p = rule->pattern, *popen = strrchr(p, '(');
        char *parch = xstrndup(p, (size_t)(popen - p));
        char *pmember = xstrndup(popen + 1, strlen(popen + 1) - 1);
        yes = names_file(parch, archive) && glob(pmember, member);
        free(parch);
        free(pmember);
    }
    free(archive);
    free(member);
    return yes;
}

static void resolve_files(struct site_rule_list *l, const struct link_map *map)
{
    for (size_t i = 0; i < l->n; i++) {
        struct site_rule *rule = &l->v[i];
        if (rule->kind == RULE_FUNCTION || rule->kind == RULE_LIBRARY)
            continue;
        for (size_t j = 0; j < map->n; j++) {
            const struct map_input *in = &map->v[j];
            if (names_input(rule, in->file)) {
                rule->matched = 1;
                add_range(rule, in->addr, in->addr + in->size, in->output);
            }
        }
    }
}

void site_rules_resolve_files(struct site_rules *r, const struct link_map *map,
                              const char *output)
{
    resolve_files(&r->exclude, map);
    resolve_files(&r->only, map);
    for (size_t i = 0; i < r->only.n; i++)
        if (r->only.v[i].kind == RULE_LIBRARY && glob(r->only.v[i].pattern,
                                                      last_component(output)))
            r->whole_output = r->only.v[i].matched = 1;
}

/* A function's names a rule may give: the symbol, and for C++ its
 * demangled name with and without the parameters. */
struct function_names {
    const char *names[3];
};

static void resolve_function_list(struct site_rule_list *l, const struct indexed_function *f,
                                  const struct function_names *fn)
{
    for (size_t i = 0; i < l->n; i++) {
        struct site_rule *rule = &l->v[i];
        if (rule->kind != RULE_FUNCTION)
            continue;
        for (int k = 0; k < 3; k++)
            if (fn->names[k] && glob(rule->pattern, fn->names[k])) {
                rule->matched = 1;
                add_range(rule, f->start, f->start + f->size, NULL);
                break;
            }
    }
}

static void forget_functions(struct site_rule_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].kind == RULE_FUNCTION) {
            free_ranges(&l->v[i]);
            l->v[i].matched = 0;
        }
}

static int has_function_rules(const struct site_rule_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].kind == RULE_FUNCTION)
            return 1;
    return 0;
}

/* A callee rule's PLT entries (and veneers): the calls of a function
 * of another object go to its entry, named "name@plt". */
static void resolve_plt_callees(struct site_rules *r, const struct elf_image *img)
{
    const struct arch_ops *arch = arch_of_image(img);
    struct plt_entry *e = NULL;
    size_t n = 0;
    if (!r->callee.n || !arch || arch_read_ops(arch)->plt_entries(img, &e, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!e[i].name)
            continue;
        char *name = xstrndup(e[i].name, strcspn(e[i].name, "@"));
        for (size_t k = 0; k < r->callee.n; k++)
            if (glob(r->callee.v[k].pattern, name)) {
                r->callee.v[k].matched = 1;
                add_range(&r->callee.v[k], e[i].addr, e[i].addr + e[i].size, NULL);
            }
        free(name);
        free(e[i].name);
    }
    free(e);
}

void site_rules_resolve_functions(struct site_rules *r, const struct elf_image *img)
{
    check_code(&r->exclude, img);
    check_code(&r->only, img);
    forget_functions(&r->exclude);
    forget_functions(&r->only);
    forget_functions(&r->callee);
    if (!has_function_rules(&r->exclude) && !has_function_rules(&r->only) && !r->callee.n)
        return;
    resolve_plt_callees(r, img);
    struct function_index fx;
    function_index_build(img, &fx);
    for (size_t i = 0; i < fx.n; i++) {
        const char *sym = fx.v[i].sym->name;
        char *full = NULL, *bare = NULL;
        if (strncmp(sym, "_Z", 2) == 0) {
            full = cplus_demangle(sym, DMGL_PARAMS | DMGL_ANSI);
            bare = cplus_demangle(sym, DMGL_ANSI);
        }
        struct function_names fn = { { sym, full, bare } };
        resolve_function_list(&r->exclude, &fx.v[i], &fn);
        resolve_function_list(&r->only, &fx.v[i], &fn);
        resolve_function_list(&r->callee, &fx.v[i], &fn);
        free(full);
        free(bare);
    }
    function_index_free(&fx);
}

/* The first rule of `l` whose ranges hold addr, or NULL. */
static struct site_rule *rule_at(struct site_rule_list *l, uint64_t addr)
{
    for (size_t i = 0; i < l->n; i++)
        for (size_t j = 0; j < l->v[i].n_ranges; j++)
            if (l->v[i].ranges[j].code && addr - l->v[i].ranges[j].start <
                l->v[i].ranges[j].end - l->v[i].ranges[j].start)
                return &l->v[i];
    return NULL;
}

/* Where the call at s goes, if the link fixed it (0: not known). */
static uint64_t fixed_target(const struct arch_ops *arch, const struct call_site *s)
{
    uint64_t t = 0;
    if (s->target)
        return s->target;
    return arch && arch_read_ops(arch)->call_target(s, &t) ? t : 0;
}

/* The callee rule naming dynamic symbol sym - 1 of img, or NULL. */
static struct site_rule *callee_named(struct site_rules *r, const struct elf_image *img,
                                      uint32_t sym)
{
    if (sym - 1 >= img->n_dynsyms)
        return NULL;
    for (size_t i = 0; i < r->callee.n; i++)
        if (glob(r->callee.v[i].pattern, img->dynsyms[sym - 1].name)) {
            r->callee.v[i].matched = 1;
            return &r->callee.v[i];
        }
    return NULL;
}

void site_rules_apply(struct site_rules *r, const struct arch_ops *arch,
                      const struct elf_image *img, struct site_list *sites, struct scan_stats *st)
{
    for (size_t i = 0; i < r->exclude.n; i++)
        r->exclude.v[i].sites = 0;
    for (size_t i = 0; i < r->only.n; i++)
        r->only.v[i].sites = 0;
    for (size_t i = 0; i < r->callee.n; i++)
        r->callee.v[i].sites = 0;
    size_t kept = 0;
    for (size_t i = 0; i < sites->n; i++) {
        const struct call_site *s = &sites->v[i];
        int keep = 1;
        if (r->only.n && !r->whole_output) {
            struct site_rule *rule = rule_at(&r->only, s->addr);
            keep = rule != NULL;
            if (rule)
                rule->sites++;
        }
        if (keep) {
            struct site_rule *rule = rule_at(&r->exclude, s->addr);
            keep = rule == NULL;
            if (rule)
                rule->sites++;
        }
        uint64_t target = keep && r->callee.n ? fixed_target(arch, s) : 0;
        struct site_rule *rule = target ? rule_at(&r->callee, target)
                                 : keep && s->callee_sym ? callee_named(r, img, s->callee_sym)
                                 : NULL;
        if (rule) {
            keep = 0;
            rule->sites++;
        }
        if (keep)
            sites->v[kept++] = *s;
        else if (s->kind < MAX_KINDS && st->sites_by_kind[s->kind])
            st->sites_by_kind[s->kind]--;
    }
    r->sites_before = (uint32_t)sites->n;
    sites->n = kept;
}

static void describe_list(const struct site_rule_list *l, const char *verb, FILE *out)
{
    uint32_t total = 0;
    for (size_t i = 0; i < l->n; i++)
        total += l->v[i].sites;
    fprintf(out, "; %s %s %" PRIu32 " (", l->variable, verb, total);
    for (size_t i = 0; i < l->n; i++)
        fprintf(out, "%s%s %" PRIu32, i ? ", " : "", l->v[i].pattern, l->v[i].sites);
    fprintf(out, ")");
}

/* What `write` writes about r, as an allocated string. */
static char *as_text(const struct site_rules *r, void (*write)(const struct site_rules *, FILE *))
{
    char *s = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&s, &len);
    if (!out)
        return xstrdup("");
    write(r, out);
    fclose(out);
    return s;
}

static void write_description(const struct site_rules *r, FILE *out)
{
    if (r->only.n) {
        if (r->whole_output)
            fprintf(out, "; LITIFUT_ONLY names the whole output");
        else
            describe_list(&r->only, "kept", out);
        fprintf(out, " of %" PRIu32, r->sites_before);
    }
    if (r->exclude.n)
        describe_list(&r->exclude, "removed", out);
    if (r->callee.n)
        describe_list(&r->callee, "removed", out);
}

char *site_rules_describe(const struct site_rules *r)
{
    return as_text(r, write_description);
}

static void list_unmatched(const struct site_rule_list *l,
                           void (*warn)(const char *variable, const char *pattern))
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->v[i].matched && l->v[i].kind != RULE_LIBRARY)
            warn(l->variable, l->v[i].pattern);
}

void site_rules_unmatched(const struct site_rules *r,
                          void (*warn)(const char *variable, const char *pattern))
{
    list_unmatched(&r->exclude, warn);
    list_unmatched(&r->only, warn);
    list_unmatched(&r->callee, warn);
}

static void list_text(const struct site_rule_list *l, FILE *out, int *first)
{
    if (!l->n)
        return;
    fprintf(out, "%s%s=", *first ? "" : " ", l->variable);
    for (size_t i = 0; i < l->n; i++)
        fprintf(out, "%s%s", i ? "," : "", l->v[i].pattern);
    *first = 0;
}

static void write_rules(const struct site_rules *r, FILE *out)
{
    int first = 1;
    list_text(&r->only, out, &first);
    list_text(&r->exclude, out, &first);
    list_text(&r->callee, out, &first);
}

char *site_rules_text(const struct site_rules *r)
{
    return as_text(r, write_rules);
}
