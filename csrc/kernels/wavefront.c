/* wavefront.c - the wavefront kernel on a communicator; see wavefront.h.
 * The cells' arithmetic and the serial evaluation are wavefront_solve.c's. */
#include "wavefront.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/timer.h"
#include "comm.h"

/* One tag per face kind: a pair of ranks is neighbours along x or along y,
 * never both, so each ordered pair carries one ordered stream. */
enum { TAG_EW = 4701, TAG_NS = 4702 };

static const char *const faults[] = {HPCB_WAVEFRONT_FAULTS(HPCB_ENUM_NAME)};

/* a * b * c * d into *out; 1 if it overflows size_t. */
static int product(size_t *out, size_t a, size_t b, size_t c, size_t d)
{
    size_t t;
    return __builtin_mul_overflow(a, b, &t) || __builtin_mul_overflow(t, c, &t) ||
           __builtin_mul_overflow(t, d, out);
}

/* Neighbours of process (i, j) in `sweep`: ranks, or -1 at the edge. */
struct neighbours {
    int x_up, y_up, x_down, y_down;
};

static struct neighbours neighbours_of(size_t m, size_t n, size_t rank, int sweep)
{
    long i = (long)(rank % n), j = (long)(rank / n), dx = hpcb_wavefront_from_east(sweep) ? -1 : 1,
         dy = hpcb_wavefront_from_north(sweep) ? -1 : 1;
    long xu = i - dx, xd = i + dx, yu = j - dy, yd = j + dy, N = (long)n, M = (long)m;
    return (struct neighbours){
        .x_up = xu >= 0 && xu < N ? (int)(j * N + xu) : -1,
        .x_down = xd >= 0 && xd < N ? (int)(j * N + xd) : -1,
        .y_up = yu >= 0 && yu < M ? (int)(yu * N + i) : -1,
        .y_down = yd >= 0 && yd < M ? (int)(yd * N + i) : -1,
    };
}

static int check_fault(const struct hpcb_wavefront_params *p, struct hpcb_why *why)
{
    int rc = hpcb_why_choice(why, "fault", p->fault, faults, HPCB_WAVEFRONT_FAULT_COUNT);
    if (rc != HPCB_OK || p->fault == HPCB_WAVEFRONT_FAULT_NONE)
        return rc;
    if ((rc = hpcb_why_range(why, "fault_sweep", p->fault_sweep, 0, HPCB_WAVEFRONT_SWEEPS - 1, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "fault_rank", p->fault_rank, 0, p->m * p->n - 1,
                             " (a rank of the m x n array)")) != HPCB_OK)
        return rc;
    struct neighbours nb = neighbours_of(p->m, p->n, p->fault_rank, (int)p->fault_sweep);
    if (nb.x_up < 0 && nb.y_up < 0)
        return hpcb_why_set(why, "fault_rank", "must receive a face in sweep %zu (not the corner it starts from) "
                            "to have one corrupted, got %zu on a %zu x %zu array", p->fault_sweep, p->fault_rank,
                            p->m, p->n);
    return HPCB_OK;
}

