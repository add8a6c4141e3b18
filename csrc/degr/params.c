/* params.c - libhpcbdegr's parameters file reader; see hpcb_params.h.
 *
 * The grammar is docs/params.md ("The parameters file"); hpcbench/network/
 * _params.py writes it and reads it too, and tests/test_params_grammar.py
 * runs both readers over one corpus (tests/data/params/). The lexical rules
 * (bytes, LF, comments, fields, counts, values) are the degradation file's,
 * in text.c. The lines, in this order (each kind after the one before it;
 * '*' may repeat, '?' at most once):
 *   hpcbench-parameters 1
 *   cache LEVEL SIZE *                                 levels ascending
 *   shared-cache LEVEL COUNT GROUP.. *                 levels ascending
 *   memory REFERENCE ?
 *   memory-overhead BANDWIDTH RELATIVE COUNT GROUP.. * after memory
 *   rank RANK NODE GROUP *                             RANK 0, 1, 2, ...
 *   layer LATENCY BANDWIDTH|- COUNT PAIR.. *           pair ranks below the rank lines' count
 *   ratDist COUNT V..                                  (as the degradation file)
 *   ratNC COUNT V..
 *   end
 * GROUP: INDEX{,INDEX}, strictly ascending; PAIR: INDEX,INDEX; INDEX and
 * LEVEL as a count ("0" or 1..1000000, no sign or leading zero; a level is
 * at least 1); SIZE: 1 to 15 digits without a leading zero. A file whose
 * header is "hpcbench-degradation 1" is read by the degradation grammar
 * (ratDist, ratNC, no end line) into a descriptor that holds only them.
 *
 * Every failure names its line in `message`; nothing is kept of a file
 * that fails (the descriptor is released before returning). */
#include "hpcb_params.h"
#include "hpcb_degr.h"
#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FILE "hpcbench-results.params"

/* text.c returns hpcb_degr_status values; the header promises the same numbers. */
typedef char same_status_codes[(int)HPCB_PARAMS_ENOFILE == (int)HPCB_DEGR_ENOFILE
                               && (int)HPCB_PARAMS_EFORMAT == (int)HPCB_DEGR_EFORMAT
                               && (int)HPCB_PARAMS_ENOMEM == (int)HPCB_DEGR_ENOMEM ? 1 : -1];
#define MAX_SIZE_DIGITS 15

enum kind { K_HEADER, K_CACHE, K_SHARED, K_MEMORY, K_OVERHEAD, K_RANK, K_LAYER, K_RATDIST, K_RATNC, K_END, K_COUNT };

static const char *const KIND_NAMES[K_COUNT] = {
    "hpcbench-parameters", "cache", "shared-cache", "memory", "memory-overhead", "rank", "layer", "ratDist",
    "ratNC", "end"};
static const int REPEATS[K_COUNT] = {0, 1, 1, 0, 1, 1, 1, 0, 0, 0};

struct parser {
    hpcb_params *p;
    struct hpcb_scratch s;
    int degr;                       /* the file is a degradation file */
    int last;                       /* the kind of the last line read, -1 before the header */
    long line;
    char *message;
    size_t message_size;
    size_t cap[K_COUNT];            /* allocated elements of each repeated kind's array */
    const char *why;                /* what the failing line breaks */
};

static void clear(hpcb_params *p)
{
    memset(p, 0, sizeof *p);
}

/* Write "PATH: line N: what" (or without the line when it is 0) into the
 * caller's buffer; returns `status`. */
static int fail(struct parser *ps, int status, const char *path, const char *format, ...)
{
    if (ps->message == NULL || ps->message_size == 0)
        return status;
    int n = ps->line > 0 ? snprintf(ps->message, ps->message_size, "%s: line %ld: ", path, ps->line)
                         : snprintf(ps->message, ps->message_size, "%s: ", path);
    if (n >= 0 && (size_t)n < ps->message_size) {
        va_list args;
        va_start(args, format);
        vsnprintf(ps->message + n, ps->message_size - (size_t)n, format, args);
        va_end(args);
    }
    return status;
}

static int grow(void **array, int count, size_t *cap, size_t element)
{
    if ((size_t)count < *cap)
        return HPCB_PARAMS_OK;
    size_t next = *cap == 0 ? 8 : 2 * *cap;
    void *grown = realloc(*array, next * element);
    if (grown == NULL)
        return HPCB_PARAMS_ENOMEM;
    *array = grown;
    *cap = next;
    return HPCB_PARAMS_OK;
}

