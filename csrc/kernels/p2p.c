/* p2p.c - echo and pairwise exchange; see p2p.h. */
#include "p2p.h"

#include <stdlib.h>

#include "../hpcb.h"
#include "../timer.h"
#include "msgbuf.h"

#define TAG_ECHO 4101
#define TAG_EXCHANGE 4102

static int check_common(MPI_Comm comm, const struct hpcb_p2p_params *p, double *ticks, int *rank)
{
    int size;
    if (comm == MPI_COMM_NULL || p == NULL || ticks == NULL || p->iterations == 0 || p->inner == 0)
        return HPCB_EINVAL;
    if (p->bytes > (size_t)INT32_MAX)
        return HPCB_EINVAL;
    if (MPI_Comm_rank(comm, rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (p->partner != MPI_PROC_NULL && (p->partner < 0 || p->partner >= size || p->partner == *rank))
        return HPCB_EINVAL;
    return HPCB_OK;
}

/* Buffers of at least one byte, so that 0-byte messages still have an address. */
static int alloc_pair(size_t bytes, unsigned char **send, unsigned char **recv)
{
    *send = malloc(bytes ? bytes : 1);
    *recv = malloc(bytes ? bytes : 1);
    if (*send == NULL || *recv == NULL) {
        free(*send);
        free(*recv);
        return HPCB_ENOMEM;
    }
    return HPCB_OK;
}

/* One echo iteration, as the initiator or as the responder. */
static int echo_once(MPI_Comm comm, const struct hpcb_p2p_params *p, unsigned char *sbuf,
                     unsigned char *rbuf, int count)
{
    if (p->initiator) {
        if (MPI_Send(sbuf, count, MPI_BYTE, p->partner, TAG_ECHO, comm) != MPI_SUCCESS ||
            MPI_Recv(rbuf, count, MPI_BYTE, p->partner, TAG_ECHO, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
    } else {
        /* The responder sends back exactly what it received. */
        if (MPI_Recv(rbuf, count, MPI_BYTE, p->partner, TAG_ECHO, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            MPI_Send(rbuf, count, MPI_BYTE, p->partner, TAG_ECHO, comm) != MPI_SUCCESS)
            return HPCB_EMPI;
    }
    return HPCB_OK;
}

int hpcb_echo(MPI_Comm comm, const struct hpcb_p2p_params *p, double *ticks)
{
    int rank;
    int rc = check_common(comm, p, ticks, &rank);
    if (rc != HPCB_OK)
        return rc;
    unsigned char *sbuf = NULL, *rbuf = NULL;
    if (p->partner != MPI_PROC_NULL && (rc = alloc_pair(p->bytes, &sbuf, &rbuf)) != HPCB_OK)
        return rc;
    if (sbuf != NULL) {
        hpcb_pattern_fill(sbuf, p->bytes, (unsigned)rank);
        for (size_t i = 0; i < p->bytes; i++)
            rbuf[i] = (unsigned char)~sbuf[i];
    }
    /* Every rank joins the barrier, so all pairs start together. */
    if (MPI_Barrier(comm) != MPI_SUCCESS)
        rc = HPCB_EMPI;
    if (p->partner == MPI_PROC_NULL)
        return rc;
    int count = (int)p->bytes;
    for (size_t i = 0; rc == HPCB_OK && i < p->warmup; i++)
        rc = echo_once(comm, p, sbuf, rbuf, count);
    for (size_t i = 0; rc == HPCB_OK && i < p->iterations; i++) {
        uint64_t t0 = hpcb_ticks();
        for (size_t k = 0; rc == HPCB_OK && k < p->inner; k++)
            rc = echo_once(comm, p, sbuf, rbuf, count);
        ticks[i] = (double)(hpcb_ticks() - t0);
    }
    /* The initiator's bytes came back unchanged from the partner. */
    if (rc == HPCB_OK && p->initiator && !hpcb_pattern_check(rbuf, p->bytes, (unsigned)rank))
        rc = HPCB_ECHECK;
    free(sbuf);
    free(rbuf);
    return rc;
}

int hpcb_exchange(MPI_Comm comm, const struct hpcb_p2p_params *p, double *ticks)
{
    int rank;
    int rc = check_common(comm, p, ticks, &rank);
    if (rc != HPCB_OK)
        return rc;
    unsigned char *sbuf = NULL, *rbuf = NULL;
    if (p->partner != MPI_PROC_NULL && (rc = alloc_pair(p->bytes, &sbuf, &rbuf)) != HPCB_OK)
        return rc;
    if (sbuf != NULL) {
        hpcb_pattern_fill(sbuf, p->bytes, (unsigned)rank);
        hpcb_pattern_fill(rbuf, p->bytes, (unsigned)rank);  /* not the partner's pattern */
    }
    if (MPI_Barrier(comm) != MPI_SUCCESS)
        rc = HPCB_EMPI;
    if (p->partner == MPI_PROC_NULL)
        return rc;
    int count = (int)p->bytes;
    size_t total = p->warmup + p->iterations;
    for (size_t i = 0; rc == HPCB_OK && i < total; i++) {
        size_t repeat = i < p->warmup ? 1 : p->inner;
        uint64_t t0 = hpcb_ticks();
        for (size_t k = 0; rc == HPCB_OK && k < repeat; k++) {
            MPI_Request req;
            if (MPI_Irecv(rbuf, count, MPI_BYTE, p->partner, TAG_EXCHANGE, comm, &req) != MPI_SUCCESS ||
                MPI_Send(sbuf, count, MPI_BYTE, p->partner, TAG_EXCHANGE, comm) != MPI_SUCCESS ||
                MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
                rc = HPCB_EMPI;
        }
        uint64_t t1 = hpcb_ticks();
        if (i >= p->warmup)
            ticks[i - p->warmup] = (double)(t1 - t0);
    }
    if (rc == HPCB_OK && p->bytes > 0 && !hpcb_pattern_check(rbuf, p->bytes, (unsigned)p->partner))
        rc = HPCB_ECHECK;
    free(sbuf);
    free(rbuf);
    return rc;
}
