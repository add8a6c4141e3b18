/* hpcb_params.h - read every parameter hpcbench measured from C (Servet's
 * API for autotuners: cache sizes, shared caches, memory-access overhead,
 * communication layers, ratDist and ratNC), with hpcb_ names.
 *
 *   hpcb_params p;
 *   char why[256];
 *   int rc = hpcb_load_params(&p, NULL, why, sizeof why);
 *   if (rc != HPCB_PARAMS_OK) { fprintf(stderr, "%s\n", why); ... }
 *   long long l2 = hpcb_params_cache_size(&p, 2);          // bytes of L2
 *   int shared = hpcb_params_share_cache(&p, 3, 0, 4);     // do PUs 0 and 4 share L3?
 *   int layer = hpcb_params_layer_of(&p, 0, 1);            // layer of ranks 0 and 1
 *   double lat = hpcb_params_layer_latency(&p, layer);     // seconds
 *   double r = hpcb_params_dist_ratio(&p, 3);              // ratDist[3]
 *   hpcb_release_params(&p);
 *
 * The file is the one `python -m hpcbench params RESULTS.json` writes
 * (RESULTS.params); its grammar is hpcbench's docs/params.md. A degradation
 * file (`hpcbench degr`, hpcb_degr.h) is read too, as parameters holding
 * only ratDist and ratNC. Reading does not depend on the locale.
 * Compile and link flags: `python -m hpcbench config --cflags --libs`
 * (the same library as hpcb_degr.h). Fortran: hpcbench/include/hpcb_params.f90.
 *
 * Numbering: a position in a list (cache level, shared-cache group, memory
 * level, layer, ratDist distance, ratNC processes) starts at 1, as Servet's
 * ratDist[1]; PUs, ranks and nodes are numbered as hwloc and MPI number
 * them, from 0. Every function taking a descriptor accepts NULL (and
 * returns HPCB_PARAMS_EINVAL) and an index out of range (HPCB_PARAMS_ERANGE). */
#ifndef HPCB_PARAMS_H
#define HPCB_PARAMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hpcb_params_status {          /* the same numbers as hpcb_degr_status */
    HPCB_PARAMS_OK = 0,
    HPCB_PARAMS_ENOFILE = -1,      /* the file does not exist, cannot be read or is not a regular file */
    HPCB_PARAMS_EFORMAT = -2,      /* not a parameters (or degradation) file, damaged, or over 64 MiB */
    HPCB_PARAMS_ERANGE = -3,       /* a level, index, PU or rank that the file does not hold */
    HPCB_PARAMS_ENOMEM = -4,
    HPCB_PARAMS_EINVAL = -5        /* a NULL descriptor or buffer */
};

typedef struct {                   /* groups of PUs: group g (0-based here) is pus[start[g] .. start[g+1]-1] */
    int count;
    int *start;                    /* count + 1 offsets */
    int *pus;                      /* ascending within a group */
} hpcb_pu_groups;

typedef struct {
    int level;                     /* 1: L1, ... */
    long long size;                /* bytes */
} hpcb_cache_level;

typedef struct {
    int level;
    hpcb_pu_groups groups;         /* the PUs that share one cache of this level */
} hpcb_shared_cache;

typedef struct {
    double bandwidth;              /* bytes/s per core, both cores of a pair copying */
    double relative;               /* bandwidth / the reference (one core alone) */
    hpcb_pu_groups groups;         /* cores whose pairs lose this much */
} hpcb_memory_level;

typedef struct {
    int node;                      /* the node's index in the job (0-based) */
    int npus;
    int *pus;                      /* the PUs the rank was bound to */
} hpcb_rank;

typedef struct {
    double latency;                /* seconds, one way, at the comm benchmark's probe size */
    double bandwidth;              /* bytes/s, the peak of the layer's sweep; 0 when not measured */
    int npairs;
    int *pairs;                    /* 2 * npairs ranks: pairs[2i] < pairs[2i+1] */
} hpcb_layer;

