/* wavefront_wg.h - W_g, the wavefront kernel's computing time per cell on
 * one process, as Hammond et al. measure it (section 4.1: "a manually
 * instrumented version of the benchmark that times the core computational
 * kernel"): the tiles of a rank's stack solved with no MPI at all.
 *
 * One sample is one sweep through a stack of cells_x x cells_y cells and nz
 * planes, in tiles of h_tile planes, solved exactly as an interior rank of
 * the real kernel solves them (wavefront_solve.h: upstream faces read from
 * buffers, downstream faces written to buffers, the block's state carried
 * from sample to sample); sample k runs sweep k mod 8, so every direction
 * is timed. W_g is a sample's ticks / (cells_x cells_y nz); the caller
 * picks the statistic. No MPI: any process may call it. */
#ifndef HPCB_WAVEFRONT_WG_H
#define HPCB_WAVEFRONT_WG_H

#include <stddef.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"
#include "wavefront_solve.h"

struct hpcb_wavefront_wg_params {
    size_t cells_x, cells_y; /* a tile's plane: Nx/n x Ny/m cells */
    size_t nz;               /* planes of the stack */
    size_t h_tile;           /* planes per tile: divides nz */
    size_t angles;           /* 1..HPCB_WAVEFRONT_MAX_ANGLES */
    size_t work;             /* 1..HPCB_WAVEFRONT_MAX_WORK */
    size_t warmup;           /* untimed sweeps first: 0..HPCB_MAX_SAMPLES */
    size_t repetitions;      /* timed sweeps: 1..HPCB_MAX_SAMPLES */
};

struct hpcb_wavefront_wg_out {
    double *ticks;           /* repetitions: ticks of each sweep through the stack */
};

/* Positive sizes, h_tile divides nz, the bounds of angles, work and the
 * counts, the stack (cells_x x cells_y x nz and x angles doubles) and a
 * face within size_t. */
int hpcb_wavefront_wg_check(const struct hpcb_wavefront_wg_params *p, struct hpcb_why *why);

/* Time the sweeps (above). HPCB_OK, or HPCB_ENOMEM before any timing. */
int hpcb_wavefront_wg_run(const struct hpcb_wavefront_wg_params *p, struct hpcb_wavefront_wg_out *out);

#endif /* HPCB_WAVEFRONT_WG_H */