static long next_count(struct hpcb_cursor *c)
{
    struct hpcb_field f;
    return hpcb_text_next_field(c, &f) ? hpcb_text_parse_count(f.p, f.n) : -1;
}

static int next_value(struct hpcb_cursor *c, struct hpcb_scratch *s, double *out)
{
    struct hpcb_field f;
    return hpcb_text_next_field(c, &f) ? hpcb_text_parse_value(&f, s, out) : HPCB_PARAMS_EFORMAT;
}

static int at_end(struct hpcb_cursor *c)
{
    struct hpcb_field f;
    return hpcb_text_next_field(c, &f) ? HPCB_PARAMS_EFORMAT : HPCB_PARAMS_OK;
}

/* One group field "a,b,c", strictly ascending: how many indexes, or -1
 * (also when `out` is not NULL and there are more than `capacity`). */
static long parse_group(const struct hpcb_field *f, int *out, long capacity)
{
    const char *q = f->p, *end = f->p + f->n;
    long n = 0, previous = -1;
    for (;;) {
        const char *comma = memchr(q, ',', (size_t)(end - q)), *stop = comma != NULL ? comma : end;
        long v = hpcb_text_parse_count(q, (size_t)(stop - q));
        if (v <= previous || (out != NULL && n == capacity))   /* v < 0: not an index */
            return -1;
        if (out != NULL)
            out[n] = (int)v;
        n++;
        previous = v;
        if (comma == NULL)
            return n;
        q = comma + 1;
    }
}

/* "COUNT GROUP.." to the end of the line, into g (untouched on failure). */
static int parse_groups(struct hpcb_cursor *c, hpcb_pu_groups *g)
{
    long n = next_count(c);
    if (n < 0 || (size_t)n > (size_t)(c->end - c->p) / 2)   /* a group takes two bytes at least */
        return HPCB_PARAMS_EFORMAT;
    struct hpcb_cursor counting = *c;
    struct hpcb_field f;
    long total = 0;
    for (long i = 0; i < n; i++) {              /* first pass: check and count */
        long k = hpcb_text_next_field(&counting, &f) ? parse_group(&f, NULL, 0) : -1;
        if (k < 0)
            return HPCB_PARAMS_EFORMAT;
        total += k;
    }
    if (at_end(&counting) != HPCB_PARAMS_OK)    /* more groups than the count */
        return HPCB_PARAMS_EFORMAT;
    int *start = malloc((size_t)(n + 1) * sizeof *start), *pus = malloc((size_t)(total + 1) * sizeof *pus);
    if (start == NULL || pus == NULL) {
        free(start);
        free(pus);
        return HPCB_PARAMS_ENOMEM;
    }
    start[0] = 0;
    for (long i = 0; i < n; i++) {              /* second pass: fill */
        hpcb_text_next_field(c, &f);
        start[i + 1] = start[i] + (int)parse_group(&f, pus + start[i], total - start[i]);
    }
    g->count = (int)n;
    g->start = start;
    g->pus = pus;
    return HPCB_PARAMS_OK;
}

static void free_groups(hpcb_pu_groups *g)
{
    free(g->start);
    free(g->pus);
    g->start = g->pus = NULL;
    g->count = 0;
}

/* LEVEL (at least 1, above the previous line's) of a cache or shared-cache line. */
static int parse_level(struct hpcb_cursor *c, int previous, int *level)
{
    long v = next_count(c);
    if (v < 1 || v <= previous)
        return HPCB_PARAMS_EFORMAT;
    *level = (int)v;
    return HPCB_PARAMS_OK;
}

static int parse_cache(struct parser *ps, struct hpcb_cursor *c)
{
    hpcb_params *p = ps->p;
    hpcb_cache_level lv;
    struct hpcb_field f;
    int previous = p->ncaches > 0 ? p->caches[p->ncaches - 1].level : 0;
    if (parse_level(c, previous, &lv.level) != HPCB_PARAMS_OK || !hpcb_text_next_field(c, &f)
        || f.n > MAX_SIZE_DIGITS || f.p[0] == '0')
        return HPCB_PARAMS_EFORMAT;
    lv.size = 0;
    for (size_t i = 0; i < f.n; i++) {
        if (f.p[i] < '0' || f.p[i] > '9')
            return HPCB_PARAMS_EFORMAT;
        lv.size = 10 * lv.size + (f.p[i] - '0');
    }
    if (at_end(c) != HPCB_PARAMS_OK)
        return HPCB_PARAMS_EFORMAT;
    if (grow((void **)&p->caches, p->ncaches, &ps->cap[K_CACHE], sizeof lv) != HPCB_PARAMS_OK)
        return HPCB_PARAMS_ENOMEM;
    p->caches[p->ncaches++] = lv;
    return HPCB_PARAMS_OK;
}

