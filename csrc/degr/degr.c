/* degr.c - libhpcbdegr: the degradation file reader; see hpcb_degr.h.
 *
 * The grammar is written down in docs/network.md ("The degradation file");
 * hpcbench/network/_degr.py writes it and reads it too, and
 * tests/test_degr_grammar.py runs both readers over one corpus. In short:
 * at most 64 MiB of tab, LF and 0x20-0x7E bytes, ending with LF; blank and
 * '#' comment lines anywhere; fields split by runs of spaces and tabs; then
 * these three lines in this order:
 *   hpcbench-degradation 1
 *   ratDist <count> <v1> .. <vcount>
 *   ratNC <count> <v1> .. <vcount>
 * count: "0" or 1..1000000 without sign or leading zero; value: DIGITS
 * ["." DIGITS] [("e"|"E") ["+"|"-"] DIGITS], rounded to a normal finite
 * double; the first value of a table is exactly 1.
 *
 * Plain C99 and POSIX (open, fstat), no dependencies, so that any
 * application can link it. Only a regular file is read: it is opened
 * with O_NONBLOCK and checked with fstat first, so a FIFO or a device
 * named by mistake or by malice gives HPCB_DEGR_ENOFILE, not a hang. The
 * whole file is read into memory (no line length limit below the file's);
 * numbers are handed to strtod without a decimal point, so the caller's
 * locale (setlocale with a decimal comma) changes nothing. */
#define _POSIX_C_SOURCE 200809L
#include "hpcb_degr.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FILE "hpcbench-results.degr"
#define MAX_FILE_BYTES ((size_t)64 << 20)
#define MAX_COUNT 1000000L
#define FIRST_CHUNK ((size_t)64 << 10)
/* A decimal exponent this large makes 0 or infinity of any digit string
 * that fits in MAX_FILE_BYTES (at most 2^26 digits), so larger ones are
 * clamped to it; it keeps exponent arithmetic within a 32-bit long. */
#define EXPONENT_CLAMP 100000000L

struct text {               /* the whole file */
    char *data;
    size_t size;
};

struct cursor {             /* what is left of one line; end is its LF */
    const char *p, *end;
};

struct field {
    const char *p;
    size_t n;
};

struct scratch {            /* a number rewritten for strtod */
    char *data;
    size_t cap;
};

static void clear(hpcb_degr_desc *d)
{
    d->ndist = d->nnc = 0;
    d->rat_dist = d->rat_nc = NULL;
}

/* Read all of `path` into t (t->data NULL on failure). */
static int read_file(const char *path, struct text *t)
{
    t->data = NULL;
    t->size = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return HPCB_DEGR_ENOFILE;
    struct stat info;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(fd);
        return HPCB_DEGR_ENOFILE;
    }
    if ((unsigned long long)info.st_size > (unsigned long long)MAX_FILE_BYTES) {
        close(fd);
        return HPCB_DEGR_EFORMAT;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return HPCB_DEGR_ENOFILE;
    }
    size_t cap = 0;
    int rc = HPCB_DEGR_OK;
    for (;;) {
        if (t->size == cap) {
            if (cap > MAX_FILE_BYTES) {         /* one byte more than the limit was read */
                rc = HPCB_DEGR_EFORMAT;
                break;
            }
            size_t next = cap == 0 ? FIRST_CHUNK : cap < MAX_FILE_BYTES / 2 ? 2 * cap : MAX_FILE_BYTES + 1;
            char *grown = realloc(t->data, next);
            if (grown == NULL) {
                rc = HPCB_DEGR_ENOMEM;
                break;
            }
            t->data = grown;
            cap = next;
        }
        size_t want = cap - t->size, got = fread(t->data + t->size, 1, want, f);
        t->size += got;
        if (got < want) {
            if (ferror(f))
                rc = HPCB_DEGR_ENOFILE;
            break;
        }
    }
    fclose(f);
    if (rc != HPCB_DEGR_OK) {
        free(t->data);
        t->data = NULL;
    }
    return rc;
}

static int allowed_byte(unsigned char c)
{
    return c == '\t' || c == '\n' || (c >= 0x20 && c <= 0x7e);
}

