/* params_get.c - the accessors of hpcb_params.h: what a C or Fortran
 * autotuner asks of a loaded parameters file, without knowing the
 * descriptor's layout. Positions in lists are 1-based; PUs and ranks are
 * as hwloc and MPI number them. Errors are negative hpcb_params_status
 * values (as doubles for the functions that return doubles). */
#include "hpcb_params.h"

#include <string.h>

static const hpcb_cache_level *cache_level(const hpcb_params *p, int level)
{
    for (int i = 0; i < p->ncaches; i++)
        if (p->caches[i].level == level)
            return &p->caches[i];
    return NULL;
}

static const hpcb_pu_groups *shared_level(const hpcb_params *p, int level)
{
    for (int i = 0; i < p->nshared; i++)
        if (p->shared[i].level == level)
            return &p->shared[i].groups;
    return NULL;
}

/* Group `group` (1-based) of g: its size, its first `capacity` PUs copied. */
static int copy_group(const hpcb_pu_groups *g, int group, int *pus, int capacity)
{
    if (group < 1 || group > g->count)
        return HPCB_PARAMS_ERANGE;
    int first = g->start[group - 1], n = g->start[group] - first;
    if (capacity > 0 && pus == NULL)
        return HPCB_PARAMS_EINVAL;
    if (capacity > 0)
        memcpy(pus, g->pus + first, (size_t)(n < capacity ? n : capacity) * sizeof *pus);
    return n;
}

static int in_group(const hpcb_pu_groups *g, int group, int pu)
{
    for (int i = g->start[group]; i < g->start[group + 1]; i++)
        if (g->pus[i] == pu)
            return 1;
    return 0;
}

/* 1 if a and b are in one group of g. */
static int same_group(const hpcb_pu_groups *g, int a, int b)
{
    for (int i = 0; i < g->count; i++)
        if (in_group(g, i, a) && in_group(g, i, b))
            return 1;
    return 0;
}

int hpcb_params_cache_levels(const hpcb_params *p)
{
    return p == NULL ? HPCB_PARAMS_EINVAL : p->ncaches;
}

long long hpcb_params_cache_size(const hpcb_params *p, int level)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_cache_level *lv = cache_level(p, level);
    return lv == NULL ? HPCB_PARAMS_ERANGE : lv->size;
}

int hpcb_params_shared_groups(const hpcb_params *p, int level)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_pu_groups *g = shared_level(p, level);
    return g == NULL ? HPCB_PARAMS_ERANGE : g->count;
}

int hpcb_params_shared_group(const hpcb_params *p, int level, int group, int *pus, int capacity)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_pu_groups *g = shared_level(p, level);
    return g == NULL ? HPCB_PARAMS_ERANGE : copy_group(g, group, pus, capacity);
}

int hpcb_params_share_cache(const hpcb_params *p, int level, int pu_a, int pu_b)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_pu_groups *g = shared_level(p, level);
    return g == NULL ? HPCB_PARAMS_ERANGE : same_group(g, pu_a, pu_b);
}

double hpcb_params_memory_reference(const hpcb_params *p)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    return p->memory_reference > 0 ? p->memory_reference : HPCB_PARAMS_ERANGE;
}

int hpcb_params_memory_levels(const hpcb_params *p)
{
    return p == NULL ? HPCB_PARAMS_EINVAL : p->nmemory;
}

static const hpcb_memory_level *memory_level(const hpcb_params *p, int level)
{
    return level >= 1 && level <= p->nmemory ? &p->memory[level - 1] : NULL;
}

double hpcb_params_memory_bandwidth(const hpcb_params *p, int level)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_memory_level *lv = memory_level(p, level);
    return lv == NULL ? HPCB_PARAMS_ERANGE : lv->bandwidth;
}

double hpcb_params_memory_relative(const hpcb_params *p, int level)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_memory_level *lv = memory_level(p, level);
    return lv == NULL ? HPCB_PARAMS_ERANGE : lv->relative;
}

int hpcb_params_memory_groups(const hpcb_params *p, int level)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_memory_level *lv = memory_level(p, level);
    return lv == NULL ? HPCB_PARAMS_ERANGE : lv->groups.count;
}

int hpcb_params_memory_group(const hpcb_params *p, int level, int group, int *pus, int capacity)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_memory_level *lv = memory_level(p, level);
    return lv == NULL ? HPCB_PARAMS_ERANGE : copy_group(&lv->groups, group, pus, capacity);
}

int hpcb_params_memory_level_of(const hpcb_params *p, int pu_a, int pu_b)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    for (int i = 0; i < p->nmemory; i++)
        if (same_group(&p->memory[i].groups, pu_a, pu_b))
            return i + 1;
    return 0;
}

int hpcb_params_ranks(const hpcb_params *p)
{
    return p == NULL ? HPCB_PARAMS_EINVAL : p->nranks;
}

int hpcb_params_rank_node(const hpcb_params *p, int rank)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    return rank >= 0 && rank < p->nranks ? p->ranks[rank].node : HPCB_PARAMS_ERANGE;
}

int hpcb_params_layers(const hpcb_params *p)
{
    return p == NULL ? HPCB_PARAMS_EINVAL : p->nlayers;
}

static const hpcb_layer *layer_at(const hpcb_params *p, int layer)
{
    return layer >= 1 && layer <= p->nlayers ? &p->layers[layer - 1] : NULL;
}

double hpcb_params_layer_latency(const hpcb_params *p, int layer)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_layer *l = layer_at(p, layer);
    return l == NULL ? HPCB_PARAMS_ERANGE : l->latency;
}

double hpcb_params_layer_bandwidth(const hpcb_params *p, int layer)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_layer *l = layer_at(p, layer);
    return l == NULL ? HPCB_PARAMS_ERANGE : l->bandwidth;
}

int hpcb_params_layer_pairs(const hpcb_params *p, int layer)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    const hpcb_layer *l = layer_at(p, layer);
    return l == NULL ? HPCB_PARAMS_ERANGE : l->npairs;
}

int hpcb_params_layer_of(const hpcb_params *p, int rank_a, int rank_b)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    if (rank_a < 0 || rank_b < 0 || rank_a >= p->nranks || rank_b >= p->nranks)
        return HPCB_PARAMS_ERANGE;
    int low = rank_a < rank_b ? rank_a : rank_b, high = rank_a < rank_b ? rank_b : rank_a;
    for (int i = 0; i < p->nlayers; i++)
        for (int j = 0; j < p->layers[i].npairs; j++)
            if (p->layers[i].pairs[2 * j] == low && p->layers[i].pairs[2 * j + 1] == high)
                return i + 1;
    return 0;
}

int hpcb_params_dist_count(const hpcb_params *p)
{
    return p == NULL ? HPCB_PARAMS_EINVAL : p->ndist;
}

int hpcb_params_access_count(const hpcb_params *p)
{
    return p == NULL ? HPCB_PARAMS_EINVAL : p->nnc;
}

double hpcb_params_dist_ratio(const hpcb_params *p, int dist)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    return dist >= 1 && dist <= p->ndist ? p->rat_dist[dist - 1] : HPCB_PARAMS_ERANGE;
}

double hpcb_params_access_ratio(const hpcb_params *p, int nprocs_per_node)
{
    if (p == NULL)
        return HPCB_PARAMS_EINVAL;
    return nprocs_per_node >= 1 && nprocs_per_node <= p->nnc ? p->rat_nc[nprocs_per_node - 1] : HPCB_PARAMS_ERANGE;
}
