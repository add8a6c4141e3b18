/* wavefront_solve.h - the arithmetic of the wavefront kernel (wavefront.h,
 * Hammond et al. 2009's Chimaera-like code): one tile of one sweep through
 * a block of cells, the block's state, its checksum, and the serial
 * evaluation of the whole grid that the parallel runs are verified against.
 * No MPI and no timing here, so the serial reference and every rank of
 * every decomposition run exactly the same per-cell code.
 *
 * THE GRID is Nx x Ny x Nz cells, cell (gx, gy, gz) with global index
 * gid = gx + Nx (gy + Ny gz). A block is the cells x0 .. x0 + cx - 1,
 * y0 .. y0 + cy - 1 and the whole z column (a rank's share; the serial
 * evaluation's block is the whole grid).
 *
 * THE SWEEPS are hpcbench/predict/_params.py's SWEEP_ORDER: sweep s starts
 * at the east (x falling) or west (x rising) side, the north (y falling) or
 * south (y rising) side, and goes up (z rising) or down in z. Within a sweep
 * a cell's upstream neighbours are the previous cell along x, along y and
 * along z in the sweep's directions; at the grid's edge an upstream value
 * is 0 (vacuum boundary).
 *
 * THE CELL, for every angle a (angles per cell, as Table 1's faces carry),
 * is a step-scheme transport solve repeated `work` times (the tunable cost):
 *     b_a   = q + t_a + mu_a psi_x + eta_a psi_y + xi_a psi_z
 *     psi_a = 0, then `work` times: psi_a = (b_a + R psi_a) / (1 + mu_a + eta_a + xi_a + R)
 * where psi_x, psi_y, psi_z are the upstream cells' psi_a (one double per
 * angle: the face values the messages carry), q = src(gid, s) + phi / 2 (a
 * fixed pseudo-random source of the global cell index and the sweep, plus
 * the scattering of the cell's scalar flux so far), t_a a per-angle tilt.
 * The inner repetition converges towards b_a / (1 + mu_a + eta_a + xi_a),
 * which still depends on every input (an iteration that forgot its inputs
 * would let a wrong face pass the check). Then the cell's scalar flux
 * becomes phi = phi / 2 + (sum over a of psi_a) / (2 angles), and psi_a is
 * what the cell passes downstream in x, y and z. Every value stays
 * bounded (below 4 for any work and any number of iterations).
 *
 * A cell's arithmetic depends on its inputs, gid, the sweep and the angle
 * only, never on the block or the tile it lies in, and blocks solve their
 * cells in an order that respects every dependency: so the final phi of
 * every cell is bitwise the same for any decomposition and any H_tile.
 *
 * THE CHECKSUM of a set of cells is the sum, modulo 2^64, of
 * mix(bits of phi XOR gid times an odd constant) over the cells: exact and
 * independent of the order the cells are visited in (ranks add their
 * sums), and any change of any bit of any cell's phi changes it. */
#ifndef HPCB_WAVEFRONT_SOLVE_H
#define HPCB_WAVEFRONT_SOLVE_H

#include <stddef.h>
#include <stdint.h>

/* The bounds every wavefront check applies: angles per cell and rounds of
 * the per-cell repetition. */
#define HPCB_WAVEFRONT_MAX_ANGLES ((size_t)4096)
#define HPCB_WAVEFRONT_MAX_WORK ((size_t)1 << 30)

/* Eight sweeps an iteration (SWEEP_ORDER); the three bits of each. */
#define HPCB_WAVEFRONT_SWEEPS 8
int hpcb_wavefront_from_east(int sweep);    /* starts east: x falls */
int hpcb_wavefront_from_north(int sweep);   /* starts north: y falls */
int hpcb_wavefront_upward(int sweep);       /* z rises */

/* A block of cells and its state. */
struct hpcb_wavefront_block {
    size_t nx, ny, nz;       /* the global grid (for gid) */
    size_t x0, y0;           /* the block's first cell (west, south) */
    size_t cx, cy;           /* cells along x and y; every plane of the column */
    size_t angles, work;
    double *phi;             /* cx * cy * nz scalar fluxes, x fastest, then y, then z */
    double *psi;             /* cx * cy * angles: psi of the plane solved last, per cell */
    double *coef;            /* 5 * angles: mu, eta, xi, 1 / (1 + mu + eta + xi + R), tilt */
    double *scratch;         /* angles: one cell's b */
    double *zero;            /* angles zeros: the vacuum boundary */
};

/* The block's buffers, phi set to 0. HPCB_OK or HPCB_ENOMEM (nothing to
 * free then). The caller has checked that the sizes do not overflow. */
int hpcb_wavefront_block_init(struct hpcb_wavefront_block *b, size_t nx, size_t ny, size_t nz, size_t x0, size_t y0,
                              size_t cx, size_t cy, size_t angles, size_t work);
void hpcb_wavefront_block_free(struct hpcb_wavefront_block *b);

/* Solve tile `tile` (0 first in the sweep's z direction) of `h` planes of
 * `sweep` through the block. Faces are h planes in the sweep's z order; an
 * east-west face holds, per plane, cy cells (local y from south) of
 * `angles` doubles; a north-south face cx cells (local x from west). ew_in
 * and ns_in are the upstream faces, NULL at the grid's edge (vacuum);
 * ew_out and ns_out receive the downstream edge's psi, NULL to skip. */
void hpcb_wavefront_tile(struct hpcb_wavefront_block *b, int sweep, size_t tile, size_t h, const double *ew_in,
                         const double *ns_in, double *ew_out, double *ns_out);

/* The checksum of the block's cells (above). */
uint64_t hpcb_wavefront_block_checksum(const struct hpcb_wavefront_block *b);

/* The sum of the block's phi, in its storage order (for people: unlike
 * the checksum, its rounding depends on the order). */
double hpcb_wavefront_block_total(const struct hpcb_wavefront_block *b);

/* The serial evaluation: `iterations` iterations of the eight sweeps over
 * the whole grid as one block, tile by tile of one plane, on this process;
 * its checksum and total. HPCB_OK or HPCB_ENOMEM. */
int hpcb_wavefront_serial(size_t nx, size_t ny, size_t nz, size_t angles, size_t work, size_t iterations,
                          uint64_t *checksum, double *total);

#endif /* HPCB_WAVEFRONT_SOLVE_H */
