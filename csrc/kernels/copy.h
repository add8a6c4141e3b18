/* copy.h - STREAM-style copy, b[i] = a[i], on a team of pinned threads.
 *
 * Each member allocates its own two arrays and touches them first from its
 * own PU, so the kernel places them in the member's local memory, as STREAM
 * does with OpenMP. Members start every repetition together (phase.h), so
 * in a pair or group run the copies really overlap. Bandwidth is counted as
 * STREAM counts it: bytes read plus bytes written (2 * array_bytes per
 * repetition), without the write-allocate traffic the hardware may add. */
#ifndef HPCB_COPY_H
#define HPCB_COPY_H

#include <stddef.h>

struct hpcb_copy_params {
    size_t array_bytes;   /* bytes of each array; a positive multiple of 64 */
    size_t warmup;        /* untimed copies before the first repetition */
    int page_mode;        /* enum hpcb_page_mode */
};

int hpcb_copy_check(const struct hpcb_copy_params *p);

/* Member m writes the duration in ns of repetition r to ns[m*reps + r] and
 * the TSC ticks to ticks[m*reps + r]. After timing, each member checks that
 * its destination equals its source (HPCB_ECHECK otherwise). */
int hpcb_copy_team(const struct hpcb_copy_params *p, const unsigned *pus, size_t nmembers,
                   double *ns, double *ticks, size_t reps);

#endif /* HPCB_COPY_H */
