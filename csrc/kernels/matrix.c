/* matrix.c - CoMet's matrix kernels; see matrix.h. The setup and the
 * verification are matrix_verify.c's. */
#include "matrix.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/timer.h"
#include "comm.h"
#include "matrix_verify.h"

/* One tag per message kind: with two rows (or columns) top and bottom (pred
 * and succ) are the same rank, and only the tag tells its two messages apart. */
enum {
    TAG_UP = 4501,        /* a first row, to top: its south guard */
    TAG_DOWN = 4502,      /* a last row, to bottom: its north guard */
    TAG_LEFT = 4503,      /* a first column, to pred: its east guard */
    TAG_RIGHT = 4504,     /* a last column, to succ: its west guard */
    TAG_SHIFT = 4505,
    TAG_TRANSPOSE = 4506
};

/* Local matrices are page-aligned, as MPI benchmarks allocate message
 * buffers (a page-aligned buffer is what the peer program uses too). */
#define MATRIX_ALIGN 4096

static const char *const ops[] = {HPCB_MATRIX_OPS(HPCB_ENUM_NAME)};
static const char *const directions[] = {HPCB_MATRIX_DIRECTIONS(HPCB_ENUM_NAME)};

/* `ranks` holds each of 0 .. count - 1 exactly once. */
static int check_permutation(const char *parameter, const int *ranks, size_t count, struct hpcb_why *why)
{
    if (ranks == NULL)
        return hpcb_why_set(why, parameter, "must list the ranks of the mesh, got NULL");
    unsigned char *seen = calloc(count, 1);
    if (seen == NULL)
        return HPCB_ENOMEM;
    int rc = HPCB_OK;
    for (size_t i = 0; rc == HPCB_OK && i < count; i++) {
        int r = ranks[i];
        if (r < 0 || (size_t)r >= count)
            rc = hpcb_why_set(why, parameter, "must hold the ranks 0..%zu, one per mesh position, got %d at "
                              "position %zu", count - 1, r, i);
        else if (seen[r]++)
            rc = hpcb_why_set(why, parameter, "must hold every rank once, got rank %d twice", r);
    }
    free(seen);
    return rc;
}

static int is_broadcast(int op)
{
    return op == HPCB_MATRIX_ROW_BROADCAST || op == HPCB_MATRIX_COL_BROADCAST;
}

int hpcb_matrix_check_sizes(const struct hpcb_matrix_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_choice(why, "op", p->op, ops, HPCB_MATRIX_OP_COUNT)) != HPCB_OK ||
        (p->op == HPCB_MATRIX_SHIFT &&
         (rc = hpcb_why_choice(why, "direction", p->direction, directions, HPCB_MATRIX_DIRECTION_COUNT)) != HPCB_OK))
        return rc;
    /* Two rows and two columns at least: a mesh, not a ring (1 x P) or a point. */
    if ((rc = hpcb_why_range(why, "rows", p->rows, 2, INT_MAX, " (a mesh of at least 2 x 2 processes)")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "cols", p->cols, 2, INT_MAX, " (a mesh of at least 2 x 2 processes)")) != HPCB_OK)
        return rc;
    if (p->rows * p->cols > INT_MAX)
        return hpcb_why_set(why, "cols", "must keep rows x cols within an MPI communicator (%d ranks), got %zu x %zu",
                            INT_MAX, p->rows, p->cols);
    size_t longer = p->rows > p->cols ? p->rows : p->cols;
    if (p->n < longer)
        return hpcb_why_set(why, "n", "must be at least the mesh's longer side (%zu, a %zu x %zu mesh), got %zu",
                            longer, p->rows, p->cols, p->n);
    if (p->n % p->rows != 0 || p->n % p->cols != 0)
        return hpcb_why_set(why, "n", "must be a multiple of both sides of the %zu x %zu mesh (every block the same "
                            "size), got %zu", p->rows, p->cols, p->n);
    if (p->n > HPCB_MATRIX_MAX_N)
        return hpcb_why_set(why, "n", "must be at most %zu (every element exact in a double), got %zu",
                            HPCB_MATRIX_MAX_N, p->n);
    size_t h = p->n / p->rows, w = p->n / p->cols;
    if ((h + 2) * (w + 2) > INT32_MAX)
        return hpcb_why_set(why, "n", "must keep a local matrix, wrapper included ((n/rows + 2) x (n/cols + 2) "
                            "doubles), within one MPI message of INT32_MAX elements, got %zu on a %zu x %zu mesh",
                            p->n, p->rows, p->cols);
    if (is_broadcast(p->op) && p->index >= p->n)
        return hpcb_why_set(why, "index", "must be a %s of the matrix, 0..%zu, got %zu",
                            p->op == HPCB_MATRIX_ROW_BROADCAST ? "row" : "column", p->n - 1, p->index);
    if ((rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK ||
        (rc = check_permutation("mesh", p->mesh, p->rows * p->cols, why)) != HPCB_OK)
        return rc;
    return check_permutation("transposed", p->transposed, p->rows * p->cols, why);
}

