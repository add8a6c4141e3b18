/* daxpy.h - y += a * x over n doubles: the one DAXPY of hpcbench.
 *
 * Three kernels use it: daxpy (the rate of one core, timed per update),
 * overlap (the computation overlapped with a message exchange) and hcomm
 * (each thread's rate before and after the h sweep, hpcb_daxpy_rate).
 * x and y live in one cache-line-aligned block, y a line past the end of x:
 * the rate must not depend on where malloc happened to put two vectors
 * (misaligned or 4 KiB-aliased vectors measured half the rate). With a = 0.5
 * and x[i] in 0..4, after k updates y[i] = 0.5 * k * x[i] exactly, which is
 * the payload check. */
#ifndef HPCB_DAXPY_H
#define HPCB_DAXPY_H

#include <stddef.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"

#define HPCB_DAXPY_A 0.5
#define HPCB_DAXPY_MAX_LENGTH ((size_t)1 << 32)

struct hpcb_daxpy_vectors {
    double *block;      /* x and y, one aligned allocation */
    double *x;
    double *y;
    size_t n;
    size_t updates;     /* how many times y += a * x ran */
};

/* Allocate and fill x (i % 5) and y (zeros). */
int hpcb_daxpy_alloc(struct hpcb_daxpy_vectors *v, size_t n);

/* One update. Inline, so that the timed loops around it contain the loop
 * itself and not a call; the barrier keeps successive updates apart. */
static inline void hpcb_daxpy_update(struct hpcb_daxpy_vectors *v)
{
    double *restrict y = v->y;
    const double *restrict x = v->x;
    for (size_t i = 0; i < v->n; i++)
        y[i] += HPCB_DAXPY_A * x[i];
    v->updates++;
    HPCB_COMPILER_BARRIER();
}

/* The payload check (HPCB_ECHECK unless y = a * updates * x exactly), then
 * free the vectors. */
int hpcb_daxpy_verify_free(struct hpcb_daxpy_vectors *v);

/* Flops per tick of updates over n doubles (n >= 1): the best of several
 * trials of about a millisecond each, after an untimed one (interference and
 * frequency ramps only slow a trial down). Checks the payload. */
int hpcb_daxpy_rate(size_t n, double *flops_per_tick);

struct hpcb_daxpy_params {
    size_t n;             /* doubles per vector (0..HPCB_DAXPY_MAX_LENGTH) */
    size_t warmup;        /* untimed updates */
    size_t iterations;    /* timed updates (1..HPCB_MAX_SAMPLES) */
};

struct hpcb_daxpy_out {
    double *ticks;        /* iterations: ticks of each update */
};

int hpcb_daxpy_check(const struct hpcb_daxpy_params *p, struct hpcb_why *why);

/* On the calling thread. */
int hpcb_daxpy_run(const struct hpcb_daxpy_params *p, struct hpcb_daxpy_out *out);

#endif /* HPCB_DAXPY_H */
