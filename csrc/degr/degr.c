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
 * Plain C99, no dependencies, so that any application can link it. The
 * lexical layer (reading the file safely, bytes, fields, counts, values
 * that no locale changes) is text.c, which params.c shares. */
#include "hpcb_degr.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_FILE "hpcbench-results.degr"

static void clear(hpcb_degr_desc *d)
{
    d->ndist = d->nnc = 0;
    d->rat_dist = d->rat_nc = NULL;
}

/* The rest of a table line after its name: "<count> v1 .. vcount". */
static int parse_table(struct hpcb_cursor *c, struct hpcb_scratch *s, int *count, double **values)
{
    struct hpcb_field f;
    long n = hpcb_text_next_field(c, &f) ? hpcb_text_parse_count(f.p, f.n) : -1;
    /* every value takes at least two bytes (a separator and a digit) */
    if (n < 0 || (size_t)n > (size_t)(c->end - c->p) / 2)
        return HPCB_DEGR_EFORMAT;
    double *v = NULL;
    if (n > 0 && (v = malloc((size_t)n * sizeof *v)) == NULL)
        return HPCB_DEGR_ENOMEM;
    int rc = HPCB_DEGR_OK;
    for (long i = 0; rc == HPCB_DEGR_OK && i < n; i++) {
        rc = hpcb_text_next_field(c, &f) ? hpcb_text_parse_value(&f, s, &v[i]) : HPCB_DEGR_EFORMAT;
        if (rc == HPCB_DEGR_OK && i == 0 && v[0] != 1.0)    /* the reference */
            rc = HPCB_DEGR_EFORMAT;
    }
    if (rc == HPCB_DEGR_OK && hpcb_text_next_field(c, &f))            /* more values than the count */
        rc = HPCB_DEGR_EFORMAT;
    if (rc != HPCB_DEGR_OK) {
        free(v);
        return rc;
    }
    *count = (int)n;
    *values = v;
    return HPCB_DEGR_OK;
}

static int parse_header(struct hpcb_cursor *c, const struct hpcb_field *name)
{
    struct hpcb_field f;
    if (!hpcb_text_field_is(name, "hpcbench-degradation") || !hpcb_text_next_field(c, &f) || !hpcb_text_field_is(&f, "1"))
        return HPCB_DEGR_EFORMAT;
    return hpcb_text_next_field(c, &f) ? HPCB_DEGR_EFORMAT : HPCB_DEGR_OK;
}

static int parse(const struct hpcb_text *t, hpcb_degr_desc *d)
{
    long line;
    const char *what;
    if (hpcb_text_check_bytes(t, &line, &what) != HPCB_DEGR_OK)
        return HPCB_DEGR_EFORMAT;
    struct hpcb_scratch s = {NULL, 0};
    int rc = HPCB_DEGR_OK, seen = 0;    /* lines seen of: header, ratDist, ratNC */
    const char *p = t->data, *end = t->data + t->size;
    while (rc == HPCB_DEGR_OK && p < end) {
        struct hpcb_cursor c = {p, memchr(p, '\n', (size_t)(end - p))};
        p = c.end + 1;
        struct hpcb_field name;
        if (!hpcb_text_next_field(&c, &name) || name.p[0] == '#')   /* blank or comment */
            continue;
        if (seen == 0)
            rc = parse_header(&c, &name);
        else if (seen == 1 && hpcb_text_field_is(&name, "ratDist"))
            rc = parse_table(&c, &s, &d->ndist, &d->rat_dist);
        else if (seen == 2 && hpcb_text_field_is(&name, "ratNC"))
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
    struct hpcb_text t;
    int rc = hpcb_text_read(path, &t);
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