static int parse_shared(struct parser *ps, struct hpcb_cursor *c)
{
    hpcb_params *p = ps->p;
    hpcb_shared_cache sc;
    int previous = p->nshared > 0 ? p->shared[p->nshared - 1].level : 0;
    if (parse_level(c, previous, &sc.level) != HPCB_PARAMS_OK)
        return HPCB_PARAMS_EFORMAT;
    if (grow((void **)&p->shared, p->nshared, &ps->cap[K_SHARED], sizeof sc) != HPCB_PARAMS_OK)
        return HPCB_PARAMS_ENOMEM;
    int rc = parse_groups(c, &sc.groups);
    if (rc == HPCB_PARAMS_OK)
        p->shared[p->nshared++] = sc;
    return rc;
}

static int parse_memory(struct parser *ps, struct hpcb_cursor *c)
{
    int rc = next_value(c, &ps->s, &ps->p->memory_reference);
    return rc != HPCB_PARAMS_OK ? rc : at_end(c);
}

static int parse_overhead(struct parser *ps, struct hpcb_cursor *c)
{
    hpcb_params *p = ps->p;
    hpcb_memory_level lv;
    int rc = next_value(c, &ps->s, &lv.bandwidth);
    if (rc == HPCB_PARAMS_OK)
        rc = next_value(c, &ps->s, &lv.relative);
    if (rc == HPCB_PARAMS_OK)
        rc = grow((void **)&p->memory, p->nmemory, &ps->cap[K_OVERHEAD], sizeof lv);
    if (rc == HPCB_PARAMS_OK)
        rc = parse_groups(c, &lv.groups);
    if (rc == HPCB_PARAMS_OK)
        p->memory[p->nmemory++] = lv;
    return rc;
}

static int parse_rank(struct parser *ps, struct hpcb_cursor *c)
{
    hpcb_params *p = ps->p;
    struct hpcb_field f;
    long rank = next_count(c), node = next_count(c);
    long n = rank == p->nranks && node >= 0 && hpcb_text_next_field(c, &f) ? parse_group(&f, NULL, 0) : -1;
    if (n < 0 || at_end(c) != HPCB_PARAMS_OK)
        return HPCB_PARAMS_EFORMAT;
    hpcb_rank r = {(int)node, (int)n, malloc((size_t)n * sizeof(int))};
    if (r.pus == NULL || grow((void **)&p->ranks, p->nranks, &ps->cap[K_RANK], sizeof r) != HPCB_PARAMS_OK) {
        free(r.pus);
        return HPCB_PARAMS_ENOMEM;
    }
    parse_group(&f, r.pus, n);
    p->ranks[p->nranks++] = r;
    return HPCB_PARAMS_OK;
}

/* "COUNT PAIR.." of a layer line into l->pairs (pairs of ranks of the rank lines). */
static int parse_pairs(struct hpcb_cursor *c, int nranks, hpcb_layer *l)
{
    long n = next_count(c);
    if (n < 0 || (size_t)n > (size_t)(c->end - c->p) / 4)   /* a pair takes four bytes at least */
        return HPCB_PARAMS_EFORMAT;
    int *pairs = malloc((size_t)(2 * n + 1) * sizeof *pairs);
    if (pairs == NULL)
        return HPCB_PARAMS_ENOMEM;
    struct hpcb_field f;
    int rc = HPCB_PARAMS_OK;
    for (long i = 0; rc == HPCB_PARAMS_OK && i < n; i++) {
        int two[2];
        if (!hpcb_text_next_field(c, &f) || parse_group(&f, two, 2) != 2 || two[1] >= nranks)
            rc = HPCB_PARAMS_EFORMAT;
        else
            pairs[2 * i] = two[0], pairs[2 * i + 1] = two[1];
    }
    if (rc == HPCB_PARAMS_OK)
        rc = at_end(c);
    if (rc != HPCB_PARAMS_OK) {
        free(pairs);
        return rc;
    }
    l->npairs = (int)n;
    l->pairs = pairs;
    return HPCB_PARAMS_OK;
}

