/* daxpy.c - see daxpy.h. */
#include "daxpy.h"

#include <stdlib.h>

#include "../runtime/timer.h"

/* Rate trials after the untimed first one, and the length of each. */
#define RATE_TRIALS 10
#define RATE_TRIAL_TICKS 2000000u        /* ~1 ms at GHz tick rates */
#define RATE_TRIAL_MAX_UPDATES (1u << 24)

int hpcb_daxpy_alloc(struct hpcb_daxpy_vectors *v, size_t n)
{
    v->n = n;
    v->updates = 0;
    if (posix_memalign((void **)&v->block, 64, (2 * n + 8) * sizeof(double)) != 0)
        return HPCB_ENOMEM;
    v->x = v->block;
    v->y = v->block + n + 8;
    for (size_t i = 0; i < n; i++) {
        v->x[i] = (double)(i % 5);
        v->y[i] = 0.0;
    }
    return HPCB_OK;
}

int hpcb_daxpy_verify_free(struct hpcb_daxpy_vectors *v)
{
    int rc = HPCB_OK;
    for (size_t i = 0; i < v->n; i++)
        if (v->y[i] != HPCB_DAXPY_A * (double)v->updates * v->x[i]) {
            rc = HPCB_ECHECK;
            break;
        }
    free(v->block);
    v->block = v->x = v->y = NULL;
    return rc;
}

int hpcb_daxpy_rate(size_t n, double *flops_per_tick)
{
    struct hpcb_daxpy_vectors v;
    if (n == 0 || flops_per_tick == NULL)
        return HPCB_EINVAL;
    int rc = hpcb_daxpy_alloc(&v, n);
    if (rc != HPCB_OK)
        return rc;
    double best = 0.0;
    for (int trial = 0; trial <= RATE_TRIALS; trial++) {
        size_t reps = 16, done = 0;
        uint64_t spent = 0;
        do {
            uint64_t t0 = hpcb_ticks();
            for (size_t r = 0; r < reps; r++)
                hpcb_daxpy_update(&v);
            spent += hpcb_ticks() - t0;
            done += reps;
            reps *= 2;
        } while (spent < RATE_TRIAL_TICKS && done < RATE_TRIAL_MAX_UPDATES);
        double rate = 2.0 * (double)n * (double)done / (double)spent;
        if (trial > 0 && rate > best)
            best = rate;
    }
    *flops_per_tick = best;
    return hpcb_daxpy_verify_free(&v);
}

int hpcb_daxpy_check(const struct hpcb_daxpy_params *p, struct hpcb_why *why)
{
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    int rc = hpcb_why_range(why, "n", p->n, 0, HPCB_DAXPY_MAX_LENGTH, " doubles");
    return rc != HPCB_OK ? rc : hpcb_why_range(why, "iterations", p->iterations, 1, HPCB_MAX_SAMPLES, "");
}

int hpcb_daxpy_run(const struct hpcb_daxpy_params *p, struct hpcb_daxpy_out *out)
{
    struct hpcb_daxpy_vectors v;
    int rc = hpcb_contract_start(hpcb_daxpy_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK || (rc = hpcb_daxpy_alloc(&v, p->n)) != HPCB_OK)
        return rc;
    for (size_t i = 0; i < p->warmup; i++)
        hpcb_daxpy_update(&v);
    for (size_t i = 0; i < p->iterations; i++) {
        uint64_t t0 = hpcb_ticks();
        hpcb_daxpy_update(&v);
        out->ticks[i] = (double)(hpcb_ticks() - t0);
    }
    return hpcb_daxpy_verify_free(&v);
}