int hpcb_matrix_check(const struct hpcb_matrix_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if ((rc = hpcb_matrix_check_sizes(p, why)) != HPCB_OK || (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != 0)
        return rc;
    if (p->rows * p->cols != (size_t)size)
        return hpcb_why_set(why, "rows", "x cols must be the number of ranks of comm (%d), got a %zu x %zu mesh", size,
                            p->rows, p->cols);
    return HPCB_OK;
}

void hpcb_matrix_block_shape(const struct hpcb_matrix_params *p, size_t applied, size_t *block_rows,
                             size_t *block_cols)
{
    int transposed = p->op == HPCB_MATRIX_TRANSPOSE && applied % 2 == 1;
    *block_rows = p->n / (transposed ? p->cols : p->rows) + 2;
    *block_cols = p->n / (transposed ? p->rows : p->cols) + 2;
}

/* One run: the local matrix, its spare, and who this rank talks to. */
struct matrix_run {
    const struct hpcb_matrix_params *p;
    int rank;
    double *cur;                  /* the local matrix */
    double *spare;                /* shift and transpose receive here, then swap */
    double *lines;                /* 4 x max(h, w): column buffers (out west, out east, in west, in east) */
    struct hpcb_matrix_place place[2];   /* this rank on the mesh [0] and on its transpose [1] */
    int on_transposed;            /* transpose: which of the two the matrix lies on now */
    int top, bottom, pred, succ;  /* neighbours on the mesh */
    int send_to[2], receive_from[2];   /* transpose, from the mesh [0] or from its transpose [1] */
    MPI_Comm line;                /* broadcasts: this rank's mesh column (rows) or mesh row (columns) */
};

static int at(const int *ranks, size_t cols, size_t r, size_t c)
{
    return ranks[r * cols + c];
}

/* Neighbours on the mesh and, for transpose, the partners between the mesh
 * and its transpose. */
static void find_partners(struct matrix_run *m)
{
    const struct hpcb_matrix_params *p = m->p;
    size_t R = p->rows, C = p->cols, r = m->place[0].row, c = m->place[0].col;
    m->top = at(p->mesh, C, (r + R - 1) % R, c);
    m->bottom = at(p->mesh, C, (r + 1) % R, c);
    m->pred = at(p->mesh, C, r, (c + C - 1) % C);
    m->succ = at(p->mesh, C, r, (c + 1) % C);
    if (p->op != HPCB_MATRIX_TRANSPOSE)
        return;
    /* (r, c) of the mesh goes to (c, r) of the transposed mesh; so what
     * arrives at (x, y) of the transposed mesh comes from (y, x) of the mesh,
     * and the way back is the inverse. */
    size_t tr = m->place[1].row, tc = m->place[1].col;
    m->send_to[0] = at(p->transposed, R, c, r);
    m->receive_from[0] = at(p->mesh, C, tc, tr);
    m->send_to[1] = m->receive_from[0];
    m->receive_from[1] = m->send_to[0];
}

static int mpi(int status)
{
    return status == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
}

/* Column b of an array of `rows` rows of `stride` doubles, rows 1..count. */
static void gather_column(const double *a, size_t stride, size_t b, size_t count, double *out)
{
    for (size_t i = 0; i < count; i++)
        out[i] = a[(i + 1) * stride + b];
}

static void scatter_column(double *a, size_t stride, size_t b, size_t count, const double *in)
{
    for (size_t i = 0; i < count; i++)
        a[(i + 1) * stride + b] = in[i];
}

/* CoMet's figure 4.3 in MPI: receives first, the rows (contiguous) sent in
 * place, each column assembled then sent while the rows travel, column
 * guards filled as their messages arrive. */
static int update_guard(struct matrix_run *m)
{
    MPI_Comm comm = m->p->comm;
    size_t h = m->place[0].h, w = m->place[0].w, s = w + 2, line = h > w ? h : w;
    double *a = m->cur, *west_out = m->lines, *east_out = west_out + line, *west_in = east_out + line,
           *east_in = west_in + line;
    int hi = (int)h, wi = (int)w;
    MPI_Request rq[8];
    if (mpi(MPI_Irecv(a + 1, wi, MPI_DOUBLE, m->top, TAG_DOWN, comm, &rq[0])) ||
        mpi(MPI_Irecv(a + (h + 1) * s + 1, wi, MPI_DOUBLE, m->bottom, TAG_UP, comm, &rq[1])) ||
        mpi(MPI_Irecv(west_in, hi, MPI_DOUBLE, m->pred, TAG_RIGHT, comm, &rq[2])) ||
        mpi(MPI_Irecv(east_in, hi, MPI_DOUBLE, m->succ, TAG_LEFT, comm, &rq[3])) ||
        mpi(MPI_Isend(a + s + 1, wi, MPI_DOUBLE, m->top, TAG_UP, comm, &rq[4])) ||
        mpi(MPI_Isend(a + h * s + 1, wi, MPI_DOUBLE, m->bottom, TAG_DOWN, comm, &rq[5])))
        return HPCB_EMPI;
    gather_column(a, s, 1, h, west_out);
    if (mpi(MPI_Isend(west_out, hi, MPI_DOUBLE, m->pred, TAG_LEFT, comm, &rq[6])))
        return HPCB_EMPI;
    gather_column(a, s, w, h, east_out);
    if (mpi(MPI_Isend(east_out, hi, MPI_DOUBLE, m->succ, TAG_RIGHT, comm, &rq[7])))
        return HPCB_EMPI;
    for (int k = 0; k < 4; k++) {
        int which;
        if (mpi(MPI_Waitany(4, rq, &which, MPI_STATUS_IGNORE)))
            return HPCB_EMPI;
        if (which == 2)
            scatter_column(a, s, 0, h, west_in);
        else if (which == 3)
            scatter_column(a, s, w + 1, h, east_in);
    }
    return mpi(MPI_Waitall(4, rq + 4, MPI_STATUSES_IGNORE));
}

static void swap(struct matrix_run *m)
{
    double *t = m->cur;
    m->cur = m->spare;
    m->spare = t;
}

/* The whole local matrix, wrapper included, one block north or east. */
static int shift(struct matrix_run *m)
{
    size_t count = (m->place[0].h + 2) * (m->place[0].w + 2);
    int north = m->p->direction == HPCB_MATRIX_NORTH;
    MPI_Request rq[2];
    if (mpi(MPI_Irecv(m->spare, (int)count, MPI_DOUBLE, north ? m->bottom : m->pred, TAG_SHIFT, m->p->comm, &rq[0])) ||
        mpi(MPI_Isend(m->cur, (int)count, MPI_DOUBLE, north ? m->top : m->succ, TAG_SHIFT, m->p->comm, &rq[1])) ||
        mpi(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE)))
        return HPCB_EMPI;
    swap(m);
    return HPCB_OK;
}

