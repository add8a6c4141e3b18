/* micro_p2p.c - the point-to-point tests of micro.h, OSU's patterns:
 * ping-pong latency (one pair or `pairs` pairs at once), windowed bandwidth
 * with an acknowledgement, bidirectional bandwidth, and the multi-pair
 * bandwidth and message rate.
 *
 * Rank i < pairs sends, rank i + pairs receives (pairs is 1 for LATENCY,
 * BW and BIBW); every other rank joins only the barriers. Each test and
 * side has its own sample loop (SAMPLE_LOOP below), so nothing but the MPI
 * calls of the pattern sits between the two timer reads: the yardstick is
 * a plain C loop of the same calls. */
#include <stdlib.h>

#include "../runtime/timer.h"
#include "micro.h"
#include "msgbuf.h"

#define TAG_DATA 4201
#define TAG_ACK 4202
#define ACK_BYTES 4   /* OSU's acknowledgement size */

/* One rank's side of a pair: its partner, buffers and request array. */
struct pair_side {
    MPI_Comm comm;
    int partner;
    int count;                 /* bytes per message */
    int window;                /* messages per operation (1 for ping-pong) */
    struct hpcb_msgbufs b;     /* send: this rank's pattern; recv: the partner's, complemented */
    MPI_Request *requests;     /* window (BW, MBW_MR) or 2 * window (BIBW) entries */
    unsigned char ack[ACK_BYTES];
};

/* The operations, one side each; every MPI return code checked. A failed
 * call ends the sample at once (the caller then reports HPCB_EMPI). */
