/* py_comm.c - glue for MPI kernels. MPI reaches C only through mpi4py's C
 * API: the communicator comes from a mpi4py.MPI.Comm, and MPI is initialised
 * by mpi4py, never here. */
#include "glue.h"

#include <math.h>
#include <stdint.h>

#include <mpi4py/mpi4py.h>

#include "hpcb.h"
#include "kernels/barrier.h"
#include "kernels/collective.h"
#include "kernels/contention.h"
#include "kernels/overlap.h"
#include "kernels/p2p.h"
#include "kernels/shift.h"

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


/* The MPI_Comm inside a mpi4py communicator; NULL with an exception set. */
static int get_comm(PyObject *obj, const char *what, MPI_Comm *out)
{
    MPI_Comm *comm = PyMPIComm_Get(obj);
    if (comm == NULL)
        return -1;
    if (*comm == MPI_COMM_NULL) {
        PyErr_Format(PyExc_ValueError, "%s needs a valid communicator, got COMM_NULL", what);
        return -1;
    }
    *out = *comm;
    return 0;
}

static int check_counts(const char *what, Py_ssize_t warmup, Py_ssize_t iterations)
{
    if (warmup < 0 || iterations <= 0 || iterations > 100000000) {
        PyErr_Format(PyExc_ValueError,
                     "%s: warmup must be >= 0 and iterations between 1 and 1e8, got warmup=%zd iterations=%zd",
                     what, warmup, iterations);
        return -1;
    }
    return 0;
}

static int check_bytes(const char *what, long long bytes)
{
    if (bytes < 0 || bytes > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: message size must be between 0 and %d bytes, got %lld", what,
                     INT32_MAX, bytes);
        return -1;
    }
    return 0;
}

static PyObject *new_samples(Py_ssize_t n, double **data)
{
    npy_intp dims[1] = {n};
    PyObject *arr = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (arr != NULL) {
        *data = PyArray_DATA((PyArrayObject *)arr);
        for (Py_ssize_t i = 0; i < n; i++)
            (*data)[i] = NAN;   /* ranks that sit out keep NaN */
    }
    return arr;
}

static PyObject *finish(PyObject *arr, int rc, const char *what)
{
    if (rc == HPCB_OK)
        return arr;
    Py_DECREF(arr);
    if (rc == HPCB_EINVAL)
        return PyErr_Format(PyExc_ValueError, "%s: a rank argument is out of range for this communicator", what);
    return hpcb_raise(rc, what);
}

typedef int (*p2p_fn)(MPI_Comm, const struct hpcb_p2p_params *, double *);

static PyObject *p2p(PyObject *args, const char *what, p2p_fn fn)
{
    PyObject *comm_obj;
    int partner, initiator = 1;
    long long bytes;
    Py_ssize_t warmup, iterations, inner = 1;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OipLnn|n", &comm_obj, &partner, &initiator, &bytes, &warmup, &iterations,
                          &inner))
        return NULL;
    if (get_comm(comm_obj, what, &comm) || check_counts(what, warmup, iterations) || check_bytes(what, bytes))
        return NULL;
    if (inner < 1 || inner > 1000000) {
        PyErr_Format(PyExc_ValueError, "%s: inner iterations per sample must be in 1..1e6, got %zd", what, inner);
        return NULL;
    }
    double *ticks;
    PyObject *arr = new_samples(iterations, &ticks);
    if (arr == NULL)
        return NULL;
    struct hpcb_p2p_params p = {.partner = partner < 0 ? MPI_PROC_NULL : partner, .initiator = initiator,
                                .bytes = (size_t)bytes, .warmup = (size_t)warmup,
                                .iterations = (size_t)iterations, .inner = (size_t)inner};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fn(comm, &p, ticks);
    Py_END_ALLOW_THREADS
    return finish(arr, rc, what);
}

static PyObject *echo(PyObject *self, PyObject *args)
{
    return p2p(args, "echo", hpcb_echo);
}

static PyObject *exchange(PyObject *self, PyObject *args)
{
    return p2p(args, "exchange", hpcb_exchange);
}

static PyObject *bcast_times(PyObject *self, PyObject *args)
{
    PyObject *comm_obj;
    int root;
    long long bytes;
    Py_ssize_t warmup, iterations;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OiLnn", &comm_obj, &root, &bytes, &warmup, &iterations))
        return NULL;
    if (get_comm(comm_obj, "bcast", &comm) || check_counts("bcast", warmup, iterations) ||
        check_bytes("bcast", bytes))
        return NULL;
    double *ticks;
    PyObject *arr = new_samples(iterations, &ticks);
    if (arr == NULL)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_bcast(comm, root, (size_t)bytes, (size_t)warmup, (size_t)iterations, ticks);
    Py_END_ALLOW_THREADS
    return finish(arr, rc, "bcast");
}

static PyObject *allreduce_times(PyObject *self, PyObject *args)
{
    PyObject *comm_obj;
    long long count;
    Py_ssize_t warmup, iterations;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OLnn", &comm_obj, &count, &warmup, &iterations))
        return NULL;
    if (get_comm(comm_obj, "allreduce", &comm) || check_counts("allreduce", warmup, iterations) ||
        check_bytes("allreduce", count * 8))
        return NULL;
    double *ticks;
    PyObject *arr = new_samples(iterations, &ticks);
    if (arr == NULL)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_allreduce_sum(comm, (size_t)count, (size_t)warmup, (size_t)iterations, ticks);
    Py_END_ALLOW_THREADS
    return finish(arr, rc, "allreduce");
}

