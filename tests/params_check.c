/* Compiled and run by test_params_grammar.py and test_params_capi.py
 * against libhpcbdegr (or, sanitized, against its sources).
 *
 *   params_check --dump
 *       reads paths from stdin, one a line; for each prints "load RC" and
 *       then, when RC is 0, every parameter through the accessors of
 *       hpcb_params.h (doubles as the 16 hex digits of their IEEE 754
 *       bits), else "message TEXT", the one line the reader gave.
 *   params_check --api FILE
 *       the accessors' answers to edge cases (NULL, out of range, missing
 *       values), one "name value" a line. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcb_params.h"

static void hex(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    printf(" %016" PRIx64, bits);
}

static void print_list(const int *v, int n)
{
    for (int i = 0; i < n; i++)
        printf(i == 0 ? " %d" : ",%d", v[i]);
}

/* Group g of a level through the accessor: the PUs as "a,b,c". */
static int print_group(const hpcb_params *p, int level, int g, int shared)
{
    int n = shared ? hpcb_params_shared_group(p, level, g, NULL, 0) : hpcb_params_memory_group(p, level, g, NULL, 0);
    int *pus = malloc((size_t)(n > 0 ? n : 1) * sizeof *pus);
    if (n < 0 || pus == NULL)
        return 1;
    int again = shared ? hpcb_params_shared_group(p, level, g, pus, n) : hpcb_params_memory_group(p, level, g, pus, n);
    print_list(pus, again);
    free(pus);
    return again != n;
}

static int print_node_parameters(const hpcb_params *p)
{
    int bad = 0;
    printf("caches %d\n", hpcb_params_cache_levels(p));
    for (int i = 0; i < p->ncaches; i++)
        printf("cache %d %lld\n", p->caches[i].level, hpcb_params_cache_size(p, p->caches[i].level));
    printf("shared %d\n", p->nshared);
    for (int i = 0; i < p->nshared; i++) {
        int level = p->shared[i].level, groups = hpcb_params_shared_groups(p, level);
        printf("shared %d %d", level, groups);
        for (int g = 1; g <= groups; g++)
            bad |= print_group(p, level, g, 1);
        printf("\n");
    }
    printf("memory");
    if (p->memory_reference > 0)
        hex(hpcb_params_memory_reference(p));
    else
        printf(" -");
    printf("\noverheads %d\n", hpcb_params_memory_levels(p));
    for (int i = 1; i <= hpcb_params_memory_levels(p); i++) {
        int groups = hpcb_params_memory_groups(p, i);
        printf("overhead");
        hex(hpcb_params_memory_bandwidth(p, i));
        hex(hpcb_params_memory_relative(p, i));
        printf(" %d", groups);
        for (int g = 1; g <= groups; g++)
            bad |= print_group(p, i, g, 0);
        printf("\n");
    }
    return bad;
}

static void print_comm_parameters(const hpcb_params *p)
{
    printf("ranks %d\n", hpcb_params_ranks(p));
    for (int r = 0; r < hpcb_params_ranks(p); r++) {
        printf("rank %d", hpcb_params_rank_node(p, r));
        print_list(p->ranks[r].pus, p->ranks[r].npus);
        printf("\n");
    }
    printf("layers %d\n", hpcb_params_layers(p));
    for (int i = 1; i <= hpcb_params_layers(p); i++) {
        const hpcb_layer *l = &p->layers[i - 1];
        printf("layer");
        hex(hpcb_params_layer_latency(p, i));
        if (l->bandwidth > 0)
            hex(hpcb_params_layer_bandwidth(p, i));
        else
            printf(" -");
        printf(" %d", hpcb_params_layer_pairs(p, i));
        for (int j = 0; j < l->npairs; j++)
            printf(" %d,%d", l->pairs[2 * j], l->pairs[2 * j + 1]);
        printf("\n");
    }
    printf("ratDist %d", hpcb_params_dist_count(p));
    for (int d = 1; d <= hpcb_params_dist_count(p); d++)
        hex(hpcb_params_dist_ratio(p, d));
    printf("\nratNC %d", hpcb_params_access_count(p));
    for (int k = 1; k <= hpcb_params_access_count(p); k++)
        hex(hpcb_params_access_ratio(p, k));
    printf("\n");
}

static int dump(void)
{
    char path[8192], message[512];
    int bad = 0;
    while (fgets(path, sizeof path, stdin) != NULL) {
        size_t n = strlen(path);
        if (n == 0 || path[n - 1] != '\n')
            return 2;               /* a path this long is not one the tests make */
        path[n - 1] = '\0';
        hpcb_params p;
        int rc = hpcb_load_params(&p, path, message, sizeof message);
        printf("load %d\n", rc);
        if (rc == HPCB_PARAMS_OK) {
            bad |= print_node_parameters(&p);
            print_comm_parameters(&p);
        } else {
            printf("message %s\n", message);
        }
        hpcb_release_params(&p);
    }
    return ferror(stdin) || bad ? 2 : 0;
}

/* Answers to the questions an autotuner asks, and to wrong questions. */
static int api(const char *path)
{
    hpcb_params p;
    char message[64];
    int rc = hpcb_load_params(&p, path[0] == '-' ? NULL : path, message, sizeof message);
    printf("load %d\n", rc);
    printf("message %s\n", message);
    printf("cache_size_0 %lld\n", hpcb_params_cache_size(&p, 0));
    printf("cache_size_1 %lld\n", hpcb_params_cache_size(&p, 1));
    printf("share_cache_2_0_1 %d\n", hpcb_params_share_cache(&p, 2, 0, 1));
    printf("share_cache_2_0_2 %d\n", hpcb_params_share_cache(&p, 2, 0, 2));
    printf("shared_group_9 %d\n", hpcb_params_shared_group(&p, 2, 9, NULL, 0));
    printf("memory_level_of_0_1 %d\n", hpcb_params_memory_level_of(&p, 0, 1));
    printf("memory_level_of_0_3 %d\n", hpcb_params_memory_level_of(&p, 0, 3));
    printf("layer_of_1_0 %d\n", hpcb_params_layer_of(&p, 1, 0));
    printf("layer_of_0_99 %d\n", hpcb_params_layer_of(&p, 0, 99));
    printf("layer_latency_0 %g\n", hpcb_params_layer_latency(&p, 0));
    printf("dist_ratio_0 %g\n", hpcb_params_dist_ratio(&p, 0));
    printf("null_cache %lld\n", hpcb_params_cache_size(NULL, 1));
    printf("null_layers %d\n", hpcb_params_layers(NULL));
    printf("null_load %d\n", hpcb_load_params(NULL, path, NULL, 0));
    hpcb_release_params(&p);
    hpcb_release_params(&p);        /* twice is harmless */
    hpcb_release_params(NULL);
    printf("released_layers %d\n", hpcb_params_layers(&p));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--dump") == 0)
        return dump();
    if (argc == 3 && strcmp(argv[1], "--api") == 0)
        return api(argv[2]);
    return 2;
}