/* dst (cols x rows) = the transpose of src (rows x cols), in tiles that
 * keep both sides' lines in cache. */
static void transpose_array(const double *src, size_t rows, size_t cols, double *dst)
{
    enum { TILE = 32 };
    for (size_t i0 = 0; i0 < rows; i0 += TILE)
        for (size_t j0 = 0; j0 < cols; j0 += TILE) {
            size_t i1 = i0 + TILE < rows ? i0 + TILE : rows, j1 = j0 + TILE < cols ? j0 + TILE : cols;
            for (size_t j = j0; j < j1; j++)
                for (size_t i = i0; i < i1; i++)
                    dst[j * rows + i] = src[i * cols + j];
        }
}

/* Exchange with the transposed mesh position, then transpose locally. */
static int transpose(struct matrix_run *m)
{
    int t = m->on_transposed;
    size_t rows = m->place[t].h + 2, cols = m->place[t].w + 2;
    int to = m->send_to[t], from = m->receive_from[t];
    if (to == m->rank) {          /* on the diagonal: from == rank too, no message */
        transpose_array(m->cur, rows, cols, m->spare);
        swap(m);
    } else {
        MPI_Request rq[2];
        if (mpi(MPI_Irecv(m->spare, (int)(rows * cols), MPI_DOUBLE, from, TAG_TRANSPOSE, m->p->comm, &rq[0])) ||
            mpi(MPI_Isend(m->cur, (int)(rows * cols), MPI_DOUBLE, to, TAG_TRANSPOSE, m->p->comm, &rq[1])) ||
            mpi(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE)))
            return HPCB_EMPI;
        transpose_array(m->spare, rows, cols, m->cur);   /* every block of a mesh has the same shape */
    }
    m->on_transposed = !t;
    return HPCB_OK;
}