static PyObject *overlap_times(PyObject *self, PyObject *args)
{
    PyObject *comm_obj;
    int partner, mode;
    long long bytes, n;
    Py_ssize_t warmup, iterations;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OiLLinn", &comm_obj, &partner, &bytes, &n, &mode, &warmup, &iterations))
        return NULL;
    if (get_comm(comm_obj, "overlap", &comm) || check_counts("overlap", warmup, iterations) ||
        check_bytes("overlap", bytes))
        return NULL;
    if (n < 0 || n > (1LL << 32) || mode < 0 || mode > 3) {
        PyErr_Format(PyExc_ValueError, "overlap: vector length must be in 0..2**32 and mode in 0..3, got %lld, %d",
                     n, mode);
        return NULL;
    }
    double *ticks;
    PyObject *arr = new_samples(iterations, &ticks);
    if (arr == NULL)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_overlap(comm, partner < 0 ? MPI_PROC_NULL : partner, (size_t)bytes, (size_t)n, mode,
                      (size_t)warmup, (size_t)iterations, ticks);
    Py_END_ALLOW_THREADS
    return finish(arr, rc, "overlap");
}

static PyObject *echo_contention(PyObject *self, PyObject *args)
{
    PyObject *comm_obj;
    int role, partner, load_sender;
    long long bytes, load_bytes;
    Py_ssize_t warmup, iterations;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OiiiLLnn", &comm_obj, &role, &partner, &load_sender, &bytes, &load_bytes,
                          &warmup, &iterations))
        return NULL;
    if (get_comm(comm_obj, "echo_contention", &comm) || check_counts("echo_contention", warmup, iterations) ||
        check_bytes("echo_contention", bytes) || check_bytes("echo_contention", load_bytes))
        return NULL;
    double *ticks;
    PyObject *arr = new_samples(iterations, &ticks);
    if (arr == NULL)
        return NULL;
    struct hpcb_contention_params p = {.role = role, .partner = partner, .load_sender = load_sender,
                                       .bytes = (size_t)bytes, .load_bytes = (size_t)load_bytes,
                                       .warmup = (size_t)warmup, .iterations = (size_t)iterations};
    size_t messages = 0;
    double load_ticks = 0.0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_echo_contention(comm, &p, ticks, &messages, &load_ticks);
    Py_END_ALLOW_THREADS
    arr = finish(arr, rc, "echo_contention");
    if (arr == NULL)
        return NULL;
    return Py_BuildValue("Nnd", arr, (Py_ssize_t)messages, load_ticks);
}

static PyObject *shift_times(PyObject *self, PyObject *args)
{
    PyObject *comm_obj;
    int dest, source;
    long long bytes;
    Py_ssize_t warmup, iterations;
    MPI_Comm comm;
    if (!PyArg_ParseTuple(args, "OiiLnn", &comm_obj, &dest, &source, &bytes, &warmup, &iterations))
        return NULL;
    if (get_comm(comm_obj, "shift", &comm) || check_counts("shift", warmup, iterations) ||
        check_bytes("shift", bytes))
        return NULL;
    double *ticks;
    PyObject *arr = new_samples(iterations, &ticks);
    if (arr == NULL)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_shift(comm, dest, source, (size_t)bytes, (size_t)warmup, (size_t)iterations, ticks);
    Py_END_ALLOW_THREADS
    return finish(arr, rc, "shift");
}

PyMethodDef hpcb_comm_methods[] = {
    {"barrier_times", barrier_times, METH_VARARGS,
     "barrier_times(comm, warmup=10, samples=100) -> ns per barrier on this rank"},
    {"echo", echo, METH_VARARGS,
     "echo(comm, partner, initiator, bytes, warmup, iterations, inner=1) -> ticks per sample of `inner` "
     "round trips (NaN if partner < 0)"},
    {"exchange", exchange, METH_VARARGS,
     "exchange(comm, partner, initiator, bytes, warmup, iterations, inner=1) -> ticks per sample of `inner` "
     "exchanges"},
    {"bcast_times", bcast_times, METH_VARARGS,
     "bcast_times(comm, root, bytes, warmup, iterations) -> ticks per broadcast on this rank"},
    {"allreduce_times", allreduce_times, METH_VARARGS,
     "allreduce_times(comm, count, warmup, iterations) -> ticks per global sum of count doubles"},
    {"overlap_times", overlap_times, METH_VARARGS,
     "overlap_times(comm, partner, bytes, n, mode, warmup, iterations) -> ticks per iteration"},
    {"shift_times", shift_times, METH_VARARGS,
     "shift_times(comm, dest, source, bytes, warmup, iterations) -> ticks per iteration (NaN if dest < 0)"},
    {"echo_contention", echo_contention, METH_VARARGS,
     "echo_contention(comm, role, partner, load_sender, bytes, load_bytes, warmup, iterations) -> "
     "(ticks, load_messages, load_ticks)"},
    {NULL, NULL, 0, NULL},
};