typedef struct {
    int ncaches;        hpcb_cache_level *caches;     /* levels ascending (0: cache did not run) */
    int nshared;        hpcb_shared_cache *shared;    /* levels ascending */
    double memory_reference;                          /* bytes/s of one core copying alone; 0: not measured */
    int nmemory;        hpcb_memory_level *memory;    /* memory-overhead levels, in the file's order */
    int nranks;         hpcb_rank *ranks;             /* ranks[r]: where rank r of the comm run ran */
    int nlayers;        hpcb_layer *layers;           /* communication layers, in the file's order */
    int ndist;          double *rat_dist;             /* rat_dist[d - 1] = ratDist[d] */
    int nnc;            double *rat_nc;               /* rat_nc[k - 1] = ratNC[k] */
} hpcb_params;

/* Fill `p` from `path`; path NULL: $HPCBENCH_PARAMS_FILE, else
 * "hpcbench-results.params" in the working directory. On failure `p` is
 * left empty (safe to release) and, if `message` is not NULL, it receives
 * one line (at most message_size - 1 bytes and a NUL) naming the line of
 * the file and the broken rule. Returns an hpcb_params_status. */
int hpcb_load_params(hpcb_params *p, const char *path, char *message, size_t message_size);

/* Free what hpcb_load_params allocated; `p` becomes empty. */
void hpcb_release_params(hpcb_params *p);

/* A short description of a status code. */
const char *hpcb_params_strerror(int status);

/* Caches: how many levels; the size in bytes of cache level `level`. */
int hpcb_params_cache_levels(const hpcb_params *p);
long long hpcb_params_cache_size(const hpcb_params *p, int level);

/* Shared caches at `level`: how many groups; how many PUs group `group`
 * (1-based) has, its first min(count, capacity) PUs copied into `pus`;
 * 1 if PUs a and b are in one group of that level, 0 if not. */
int hpcb_params_shared_groups(const hpcb_params *p, int level);
int hpcb_params_shared_group(const hpcb_params *p, int level, int group, int *pus, int capacity);
int hpcb_params_share_cache(const hpcb_params *p, int level, int pu_a, int pu_b);

/* Memory-access overhead: the reference bandwidth (bytes/s; negative status
 * if not measured); how many levels; level i's (1-based) bandwidth per
 * core, its ratio to the reference, its groups as for shared caches; the
 * level (1-based) whose groups hold both PUs, 0 if none. */
double hpcb_params_memory_reference(const hpcb_params *p);
int hpcb_params_memory_levels(const hpcb_params *p);
double hpcb_params_memory_bandwidth(const hpcb_params *p, int level);
double hpcb_params_memory_relative(const hpcb_params *p, int level);
int hpcb_params_memory_groups(const hpcb_params *p, int level);
int hpcb_params_memory_group(const hpcb_params *p, int level, int group, int *pus, int capacity);
int hpcb_params_memory_level_of(const hpcb_params *p, int pu_a, int pu_b);

/* Communication layers: how many ranks the comm run had; rank r's node;
 * how many layers; layer i's (1-based) latency (s) and bandwidth (bytes/s;
 * 0 when not measured) and pair count; the layer (1-based) that holds the
 * pair of ranks a and b in either order, 0 if no layer does. */
int hpcb_params_ranks(const hpcb_params *p);
int hpcb_params_rank_node(const hpcb_params *p, int rank);
int hpcb_params_layers(const hpcb_params *p);
double hpcb_params_layer_latency(const hpcb_params *p, int layer);
double hpcb_params_layer_bandwidth(const hpcb_params *p, int layer);
int hpcb_params_layer_pairs(const hpcb_params *p, int layer);
int hpcb_params_layer_of(const hpcb_params *p, int rank_a, int rank_b);

/* Network degradation, as hpcb_degr.h: ratDist[dist] and ratNC[nprocs]
 * (> 0), or a negative status. */
int hpcb_params_dist_count(const hpcb_params *p);
int hpcb_params_access_count(const hpcb_params *p);
double hpcb_params_dist_ratio(const hpcb_params *p, int dist);
double hpcb_params_access_ratio(const hpcb_params *p, int nprocs_per_node);

#ifdef __cplusplus
}
#endif

#endif /* HPCB_PARAMS_H */
