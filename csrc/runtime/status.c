/* status.c - words for the status codes of hpcb.h. */
#include "hpcb.h"

const char *hpcb_strerror(int status)
{
    switch (status) {
    case HPCB_OK: return "success";
    case HPCB_EINVAL: return "invalid parameter";
    case HPCB_ENOMEM: return "out of memory";
    case HPCB_EHWLOC: return "hwloc call failed";
    case HPCB_EMPI: return "MPI call failed";
    case HPCB_ECHECK: return "kernel payload check failed";
    case HPCB_ESYS: return "system call failed";
    case HPCB_EBIND: return "could not bind thread to processing unit";
    default: return "unknown error";
    }
}
