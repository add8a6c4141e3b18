/* flow.h - one-way flows between ranks, each end timed on its own: the
 * kernel behind network maps (mpiGraph's pattern, and one pair alone) and
 * random bisections (Netgauge's effective bisection bandwidth).
 *
 * Every rank of the communicator calls the kernel. A rank sends to `dest`
 * (negative: sends nothing) and receives from `source` (negative: receives
 * nothing); a rank that does neither only joins the barriers. Each
 * iteration starts with an untimed MPI_Barrier, so that every flow of the
 * pattern is in flight together; then Irecv, Isend and Waitany until both
 * are done, with the time of each completion noted separately. The receive
 * time is what the flow source -> this rank took (mpiGraph's receive
 * bandwidth); unlike the shift kernel's one time per rank, it does not mix
 * in this rank's own send, so a slow link shows in its own cell only.
 * The receiver checks the sender's pattern after the loop. */
#ifndef HPCB_FLOW_H
#define HPCB_FLOW_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/why.h"

struct hpcb_flow_params {
    MPI_Comm comm;
    int dest;             /* a rank of comm other than this one, or negative: send nothing */
    int source;           /* a rank of comm other than this one, or negative: receive nothing */
    size_t bytes;         /* message size, 0..INT32_MAX */
    size_t warmup;        /* untimed iterations */
    size_t iterations;    /* timed iterations, 1..HPCB_MAX_SAMPLES */
};

struct hpcb_flow_out {
    /* 2 x iterations, row-major: row 0 the ticks from the barrier's end to
     * the send's completion, row 1 to the receive's; a row stays untouched
     * (the caller's NaN) where this rank does not send or receive. */
    double *ticks;
};

int hpcb_flow_check(const struct hpcb_flow_params *p, struct hpcb_why *why);

int hpcb_flow_run(const struct hpcb_flow_params *p, struct hpcb_flow_out *out);

#endif /* HPCB_FLOW_H */
