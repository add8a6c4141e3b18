/* flops.h - peak FLOP/s: independent FMA chains on registers only, on a
 * team of pinned threads, as likwid-bench's peakflops kernels measure it.
 *
 * Each member runs `chains` independent chains of x = x * a + b, each chain
 * one vector register of the instruction set (AVX-512: 8 doubles or 16
 * floats; AVX2 with FMA3: 4 or 8; SSE2: 2 or 4; scalar: 1), one step of
 * every chain per iteration: enough chains to cover the FMA latency times
 * the number of FMA units, so the loop is bound by FMA throughput, not by
 * one chain's latency. AVX-512 and AVX2 use FMA instructions; SSE2 has none,
 * so it multiplies then adds; scalar uses FMA where the CPU has FMA3 and
 * multiply then add elsewhere (out->scalar_fma says which). Either way a
 * step is 2 flops per lane: a sample is 2 x lanes x chains x iterations
 * flops per member (out->flops_per_sample).
 *
 * Every sample starts the chains again from 0, all members start it
 * together (phase.h) and each records when it started and ended on one
 * clock, so a caller gets each core's rate and what the team did together.
 * a = 1 - 2^-s and b = 2^-s (s from the iterations, see flops.c) hidden
 * from the compiler, so nothing folds: the chain value after n steps is
 * 1 - a^n, a contraction towards its fixed point 1 that stays finite.
 * After timing each member checks its chains: every lane of every chain
 * equal, equal bit for bit to a scalar replay of the same n steps with the
 * same operations (C's fma()/fmaf(), or a multiply then an add), and within
 * (n + 2) units of roundoff of the closed form 1 - a^n (HPCB_ECHECK
 * otherwise). */
#ifndef HPCB_FLOPS_H
#define HPCB_FLOPS_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/team.h"
#include "../runtime/why.h"
#include "load.h"   /* enum hpcb_isa, HPCB_ISAS */

/* Precision of the chains: FLOPS_DOUBLE (0) 64-bit, FLOPS_SINGLE (1) 32-bit. */
#define HPCB_FLOPS_PRECISIONS(X) X(FLOPS_DOUBLE) X(FLOPS_SINGLE)
enum hpcb_flops_precision { HPCB_FLOPS_PRECISIONS(HPCB_ENUMERATOR) HPCB_FLOPS_PRECISION_COUNT };

/* Faults for the tests of the verification: FLOPS_FAULT_NONE (0);
 * FLOPS_FAULT_SHORT (1) member 0 runs one iteration fewer in its last
 * sample, which the check after timing must catch. */
#define HPCB_FLOPS_FAULTS(X) X(FLOPS_FAULT_NONE) X(FLOPS_FAULT_SHORT)
enum hpcb_flops_fault { HPCB_FLOPS_FAULTS(HPCB_ENUMERATOR) HPCB_FLOPS_FAULT_COUNT };

/* The chain counts the kernel is compiled for (flops.c instantiates one
 * loop per ISA, precision and count). */
#define HPCB_FLOPS_CHAIN_COUNTS {8, 12, 16}
#define HPCB_FLOPS_MAX_ITERATIONS ((size_t)1 << 40)

struct hpcb_flops_params {
    struct hpcb_team_params team;   /* one member per PU */
    size_t iterations;   /* steps of every chain per sample (2..HPCB_FLOPS_MAX_ITERATIONS) */
    size_t samples;      /* timed samples per member (1..1000000) */
    size_t warmup;       /* untimed samples before the first (0..1000) */
    size_t chains;       /* independent chains: one of HPCB_FLOPS_CHAIN_COUNTS */
    int isa;             /* enum hpcb_isa; one this CPU runs (hpcb_flops_supported) */
    int precision;       /* enum hpcb_flops_precision */
    int fault;           /* enum hpcb_flops_fault */
};

/* Member m's sample j is at [m * samples + j]. start_ns and end_ns are
 * CLOCK_MONOTONIC ns after origin_ns (read once before the team starts), as
 * in copy.h: comparable across members. */
struct hpcb_flops_out {
    double *ns;              /* team.npus x samples: nanoseconds per sample */
    double *start_ns;        /* team.npus x samples: when each sample started */
    double *end_ns;          /* team.npus x samples: when it ended */
    uint64_t origin_ns;      /* written */
    size_t isa;              /* written: the enum hpcb_isa the loop used */
    size_t scalar_fma;       /* written: 1 if the scalar loop uses FMA instructions, else 0 (multiply, add) */
    double flops_per_sample; /* written: flops of one member's sample */
};

/* Whether this CPU runs the loop of `isa` (ISA_AUTO: always): AVX-512 needs
 * AVX512F, AVX2 needs AVX2 and FMA3; SSE2 and scalar run everywhere. */
int hpcb_flops_supported(int isa);

/* Whether the scalar loop uses FMA instructions (the CPU has FMA3). */
int hpcb_flops_scalar_fma(void);

/* Lanes of one chain's register for an ISA (not ISA_AUTO) and precision. */
size_t hpcb_flops_lanes(int isa, int precision);

/* The rules that need no team. */
int hpcb_flops_check_sizes(const struct hpcb_flops_params *p, struct hpcb_why *why);
/* Those, then the team's. */
int hpcb_flops_check(const struct hpcb_flops_params *p, struct hpcb_why *why);

int hpcb_flops_run(const struct hpcb_flops_params *p, struct hpcb_flops_out *out);

#endif /* HPCB_FLOPS_H */
