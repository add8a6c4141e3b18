/* multibsp.h - MBSPDiscover's kernels on pinned thread teams.
 *
 * h-communication (hpcb_hcomm): p threads, one per child of a MultiBSP
 * component, pinned to the child's first PU. Each measures its DAXPY rate
 * (before and after the h sweep; the better of the two);
 * then for h = 0 .. hmax, every thread writes h words cyclically into the
 * slots of the other threads in one shared buffer (single words, the
 * slowest pattern, as bspbench and the paper do), then all meet at a
 * barrier; `iterations` such supersteps per timed block, `blocks` blocks per
 * h after `warmup` untimed supersteps. Thread 0 times the blocks.
 *
 * Inner product (hpcb_inner_product): Algorithm 1.3 over a whole tree, one
 * thread per leaf PU: each computes the sum of squares of its slice; then,
 * bottom up, at every component all threads of the component meet at the
 * component's barrier and its master (first thread) adds up its children's
 * partial results. The team is started for every repetition, as a MultiBSP
 * `begin` does, so the start-up cost the paper saw is measured too. */
#ifndef HPCB_MULTIBSP_H
#define HPCB_MULTIBSP_H

#include <stddef.h>

struct hpcb_hcomm_params {
    size_t hmax;
    size_t iterations;     /* supersteps per timed block */
    size_t blocks;         /* timed blocks per h */
    size_t warmup;         /* untimed supersteps per h */
    size_t daxpy_length;   /* doubles per vector for the rate */
};

/* ticks[h * blocks + b]: block b of h (thread 0's clock); rate[t]: DAXPY
 * flops per tick of thread t. */
int hpcb_hcomm(const struct hpcb_hcomm_params *p, const unsigned *pus, size_t nthreads, double *ticks,
               double *rate);

/* The tree, flattened: ncomp components in bottom-up order (children before
 * parents, the root last). parent[c] is the parent component (-1 for the
 * root); leaf_parent[t] is thread t's component. A component's master is
 * its first thread (master[c]); nleaves[c] threads are in its subtree.
 * Thread t sums x[begin[t] .. end[t]). */
struct hpcb_ip_tree {
    size_t nthreads;
    size_t ncomp;
    const unsigned *pus;
    const long *leaf_parent;
    const long *parent;
    const long *master;
    const long *nleaves;
    const size_t *begin;
    const size_t *end;
};

/* reps runs over the vector x of n doubles: total_ticks[r] from the start
 * of the team to its end (threads started and joined), inside_ticks[r] from
 * all threads ready to the root's sum (thread 0's clock); *result: the last
 * run's inner product. */
int hpcb_inner_product(const struct hpcb_ip_tree *tree, const double *x, size_t n, size_t reps,
                       double *total_ticks, double *inside_ticks, double *result);

#endif /* HPCB_MULTIBSP_H */
