/* matrix_verify.h - the fixed setup of CoMet's distributed matrix and the
 * verification of every element after a kernel (CoMet's setup and check
 * modules, which a user porting the benchmark may not change). No MPI: the
 * rank is a parameter, so tests can build and check any rank's block.
 *
 * The global matrix starts as A(i, j) = i * n + j + 1 (every element
 * different, none zero, all exact in a double). After k applications of a
 * kernel (matrix.h) the global matrix is S:
 *   update guard        S = A
 *   shift NORTH         S(i, j) = A((i + k h) mod n, j)      (each block k blocks up)
 *   shift EAST          S(i, j) = A(i, (j - k w) mod n)      (each block k blocks right)
 *   transpose           S(i, j) = A(j, i) if k is odd (on the transposed mesh), else A
 *   row broadcast of g  S(i, j) = A(g, j) where i mod h = g mod h, else A(i, j)   (k >= 1)
 *   column broadcast    S(i, j) = A(i, g) where j mod w = g mod w, else A(i, j)   (k >= 1)
 * with h = n / rows, w = n / cols of the mesh M the kernel starts on.
 *
 * The process at (r, c) of the mesh the matrix lies on (M, or its transpose
 * after an odd number of transposes), with blocks of H x W, holds in its
 * (H + 2) x (W + 2) local matrix:
 *   interior (i, j)  S(r H + i, c W + j);
 *   guard (the wrapper's north and south rows and west and east columns,
 *   corners excluded) S at the global index of that element, wrapped modulo
 *   n (the neighbouring block's edge; the mesh is a torus), wherever the
 *   kernel keeps the wrapper up to date: update guard once applied, shift
 *   and transpose always (their setup fills it, as an update guard would,
 *   and they move it with the block); HPCB_MATRIX_UNSET otherwise (the
 *   broadcasts never touch it);
 *   the four corners: HPCB_MATRIX_UNSET always (CoMet's wrapper exchange
 *   fills north, south, east and west only).
 * The setup is that state for k = 0. */
#ifndef HPCB_MATRIX_VERIFY_H
#define HPCB_MATRIX_VERIFY_H

#include <stddef.h>

#include "matrix.h"

/* What the wrapper holds where no kernel writes (A is positive). */
#define HPCB_MATRIX_UNSET (-1.0)

/* Where a rank's block lies after some applications of a kernel. */
struct hpcb_matrix_place {
    size_t row, col;         /* its position in the mesh the matrix lies on */
    size_t h, w;             /* the block's rows and columns (wrapper excluded) */
    int transposed;          /* 1 if that mesh is p->transposed, 0 if p->mesh */
};

/* The place of `rank` after `applied` applications of p->op (p must pass
 * hpcb_matrix_check_sizes; rank must be in its mesh). */
void hpcb_matrix_place(const struct hpcb_matrix_params *p, int rank, size_t applied, struct hpcb_matrix_place *place);

/* Fill `block` (hpcb_matrix_block_shape(p, applied)) with what `rank`'s
 * local matrix must hold after `applied` applications of p->op; applied = 0
 * is the setup every run starts from. p must pass hpcb_matrix_check_sizes
 * and rank must be in its mesh. */
void hpcb_matrix_expected(const struct hpcb_matrix_params *p, int rank, size_t applied, double *block);

/* The number of elements of `block` that differ from hpcb_matrix_expected
 * (every one is compared; NaN differs from everything). If any does and
 * `report` is not NULL, the first in words: its part of the local matrix,
 * local and global position, what it holds and what it should. */
size_t hpcb_matrix_verify(const struct hpcb_matrix_params *p, int rank, size_t applied, const double *block,
                          char *report, size_t report_size);

#endif /* HPCB_MATRIX_VERIFY_H */
