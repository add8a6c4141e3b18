/* wavefront_wg.c - see wavefront_wg.h. */
#include "wavefront_wg.h"

#include <stdint.h>
#include <stdlib.h>

#include "../runtime/timer.h"
#include "wavefront_solve.h"

/* a * b * c * sizeof(double) into *out; 1 if it overflows size_t. */
static int bytes_of(size_t *out, size_t a, size_t b, size_t c)
{
    size_t t;
    return __builtin_mul_overflow(a, b, &t) || __builtin_mul_overflow(t, c, &t) ||
           __builtin_mul_overflow(t, sizeof(double), out);
}

int hpcb_wavefront_wg_check(const struct hpcb_wavefront_wg_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    const char *names[] = {"cells_x", "cells_y", "nz", "h_tile"};
    size_t values[] = {p->cells_x, p->cells_y, p->nz, p->h_tile};
    for (int k = 0; k < 4; k++)
        if ((rc = hpcb_why_range(why, names[k], values[k], 1, SIZE_MAX, " cells")) != HPCB_OK)
            return rc;
    if (p->nz % p->h_tile != 0)
        return hpcb_why_set(why, "h_tile", "must divide nz = %zu (whole tiles of planes), got %zu", p->nz, p->h_tile);
    if ((rc = hpcb_why_range(why, "angles", p->angles, 1, HPCB_WAVEFRONT_MAX_ANGLES, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "work", p->work, 1, HPCB_WAVEFRONT_MAX_WORK, " rounds")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, HPCB_MAX_SAMPLES, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "repetitions", p->repetitions, 1, HPCB_MAX_SAMPLES, "")) != HPCB_OK)
        return rc;
    size_t bytes, edge = p->cells_x > p->cells_y ? p->cells_x : p->cells_y;
    if (bytes_of(&bytes, p->cells_x, p->cells_y, p->nz) || bytes_of(&bytes, p->cells_x, p->cells_y, p->angles) ||
        bytes_of(&bytes, p->h_tile, edge, p->angles))
        return hpcb_why_set(why, "nz", "must keep the stack (cells_x x cells_y x nz and x angles doubles) and a "
                            "face within size_t, got %zu x %zu x %zu with %zu angles", p->cells_x, p->cells_y, p->nz,
                            p->angles);
    return HPCB_OK;
}

int hpcb_wavefront_wg_run(const struct hpcb_wavefront_wg_params *p, struct hpcb_wavefront_wg_out *out)
{
    int rc = hpcb_contract_start(hpcb_wavefront_wg_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    struct hpcb_wavefront_block b;
    /* The stack as one process's block of a grid as wide as it: the cells'
     * global indexes only feed the source term. */
    if (hpcb_wavefront_block_init(&b, p->cells_x, p->cells_y, p->nz, 0, 0, p->cells_x, p->cells_y, p->angles,
                                  p->work) != HPCB_OK)
        return HPCB_ENOMEM;
    size_t ew = p->h_tile * p->cells_y * p->angles, ns = p->h_tile * p->cells_x * p->angles;
    double *ew_in = malloc(ew * sizeof(double)), *ns_in = malloc(ns * sizeof(double));
    double *ew_out = malloc(ew * sizeof(double)), *ns_out = malloc(ns * sizeof(double));
    if (ew_in == NULL || ns_in == NULL || ew_out == NULL || ns_out == NULL) {
        rc = HPCB_ENOMEM;
    } else {
        /* Upstream faces of a typical size (psi stays between 0 and 4). */
        for (size_t k = 0; k < ew; k++)
            ew_in[k] = 1.0 + 0.001 * (double)(k % 97);
        for (size_t k = 0; k < ns; k++)
            ns_in[k] = 1.0 + 0.001 * (double)(k % 89);
        size_t tiles = p->nz / p->h_tile;
        for (size_t r = 0; r < p->warmup + p->repetitions; r++) {
            int s = (int)(r % HPCB_WAVEFRONT_SWEEPS);
            uint64_t t0 = hpcb_ticks();
            for (size_t t = 0; t < tiles; t++)
                hpcb_wavefront_tile(&b, s, t, p->h_tile, ew_in, ns_in, ew_out, ns_out);
            uint64_t t1 = hpcb_ticks();
            if (r >= p->warmup)
                out->ticks[r - p->warmup] = (double)(t1 - t0);
        }
        /* The faces written are the work's result: keep them observable. */
        hpcb_sink_size((size_t)(ew_out[0] > ns_out[0]));
    }
    free(ew_in);
    free(ns_in);
    free(ew_out);
    free(ns_out);
    hpcb_wavefront_block_free(&b);
    return rc;
}
