/* matrix_verify.c - see matrix_verify.h. One function, element(), says
 * what any element of any rank's local matrix holds after any number of
 * applications; the setup writes it for none, the verification compares
 * with it. */
#include "matrix_verify.h"

#include <stdio.h>

void hpcb_matrix_place(const struct hpcb_matrix_params *p, int rank, size_t applied, struct hpcb_matrix_place *place)
{
    int transposed = p->op == HPCB_MATRIX_TRANSPOSE && applied % 2 == 1;
    size_t rows = transposed ? p->cols : p->rows, cols = transposed ? p->rows : p->cols;
    const int *ranks = transposed ? p->transposed : p->mesh;
    size_t at = 0;
    while (at + 1 < rows * cols && ranks[at] != rank)
        at++;
    place->row = at / cols;
    place->col = at % cols;
    place->h = p->n / rows;
    place->w = p->n / cols;
    place->transposed = transposed;
}

/* The starting matrix A. */
static double base(size_t n, size_t i, size_t j)
{
    return (double)(i * n + j + 1);
}

/* S(i, j) after `applied` applications (matrix_verify.h), 0 <= i, j < n. */
static double global(const struct hpcb_matrix_params *p, size_t applied, size_t i, size_t j)
{
    size_t n = p->n, h = n / p->rows, w = n / p->cols;
    switch (p->op) {
    case HPCB_MATRIX_SHIFT:
        if (p->direction == HPCB_MATRIX_NORTH)
            return base(n, (i + (applied % p->rows) * h) % n, j);
        return base(n, i, (j + n - (applied % p->cols) * w) % n);
    case HPCB_MATRIX_TRANSPOSE:
        return applied % 2 ? base(n, j, i) : base(n, i, j);
    case HPCB_MATRIX_ROW_BROADCAST:
        return applied > 0 && i % h == p->index % h ? base(n, p->index, j) : base(n, i, j);
    case HPCB_MATRIX_COL_BROADCAST:
        return applied > 0 && j % w == p->index % w ? base(n, i, p->index) : base(n, i, j);
    default:   /* update guard: the matrix itself never changes */
        return base(n, i, j);
    }
}

/* Whether the kernel keeps the wrapper (corners excluded) up to date. */
static int guards_valid(const struct hpcb_matrix_params *p, size_t applied)
{
    return p->op == HPCB_MATRIX_SHIFT || p->op == HPCB_MATRIX_TRANSPOSE ||
           (p->op == HPCB_MATRIX_UPDATE_GUARD && applied > 0);
}

/* The parts of a local matrix, for the report. */
static const char *part(const struct hpcb_matrix_place *pl, size_t a, size_t b)
{
    int north = a == 0, south = a == pl->h + 1, west = b == 0, east = b == pl->w + 1;
    if ((north || south) && (west || east))
        return "wrapper corner";
    return north ? "north guard" : south ? "south guard" : west ? "west guard" : east ? "east guard" : "interior";
}

/* Element (a, b) of the local matrix (row a, column b of the (h + 2) x
 * (w + 2) array, the wrapper at 0 and h + 1, 0 and w + 1); its global index,
 * wrapped, in *gi and *gj (meaningless for the corners). */
static double element(const struct hpcb_matrix_params *p, size_t applied, const struct hpcb_matrix_place *pl,
                      int guards, size_t a, size_t b, size_t *gi, size_t *gj)
{
    size_t n = p->n;
    int edge_row = a == 0 || a == pl->h + 1, edge_col = b == 0 || b == pl->w + 1;
    *gi = (pl->row * pl->h + a + n - 1) % n;
    *gj = (pl->col * pl->w + b + n - 1) % n;
    if ((edge_row && edge_col) || ((edge_row || edge_col) && !guards))
        return HPCB_MATRIX_UNSET;
    return global(p, applied, *gi, *gj);
}

void hpcb_matrix_expected(const struct hpcb_matrix_params *p, int rank, size_t applied, double *block)
{
    struct hpcb_matrix_place pl;
    hpcb_matrix_place(p, rank, applied, &pl);
    int guards = guards_valid(p, applied);
    size_t gi, gj, stride = pl.w + 2;
    for (size_t a = 0; a < pl.h + 2; a++)
        for (size_t b = 0; b < stride; b++)
            block[a * stride + b] = element(p, applied, &pl, guards, a, b, &gi, &gj);
}

size_t hpcb_matrix_verify(const struct hpcb_matrix_params *p, int rank, size_t applied, const double *block,
                          char *report, size_t report_size)
{
    struct hpcb_matrix_place pl;
    hpcb_matrix_place(p, rank, applied, &pl);
    int guards = guards_valid(p, applied);
    size_t wrong = 0, gi, gj, stride = pl.w + 2, total = (pl.h + 2) * stride;
    size_t first_a = 0, first_b = 0;
    double first_found = 0.0, first_expected = 0.0;
    for (size_t a = 0; a < pl.h + 2; a++)
        for (size_t b = 0; b < stride; b++) {
            double expected = element(p, applied, &pl, guards, a, b, &gi, &gj), found = block[a * stride + b];
            if (found == expected)
                continue;
            if (wrong++ == 0) {
                first_a = a;
                first_b = b;
                first_found = found;
                first_expected = expected;
            }
        }
    if (wrong > 0 && report != NULL && report_size > 0) {
        element(p, applied, &pl, guards, first_a, first_b, &gi, &gj);
        const char *where = part(&pl, first_a, first_b);
        char global_index[64] = "";
        if (where[0] != 'w')   /* a corner has no place in the global matrix */
            snprintf(global_index, sizeof global_index, " (global (%zu, %zu))", gi, gj);
        snprintf(report, report_size,
                 "%zu of the %zu elements of rank %d's local matrix are wrong; the first, the %s element at "
                 "(%zu, %zu) of its %zu x %zu array%s, holds %.17g instead of %.17g",
                 wrong, total, rank, where, first_a, first_b, pl.h + 2, stride, global_index, first_found,
                 first_expected);
    }
    return wrong;
}
