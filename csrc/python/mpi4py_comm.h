/* mpi4py_comm.h - the communicator argument of the glue files that take one
 * (comm_kernels.c, matrix_kernels.c, predict_kernels.c). Included, not
 * linked: mpi4py's C API is a table of function pointers that
 * import_mpi4py() fills per translation unit, so each including file gets
 * its own copy of these static functions and of the table.
 *
 * The table is filled on first use: importing mpi4py.MPI initialises MPI
 * (0.4 s with Open MPI), which `import hpcbench._core` alone, as the CLI's
 * list/show/--help do, must not pay. The GIL serialises the first call. */
#ifndef HPCB_MPI4PY_COMM_H
#define HPCB_MPI4PY_COMM_H

#include <Python.h>
#include <mpi4py/mpi4py.h>

static int need_mpi4py(void)
{
    static int ready = 0;
    if (!ready) {
        if (import_mpi4py() < 0)
            return -1;
        ready = 1;
    }
    return 0;
}

/* "O&" converter: the MPI_Comm inside a mpi4py communicator (mpi4py raises
 * TypeError for anything else). COMM_NULL passes: the kernels' checks
 * refuse it, naming "comm". */
static int comm_converter(PyObject *obj, void *out)
{
    MPI_Comm *comm;
    if (need_mpi4py() < 0)
        return 0;
    comm = PyMPIComm_Get(obj);
    if (comm == NULL)
        return 0;
    *(MPI_Comm *)out = *comm;
    return 1;
}

#endif /* HPCB_MPI4PY_COMM_H */
