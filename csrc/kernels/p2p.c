/* p2p.c - echo and pairwise exchange; see p2p.h. */
#include "p2p.h"

#include "../runtime/hpcb.h"
#include "../runtime/timer.h"
#include "comm.h"
#include "msgbuf.h"

#define TAG_ECHO 4101
#define TAG_EXCHANGE 4102
#define TAG_OVERHEAD 4103
#define TAG_GO 4104

static const char *const sides[] = {HPCB_OVERHEAD_SIDES(HPCB_ENUM_NAME)};

int hpcb_p2p_check_sizes(const struct hpcb_p2p_params *p, struct hpcb_why *why)
{
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    int rc;
    if ((rc = hpcb_comm_check_bytes("bytes", p->bytes, why)) != HPCB_OK ||
        (rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK)
        return rc;
    if ((rc = hpcb_why_range(why, "inner", p->inner, 1, 1000000, "")) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "side", p->side, sides, HPCB_OVERHEAD_SIDE_COUNT)) != HPCB_OK)
        return rc;
    return hpcb_why_range(why, "delay_ticks", (size_t)p->delay_ticks, 0, (size_t)HPCB_OVERHEAD_MAX_DELAY, "");
}

int hpcb_p2p_check(const struct hpcb_p2p_params *p, struct hpcb_why *why)
{
    int rank, size;
    int rc = hpcb_p2p_check_sizes(p, why);
    if (rc == HPCB_OK)
        rc = hpcb_comm_shape(p->comm, &rank, &size, why);
    if (rc == HPCB_OK && p->partner >= 0)
        rc = hpcb_comm_check_rank("partner", p->partner, size, rank, " or negative to sit out", why);
    return rc;
}

/* What both kernels do first: check, buffers on the ranks of a pair (the
 * receive buffer expecting the pattern of `expect_seed`, or of this rank if
 * negative), and the barrier every rank joins so that all pairs start
 * together; a rank whose allocation failed joins it too, so nobody waits
 * for it there. */
