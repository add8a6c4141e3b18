/* shift.h - every rank sends to one rank and receives from another at the
 * same time: the communication pattern of Servet 3.0's distance and network
 * access benchmarks (rank p sends to (p + d) mod N).
 *
 * Every rank of the communicator calls the kernel; a rank with dest < 0 only
 * joins the barriers. Each iteration starts with an untimed MPI_Barrier so
 * that all messages are in flight together (the congestion is the point);
 * then Irecv from `source`, Isend to `dest`, Waitall. ticks[i] is the time of
 * iteration i on this rank. The receiver checks the sender's pattern. */
#ifndef HPCB_SHIFT_H
#define HPCB_SHIFT_H

#include <mpi.h>
#include <stddef.h>

int hpcb_shift(MPI_Comm comm, int dest, int source, size_t bytes, size_t warmup, size_t iterations,
               double *ticks);

#endif /* HPCB_SHIFT_H */
