/* matrix.h - CoMet's matrix layer (Ganapati 1993, sections 3.2.2 and
 * 3.3.8-3.3.11, figures 3.10-3.14 and 4.3-4.4): a global n x n matrix of
 * doubles, block-decomposed over a mesh of rows x cols processes, each
 * block surrounded by a one-element guard wrapper, and the kernels that move
 * it between processes.
 *
 * THE MESH. mesh[r * cols + c] is the rank of comm at mesh row r, column c
 * (any permutation of the ranks: hpcbench lays it out with a Gray code,
 * hpcbench/comm/_mesh.py). The mesh wraps around (a torus): top, bottom,
 * pred and succ of (r, c) are (r - 1, c), (r + 1, c), (r, c - 1) and
 * (r, c + 1), modulo the mesh. The process at (r, c) holds block (r, c):
 * rows r*h .. r*h + h - 1 and columns c*w .. c*w + w - 1 of the matrix, with
 * h = n / rows and w = n / cols, stored row-major as an (h + 2) x (w + 2)
 * array whose first and last rows and columns are the guard wrapper
 * (element (i, j) of the block is at [(i + 1) * (w + 2) + j + 1]).
 *
 * `transposed` is the mesh the matrix lies on after a transpose: cols x
 * rows processes, transposed[r * rows + c] the rank at its row r, column c.
 * For a square mesh it is the mesh itself; for a rectangular one the global
 * matrix is still n x n but its blocks are w x h there (see TRANSPOSE).
 *
 * THE KERNELS (op), each applied warmup + iterations times to one local
 * matrix that starts from the fixed setup (matrix_verify.h):
 *   MATRIX_UPDATE_GUARD  every process sends its first row to top, last row
 *                        to bottom, first column to pred and last column to
 *                        succ, and receives its north, south, west and east
 *                        guard from top, bottom, pred and succ. As CoMet's
 *                        figure 4.3, building the send buffers overlaps the
 *                        communication: the four receives and the two row
 *                        sends (rows are contiguous: sent in place) are
 *                        posted first, then each column is assembled into
 *                        its buffer and sent, then column guards are filled
 *                        from their buffers as they arrive.
 *   MATRIX_SHIFT         the whole local matrix, wrapper included, goes one
 *                        block NORTH (to top; received from bottom) or EAST
 *                        (to succ; from pred); it arrives in a second buffer
 *                        that becomes the local matrix (no copy).
 *   MATRIX_TRANSPOSE     the process at (r, c) sends its whole local matrix
 *                        to the process at (c, r) of the transposed mesh,
 *                        receives from the one that sends to it, and
 *                        transposes what it received, wrapper included, into
 *                        its local matrix. On a square mesh this is CoMet's
 *                        exchange with the transposed mesh position; the
 *                        diagonal transposes in place without messages. The
 *                        next application goes back from the transposed mesh.
 *   MATRIX_ROW_BROADCAST global row `index`: the processes of its block row
 *                        broadcast their part of it (w doubles, contiguous)
 *                        with MPI_Bcast to every process of their mesh
 *                        column, into the same local row.
 *   MATRIX_COL_BROADCAST global column `index`: the processes of its block
 *                        column assemble their part (h doubles, one per row)
 *                        into a buffer and broadcast it to every process of
 *                        their mesh row, which copy it into the same local
 *                        column.
 *
 * Each application starts with an untimed MPI_Barrier (as the collectives),
 * then each rank times its own part; the caller combines ranks (the slowest
 * rank's time is the kernel's). After the timed loop every rank verifies
 * EVERY element of its local matrix, wrapper included, against the global
 * formula (matrix_verify.h) and returns HPCB_ECHECK, with the first wrong
 * element in out->report, if any differs. */
#ifndef HPCB_MATRIX_H
#define HPCB_MATRIX_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"

/* The kernels above, valued 0 to 4 in this order. */
#define HPCB_MATRIX_OPS(X) \
    X(MATRIX_UPDATE_GUARD) X(MATRIX_SHIFT) X(MATRIX_TRANSPOSE) X(MATRIX_ROW_BROADCAST) X(MATRIX_COL_BROADCAST)
enum hpcb_matrix_op { HPCB_MATRIX_OPS(HPCB_ENUMERATOR) HPCB_MATRIX_OP_COUNT };

/* CoMet's shift directions (its enumerated NORTH and EAST), valued 0 and 1. */
#define HPCB_MATRIX_DIRECTIONS(X) X(MATRIX_NORTH) X(MATRIX_EAST)
enum hpcb_matrix_direction { HPCB_MATRIX_DIRECTIONS(HPCB_ENUMERATOR) HPCB_MATRIX_DIRECTION_COUNT };

/* The largest n: every A(i, j) = i * n + j + 1 is then exact in a double
 * (below 2^53), so the verification compares exactly. */
#define HPCB_MATRIX_MAX_N ((size_t)1 << 26)

struct hpcb_matrix_params {
    MPI_Comm comm;
    int op;                  /* enum hpcb_matrix_op */
    int direction;           /* MATRIX_SHIFT: enum hpcb_matrix_direction (ignored by the other kernels) */
    size_t n;                /* global dimension: a multiple of rows and of cols, at most HPCB_MATRIX_MAX_N */
    size_t rows, cols;       /* the mesh: both at least 2, rows * cols = the size of comm */
    const int *mesh;         /* rows * cols ranks: a permutation of 0 .. rows * cols - 1 */
    const int *transposed;   /* cols * rows ranks: a permutation too */
    size_t index;            /* broadcasts: the global row or column, 0 .. n - 1 (ignored by the others) */
    size_t warmup;           /* untimed applications */
    size_t iterations;       /* timed applications, 1..HPCB_MAX_SAMPLES */
};

struct hpcb_matrix_out {
    double *ticks;           /* iterations: this rank's time of each application */
    double *block;           /* NULL, or room for the local matrix after the last application
                              * (hpcb_matrix_block_shape), copied there whether or not it verified */
    size_t wrong;            /* elements of this rank's local matrix that failed verification */
    char report[320];        /* the first wrong element in words ("" if none) */
};

/* Every rule that needs no communicator: op, direction, the mesh and its
 * transpose (shape and permutations), n against the mesh, the local matrix
 * as one MPI message (at most INT32_MAX doubles), index, iterations. */
int hpcb_matrix_check_sizes(const struct hpcb_matrix_params *p, struct hpcb_why *why);
/* Those, then the communicator: rows * cols must be its size. */
int hpcb_matrix_check(const struct hpcb_matrix_params *p, struct hpcb_why *why);

/* Shape of `rank`'s local matrix, wrapper included, after `applied`
 * applications of p->op: (n/rows + 2) x (n/cols + 2), or the transposed
 * mesh's (n/cols + 2) x (n/rows + 2) after an odd number of transposes.
 * p must pass hpcb_matrix_check_sizes. */
void hpcb_matrix_block_shape(const struct hpcb_matrix_params *p, size_t applied, size_t *block_rows,
                             size_t *block_cols);

/* Run the kernel (see above). If another rank cannot allocate its local
 * matrices, every rank returns before the timed loop: the rank that failed
 * with HPCB_ENOMEM, the others with HPCB_OK and their samples untouched
 * (the caller's combined verdict names the failing rank). */
int hpcb_matrix_run(const struct hpcb_matrix_params *p, struct hpcb_matrix_out *out);

#endif /* HPCB_MATRIX_H */
