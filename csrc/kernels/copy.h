/* copy.h - STREAM-style copy, b[i] = a[i], on a team of pinned threads.
 *
 * Each member allocates its own two arrays and touches them first from its
 * own PU, so the kernel places them in the member's local memory, as STREAM
 * does with OpenMP. Members start every repetition together (phase.h), so
 * in a pair or group run the copies really overlap, and records when each
 * copy started and ended on one clock, so that what the team delivered can be
 * counted over the common span. Bandwidth is counted as STREAM counts it:
 * bytes read plus bytes written (2 * array_bytes per repetition), without the
 * write-allocate traffic the hardware may add. */
#ifndef HPCB_COPY_H
#define HPCB_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/team.h"
#include "../runtime/why.h"

struct hpcb_copy_params {
    struct hpcb_team_params team; /* one member per PU */
    size_t array_bytes;   /* bytes of each array; a positive multiple of 64 */
    size_t repetitions;   /* timed copies per member (1..1000000) */
    size_t warmup;        /* untimed copies before the first repetition (at most 1000) */
    int page_mode;        /* enum hpcb_page_mode */
};

/* Member m's repetition r is at [m * repetitions + r]. start_ns and end_ns
 * are CLOCK_MONOTONIC readings (hpcb_now_ns, one clock for every core) minus
 * origin_ns, the reading hpcb_copy_run takes once before the team starts:
 * they compare across members, and end_ns - start_ns == ns. With them a
 * caller counts what the team delivered, all bytes over the time from the
 * first member's start to the last member's end, as STREAM and likwid-bench
 * count it, instead of adding per-member rates over each member's own time. */
struct hpcb_copy_out {
    double *ns;           /* team.npus x repetitions: nanoseconds per copy */
    double *ticks;        /* team.npus x repetitions: ticks per copy */
    double *start_ns;     /* team.npus x repetitions: when each copy started, ns after origin_ns */
    double *end_ns;       /* team.npus x repetitions: when it ended, ns after origin_ns */
    uint64_t origin_ns;   /* written by the kernel: CLOCK_MONOTONIC ns before any member started */
};

/* The rules about sizes and counts (no team needed). */
int hpcb_copy_check_sizes(const struct hpcb_copy_params *p, struct hpcb_why *why);
/* Those, then the team's. */
int hpcb_copy_check(const struct hpcb_copy_params *p, struct hpcb_why *why);

/* After timing, each member checks that its destination equals its source
 * (HPCB_ECHECK otherwise). */
int hpcb_copy_run(const struct hpcb_copy_params *p, struct hpcb_copy_out *out);

#endif /* HPCB_COPY_H */