static int parse_layer(struct parser *ps, struct hpcb_cursor *c)
{
    hpcb_params *p = ps->p;
    hpcb_layer l;
    struct hpcb_field f;
    int rc = next_value(c, &ps->s, &l.latency);
    if (rc == HPCB_PARAMS_OK && !hpcb_text_next_field(c, &f))
        rc = HPCB_PARAMS_EFORMAT;
    l.bandwidth = 0.0;                  /* "-": the sweep gave no bandwidth */
    if (rc == HPCB_PARAMS_OK && !hpcb_text_field_is(&f, "-"))
        rc = hpcb_text_parse_value(&f, &ps->s, &l.bandwidth);
    if (rc == HPCB_PARAMS_OK)
        rc = grow((void **)&p->layers, p->nlayers, &ps->cap[K_LAYER], sizeof l);
    if (rc == HPCB_PARAMS_OK)
        rc = parse_pairs(c, p->nranks, &l);
    if (rc == HPCB_PARAMS_OK)
        p->layers[p->nlayers++] = l;
    return rc;
}

/* "COUNT V1 .. Vcount" of ratDist or ratNC; the first value is exactly 1. */
static int parse_table(struct parser *ps, struct hpcb_cursor *c, int *count, double **values)
{
    long n = next_count(c);
    if (n < 0 || (size_t)n > (size_t)(c->end - c->p) / 2)   /* a value takes two bytes at least */
        return HPCB_PARAMS_EFORMAT;
    double *v = malloc((size_t)(n + 1) * sizeof *v);
    if (v == NULL)
        return HPCB_PARAMS_ENOMEM;
    int rc = HPCB_PARAMS_OK;
    for (long i = 0; rc == HPCB_PARAMS_OK && i < n; i++) {
        rc = next_value(c, &ps->s, &v[i]);
        if (rc == HPCB_PARAMS_OK && i == 0 && v[0] != 1.0)    /* the reference */
            rc = HPCB_PARAMS_EFORMAT;
    }
    if (rc == HPCB_PARAMS_OK)
        rc = at_end(c);
    if (rc != HPCB_PARAMS_OK) {
        free(v);
        return rc;
    }
    *count = (int)n;
    *values = v;
    return HPCB_PARAMS_OK;
}

static int parse_header(struct parser *ps, const struct hpcb_field *name, struct hpcb_cursor *c)
{
    struct hpcb_field f;
    ps->degr = hpcb_text_field_is(name, "hpcbench-degradation");
    if (!ps->degr && !hpcb_text_field_is(name, KIND_NAMES[K_HEADER]))
        return HPCB_PARAMS_EFORMAT;
    if (!hpcb_text_next_field(c, &f) || !hpcb_text_field_is(&f, "1"))
        return HPCB_PARAMS_EFORMAT;
    return at_end(c);
}

static int kind_of(const struct hpcb_field *name)
{
    for (int k = K_CACHE; k < K_COUNT; k++)
        if (hpcb_text_field_is(name, KIND_NAMES[k]))
            return k;
    return -1;
}

/* Whether a line of kind k may follow the lines read so far (the order). */
static int allowed_next(const struct parser *ps, int k)
{
    if (k < 0 || ps->last == K_END || (ps->degr && (ps->last == K_RATNC || k < K_RATDIST || k == K_END)))
        return 0;
    if (k < ps->last || (k == ps->last && !REPEATS[k]))
        return 0;
    if (k == K_OVERHEAD && ps->last < K_MEMORY)
        return 0;
    return (k != K_RATNC || ps->last == K_RATDIST) && (k != K_END || ps->last == K_RATNC)
           && (k <= K_RATDIST || ps->last >= K_RATDIST);
}

static int parse_line(struct parser *ps, const struct hpcb_field *name, struct hpcb_cursor *c)
{
    hpcb_params *p = ps->p;
    if (ps->last < 0) {
        ps->why = "expected the header 'hpcbench-parameters 1' (or 'hpcbench-degradation 1')";
        return parse_header(ps, name, c);
    }
    int k = kind_of(name);
    if (!allowed_next(ps, k)) {
        ps->why = k < 0 ? "not a line of the grammar" : "out of order, repeated or after the end (the order is "
                  "header, cache, shared-cache, memory, memory-overhead, rank, layer, ratDist, ratNC, end)";
        return HPCB_PARAMS_EFORMAT;
    }
    ps->why = "malformed (see docs/params.md)";
    ps->last = k;
    switch (k) {
    case K_CACHE: return parse_cache(ps, c);
    case K_SHARED: return parse_shared(ps, c);
    case K_MEMORY: return parse_memory(ps, c);
    case K_OVERHEAD: return parse_overhead(ps, c);
    case K_RANK: return parse_rank(ps, c);
    case K_LAYER: return parse_layer(ps, c);
    case K_RATDIST: return parse_table(ps, c, &p->ndist, &p->rat_dist);
    case K_RATNC: return parse_table(ps, c, &p->nnc, &p->rat_nc);
    default: return at_end(c);      /* K_END */
    }
}

