/* comm.h - what every MPI kernel shares: the rules about communicators,
 * ranks and message sizes, each stated once here and called by the kernels'
 * checks. MPI is initialised by the caller (mpi4py); no kernel initialises
 * or finalises it. */
#ifndef HPCB_COMM_H
#define HPCB_COMM_H

#include <mpi.h>
#include <stddef.h>

#include "../runtime/why.h"

/* The communicator rule ("comm" is not MPI_COMM_NULL); then this process's
 * rank and the communicator's size. HPCB_EMPI if MPI fails. */
int hpcb_comm_shape(MPI_Comm comm, int *rank, int *size, struct hpcb_why *why);

/* Message sizes are MPI int counts of bytes: at most INT32_MAX. */
int hpcb_comm_check_bytes(const char *parameter, size_t bytes, struct hpcb_why *why);

/* `value` must be a rank of a communicator of `size` ranks, other than
 * `self` unless self is negative. `otherwise` is appended to the rule to
 * say what else the kernel accepts (e.g. " or negative to sit out"), or "". */
int hpcb_comm_check_rank(const char *parameter, int value, int size, int self, const char *otherwise,
                         struct hpcb_why *why);

/* The counts every MPI kernel has: iterations 1..HPCB_MAX_SAMPLES. */
int hpcb_comm_check_iterations(const char *parameter, size_t iterations, struct hpcb_why *why);

#endif /* HPCB_COMM_H */