int hpcb_wavefront_check_sizes(const struct hpcb_wavefront_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    const char *names[] = {"nx", "ny", "nz", "h_tile"};
    size_t values[] = {p->nx, p->ny, p->nz, p->h_tile};
    for (int k = 0; k < 4; k++)
        if ((rc = hpcb_why_range(why, names[k], values[k], 1, SIZE_MAX, " cells")) != HPCB_OK)
            return rc;
    if ((rc = hpcb_why_range(why, "m", p->m, 1, INT_MAX, " process rows")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "n", p->n, 1, INT_MAX, " process columns")) != HPCB_OK)
        return rc;
    size_t ranks;
    if (product(&ranks, p->m, p->n, 1, 1) || ranks > INT_MAX)
        return hpcb_why_set(why, "n", "must keep m x n within an MPI communicator (%d ranks), got %zu x %zu", INT_MAX,
                            p->m, p->n);
    if (p->nx % p->n != 0)
        return hpcb_why_set(why, "nx", "must be a multiple of n = %zu process columns (the %zu x %zu array divides "
                            "the grid), got %zu", p->n, p->m, p->n, p->nx);
    if (p->ny % p->m != 0)
        return hpcb_why_set(why, "ny", "must be a multiple of m = %zu process rows (the %zu x %zu array divides the "
                            "grid), got %zu", p->m, p->m, p->n, p->ny);
    if (p->nz % p->h_tile != 0)
        return hpcb_why_set(why, "h_tile", "must divide nz = %zu (whole tiles of planes), got %zu", p->nz, p->h_tile);
    if ((rc = hpcb_why_range(why, "angles", p->angles, 1, HPCB_WAVEFRONT_MAX_ANGLES, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "work", p->work, 1, HPCB_WAVEFRONT_MAX_WORK, " rounds")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, HPCB_MAX_SAMPLES, "")) != HPCB_OK ||
        (rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK)
        return rc;
    /* The whole grid's cells (each has a global index; with verify, rank 0
     * holds them all) and a plane of psi, in bytes; then the faces, each
     * one MPI message of at most INT_MAX doubles. A rank's share is smaller. */
    size_t bytes, cx = p->nx / p->n, cy = p->ny / p->m;
    if (product(&bytes, p->nx, p->ny, p->nz, sizeof(double)) ||
        product(&bytes, p->nx, p->ny, p->angles, sizeof(double)))
        return hpcb_why_set(why, "nz", "must keep the grid's cells (nx x ny x nz and nx x ny x angles doubles) "
                            "within size_t, got %zu x %zu x %zu with %zu angles", p->nx, p->ny, p->nz, p->angles);
    if (product(&bytes, p->h_tile, cx > cy ? cx : cy, p->angles, 1) || bytes > INT_MAX)
        return hpcb_why_set(why, "h_tile", "must keep a face (h_tile x max(nx/n, ny/m) x angles doubles) within one "
                            "MPI message of %d doubles, got %zu x %zu x %zu", INT_MAX, p->h_tile, cx > cy ? cx : cy,
                            p->angles);
    return check_fault(p, why);
}

int hpcb_wavefront_check(const struct hpcb_wavefront_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if ((rc = hpcb_wavefront_check_sizes(p, why)) != HPCB_OK || (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != 0)
        return rc;
    if (p->m * p->n != (size_t)size)
        return hpcb_why_set(why, "m", "x n must be the number of ranks of comm (%d), got a %zu x %zu array", size,
                            p->m, p->n);
    return HPCB_OK;
}

static int mpi(int status)
{
    return status == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
}

/* One run: the rank's block, its faces and its clocks. */
struct wave_run {
    const struct hpcb_wavefront_params *p;
    size_t rank;
    struct hpcb_wavefront_block block;
    int have_block;
    size_t ew_count, ns_count;         /* doubles per face */
    double *ew_in[2], *ns_in[2];       /* received faces, alternating (the other is the one before) */
    int ew_k, ns_k;                    /* which of the two the next receive fills */
    double *ew_out, *ns_out, *zeros;
    uint64_t compute, send, recv;      /* ticks within the iteration */
    size_t messages, bytes;            /* faces sent within the iteration */
};

static void release(struct wave_run *w)
{
    if (w->have_block)
        hpcb_wavefront_block_free(&w->block);
    double *buffers[] = {w->ew_in[0], w->ew_in[1], w->ns_in[0], w->ns_in[1], w->ew_out, w->ns_out, w->zeros};
    for (size_t k = 0; k < sizeof buffers / sizeof *buffers; k++)
        free(buffers[k]);
}

/* The block and the faces; then the ranks agree: if one could not
 * allocate, all stop (*peer_failed on the others). Faces start zeroed, so
 * a STALE fault before any face came reads zeros. */
static int prepare(struct wave_run *w, int *peer_failed)
{
    const struct hpcb_wavefront_params *p = w->p;
    size_t cx = p->nx / p->n, cy = p->ny / p->m;
    w->ew_count = p->h_tile * cy * p->angles;
    w->ns_count = p->h_tile * cx * p->angles;
    w->have_block = hpcb_wavefront_block_init(&w->block, p->nx, p->ny, p->nz, (w->rank % p->n) * cx,
                                              (w->rank / p->n) * cy, cx, cy, p->angles, p->work) == HPCB_OK;
    for (int k = 0; k < 2; k++) {
        w->ew_in[k] = calloc(w->ew_count, sizeof(double));
        w->ns_in[k] = calloc(w->ns_count, sizeof(double));
    }
    w->ew_out = calloc(w->ew_count, sizeof(double));
    w->ns_out = calloc(w->ns_count, sizeof(double));
    w->zeros = calloc(w->ew_count > w->ns_count ? w->ew_count : w->ns_count, sizeof(double));
    int failed = !w->have_block || !w->ew_in[0] || !w->ew_in[1] || !w->ns_in[0] || !w->ns_in[1] || !w->ew_out ||
                 !w->ns_out || !w->zeros, any;
    if (mpi(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, p->comm)))
        return HPCB_EMPI;
    if (any) {
        *peer_failed = !failed;
        return failed ? HPCB_ENOMEM : HPCB_OK;
    }
    return HPCB_OK;
}

