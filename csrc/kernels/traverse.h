/* traverse.h - Servet's mcalibrator: dependent loads through an int array.
 *
 * The array is divided into slots `stride_bytes` apart. The int at the start
 * of each slot holds the distance, in ints, to the next slot to visit, and the
 * last slot points back to the first, so the traversal `j += A[j]` is one
 * closed cycle: every load's address depends on the previous load, which
 * defeats out-of-order overlap and keeps the compiler from removing the loop.
 *
 * One entry point runs on the calling thread (team.pus NULL) or on a team of
 * pinned threads, each member with its own array touched first by itself,
 * all members starting every sample together.
 */
#ifndef HPCB_TRAVERSE_H
#define HPCB_TRAVERSE_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/team.h"
#include "../runtime/why.h"
#include "cycle.h"

struct hpcb_traverse_params {
    struct hpcb_team_params team; /* pus NULL: the calling thread, unpinned; else one member per PU */
    size_t array_bytes;       /* a positive multiple of stride_bytes, at most INT_MAX ints */
    size_t stride_bytes;      /* a positive multiple of sizeof(int) */
    int order;                /* enum hpcb_order */
    uint64_t seed;            /* for the random orders */
    size_t min_accesses;      /* a sample is whole traversals, at least this many loads (1..2**40) */
    size_t warmup;            /* untimed traversals before the first sample */
    size_t samples;           /* timed samples per member (1..HPCB_MAX_SAMPLES) */
    int page_mode;            /* enum hpcb_page_mode */
    size_t window_bytes;      /* HPCB_ORDER_WINDOWED: a positive multiple of stride_bytes */
};

/* Member m's sample i is at [m * samples + i]; one member (m = 0) on the
 * calling thread, team.npus members on a team. */
struct hpcb_traverse_out {
    double *ticks;                /* members x samples: ticks per access */
    double *ns;                   /* members x samples: nanoseconds per access */
    size_t accesses_per_sample;   /* written: loads per timed sample */
};

int hpcb_traverse_check(const struct hpcb_traverse_params *p, struct hpcb_why *why);

/* Allocate, link (and prove the chain is one cycle), warm up and time. */
int hpcb_traverse_run(const struct hpcb_traverse_params *p, struct hpcb_traverse_out *out);

#endif /* HPCB_TRAVERSE_H */
