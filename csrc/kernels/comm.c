/* comm.c - see comm.h. */
#include "comm.h"

#include <stdint.h>

#include "../runtime/hpcb.h"

int hpcb_comm_shape(MPI_Comm comm, int *rank, int *size, struct hpcb_why *why)
{
    if (comm == MPI_COMM_NULL)
        return hpcb_why_set(why, "comm", "must be a valid communicator, got MPI_COMM_NULL (COMM_NULL)");
    if (MPI_Comm_rank(comm, rank) != MPI_SUCCESS || MPI_Comm_size(comm, size) != MPI_SUCCESS)
        return HPCB_EMPI;
    return HPCB_OK;
}

int hpcb_comm_check_bytes(const char *parameter, size_t bytes, struct hpcb_why *why)
{
    return hpcb_why_range(why, parameter, bytes, 0, INT32_MAX, " bytes (an MPI int count)");
}

int hpcb_comm_check_rank(const char *parameter, int value, int size, int self, const char *otherwise,
                         struct hpcb_why *why)
{
    if (value >= 0 && value < size && value != self)
        return HPCB_OK;
    if (self >= 0)
        return hpcb_why_set(why, parameter, "must be a rank of comm (0..%d) other than this rank (%d)%s, got %d",
                            size - 1, self, otherwise, value);
    return hpcb_why_set(why, parameter, "must be a rank of comm (0..%d)%s, got %d", size - 1, otherwise, value);
}

int hpcb_comm_check_iterations(const char *parameter, size_t iterations, struct hpcb_why *why)
{
    return hpcb_why_range(why, parameter, iterations, 1, HPCB_MAX_SAMPLES, "");
}