static int parse(struct parser *ps, const struct hpcb_text *t, const char *path)
{
    const char *what;
    if (hpcb_text_check_bytes(t, &ps->line, &what) != HPCB_PARAMS_OK)
        return fail(ps, HPCB_PARAMS_EFORMAT, path, "%s", what);
    const char *q = t->data, *end = t->data + t->size;
    int rc = HPCB_PARAMS_OK;
    ps->line = 0;
    while (rc == HPCB_PARAMS_OK && q < end) {
        struct hpcb_cursor c = {q, memchr(q, '\n', (size_t)(end - q))};
        q = c.end + 1;
        ps->line++;
        struct hpcb_field name;
        if (!hpcb_text_next_field(&c, &name) || name.p[0] == '#')   /* blank or comment */
            continue;
        int was = ps->last;
        rc = parse_line(ps, &name, &c);
        if (was < 0 && rc == HPCB_PARAMS_OK)
            ps->last = K_HEADER;
        if (rc != HPCB_PARAMS_OK)
            return fail(ps, rc, path, "'%.*s': %s", (int)(name.n < 40 ? name.n : 40), name.p,
                        rc == HPCB_PARAMS_ENOMEM ? "out of memory" : ps->why);
    }
    int last = ps->degr ? K_RATNC : K_END;
    if (ps->last != last)
        return fail(ps, HPCB_PARAMS_EFORMAT, path, "the file ends before the %s line (truncated?)",
                    ps->last < 0 ? "header" : KIND_NAMES[ps->last < K_RATDIST ? K_RATDIST : ps->last + 1]);
    return HPCB_PARAMS_OK;
}

int hpcb_load_params(hpcb_params *p, const char *path, char *message, size_t message_size)
{
    if (message != NULL && message_size > 0)
        message[0] = '\0';
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    clear(p);
    if (path == NULL)
        path = getenv("HPCBENCH_PARAMS_FILE");
    if (path == NULL || *path == '\0')
        path = DEFAULT_FILE;
    struct parser ps;
    memset(&ps, 0, sizeof ps);
    ps.p = p;
    ps.last = -1;
    ps.message = message;
    ps.message_size = message_size;
    struct hpcb_text t;
    int rc = hpcb_text_read(path, &t);
    if (rc == HPCB_PARAMS_OK)
        rc = parse(&ps, &t, path);
    else
        fail(&ps, rc, path, "%s", hpcb_params_strerror(rc));
    free(t.data);
    free(ps.s.data);
    if (rc != HPCB_PARAMS_OK)
        hpcb_release_params(p);
    return rc;
}

void hpcb_release_params(hpcb_params *p)
{
    if (p == NULL)
        return;
    for (int i = 0; i < p->nshared; i++)
        free_groups(&p->shared[i].groups);
    for (int i = 0; i < p->nmemory; i++)
        free_groups(&p->memory[i].groups);
    for (int i = 0; i < p->nranks; i++)
        free(p->ranks[i].pus);
    for (int i = 0; i < p->nlayers; i++)
        free(p->layers[i].pairs);
    free(p->caches);
    free(p->shared);
    free(p->memory);
    free(p->ranks);
    free(p->layers);
    free(p->rat_dist);
    free(p->rat_nc);
    clear(p);
}

const char *hpcb_params_strerror(int status)
{
    switch (status) {
    case HPCB_PARAMS_OK: return "success";
    case HPCB_PARAMS_ENOFILE: return "parameters file not found or unreadable (or not a regular file)";
    case HPCB_PARAMS_EFORMAT: return "not an hpcbench parameters file, or damaged, or over 64 MiB";
    case HPCB_PARAMS_ERANGE: return "a level, index, PU or rank that the file does not hold";
    case HPCB_PARAMS_ENOMEM: return "out of memory";
    case HPCB_PARAMS_EINVAL: return "invalid argument (NULL descriptor or buffer)";
    default: return "unknown status";
    }
}
