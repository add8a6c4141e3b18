/* degr.c - libhpcbdegr: the degradation file reader; see hpcb_degr.h.
 *
 * File format (hpcbench/network/degr.py writes it):
 *   hpcbench-degradation 1
 *   # comments
 *   ratDist <count> <values...>
 *   ratNC <count> <values...>
 * Plain C99, no dependencies, so that any application can link it. */
#include "hpcb_degr.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FILE "hpcbench-results.degr"
#define MAX_ENTRIES 1000000

static void clear(hpcb_degr_desc *d)
{
    d->ndist = d->nnc = 0;
    d->rat_dist = d->rat_nc = NULL;
}

/* Parse "<name> <count> v1 .. vcount" from `line`; 0 or an error. */
static int parse_table(char *line, int *count, double **values)
{
    char *end;
    errno = 0;
    long n = strtol(line, &end, 10);
    if (end == line || errno != 0 || n < 0 || n > MAX_ENTRIES)
        return HPCB_DEGR_EFORMAT;
    double *v = NULL;
    if (n > 0 && (v = malloc((size_t)n * sizeof *v)) == NULL)
        return HPCB_DEGR_ENOMEM;
    char *p = end;
    for (long i = 0; i < n; i++) {
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno != 0 || !isfinite(v[i]) || v[i] <= 0.0) {
            free(v);
            return HPCB_DEGR_EFORMAT;
        }
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (*p != '\0') {           /* more values than the count says */
        free(v);
        return HPCB_DEGR_EFORMAT;
    }
    *count = (int)n;
    *values = v;
    return HPCB_DEGR_OK;
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
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return HPCB_DEGR_ENOFILE;

    char line[1 << 16];
    int rc = HPCB_DEGR_OK, header = 0, have_dist = 0, have_nc = 0;
    while (rc == HPCB_DEGR_OK && fgets(line, sizeof line, f) != NULL) {
        if (strchr(line, '\n') == NULL && !feof(f)) {   /* a line longer than the buffer */
            rc = HPCB_DEGR_EFORMAT;
            break;
        }
        char *p = line + strspn(line, " \t");
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        if (!header) {
            if (strncmp(p, "hpcbench-degradation 1", 22) != 0)
                rc = HPCB_DEGR_EFORMAT;
            header = 1;
        } else if (strncmp(p, "ratDist ", 8) == 0 && !have_dist) {
            rc = parse_table(p + 8, &d->ndist, &d->rat_dist);
            have_dist = 1;
        } else if (strncmp(p, "ratNC ", 6) == 0 && !have_nc) {
            rc = parse_table(p + 6, &d->nnc, &d->rat_nc);
            have_nc = 1;
        } else {
            rc = HPCB_DEGR_EFORMAT;
        }
    }
    if (rc == HPCB_DEGR_OK && ferror(f))
        rc = HPCB_DEGR_ENOFILE;
    if (rc == HPCB_DEGR_OK && (!header || !have_dist || !have_nc))
        rc = HPCB_DEGR_EFORMAT;     /* truncated */
    fclose(f);
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
