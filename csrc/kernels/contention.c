/* contention.c - echo with cross traffic; see contention.h. */
#include "contention.h"

#include "../runtime/hpcb.h"
#include "../runtime/timer.h"
#include "comm.h"
#include "msgbuf.h"
#include "p2p.h"

#define TAG_LOAD 4301
#define TAG_STOP 4302
#define TAG_END 4303

/* Stream load messages until the echo initiator says stop. */
static int load_sender(const struct hpcb_contention_params *p, unsigned char *buf, size_t *sent)
{
    MPI_Comm comm = p->comm;
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

static int load_receiver(const struct hpcb_contention_params *p, unsigned char *buf, size_t *received)
{
    MPI_Comm comm = p->comm;
    for (;;) {
        MPI_Status status;
        if (MPI_Recv(buf, (int)p->load_bytes, MPI_BYTE, p->partner, MPI_ANY_TAG, comm, &status) != MPI_SUCCESS)
            return HPCB_EMPI;
        if (status.MPI_TAG == TAG_END)
            return HPCB_OK;
        (*received)++;
    }
}

static const char *const roles[] = {HPCB_ROLES(HPCB_ENUM_NAME)};

int hpcb_contention_check(const struct hpcb_contention_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_choice(why, "role", p->role, roles, HPCB_ROLE_COUNT)) != HPCB_OK ||
        (rc = hpcb_comm_check_bytes("bytes", p->bytes, why)) != HPCB_OK ||
        (rc = hpcb_comm_check_bytes("load_bytes", p->load_bytes, why)) != HPCB_OK ||
        (rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK ||
        (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != HPCB_OK)
        return rc;
    if (p->role != HPCB_ROLE_IDLE &&
        (rc = hpcb_comm_check_rank("partner", p->partner, size, rank, " (every role but ROLE_IDLE)", why)) != HPCB_OK)
        return rc;
    if (p->role == HPCB_ROLE_ECHO_INITIATOR)
        return hpcb_comm_check_rank("load_sender", p->load_sender, size, -1, " (ROLE_ECHO_INITIATOR)", why);
    return HPCB_OK;
}

/* The echo ranks: the echo itself (which joins the starting barrier), then
 * the initiator stops the load, even if the echo failed, so nobody hangs. */
static int echo_role(const struct hpcb_contention_params *p, struct hpcb_contention_out *out)
{
    struct hpcb_p2p_params echo = {.comm = p->comm, .partner = p->partner,
                                   .initiator = p->role == HPCB_ROLE_ECHO_INITIATOR, .bytes = p->bytes,
                                   .warmup = p->warmup, .iterations = p->iterations, .inner = 1};
    struct hpcb_p2p_out echo_out = {.ticks = out->ticks};
    int rc = hpcb_p2p_echo(&echo, &echo_out);
    if (p->role == HPCB_ROLE_ECHO_INITIATOR &&
        MPI_Send(NULL, 0, MPI_BYTE, p->load_sender, TAG_STOP, p->comm) != MPI_SUCCESS && rc == HPCB_OK)
        rc = HPCB_EMPI;
    return rc;
}

int hpcb_contention_run(const struct hpcb_contention_params *p, struct hpcb_contention_out *out)
{
    int rc = hpcb_contract_start(hpcb_contention_check(p, NULL), out != NULL && out->ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    out->load_messages = 0;
    out->load_ticks = 0.0;
    if (p->role == HPCB_ROLE_ECHO_INITIATOR || p->role == HPCB_ROLE_ECHO_RESPONDER)
        return echo_role(p, out);
    if (p->role == HPCB_ROLE_IDLE)
        return MPI_Barrier(p->comm) == MPI_SUCCESS ? HPCB_OK : HPCB_EMPI;

    /* The load pair: the sender streams its send buffer, the receiver
     * receives into its receive buffer, which starts with every byte wrong
     * (each uses one of the two buffers of the pair). */
    struct hpcb_msgbufs b = {0};
    rc = hpcb_msgbufs_alloc(&b, p->comm, p->load_bytes, p->partner);
    /* Join the barrier even without a buffer: the others must not wait forever.
     * (Without a buffer this rank cannot carry load; the echo still ends.) */
    if (MPI_Barrier(p->comm) != MPI_SUCCESS)
        rc = HPCB_EMPI;
    if (rc == HPCB_OK) {
        uint64_t t0 = hpcb_ticks();
        rc = p->role == HPCB_ROLE_LOAD_SENDER ? load_sender(p, b.send, &out->load_messages)
                                              : load_receiver(p, b.recv, &out->load_messages);
        out->load_ticks = (double)(hpcb_ticks() - t0);
    }
    if (rc == HPCB_OK && p->role == HPCB_ROLE_LOAD_RECEIVER && out->load_messages > 0)
        rc = hpcb_msgbufs_verify(&b, (unsigned)p->partner);
    hpcb_msgbufs_free(&b);
    return rc;
}
