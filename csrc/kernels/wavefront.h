/* wavefront.h - the real wavefront kernel (Hammond et al. 2009, section 3:
 * a Chimaera-like code), on any communicator of m x n ranks, following the
 * contract of hpcbench/predict/_params.py that the analytical model and the
 * simulator share.
 *
 * LAYOUT. The Nx x Ny x Nz grid is cut over m rows (y cut into m) by n
 * columns (x cut into n) of processes; rank r is process (i, j) = (r mod n,
 * r / n), column i from the west, row j from the south, and holds cells
 * i Nx/n .. (i + 1) Nx/n - 1 along x, j Ny/m .. along y, and the whole z
 * column. The arithmetic is wavefront_solve.h's.
 *
 * ONE ITERATION is the eight sweeps of SWEEP_ORDER. Each sweep goes through
 * the rank's stack in Nz/H_tile tiles of H_tile planes, upward or downward
 * as the sweep says; for every tile, in this order:
 *   MPI_Recv the east-west face from the upstream x neighbour (if any),
 *   MPI_Recv the north-south face from the upstream y neighbour (if any),
 *   compute the tile,
 *   MPI_Send the east-west face to the downstream x neighbour (if any),
 *   MPI_Send the north-south face to the downstream y neighbour (if any),
 * all blocking. A face is H_tile planes x the edge's cells x angles doubles:
 * 8 H_tile angles Ny/m bytes east-west, 8 H_tile angles Nx/n north-south
 * (Table 1). Every iteration starts with an untimed MPI_Barrier; the rank
 * times the whole iteration, and within it the computing, the MPI_Send
 * calls and the MPI_Recv calls (waiting included), each summed.
 *
 * VERIFICATION. After warmup + iterations iterations every rank's cells'
 * checksum (wavefront_solve.h) is gathered and summed on every rank. With
 * verify, rank 0 also runs the serial evaluation of as many iterations and
 * broadcasts its checksum; a difference makes every rank return
 * HPCB_ECHECK. Because the result is bitwise independent of the
 * decomposition, any wrong, missing or stale face is a difference.
 *
 * FAULTS (tests of the verification): on rank fault_rank, in the last
 * iteration, in sweep fault_sweep, the first face that rank receives (its
 * first tile's east-west face if it has an upstream x neighbour, else its
 * north-south face) is replaced after the MPI_Recv: CORRUPT adds 1 to its
 * first value; MISSING uses zeros (the face never came); STALE uses the
 * face received before it from the same neighbour direction (the previous
 * sweep's, or zeros if none came yet). The messages themselves still flow,
 * so the run ends and only the verification can tell. */
#ifndef HPCB_WAVEFRONT_H
#define HPCB_WAVEFRONT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"
#include "wavefront_solve.h"

/* The injected faults above, valued 0 to 3 in this order. */
#define HPCB_WAVEFRONT_FAULTS(X) \
    X(WAVEFRONT_FAULT_NONE) X(WAVEFRONT_FAULT_CORRUPT) X(WAVEFRONT_FAULT_MISSING) X(WAVEFRONT_FAULT_STALE)
enum hpcb_wavefront_fault { HPCB_WAVEFRONT_FAULTS(HPCB_ENUMERATOR) HPCB_WAVEFRONT_FAULT_COUNT };

struct hpcb_wavefront_params {
    MPI_Comm comm;
    size_t nx, ny, nz;       /* the grid, cells: nx a multiple of n, ny of m */
    size_t m, n;             /* process rows and columns: m * n = the size of comm */
    size_t h_tile;           /* planes per tile: divides nz */
    size_t angles;           /* doubles per cell on a face: 1..HPCB_WAVEFRONT_MAX_ANGLES */
    size_t work;             /* rounds of the per-cell repetition: 1..HPCB_WAVEFRONT_MAX_WORK */
    size_t warmup;           /* untimed iterations first: 0..HPCB_MAX_SAMPLES */
    size_t iterations;       /* timed iterations: 1..HPCB_MAX_SAMPLES */
    int verify;              /* compare the checksum with the serial evaluation's */
    int fault;               /* enum hpcb_wavefront_fault */
    size_t fault_rank;       /* with a fault: a rank that receives a face in fault_sweep */
    size_t fault_sweep;      /* with a fault: 0..7 */
};

struct hpcb_wavefront_out {
    double *ticks;           /* iterations: this rank's time of each timed iteration */
    double *compute;         /* iterations: of which computing tiles */
    double *send;            /* iterations: of which in MPI_Send */
    double *recv;            /* iterations: of which in MPI_Recv, waiting included */
    uint64_t checksum;       /* the whole grid's, after the run */
    uint64_t expected;       /* the serial evaluation's (with verify; else 0) */
    double total;            /* the sum of every cell's phi (ranks' sums added in rank order) */
    size_t sent_messages;    /* faces this rank sent in one iteration (the last) */
    size_t sent_bytes;       /* their bytes: Table 1's message sizes, summed */
};

/* Every rule that needs no communicator: positive sizes, the m x n array
 * divides the grid, H_tile divides Nz, the bounds of angles, work and the
 * counts, the buffers (a rank's column, its plane of psi, with verify the
 * whole grid) within size_t, a face within one MPI message, the fault. */
int hpcb_wavefront_check_sizes(const struct hpcb_wavefront_params *p, struct hpcb_why *why);
/* Those, then the communicator: m * n must be its size. */
int hpcb_wavefront_check(const struct hpcb_wavefront_params *p, struct hpcb_why *why);

/* Run the kernel (see above). If a rank cannot allocate, every rank
 * returns before the timed loop: that rank HPCB_ENOMEM, the others HPCB_OK
 * with their samples untouched (the caller's combined verdict names it). */
int hpcb_wavefront_run(const struct hpcb_wavefront_params *p, struct hpcb_wavefront_out *out);

#endif /* HPCB_WAVEFRONT_H */
