/* traverse.h - Servet's mcalibrator: dependent loads through an int array.
 *
 * The array is divided into slots `stride_bytes` apart. The int at the start
 * of each slot holds the distance, in ints, to the next slot to visit, and the
 * last slot points back to the first, so the traversal `j += A[j]` is one
 * closed cycle: every load's address depends on the previous load, which
 * defeats out-of-order overlap and keeps the compiler from removing the loop.
 */
#ifndef HPCB_TRAVERSE_H
#define HPCB_TRAVERSE_H

#include <stddef.h>
#include <stdint.h>

enum hpcb_order {
    HPCB_ORDER_SEQUENTIAL = 0, /* slot 0, 1, 2, ...: Servet's constant stride */
    HPCB_ORDER_RANDOM = 1,     /* one random cycle through the same slots */
    HPCB_ORDER_WINDOWED = 2    /* random within windows of window_bytes, windows in random order */
};

struct hpcb_traverse_params {
    size_t array_bytes;       /* multiple of stride_bytes */
    size_t stride_bytes;      /* positive multiple of sizeof(int) */
    int order;                /* enum hpcb_order */
    uint64_t seed;            /* for HPCB_ORDER_RANDOM */
    size_t min_accesses;      /* a sample is whole traversals, at least this many loads */
    size_t warmup_traversals; /* untimed traversals before the first sample */
    int page_mode;            /* enum hpcb_page_mode */
    size_t window_bytes;      /* HPCB_ORDER_WINDOWED: a multiple of stride_bytes */
};

/* 0 if the parameters obey the rules above, HPCB_EINVAL otherwise. */
int hpcb_traverse_check(const struct hpcb_traverse_params *p);

/* Loads per timed sample for these parameters. */
size_t hpcb_traverse_accesses_per_sample(const struct hpcb_traverse_params *p);

/* Allocate, link, warm up and time `nsamples` samples on the calling thread.
 * ticks[i] and ns[i] receive the time per access of sample i. */
int hpcb_traverse(const struct hpcb_traverse_params *p, double *ticks, double *ns,
                  size_t nsamples);

/* The same on every PU of `pus` at once, each member with its own array
 * touched first by itself. Member m writes ticks[m*nsamples + i]. */
int hpcb_traverse_team(const struct hpcb_traverse_params *p, const unsigned *pus,
                       size_t nmembers, double *ticks, double *ns, size_t nsamples);

#endif /* HPCB_TRAVERSE_H */