/* Row `index`'s part on each block row's owner, to its mesh column. */
static int row_broadcast(struct matrix_run *m)
{
    size_t h = m->place[0].h, w = m->place[0].w, g = m->p->index;
    return mpi(MPI_Bcast(m->cur + (g % h + 1) * (w + 2) + 1, (int)w, MPI_DOUBLE, (int)(g / h), m->line));
}

/* Column `index`'s part, assembled into a buffer, to the owner's mesh row. */
static int col_broadcast(struct matrix_run *m)
{
    size_t h = m->place[0].h, w = m->place[0].w, g = m->p->index, b = g % w + 1;
    int owner = m->place[0].col == g / w;
    if (owner)
        gather_column(m->cur, w + 2, b, h, m->lines);
    if (mpi(MPI_Bcast(m->lines, (int)h, MPI_DOUBLE, (int)(g / w), m->line)))
        return HPCB_EMPI;
    if (!owner)
        scatter_column(m->cur, w + 2, b, h, m->lines);
    return HPCB_OK;
}

static int apply(struct matrix_run *m)
{
    switch (m->p->op) {
    case HPCB_MATRIX_UPDATE_GUARD: return update_guard(m);
    case HPCB_MATRIX_SHIFT: return shift(m);
    case HPCB_MATRIX_TRANSPOSE: return transpose(m);
    case HPCB_MATRIX_ROW_BROADCAST: return row_broadcast(m);
    case HPCB_MATRIX_COL_BROADCAST: return col_broadcast(m);
    }
    return HPCB_EINVAL;
}

static double *alloc_doubles(size_t count)
{
    void *ptr = NULL;
    size_t bytes = (count * sizeof(double) + MATRIX_ALIGN - 1) / MATRIX_ALIGN * MATRIX_ALIGN;
    return posix_memalign(&ptr, MATRIX_ALIGN, bytes) == 0 ? ptr : NULL;
}

