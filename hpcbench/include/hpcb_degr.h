/* hpcb_degr.h - read hpcbench's network degradation figures from C
 * (Servet 3.0's API, section 4.3, with hpcb_ names).
 *
 *   hpcb_degr_desc d;
 *   if (hpcb_load_degr_info(&d, NULL) != HPCB_DEGR_OK) { ...hpcb_degr_strerror(rc)... }
 *   double r = hpcb_get_network_dist_ratio(&d, 3);      // ratDist[3]
 *   double a = hpcb_get_network_access_ratio(&d, 8);    // ratNC[8]
 *   hpcb_release_degr_info(&d);
 *
 * The file is the one `python -m hpcbench run distance network-access`
 * writes beside its results (or `python -m hpcbench degr RESULTS.json`);
 * its grammar is in hpcbench's docs/network.md, "The degradation file".
 * Reading does not depend on the locale (a decimal comma changes nothing).
 * Compile and link flags: `python -m hpcbench config --cflags --libs`. */
#ifndef HPCB_DEGR_H
#define HPCB_DEGR_H

#ifdef __cplusplus
extern "C" {
#endif

enum hpcb_degr_status {
    HPCB_DEGR_OK = 0,
    HPCB_DEGR_ENOFILE = -1,   /* the file does not exist, cannot be read or is not a regular file */
    HPCB_DEGR_EFORMAT = -2,   /* not a degradation file, damaged, or over 64 MiB */
    HPCB_DEGR_ERANGE = -3,    /* a distance or processes-per-node value outside what was measured */
    HPCB_DEGR_ENOMEM = -4,
    HPCB_DEGR_EINVAL = -5     /* a NULL descriptor */
};

typedef struct {
    int ndist;           /* ratDist[1..ndist] measured (0: the benchmark did not run) */
    double *rat_dist;    /* rat_dist[d - 1] = ratDist[d] */
    int nnc;             /* ratNC[1..nnc] */
    double *rat_nc;      /* rat_nc[k - 1] = ratNC[k] */
} hpcb_degr_desc;

/* Fill `d` from `path`; path NULL: $HPCBENCH_DEGR_FILE, else
 * "hpcbench-results.degr" in the working directory (what `run` writes beside the default results file). On failure `d` is
 * left empty (safe to release). Returns an hpcb_degr_status. */
int hpcb_load_degr_info(hpcb_degr_desc *d, const char *path);

/* Free what hpcb_load_degr_info allocated; `d` becomes empty. */
void hpcb_release_degr_info(hpcb_degr_desc *d);

/* ratDist[dist] (> 0), or a negative hpcb_degr_status on error. */
double hpcb_get_network_dist_ratio(const hpcb_degr_desc *d, int dist);

/* ratNC[nprocs_per_node] (> 0), or a negative hpcb_degr_status on error. */
double hpcb_get_network_access_ratio(const hpcb_degr_desc *d, int nprocs_per_node);

/* A short description of a status code. */
const char *hpcb_degr_strerror(int status);

#ifdef __cplusplus
}
#endif

#endif /* HPCB_DEGR_H */