static int pair_start(const struct hpcb_p2p_params *p, const struct hpcb_p2p_out *out, int expect_seed,
                      struct hpcb_msgbufs *b)
{
    int rc = hpcb_contract_start(hpcb_p2p_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    if (p->partner >= 0)
        rc = hpcb_msgbufs_alloc(b, p->comm, p->bytes, expect_seed);
    if (MPI_Barrier(p->comm) != MPI_SUCCESS && rc == HPCB_OK)
        rc = HPCB_EMPI;
    return rc;
}

/* One echo iteration, as the initiator or as the responder. */
static int echo_once(const struct hpcb_p2p_params *p, const struct hpcb_msgbufs *b, int count)
{
    if (p->initiator) {
        if (MPI_Send(b->send, count, MPI_BYTE, p->partner, TAG_ECHO, p->comm) != MPI_SUCCESS ||
            MPI_Recv(b->recv, count, MPI_BYTE, p->partner, TAG_ECHO, p->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
    } else {
        /* The responder sends back exactly what it received. */
        if (MPI_Recv(b->recv, count, MPI_BYTE, p->partner, TAG_ECHO, p->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            MPI_Send(b->recv, count, MPI_BYTE, p->partner, TAG_ECHO, p->comm) != MPI_SUCCESS)
            return HPCB_EMPI;
    }
    return HPCB_OK;
}

int hpcb_p2p_echo(const struct hpcb_p2p_params *p, struct hpcb_p2p_out *out)
{
    struct hpcb_msgbufs b = {0};
    int rc = pair_start(p, out, -1, &b);
    if (rc != HPCB_OK || p->partner < 0)
        goto done;
    int count = (int)p->bytes;
    for (size_t i = 0; rc == HPCB_OK && i < p->warmup; i++)
        rc = echo_once(p, &b, count);
    for (size_t i = 0; rc == HPCB_OK && i < p->iterations; i++) {
        uint64_t t0 = hpcb_ticks();
        for (size_t k = 0; rc == HPCB_OK && k < p->inner; k++)
            rc = echo_once(p, &b, count);
        out->ticks[i] = (double)(hpcb_ticks() - t0);
    }
    /* The initiator's bytes came back unchanged from the partner. */
    if (rc == HPCB_OK && p->initiator)
        rc = hpcb_msgbufs_verify(&b, (unsigned)b.rank);
done:
    hpcb_msgbufs_free(&b);
    return rc;
}

int hpcb_p2p_exchange(const struct hpcb_p2p_params *p, struct hpcb_p2p_out *out)
{
    struct hpcb_msgbufs b = {0};
    int rc = pair_start(p, out, p != NULL ? p->partner : -1, &b);
    if (rc != HPCB_OK || p->partner < 0)
        goto done;
    int count = (int)p->bytes;
    size_t total = p->warmup + p->iterations;
    for (size_t i = 0; rc == HPCB_OK && i < total; i++) {
        size_t repeat = i < p->warmup ? 1 : p->inner;
        uint64_t t0 = hpcb_ticks();
        for (size_t k = 0; rc == HPCB_OK && k < repeat; k++) {
            MPI_Request req;
            if (MPI_Irecv(b.recv, count, MPI_BYTE, p->partner, TAG_EXCHANGE, p->comm, &req) != MPI_SUCCESS ||
                MPI_Send(b.send, count, MPI_BYTE, p->partner, TAG_EXCHANGE, p->comm) != MPI_SUCCESS ||
                MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                rc = HPCB_EMPI;
        }
        uint64_t t1 = hpcb_ticks();
        if (i >= p->warmup)
            out->ticks[i - p->warmup] = (double)(t1 - t0);
    }
    if (rc == HPCB_OK)
        rc = hpcb_msgbufs_verify(&b, (unsigned)p->partner);
done:
    hpcb_msgbufs_free(&b);
    return rc;
}

/* Spin until `ticks` have passed: a sleep would let the core change speed
 * or the scheduler move the rank, which the timed receive would then see. */
static void spin_ticks(uint64_t ticks)
{
    uint64_t start = hpcb_ticks();
    while (hpcb_ticks() - start < ticks)
        ;
}

/* One overhead iteration; *t is the timed call's ticks on the timed rank. */
static int overhead_once(const struct hpcb_p2p_params *p, const struct hpcb_msgbufs *b, int count, int sender,
                         double *t)
{
    char none = 0;   /* the go/ack messages carry no byte */
    uint64_t t0 = 0, t1 = 0;
    int ok = 1;
    if (p->side == HPCB_OVERHEAD_GAP) {
        t0 = hpcb_ticks();
        for (size_t k = 0; ok && k < p->inner; k++)
            ok = sender ? MPI_Send(b->send, count, MPI_BYTE, p->partner, TAG_OVERHEAD, p->comm) == MPI_SUCCESS
                        : MPI_Recv(b->recv, count, MPI_BYTE, p->partner, TAG_OVERHEAD, p->comm,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS;
        ok = ok && (sender ? MPI_Recv(&none, 0, MPI_BYTE, p->partner, TAG_GO, p->comm, MPI_STATUS_IGNORE)
                           : MPI_Send(&none, 0, MPI_BYTE, p->partner, TAG_GO, p->comm)) == MPI_SUCCESS;
        t1 = hpcb_ticks();
    } else if (p->side == HPCB_OVERHEAD_SEND) {
        if (sender) {
            ok = MPI_Recv(&none, 0, MPI_BYTE, p->partner, TAG_GO, p->comm, MPI_STATUS_IGNORE) == MPI_SUCCESS;
            t0 = hpcb_ticks();
            ok = ok && MPI_Send(b->send, count, MPI_BYTE, p->partner, TAG_OVERHEAD, p->comm) == MPI_SUCCESS;
            t1 = hpcb_ticks();
        } else {
            ok = MPI_Send(&none, 0, MPI_BYTE, p->partner, TAG_GO, p->comm) == MPI_SUCCESS &&
                 MPI_Recv(b->recv, count, MPI_BYTE, p->partner, TAG_OVERHEAD, p->comm, MPI_STATUS_IGNORE) ==
                     MPI_SUCCESS;
        }
    } else if (sender) {
        ok = MPI_Send(b->send, count, MPI_BYTE, p->partner, TAG_OVERHEAD, p->comm) == MPI_SUCCESS &&
             MPI_Recv(&none, 0, MPI_BYTE, p->partner, TAG_GO, p->comm, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    } else {
        spin_ticks(p->delay_ticks);
        t0 = hpcb_ticks();
        ok = MPI_Recv(b->recv, count, MPI_BYTE, p->partner, TAG_OVERHEAD, p->comm, MPI_STATUS_IGNORE) ==
             MPI_SUCCESS;
        t1 = hpcb_ticks();
        ok = ok && MPI_Send(&none, 0, MPI_BYTE, p->partner, TAG_GO, p->comm) == MPI_SUCCESS;
    }
    *t = (double)(t1 - t0);
    return ok ? HPCB_OK : HPCB_EMPI;
}

int hpcb_p2p_overhead(const struct hpcb_p2p_params *p, struct hpcb_p2p_out *out)
{
    struct hpcb_msgbufs b = {0};
    int rc = pair_start(p, out, p != NULL ? p->partner : -1, &b);
    if (rc != HPCB_OK || p->partner < 0)
        goto done;
    int count = (int)p->bytes;
    int timed = p->initiator != 0;
    /* The timed rank sends on the send and gap sides, receives on the receive side. */
    int sender = (p->side != HPCB_OVERHEAD_RECV) == timed;
    size_t total = p->warmup + p->iterations;
    for (size_t i = 0; rc == HPCB_OK && i < total; i++) {
        double t;
        rc = overhead_once(p, &b, count, sender, &t);
        if (i >= p->warmup)
            out->ticks[i - p->warmup] = timed ? t : 0.0;
    }
    if (rc == HPCB_OK && !sender)
        rc = hpcb_msgbufs_verify(&b, (unsigned)p->partner);
done:
    hpcb_msgbufs_free(&b);
    return rc;
}
