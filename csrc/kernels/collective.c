/* collective.c - broadcast and global sum; see collective.h. */
#include "collective.h"

#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/timer.h"
#include "comm.h"
#include "msgbuf.h"

int hpcb_collective_check(const struct hpcb_collective_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_comm_check_bytes("bytes", p->bytes, why)) != HPCB_OK ||
        (rc = hpcb_why_range(why, "count", p->count, 0, INT32_MAX / sizeof(double),
                             " doubles (INT32_MAX bytes)")) != HPCB_OK ||
        (rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK ||
        (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != HPCB_OK)
        return rc;
    return hpcb_comm_check_rank("root", p->root, size, -1, "", why);
}

/* The timed loop both collectives share: warmup + iterations rounds, each
 * an untimed barrier then one timed `op`. The call through a pointer is
 * inside the timed interval; it costs nanoseconds, a collective at least
 * a microsecond, and both collectives pay it alike. */
static int barrier_rounds(const struct hpcb_collective_params *p, double *ticks, int (*op)(void *), void *arg)
{
    int rc = HPCB_OK;
    for (size_t i = 0; rc == HPCB_OK && i < p->warmup + p->iterations; i++) {
        if (MPI_Barrier(p->comm) != MPI_SUCCESS)
            return HPCB_EMPI;
        uint64_t t0 = hpcb_ticks();
        rc = op(arg);
        uint64_t t1 = hpcb_ticks();
        if (i >= p->warmup)
            ticks[i - p->warmup] = (double)(t1 - t0);
    }
    return rc;
}

/* Check, then this rank and the communicator's size. */
static int collective_start(const struct hpcb_collective_params *p, const struct hpcb_collective_out *out,
                            int *rank, int *size)
{
    int rc = hpcb_contract_start(hpcb_collective_check(p, NULL), out != NULL && out->ticks != NULL);
    return rc != HPCB_OK ? rc : hpcb_comm_shape(p->comm, rank, size, NULL);
}

struct bcast_round {
    const struct hpcb_collective_params *p;
    unsigned char *buf;
};

static int bcast_once(void *arg)
{
    struct bcast_round *r = arg;
    return MPI_Bcast(r->buf, (int)r->p->bytes, MPI_BYTE, r->p->root, r->p->comm) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;
}

int hpcb_collective_bcast(const struct hpcb_collective_params *p, struct hpcb_collective_out *out)
{
    int rank, size;
    int rc = collective_start(p, out, &rank, &size);
    if (rc != HPCB_OK)
        return rc;
    struct hpcb_region region;
    if ((rc = hpcb_msgbuf_alloc(&region, p->bytes)) != HPCB_OK)
        return rc;
    struct bcast_round r = {.p = p, .buf = region.data};
    /* Non-roots start with every byte wrong: only a real broadcast fixes it. */
    if (rank == p->root)
        hpcb_pattern_fill(r.buf, p->bytes, (unsigned)p->root);
    else
        hpcb_pattern_fill_complement(r.buf, p->bytes, (unsigned)p->root);
    rc = barrier_rounds(p, out->ticks, bcast_once, &r);
    if (rc == HPCB_OK && !hpcb_pattern_check(r.buf, p->bytes, (unsigned)p->root))
        rc = HPCB_ECHECK;
    hpcb_region_free(&region);
    return rc;
}

/* Small integers times small integers: every partial sum is exact in double. */
static double contribution(int rank, size_t i)
{
    return (double)(rank + 1) * (double)(i % 7 + 1);
}

struct allreduce_round {
    const struct hpcb_collective_params *p;
    double *in;
    double *out;
};

static int allreduce_once(void *arg)
{
    struct allreduce_round *r = arg;
    return MPI_Allreduce(r->in, r->out, (int)r->p->count, MPI_DOUBLE, MPI_SUM, r->p->comm) == MPI_SUCCESS
               ? HPCB_OK : HPCB_EMPI;
}

int hpcb_collective_allreduce(const struct hpcb_collective_params *p, struct hpcb_collective_out *out)
{
    int rank, size;
    int rc = collective_start(p, out, &rank, &size);
    if (rc != HPCB_OK)
        return rc;
    size_t count = p->count;
    struct hpcb_region in = {0}, res = {0};
    if ((rc = hpcb_msgbuf_alloc(&in, count * sizeof(double))) == HPCB_OK)
        rc = hpcb_msgbuf_alloc(&res, count * sizeof(double));
    struct allreduce_round r = {.p = p, .in = in.data, .out = res.data};
    for (size_t i = 0; rc == HPCB_OK && i < count; i++) {
        r.in[i] = contribution(rank, i);
        r.out[i] = -1.0;
    }
    if (rc == HPCB_OK)
        rc = barrier_rounds(p, out->ticks, allreduce_once, &r);
    /* sum over ranks of (r + 1) * k = k * P (P + 1) / 2, exactly. */
    double ranks_sum = (double)size * (double)(size + 1) / 2.0;
    for (size_t i = 0; rc == HPCB_OK && i < count; i++)
        if (r.out[i] != ranks_sum * (double)(i % 7 + 1))
            rc = HPCB_ECHECK;
    hpcb_region_free(&in);
    hpcb_region_free(&res);
    return rc;
}