static int is_separator(char c)
{
    return c == ' ' || c == '\t';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The next field of the line, or 0 at its end. */
static int next_field(struct cursor *c, struct field *f)
{
    while (c->p < c->end && is_separator(*c->p))
        c->p++;
    f->p = c->p;
    while (c->p < c->end && !is_separator(*c->p))
        c->p++;
    f->n = (size_t)(c->p - f->p);
    return f->n > 0;
}

static int field_is(const struct field *f, const char *word)
{
    size_t n = strlen(word);
    return f->n == n && memcmp(f->p, word, n) == 0;
}

/* "0" or 1..MAX_COUNT without sign or leading zero; -1 otherwise. */
static long parse_count(const struct field *f)
{
    if (f->n > 7 || (f->n > 1 && f->p[0] == '0'))
        return -1;
    long n = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (!is_digit(f->p[i]))
            return -1;
        n = 10 * n + (f->p[i] - '0');
    }
    return n <= MAX_COUNT ? n : -1;
}

/* Copy the run of digits at *q into *o; how many. */
static size_t copy_digits(const char **q, const char *end, char **o)
{
    size_t n = 0;
    for (; *q < end && is_digit(**q); (*q)++, n++)
        *(*o)++ = **q;
    return n;
}

/* DIGITS ["." DIGITS] [("e"|"E") ["+"|"-"] DIGITS] as a normal finite
 * double. The digits go to strtod as DIGITS "e" EXPONENT, with the fraction
 * folded into the exponent: no decimal point, so no locale. */
static int parse_value(const struct field *f, struct scratch *s, double *out)
{
    size_t need = f->n + 16;    /* the digits, "e", a sign, at most 10 exponent digits, NUL */
    if (need > s->cap) {
        char *grown = realloc(s->data, need);
        if (grown == NULL)
            return HPCB_DEGR_ENOMEM;
        s->data = grown;
        s->cap = need;
    }
    const char *q = f->p, *end = f->p + f->n;
    char *o = s->data;
    if (copy_digits(&q, end, &o) == 0)
        return HPCB_DEGR_EFORMAT;
    long fraction = 0;
    if (q < end && *q == '.') {
        q++;
        fraction = (long)copy_digits(&q, end, &o);
        if (fraction == 0)
            return HPCB_DEGR_EFORMAT;
    }
    long exponent = 0;
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        int negative = q < end && *q == '-';
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q == end || !is_digit(*q))
            return HPCB_DEGR_EFORMAT;
        for (; q < end && is_digit(*q); q++)
            exponent = exponent < EXPONENT_CLAMP ? 10 * exponent + (*q - '0') : EXPONENT_CLAMP;
        if (exponent > EXPONENT_CLAMP)
            exponent = EXPONENT_CLAMP;
        if (negative)
            exponent = -exponent;
    }
    if (q != end)
        return HPCB_DEGR_EFORMAT;
    int written = snprintf(o, (size_t)(s->data + s->cap - o), "e%ld", exponent - fraction);
    if (written < 0 || (size_t)written >= (size_t)(s->data + s->cap - o))
        return HPCB_DEGR_EFORMAT;
    char *stop;
    double v = strtod(s->data, &stop);
    if (stop != o + written || !isfinite(v) || v < DBL_MIN)
        return HPCB_DEGR_EFORMAT;
    *out = v;
    return HPCB_DEGR_OK;
}

/* The rest of a table line after its name: "<count> v1 .. vcount". */
static int parse_table(struct cursor *c, struct scratch *s, int *count, double **values)
{
    struct field f;
    long n = next_field(c, &f) ? parse_count(&f) : -1;
    /* every value takes at least two bytes (a separator and a digit) */
    if (n < 0 || (size_t)n > (size_t)(c->end - c->p) / 2)
        return HPCB_DEGR_EFORMAT;
    double *v = NULL;
    if (n > 0 && (v = malloc((size_t)n * sizeof *v)) == NULL)
        return HPCB_DEGR_ENOMEM;
    int rc = HPCB_DEGR_OK;
    for (long i = 0; rc == HPCB_DEGR_OK && i < n; i++) {
        rc = next_field(c, &f) ? parse_value(&f, s, &v[i]) : HPCB_DEGR_EFORMAT;
        if (rc == HPCB_DEGR_OK && i == 0 && v[0] != 1.0)    /* the reference */
            rc = HPCB_DEGR_EFORMAT;
    }
    if (rc == HPCB_DEGR_OK && next_field(c, &f))            /* more values than the count */
        rc = HPCB_DEGR_EFORMAT;
    if (rc != HPCB_DEGR_OK) {
        free(v);
        return rc;
    }
    *count = (int)n;
    *values = v;
    return HPCB_DEGR_OK;
}