/* The face a receive delivered, or what the fault puts in its place. */
static const double *faulted(const struct wave_run *w, double *const in[2], int k)
{
    switch (w->p->fault) {
    case HPCB_WAVEFRONT_FAULT_CORRUPT: in[k][0] += 1.0; return in[k];
    case HPCB_WAVEFRONT_FAULT_MISSING: return w->zeros;
    case HPCB_WAVEFRONT_FAULT_STALE: return in[!k];
    }
    return in[k];
}

/* Blocking receive into the next of a pair of face buffers; its ticks. */
static int receive_face(struct wave_run *w, double *const in[2], int *k, size_t count, int from, int tag)
{
    *k = !*k;
    uint64_t t0 = hpcb_ticks();
    int rc = mpi(MPI_Recv(in[*k], (int)count, MPI_DOUBLE, from, tag, w->p->comm, MPI_STATUS_IGNORE));
    w->recv += hpcb_ticks() - t0;
    return rc;
}

static int send_face(struct wave_run *w, const double *face, size_t count, int to, int tag)
{
    uint64_t t0 = hpcb_ticks();
    int rc = mpi(MPI_Send(face, (int)count, MPI_DOUBLE, to, tag, w->p->comm));
    w->send += hpcb_ticks() - t0;
    w->messages++;
    w->bytes += count * sizeof(double);
    return rc;
}

/* One sweep through the stack, tile by tile (wavefront.h's order). `fault`:
 * whether this rank's first received face of this sweep is the faulted one. */
static int sweep(struct wave_run *w, int s, int fault)
{
    const struct hpcb_wavefront_params *p = w->p;
    struct neighbours nb = neighbours_of(p->m, p->n, w->rank, s);
    int rc = HPCB_OK;
    for (size_t t = 0; rc == HPCB_OK && t < p->nz / p->h_tile; t++) {
        const double *ew = NULL, *ns = NULL;
        if (nb.x_up >= 0 && (rc = receive_face(w, w->ew_in, &w->ew_k, w->ew_count, nb.x_up, TAG_EW)) == HPCB_OK)
            ew = w->ew_in[w->ew_k];
        if (rc == HPCB_OK && nb.y_up >= 0 && (rc = receive_face(w, w->ns_in, &w->ns_k, w->ns_count, nb.y_up, TAG_NS)) == 0)
            ns = w->ns_in[w->ns_k];
        if (rc != HPCB_OK)
            break;
        if (fault && t == 0) {
            if (ew != NULL)
                ew = faulted(w, w->ew_in, w->ew_k);
            else
                ns = faulted(w, w->ns_in, w->ns_k);
        }
        uint64_t t0 = hpcb_ticks();
        hpcb_wavefront_tile(&w->block, s, t, p->h_tile, ew, ns, nb.x_down >= 0 ? w->ew_out : NULL,
                            nb.y_down >= 0 ? w->ns_out : NULL);
        w->compute += hpcb_ticks() - t0;
        if (nb.x_down >= 0)
            rc = send_face(w, w->ew_out, w->ew_count, nb.x_down, TAG_EW);
        if (rc == HPCB_OK && nb.y_down >= 0)
            rc = send_face(w, w->ns_out, w->ns_count, nb.y_down, TAG_NS);
    }
    return rc;
}

/* Every rank's checksum and total, combined in rank order on every rank;
 * with verify, rank 0's serial evaluation, broadcast. */
