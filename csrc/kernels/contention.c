/* contention.c - echo with cross traffic; see contention.h. */
#include "contention.h"

#include <stdlib.h>

#include "../hpcb.h"
#include "../timer.h"
#include "msgbuf.h"
#include "p2p.h"

#define TAG_LOAD 4301
#define TAG_STOP 4302
#define TAG_END 4303

/* Stream load messages until the echo initiator says stop. */
static int load_sender(MPI_Comm comm, const struct hpcb_contention_params *p, unsigned char *buf,
                       size_t *sent)
{
    int stop = 0;
    while (!stop) {
        if (MPI_Send(buf, (int)p->load_bytes, MPI_BYTE, p->partner, TAG_LOAD, comm) != MPI_SUCCESS)
            return HPCB_EMPI;
        (*sent)++;
        if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_STOP, comm, &stop, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
    }
    if (MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_STOP, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
        MPI_Send(NULL, 0, MPI_BYTE, p->partner, TAG_END, comm) != MPI_SUCCESS)
        return HPCB_EMPI;
    return HPCB_OK;
}

static int load_receiver(MPI_Comm comm, const struct hpcb_contention_params *p, unsigned char *buf,
                         size_t *received)
{
    for (;;) {
        MPI_Status status;
        if (MPI_Recv(buf, (int)p->load_bytes, MPI_BYTE, p->partner, MPI_ANY_TAG, comm, &status) != MPI_SUCCESS)
            return HPCB_EMPI;
        if (status.MPI_TAG == TAG_END)
            return HPCB_OK;
        (*received)++;
    }
}

int hpcb_echo_contention(MPI_Comm comm, const struct hpcb_contention_params *p, double *ticks,
                         size_t *load_messages, double *load_ticks)
{
    int rank, size;
    if (comm == MPI_COMM_NULL || p == NULL || ticks == NULL || load_messages == NULL || load_ticks == NULL ||
        p->iterations == 0 || p->bytes > (size_t)INT32_MAX || p->load_bytes > (size_t)INT32_MAX ||
        p->role < HPCB_ROLE_IDLE || p->role > HPCB_ROLE_LOAD_RECEIVER)
        return HPCB_EINVAL;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return HPCB_EMPI;
    if (p->role != HPCB_ROLE_IDLE && (p->partner < 0 || p->partner >= size || p->partner == rank))
        return HPCB_EINVAL;
    if (p->role == HPCB_ROLE_ECHO_INITIATOR && (p->load_sender < 0 || p->load_sender >= size))
        return HPCB_EINVAL;
    *load_messages = 0;
    *load_ticks = 0.0;

    if (p->role == HPCB_ROLE_ECHO_INITIATOR || p->role == HPCB_ROLE_ECHO_RESPONDER) {
        /* hpcb_echo joins the starting barrier itself. */
        struct hpcb_p2p_params echo = {.partner = p->partner, .initiator = p->role == HPCB_ROLE_ECHO_INITIATOR,
                                       .bytes = p->bytes, .warmup = p->warmup, .iterations = p->iterations,
                                       .inner = 1};
        int rc = hpcb_echo(comm, &echo, ticks);
        /* Stop the load even if the echo failed, so that nobody hangs. */
        if (p->role == HPCB_ROLE_ECHO_INITIATOR &&
            MPI_Send(NULL, 0, MPI_BYTE, p->load_sender, TAG_STOP, comm) != MPI_SUCCESS && rc == HPCB_OK)
            rc = HPCB_EMPI;
        return rc;
    }
    if (p->role == HPCB_ROLE_IDLE)
        return MPI_Barrier(comm) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;

    unsigned char *buf = malloc(p->load_bytes ? p->load_bytes : 1);
    int rc = buf == NULL ? HPCB_ENOMEM : HPCB_OK;
    if (buf != NULL)
        hpcb_pattern_fill(buf, p->load_bytes, p->role == HPCB_ROLE_LOAD_SENDER ? (unsigned)rank : 0u);
    /* Join the barrier even without a buffer: the others must not wait forever.
     * (Without a buffer this rank cannot carry load; the echo still ends.) */
    if (MPI_Barrier(comm) != MPI_SUCCESS)
        rc = HPCB_EMPI;
    if (rc == HPCB_OK) {
        uint64_t t0 = hpcb_ticks();
        rc = p->role == HPCB_ROLE_LOAD_SENDER ? load_sender(comm, p, buf, load_messages)
                                              : load_receiver(comm, p, buf, load_messages);
        *load_ticks = (double)(hpcb_ticks() - t0);
    }
    if (rc == HPCB_OK && p->role == HPCB_ROLE_LOAD_RECEIVER && *load_messages > 0 &&
        !hpcb_pattern_check(buf, p->load_bytes, (unsigned)p->partner))
        rc = HPCB_ECHECK;
    free(buf);
    return rc;
}