static inline int pingpong_sender(struct pair_side *s, size_t inner)
{
    for (size_t k = 0; k < inner; k++)
        if (MPI_Send(s->b.send, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm) != MPI_SUCCESS ||
            MPI_Recv(s->b.recv, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
    return HPCB_OK;
}

/* The partner answers from its own unchanged send buffer, as OSU does. */
static inline int pingpong_receiver(struct pair_side *s, size_t inner)
{
    for (size_t k = 0; k < inner; k++)
        if (MPI_Recv(s->b.recv, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            MPI_Send(s->b.send, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm) != MPI_SUCCESS)
            return HPCB_EMPI;
    return HPCB_OK;
}

static inline int window_sender(struct pair_side *s, size_t inner)
{
    for (size_t k = 0; k < inner; k++) {
        for (int w = 0; w < s->window; w++)
            if (MPI_Isend(s->b.send, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm, &s->requests[w]) !=
                MPI_SUCCESS)
                return HPCB_EMPI;
        if (MPI_Waitall(s->window, s->requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS ||
            MPI_Recv(s->ack, ACK_BYTES, MPI_BYTE, s->partner, TAG_ACK, s->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
    }
    return HPCB_OK;
}

/* Every message of a window lands in the same receive buffer, as in OSU. */
static inline int window_receiver(struct pair_side *s, size_t inner)
{
    for (size_t k = 0; k < inner; k++) {
        for (int w = 0; w < s->window; w++)
            if (MPI_Irecv(s->b.recv, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm, &s->requests[w]) !=
                MPI_SUCCESS)
                return HPCB_EMPI;
        if (MPI_Waitall(s->window, s->requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS ||
            MPI_Send(s->ack, ACK_BYTES, MPI_BYTE, s->partner, TAG_ACK, s->comm) != MPI_SUCCESS)
            return HPCB_EMPI;
    }
    return HPCB_OK;
}

/* Both sides alike: the receives first, then the sends, then all of them. */
static inline int bidirectional(struct pair_side *s, size_t inner)
{
    for (size_t k = 0; k < inner; k++) {
        for (int w = 0; w < s->window; w++)
            if (MPI_Irecv(s->b.recv, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm, &s->requests[w]) !=
                MPI_SUCCESS)
                return HPCB_EMPI;
        for (int w = 0; w < s->window; w++)
            if (MPI_Isend(s->b.send, s->count, MPI_BYTE, s->partner, TAG_DATA, s->comm,
                          &s->requests[s->window + w]) != MPI_SUCCESS)
                return HPCB_EMPI;
        if (MPI_Waitall(2 * s->window, s->requests, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return HPCB_EMPI;
    }
    return HPCB_OK;
}

/* One sample loop per operation: the untimed barrier of the whole comm
 * where hpcb_micro_sample_barrier says, then `inner` operations between
 * the timer reads; warmup samples are run
 * the same way and not recorded. The operation is a direct call of a
 * static inline function, so each loop compiles to the pattern's calls. */
#define SAMPLE_LOOP(name, operation)                                                                      \
    static int name(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, struct pair_side *s) \
    {                                                                                                     \
        size_t samples = p->warmup + p->iterations;                                                       \
        for (size_t i = 0; i < samples; i++) {                                                            \
            if (hpcb_micro_sample_barrier(i, p->warmup) && MPI_Barrier(p->comm) != MPI_SUCCESS)          \
                return HPCB_EMPI;                                                                         \
            uint64_t t0 = hpcb_ticks();                                                                   \
            int rc = operation(s, p->inner);                                                              \
            uint64_t t1 = hpcb_ticks();                                                                   \
            if (rc != HPCB_OK)                                                                            \
                return rc;                                                                                \
            if (i >= p->warmup)                                                                           \
                out->ticks[i - p->warmup] = (double)(t1 - t0);                                            \
        }                                                                                                 \
        return HPCB_OK;                                                                                   \
    }

SAMPLE_LOOP(samples_pingpong_sender, pingpong_sender)
SAMPLE_LOOP(samples_pingpong_receiver, pingpong_receiver)
SAMPLE_LOOP(samples_window_sender, window_sender)
SAMPLE_LOOP(samples_window_receiver, window_receiver)
SAMPLE_LOOP(samples_bidirectional, bidirectional)

/* A rank that takes no part joins the same barriers. */
static int samples_idle(const struct hpcb_micro_params *p)
{
    size_t samples = p->warmup + p->iterations;
    for (size_t i = 0; i < samples; i++)
        if (hpcb_micro_sample_barrier(i, p->warmup) && MPI_Barrier(p->comm) != MPI_SUCCESS)
            return HPCB_EMPI;
    return HPCB_OK;
}

/* Buffers and requests of a taking-part rank, allocated and touched
 * before the timed loop. */
static int side_alloc(const struct hpcb_micro_params *p, struct pair_side *s)
{
    int rc = hpcb_msgbufs_alloc(&s->b, p->comm, p->bytes, s->partner);
    if (rc != HPCB_OK)
        return rc;
    size_t slots = (p->test == HPCB_MICRO_BIBW ? 2 : 1) * p->window;
    s->requests = malloc(slots * sizeof *s->requests);
    if (s->requests == NULL)
        return HPCB_ENOMEM;
    for (size_t i = 0; i < slots; i++)
        s->requests[i] = MPI_REQUEST_NULL;
    for (int i = 0; i < ACK_BYTES; i++)
        s->ack[i] = 0;
    return HPCB_OK;
}

/* The loop of this rank's side of the test. */
static int run_side(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, struct pair_side *s, int sender)
{
    switch (p->test) {
    case HPCB_MICRO_LATENCY:
    case HPCB_MICRO_MULTI_LAT:
        return sender ? samples_pingpong_sender(p, out, s) : samples_pingpong_receiver(p, out, s);
    case HPCB_MICRO_BW:
    case HPCB_MICRO_MBW_MR:
        return sender ? samples_window_sender(p, out, s) : samples_window_receiver(p, out, s);
    case HPCB_MICRO_BIBW:
        return samples_bidirectional(p, out, s);
    default:
        return HPCB_EINVAL;
    }
}

/* Who checks the payload: the ping-pong's and BIBW's both sides, the
 * bandwidth tests' receiver. */
static int verifies(int test, int sender)
{
    return !sender || test == HPCB_MICRO_LATENCY || test == HPCB_MICRO_MULTI_LAT || test == HPCB_MICRO_BIBW;
}

int hpcb_micro_p2p(const struct hpcb_micro_params *p, struct hpcb_micro_out *out, int rank, int size)
{
    (void)size;   /* the check made sure 2 * pairs ranks exist */
    struct pair_side s = {.comm = p->comm, .count = (int)p->bytes, .window = (int)p->window};
    int sender = rank < p->pairs, active = rank < 2 * p->pairs;
    s.partner = sender ? rank + p->pairs : rank - p->pairs;
    int rc = hpcb_micro_agree(p->comm, active ? side_alloc(p, &s) : HPCB_OK);
    if (rc == HPCB_OK)
        rc = active ? run_side(p, out, &s, sender) : samples_idle(p);
    if (rc == HPCB_OK && active && verifies(p->test, sender))
        rc = hpcb_msgbufs_verify(&s.b, (unsigned)s.partner);
    free(s.requests);
    hpcb_msgbufs_free(&s.b);
    return rc;
}