static int verify(struct wave_run *w, struct hpcb_wavefront_out *out, size_t done)
{
    const struct hpcb_wavefront_params *p = w->p;
    size_t ranks = p->m * p->n;
    uint64_t mine = hpcb_wavefront_block_checksum(&w->block);
    double total = hpcb_wavefront_block_total(&w->block);
    uint64_t *sums = malloc(ranks * sizeof *sums);
    double *totals = malloc(ranks * sizeof *totals);
    int failed = sums == NULL || totals == NULL, any, rc;
    if ((rc = mpi(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, p->comm))) == HPCB_OK && any)
        rc = HPCB_ENOMEM;
    if (rc == HPCB_OK && (rc = mpi(MPI_Allgather(&mine, 1, MPI_UINT64_T, sums, 1, MPI_UINT64_T, p->comm))) == 0 &&
        (rc = mpi(MPI_Allgather(&total, 1, MPI_DOUBLE, totals, 1, MPI_DOUBLE, p->comm))) == HPCB_OK) {
        out->checksum = 0;
        out->total = 0.0;
        for (size_t r = 0; r < ranks; r++) {
            out->checksum += sums[r];
            out->total += totals[r];
        }
    }
    free(sums);
    free(totals);
    if (rc != HPCB_OK || !p->verify)
        return rc;
    /* Rank 0 evaluates; the status travels with the checksum, so every rank
     * returns the same verdict. */
    uint64_t reference[2] = {0, 0};
    if (w->rank == 0) {
        double ignored;
        int status = hpcb_wavefront_serial(p->nx, p->ny, p->nz, p->angles, p->work, done, &reference[1], &ignored);
        reference[0] = status == HPCB_OK ? 0 : 1;
    }
    if ((rc = mpi(MPI_Bcast(reference, 2, MPI_UINT64_T, 0, p->comm))) != HPCB_OK)
        return rc;
    if (reference[0] != 0)
        return HPCB_ENOMEM;
    out->expected = reference[1];
    return out->checksum == out->expected ? HPCB_OK : HPCB_ECHECK;
}

int hpcb_wavefront_run(const struct hpcb_wavefront_params *p, struct hpcb_wavefront_out *out)
{
    int rc = hpcb_contract_start(hpcb_wavefront_check(p, NULL), out != NULL && out->ticks != NULL &&
                                 out->compute != NULL && out->send != NULL && out->recv != NULL);
    if (rc != HPCB_OK)
        return rc;
    struct wave_run w = {.p = p};
    int rank, peer_failed = 0;
    out->checksum = out->expected = 0;
    out->total = 0.0;
    out->sent_messages = out->sent_bytes = 0;
    if ((rc = mpi(MPI_Comm_rank(p->comm, &rank))) == HPCB_OK) {
        w.rank = (size_t)rank;
        rc = prepare(&w, &peer_failed);
    }
    size_t total = p->warmup + p->iterations, done = 0;
    for (size_t it = 0; rc == HPCB_OK && !peer_failed && it < total; it++) {
        if ((rc = mpi(MPI_Barrier(p->comm))) != HPCB_OK)
            break;
        w.compute = w.send = w.recv = 0;
        w.messages = w.bytes = 0;
        uint64_t t0 = hpcb_ticks();
        for (int s = 0; rc == HPCB_OK && s < HPCB_WAVEFRONT_SWEEPS; s++) {
            int fault = p->fault != HPCB_WAVEFRONT_FAULT_NONE && it == total - 1 && w.rank == p->fault_rank &&
                        (size_t)s == p->fault_sweep;
            rc = sweep(&w, s, fault);
        }
        uint64_t t1 = hpcb_ticks();
        done++;
        if (it >= p->warmup) {
            size_t k = it - p->warmup;
            out->ticks[k] = (double)(t1 - t0);
            out->compute[k] = (double)w.compute;
            out->send[k] = (double)w.send;
            out->recv[k] = (double)w.recv;
        }
        out->sent_messages = w.messages;
        out->sent_bytes = w.bytes;
    }
    if (rc == HPCB_OK && !peer_failed)
        rc = verify(&w, out, done);
    release(&w);
    return rc;
}
