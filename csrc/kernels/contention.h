/* contention.h - CoMet's echo with contention (Fig. 3.6-3.7).
 *
 * Four ranks take part: an echo pair, timed as in hpcb_p2p_echo, and a load pair
 * whose sender streams messages of load_bytes to its receiver for as long as
 * the echo runs. When the echo initiator has finished, it tells the load
 * sender to stop (TAG_STOP); the sender then sends an empty end message, so
 * the receiver leaves its loop. Every other rank only joins the starting
 * barrier. */
#ifndef HPCB_CONTENTION_H
#define HPCB_CONTENTION_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/hpcb.h"
#include "../runtime/why.h"

/* What each rank does, valued 0 to 4 in this order. */
#define HPCB_ROLES(X) \
    X(ROLE_IDLE) X(ROLE_ECHO_INITIATOR) X(ROLE_ECHO_RESPONDER) X(ROLE_LOAD_SENDER) X(ROLE_LOAD_RECEIVER)
enum hpcb_contention_role { HPCB_ROLES(HPCB_ENUMERATOR) HPCB_ROLE_COUNT };

struct hpcb_contention_params {
    MPI_Comm comm;
    int role;             /* enum hpcb_contention_role */
    int partner;          /* echo partner, or the other end of the load pair: a
                           * rank of comm other than this one (unless idle) */
    int load_sender;      /* the echo initiator stops this rank at the end (a rank of comm) */
    size_t bytes;         /* echo message size, 0..INT32_MAX */
    size_t load_bytes;    /* load message size, 0..INT32_MAX */
    size_t warmup;        /* untimed round trips */
    size_t iterations;    /* timed round trips, 1..HPCB_MAX_SAMPLES */
};

struct hpcb_contention_out {
    double *ticks;            /* iterations: echo round trips (echo ranks; untouched elsewhere) */
    size_t load_messages;     /* written: messages the load pair moved (load ranks), so the
                               * caller can report the load's bandwidth; 0 elsewhere */
    double load_ticks;        /* written: how long this load rank streamed; 0 elsewhere */
};

int hpcb_contention_check(const struct hpcb_contention_params *p, struct hpcb_why *why);

int hpcb_contention_run(const struct hpcb_contention_params *p, struct hpcb_contention_out *out);

#endif /* HPCB_CONTENTION_H */
