/* multibsp.h - MBSPDiscover's kernels on pinned thread teams.
 *
 * h-communication (hpcb_hcomm_run): p threads, one per child of a MultiBSP
 * component, pinned to the child's first PU. Each measures its DAXPY rate
 * (daxpy.h, before and after the h sweep; the better of the two);
 * then for h = 0 .. hmax, every thread writes h words cyclically into the
 * slots of the other threads in one shared buffer (single words, the
 * slowest pattern, as bspbench and the paper do), then all meet at a
 * barrier; `iterations` such supersteps per timed block, `blocks` blocks per
 * h after `warmup` untimed supersteps. Thread 0 times the blocks.
 *
 * Inner product (hpcb_inner_product_run): Algorithm 1.3 over a whole tree,
 * one thread per leaf PU: each computes the sum of squares of its slice;
 * then, bottom up, at every component all threads of the component meet at
 * the component's barrier and its master adds up its children's partial
 * results. The team is started for every repetition, as a MultiBSP `begin`
 * does, so the start-up cost the paper saw is measured too. */
#ifndef HPCB_MULTIBSP_H
#define HPCB_MULTIBSP_H

#include <stddef.h>

#include "../runtime/team.h"
#include "../runtime/why.h"

struct hpcb_hcomm_params {
    struct hpcb_team_params team;  /* at least 2 PUs, thread t on team.pus[t] */
    size_t hmax;           /* 1..2**20 */
    size_t iterations;     /* supersteps per timed block, 1..HPCB_MAX_SAMPLES */
    size_t blocks;         /* timed blocks per h, 1..100000 */
    size_t warmup;         /* untimed supersteps per h */
    size_t daxpy_length;   /* doubles per vector for the rate, 1..2**26 */
};

struct hpcb_hcomm_out {
    double *ticks;         /* (hmax + 1) x blocks: [h * blocks + b], thread 0's clock */
    double *rate;          /* team.npus: DAXPY flops per tick of thread t */
};

/* The rules about sizes and counts (no team needed). */
int hpcb_hcomm_check_sizes(const struct hpcb_hcomm_params *p, struct hpcb_why *why);
/* Those, then the team's, and at least two threads. */
int hpcb_hcomm_check(const struct hpcb_hcomm_params *p, struct hpcb_why *why);

/* Payload: after h = hmax every slot a thread wrote holds hmax + 1. */
int hpcb_hcomm_run(const struct hpcb_hcomm_params *p, struct hpcb_hcomm_out *out);

/* The tree, flattened: ncomp components in bottom-up order (children before
 * parents, so parent[c] > c; the root last, parent -1). leaf_parent[t] is
 * thread t's component; nleaves[c] is the number of threads below c (every
 * one of them meets at c's barrier); master[c] is a thread below c (the
 * first, by convention; thread 0 for the root) that adds up c's children.
 * Thread t sums x[begin[t] .. end[t]). */
struct hpcb_inner_product_params {
    struct hpcb_team_params team;  /* thread t on team.pus[t]; nthreads = team.npus */
    size_t ncomp;                  /* at least 1 */
    const long *leaf_parent;       /* nthreads */
    const long *parent;            /* ncomp */
    const long *master;            /* ncomp */
    const long *nleaves;           /* ncomp */
    const size_t *begin;           /* nthreads */
    const size_t *end;             /* nthreads, each at most n */
    const double *x;               /* n doubles */
    size_t n;
    size_t reps;                   /* runs, 1..100000 */
};

struct hpcb_inner_product_out {
    double *total_ticks;    /* reps: from the start of the team to its end (threads started and joined) */
    double *inside_ticks;   /* reps: from all threads ready to the root's sum (thread 0's clock) */
    double *leaf_ticks;     /* reps x nthreads: [r * nthreads + t], thread t's own loop over its slice */
    double *reduce_ticks;   /* reps: from the last thread's loop end to the root's sum (the TSC is one
                             * clock for all PUs: constant and nonstop, synchronised by the kernel) */
    double result;          /* written: the last run's inner product */
};

/* The tree rules above, reps and the team's; HPCB_ENOMEM if the check
 * cannot allocate its scratch counts. */
int hpcb_inner_product_check(const struct hpcb_inner_product_params *p, struct hpcb_why *why);

int hpcb_inner_product_run(const struct hpcb_inner_product_params *p, struct hpcb_inner_product_out *out);

/* The inner product's leaf loop alone (the model's r per memory level):
 * every thread of the team sums the squares of its own slice of `length`
 * doubles (allocated and first touched by that thread, then read once
 * untimed, so it sits in the smallest memory that holds it), all threads at
 * once, `trials` times; a trial repeats the loop for at least ~1 ms. The
 * same loop as the inner product's, so the rate is the one its leaves run
 * at; no barrier, reduction or thread start inside the timing. */
struct hpcb_sumsq_rate_params {
    struct hpcb_team_params team;  /* thread t on team.pus[t] */
    size_t length;                 /* doubles per thread, 1..2**28 */
    size_t trials;                 /* 1..1000 */
};

struct hpcb_sumsq_rate_out {
    double *rate;          /* trials x npus: [k * npus + t], flops per tick of thread t in trial k */
};

int hpcb_sumsq_rate_check(const struct hpcb_sumsq_rate_params *p, struct hpcb_why *why);

/* Payload: every pass's sum is exactly length / 4 (x = 0.5). */
int hpcb_sumsq_rate_run(const struct hpcb_sumsq_rate_params *p, struct hpcb_sumsq_rate_out *out);

#endif /* HPCB_MULTIBSP_H */
