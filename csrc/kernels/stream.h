/* stream.h - STREAM's four kernels (Copy, Scale, Add, Triad) on a team of
 * pinned threads.
 *
 * Each member allocates its own three arrays a, b, c and touches them first
 * from its own PU (local placement, as STREAM does with OpenMP), runs
 * `warmup` untimed rounds, then per repetition runs, in STREAM's order,
 *   Copy   c = a
 *   Scale  b = s * c
 *   Add    c = a + b
 *   Triad  a = b + s * c
 * each kernel timed on its own, the members starting each kernel together
 * (phase.h) and recording its start and end on one clock, so that a caller
 * counts what the team delivered over the common span (as copy.h explains).
 *
 * s is HPCB_STREAM_SCALAR = sqrt(2) - 1, not STREAM's 3: one round
 * multiplies every value by 2s + s^2, which is 1 for this s, so the values
 * stay near their start however many rounds run (with 3 they grow 15x a
 * round and overflow after 262). After timing every member checks every
 * element of its arrays against the recurrence run once on scalars, with
 * STREAM's relative tolerance (HPCB_ECHECK otherwise).
 *
 * Stores are ordinary (what STREAM compiled plainly issues: each line
 * written is first read into the cache, the write-allocate) or
 * non-temporal (written around the caches, no write-allocate read; an
 * sfence ends each timed kernel). Loads and stores are as wide as `isa`
 * (load.h's HPCB_ISAS and hpcb_load_supported). */
#ifndef HPCB_STREAM_H
#define HPCB_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/team.h"
#include "../runtime/why.h"
#include "load.h"

/* Store kinds: STREAM_ORDINARY (0); STREAM_NONTEMPORAL (1), which needs
 * isa SSE2 or wider (or AUTO on an x86-64 CPU). */
#define HPCB_STREAM_STORES(X) X(STREAM_ORDINARY) X(STREAM_NONTEMPORAL)
enum hpcb_stream_stores { HPCB_STREAM_STORES(HPCB_ENUMERATOR) HPCB_STREAM_STORES_COUNT };

/* The kernels, in the order they run and are stored in the out arrays. */
#define HPCB_STREAM_KERNELS 4   /* Copy, Scale, Add, Triad */
#define HPCB_STREAM_SCALAR 0.41421356237309504880
/* Most repetitions one call times: STREAM runs 10 or 20; the bound keeps the
 * rounding drift of the check's scalar recurrence far below its tolerance. */
#define HPCB_STREAM_MAX_REPETITIONS ((size_t)10000)
/* STREAM's tolerance for doubles: relative error of each element. */
#define HPCB_STREAM_EPSILON 1e-13

struct hpcb_stream_params {
    struct hpcb_team_params team; /* one member per PU */
    size_t array_bytes;   /* bytes of each of the three arrays; a positive multiple of 64, at most 2^40 */
    size_t repetitions;   /* timed rounds of the four kernels (1..HPCB_STREAM_MAX_REPETITIONS) */
    size_t warmup;        /* untimed rounds before the first (0..1000) */
    int page_mode;        /* enum hpcb_page_mode */
    int isa;              /* enum hpcb_isa; one this CPU supports */
    int stores;           /* enum hpcb_stream_stores */
    int plant_fault;      /* for tests: 1 = member 0 changes one element of a after timing, so the
                           * payload check must fail (HPCB_ECHECK); 0 = no fault (0 or 1) */
};

/* Member m's kernel k (0 Copy .. 3 Triad) of repetition r is at
 * [m][r * HPCB_STREAM_KERNELS + k], arrays team.npus x (repetitions *
 * HPCB_STREAM_KERNELS). start_ns and end_ns are CLOCK_MONOTONIC readings
 * minus origin_ns (read once before the team starts): they compare across
 * members. */
struct hpcb_stream_out {
    double *start_ns;     /* when each kernel started, ns after origin_ns */
    double *end_ns;       /* when it ended, ns after origin_ns */
    uint64_t origin_ns;   /* written: CLOCK_MONOTONIC ns before any member started */
    size_t isa;           /* written: the enum hpcb_isa the loops used */
};

/* The rules about sizes, counts, kinds and the ISA (no team needed). */
int hpcb_stream_check_sizes(const struct hpcb_stream_params *p, struct hpcb_why *why);
/* Those, then the team's. */
int hpcb_stream_check(const struct hpcb_stream_params *p, struct hpcb_why *why);

int hpcb_stream_run(const struct hpcb_stream_params *p, struct hpcb_stream_out *out);

#endif /* HPCB_STREAM_H */