static int parse_header(struct cursor *c, const struct field *name)
{
    struct field f;
    if (!field_is(name, "hpcbench-degradation") || !next_field(c, &f) || !field_is(&f, "1"))
        return HPCB_DEGR_EFORMAT;
    return next_field(c, &f) ? HPCB_DEGR_EFORMAT : HPCB_DEGR_OK;
}

static int parse(const struct text *t, hpcb_degr_desc *d)
{
    if (t->size == 0 || t->data[t->size - 1] != '\n')     /* empty, or no final LF */
        return HPCB_DEGR_EFORMAT;
    for (size_t i = 0; i < t->size; i++)
        if (!allowed_byte((unsigned char)t->data[i]))
            return HPCB_DEGR_EFORMAT;
    struct scratch s = {NULL, 0};
    int rc = HPCB_DEGR_OK, seen = 0;    /* lines seen of: header, ratDist, ratNC */
    const char *p = t->data, *end = t->data + t->size;
    while (rc == HPCB_DEGR_OK && p < end) {
        struct cursor c = {p, memchr(p, '\n', (size_t)(end - p))};
        p = c.end + 1;
        struct field name;
        if (!next_field(&c, &name) || name.p[0] == '#')   /* blank or comment */
            continue;
        if (seen == 0)
            rc = parse_header(&c, &name);
        else if (seen == 1 && field_is(&name, "ratDist"))
            rc = parse_table(&c, &s, &d->ndist, &d->rat_dist);
        else if (seen == 2 && field_is(&name, "ratNC"))
            rc = parse_table(&c, &s, &d->nnc, &d->rat_nc);
        else    /* unknown, repeated, out of order, or after ratNC */
            rc = HPCB_DEGR_EFORMAT;
        seen++;
    }
    free(s.data);
    return rc == HPCB_DEGR_OK && seen != 3 ? HPCB_DEGR_EFORMAT : rc;
}

int hpcb_load_degr_info(hpcb_degr_desc *d, const char *path)
{
    if (d == NULL)
        return HPCB_DEGR_EINVAL;
    clear(d);
    if (path == NULL)
        path = getenv("HPCBENCH_DEGR_FILE");
    if (path == NULL || *path == '\0')
        path = DEFAULT_FILE;
    struct text t;
    int rc = read_file(path, &t);
    if (rc == HPCB_DEGR_OK)
        rc = parse(&t, d);
    free(t.data);
    if (rc != HPCB_DEGR_OK)
        hpcb_release_degr_info(d);
    return rc;
}

void hpcb_release_degr_info(hpcb_degr_desc *d)
{
    if (d == NULL)
        return;
    free(d->rat_dist);
    free(d->rat_nc);
    clear(d);
}

static double lookup(const double *values, int count, int key, const hpcb_degr_desc *d)
{
    if (d == NULL)
        return HPCB_DEGR_EINVAL;
    if (key < 1 || key > count)
        return HPCB_DEGR_ERANGE;
    return values[key - 1];
}

double hpcb_get_network_dist_ratio(const hpcb_degr_desc *d, int dist)
{
    return d == NULL ? HPCB_DEGR_EINVAL : lookup(d->rat_dist, d->ndist, dist, d);
}

double hpcb_get_network_access_ratio(const hpcb_degr_desc *d, int nprocs_per_node)
{
    return d == NULL ? HPCB_DEGR_EINVAL : lookup(d->rat_nc, d->nnc, nprocs_per_node, d);
}

const char *hpcb_degr_strerror(int status)
{
    switch (status) {
    case HPCB_DEGR_OK: return "success";
    case HPCB_DEGR_ENOFILE: return "degradation file not found or unreadable";
    case HPCB_DEGR_EFORMAT: return "not an hpcbench degradation file, or damaged";
    case HPCB_DEGR_ERANGE: return "distance or processes per node outside the measured range";
    case HPCB_DEGR_ENOMEM: return "out of memory";
    case HPCB_DEGR_EINVAL: return "invalid argument (NULL descriptor)";
    default: return "unknown status";
    }
}