/* Free what prepare made; HPCB_EMPI if the line communicator cannot be freed. */
static int release(struct matrix_run *m)
{
    free(m->cur);
    free(m->spare);
    free(m->lines);
    return m->line != MPI_COMM_NULL ? mpi(MPI_Comm_free(&m->line)) : HPCB_OK;
}

/* Buffers, places, partners and (broadcasts) the line communicator. The
 * ranks agree before anything else: if one could not allocate, all stop
 * (*peer_failed on the others). */
static int prepare(struct matrix_run *m, int *peer_failed)
{
    const struct hpcb_matrix_params *p = m->p;
    hpcb_matrix_place(p, m->rank, 0, &m->place[0]);
    m->place[1] = m->place[0];
    if (p->op == HPCB_MATRIX_TRANSPOSE)
        hpcb_matrix_place(p, m->rank, 1, &m->place[1]);
    size_t h = m->place[0].h, w = m->place[0].w, line = h > w ? h : w;
    int needs_spare = p->op == HPCB_MATRIX_SHIFT || p->op == HPCB_MATRIX_TRANSPOSE;
    m->cur = alloc_doubles((h + 2) * (w + 2));
    m->spare = needs_spare ? alloc_doubles((h + 2) * (w + 2)) : NULL;
    m->lines = alloc_doubles(4 * line);
    int failed = m->cur == NULL || (needs_spare && m->spare == NULL) || m->lines == NULL, any;
    if (mpi(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, p->comm)))
        return HPCB_EMPI;
    if (any) {
        *peer_failed = !failed;
        return failed ? HPCB_ENOMEM : HPCB_OK;
    }
    find_partners(m);
    hpcb_matrix_expected(p, m->rank, 0, m->cur);
    if (m->spare != NULL)   /* its pages faulted in now, not in the first timed receive */
        memset(m->spare, 0, (h + 2) * (w + 2) * sizeof(double));
    if (is_broadcast(p->op)) {
        int rows = p->op == HPCB_MATRIX_ROW_BROADCAST;   /* a row travels down its mesh column */
        int color = (int)(rows ? m->place[0].col : m->place[0].row);
        int key = (int)(rows ? m->place[0].row : m->place[0].col);
        if (mpi(MPI_Comm_split(p->comm, color, key, &m->line)))
            return HPCB_EMPI;
    }
    return HPCB_OK;
}

int hpcb_matrix_run(const struct hpcb_matrix_params *p, struct hpcb_matrix_out *out)
{
    int rc = hpcb_contract_start(hpcb_matrix_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    struct matrix_run m = {.p = p, .line = MPI_COMM_NULL};
    int peer_failed = 0;
    out->wrong = 0;
    out->report[0] = '\0';
    if ((rc = mpi(MPI_Comm_rank(p->comm, &m.rank))) == HPCB_OK)
        rc = prepare(&m, &peer_failed);
    size_t applied = 0;
    for (size_t i = 0; rc == HPCB_OK && !peer_failed && i < p->warmup + p->iterations; i++) {
        if ((rc = mpi(MPI_Barrier(p->comm))) != HPCB_OK)
            break;
        uint64_t t0 = hpcb_ticks();
        rc = apply(&m);
        uint64_t t1 = hpcb_ticks();
        applied++;
        if (i >= p->warmup)
            out->ticks[i - p->warmup] = (double)(t1 - t0);
    }
    if (rc == HPCB_OK && !peer_failed) {
        out->wrong = hpcb_matrix_verify(p, m.rank, applied, m.cur, out->report, sizeof out->report);
        if (out->block != NULL) {
            size_t rows, cols;
            hpcb_matrix_block_shape(p, applied, &rows, &cols);
            memcpy(out->block, m.cur, rows * cols * sizeof(double));
        }
        if (out->wrong > 0)
            rc = HPCB_ECHECK;
    }
    int freed = release(&m);
    return rc != HPCB_OK ? rc : freed;
}
