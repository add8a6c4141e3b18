/* py_comm.c - glue for MPI kernels. MPI reaches C only through mpi4py's C
 * API: the communicator comes from a mpi4py.MPI.Comm, and MPI is initialised
 * by mpi4py, never here. */
#include "glue.h"

#include <mpi4py/mpi4py.h>

#include "hpcb.h"
#include "kernels/barrier.h"

int hpcb_comm_glue_init(void)
{
    /* import_mpi4py fills this file's table of mpi4py C functions. */
    return import_mpi4py() < 0 ? -1 : 0;
}

static PyObject *barrier_times(PyObject *self, PyObject *args)
{
    PyObject *comm_obj;
    Py_ssize_t warmup = 10, samples = 100;
    if (!PyArg_ParseTuple(args, "O|nn", &comm_obj, &warmup, &samples))
        return NULL;
    MPI_Comm *comm = PyMPIComm_Get(comm_obj);
    if (comm == NULL)
        return NULL;
    if (*comm == MPI_COMM_NULL) {
        PyErr_SetString(PyExc_ValueError, "barrier_times needs a valid communicator, got COMM_NULL");
        return NULL;
    }
    if (warmup < 0 || samples <= 0) {
        PyErr_Format(PyExc_ValueError,
                     "warmup must be >= 0 and samples > 0, got warmup=%zd samples=%zd",
                     warmup, samples);
        return NULL;
    }
    npy_intp dims[1] = {samples};
    PyObject *ns = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (ns == NULL)
        return NULL;
    int rc;
    MPI_Comm c = *comm;
    double *out = PyArray_DATA((PyArrayObject *)ns);
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_barrier_times(c, (size_t)warmup, out, (size_t)samples);
    Py_END_ALLOW_THREADS
    if (rc != HPCB_OK) {
        Py_DECREF(ns);
        return hpcb_raise(rc, "barrier_times");
    }
    return ns;
}

PyMethodDef hpcb_comm_methods[] = {
    {"barrier_times", barrier_times, METH_VARARGS,
     "barrier_times(comm, warmup=10, samples=100) -> ns per barrier on this rank"},
    {NULL, NULL, 0, NULL},
};
