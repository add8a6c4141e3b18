/* overlap.c - the overlap kernel; see overlap.h. */
#include "overlap.h"

#include "../runtime/hpcb.h"
#include "../runtime/timer.h"
#include "comm.h"
#include "daxpy.h"
#include "msgbuf.h"

#define TAG_OVERLAP 4201

static const char *const modes[] = {HPCB_OVERLAP_MODES(HPCB_ENUM_NAME)};

int hpcb_overlap_check(const struct hpcb_overlap_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    /* The computation is the daxpy kernel's, with its rules on n and iterations. */
    struct hpcb_daxpy_params daxpy = {.n = p->n, .warmup = p->warmup, .iterations = p->iterations};
    if ((rc = hpcb_why_choice(why, "mode", p->mode, modes, HPCB_OVERLAP_MODE_COUNT)) != HPCB_OK ||
        (rc = hpcb_comm_check_bytes("bytes", p->bytes, why)) != HPCB_OK ||
        (rc = hpcb_daxpy_check(&daxpy, why)) != HPCB_OK ||
        (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != HPCB_OK)
        return rc;
    return p->partner < 0 ? HPCB_OK
                          : hpcb_comm_check_rank("partner", p->partner, size, rank, " or negative to sit out", why);
}

static int overlap_once(const struct hpcb_overlap_params *p, int mode, const struct hpcb_msgbufs *b,
                        struct hpcb_daxpy_vectors *v)
{
    MPI_Request req[2];
    int count = (int)p->bytes;
    switch (mode) {
    case HPCB_OVERLAP_COMPUTE_ONLY:
        hpcb_daxpy_update(v);
        return HPCB_OK;
    case HPCB_OVERLAP_NONBLOCKING:
        if (MPI_Irecv(b->recv, count, MPI_BYTE, p->partner, TAG_OVERLAP, p->comm, &req[0]) != MPI_SUCCESS ||
            MPI_Isend(b->send, count, MPI_BYTE, p->partner, TAG_OVERLAP, p->comm, &req[1]) != MPI_SUCCESS)
            return HPCB_EMPI;
        hpcb_daxpy_update(v);
        return MPI_Waitall(2, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
    default: /* blocking and comm-only: the exchange first */
        if (MPI_Irecv(b->recv, count, MPI_BYTE, p->partner, TAG_OVERLAP, p->comm, &req[0]) != MPI_SUCCESS ||
            MPI_Send(b->send, count, MPI_BYTE, p->partner, TAG_OVERLAP, p->comm) != MPI_SUCCESS ||
            MPI_Wait(&req[0], MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
        if (mode == HPCB_OVERLAP_BLOCKING)
            hpcb_daxpy_update(v);
        return HPCB_OK;
    }
}

int hpcb_overlap_run(const struct hpcb_overlap_params *p, struct hpcb_overlap_out *out)
{
    int rc = hpcb_contract_start(hpcb_overlap_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    if (MPI_Barrier(p->comm) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (p->partner < 0)
        return HPCB_OK;

    struct hpcb_msgbufs b = {0};
    struct hpcb_daxpy_vectors v;
    if ((rc = hpcb_msgbufs_alloc(&b, p->comm, p->bytes, p->partner)) != HPCB_OK ||
        (rc = hpcb_daxpy_alloc(&v, p->n)) != HPCB_OK) {
        hpcb_msgbufs_free(&b);
        return rc;
    }
    int interleaved = p->mode == HPCB_OVERLAP_INTERLEAVED;
    size_t modes = interleaved ? HPCB_OVERLAP_TIMED_MODES : 1;
    for (size_t i = 0; rc == HPCB_OK && i < p->warmup + p->iterations; i++) {
        for (size_t k = 0; rc == HPCB_OK && k < modes; k++) {
            int mode = interleaved ? (int)((i + k) % HPCB_OVERLAP_TIMED_MODES) : p->mode;
            uint64_t t0 = hpcb_ticks();
            rc = overlap_once(p, mode, &b, &v);
            uint64_t t1 = hpcb_ticks();
            if (i >= p->warmup)
                out->ticks[(interleaved ? (size_t)mode * p->iterations : 0) + i - p->warmup] = (double)(t1 - t0);
        }
    }
    int daxpy_rc = hpcb_daxpy_verify_free(&v);
    if (rc == HPCB_OK)
        rc = daxpy_rc;
    if (rc == HPCB_OK && p->mode != HPCB_OVERLAP_COMPUTE_ONLY)
        rc = hpcb_msgbufs_verify(&b, (unsigned)p->partner);
    hpcb_msgbufs_free(&b);
    return rc;
}
