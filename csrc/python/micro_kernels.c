/* micro_kernels.c - glue for the OSU/IMB micro-benchmark kernels (micro.h):
 * one function runs any test, one tells whether the MPI library does
 * one-sided communication. MPI reaches C only through mpi4py's C API. */
#include "families.h"

#include "mpi4py_comm.h"

#include "../runtime/hpcb.h"

static PyObject *micro_times(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"comm", "test", "bytes", "warmup", "iterations", "inner", "mode", "sync", "pairs",
                               "window", "compute_ticks", NULL};
    struct glue_call c = {.kernel = GLUE_MICRO, .what = "micro_times"};
    struct hpcb_micro_params *p = &c.p.micro;
    long long bytes, warmup, iterations, inner = 1, window = 1, compute_ticks = 0;
    p->mode = HPCB_MODE_BLOCKING;
    p->sync = HPCB_SYNC_FENCE;
    p->pairs = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&iLLL|LiiiLL:micro_times", keywords, comm_converter, &p->comm,
                                     &p->test, &bytes, &warmup, &iterations, &inner, &p->mode, &p->sync, &p->pairs,
                                     &window, &compute_ticks) ||
        GLUE_COUNTS(self, {"bytes", bytes, &p->bytes}, {"warmup", warmup, &p->warmup},
                    {"iterations", iterations, &p->iterations}, {"inner", inner, &p->inner},
                    {"window", window, &p->window}) != 0)
        return NULL;
    if (compute_ticks < 0)
        compute_ticks = (long long)HPCB_MICRO_MAX_COMPUTE + 1;   /* the check names it */
    p->compute_ticks = (uint64_t)compute_ticks;
    int check = hpcb_micro_check(p, &c.why);
    if (p->mode == HPCB_MODE_OVERLAP) {   /* t_ovrl and the computation's part of it */
        const struct glue_samples samples[] = {{&c.out.micro.ticks, p->iterations, 0},
                                               {&c.out.micro.cpu_ticks, p->iterations, 0}};
        return glue_run(self, &c, check, samples, 2, "");
    }
    const struct glue_samples samples[] = {{&c.out.micro.ticks, p->iterations, 0}};
    return glue_run(self, &c, check, samples, 1, "");
}

static PyObject *rma_available(PyObject *self, PyObject *args)
{
    MPI_Comm comm;
    int available = 0;
    if (!PyArg_ParseTuple(args, "O&:rma_available", comm_converter, &comm))
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_micro_rma_available(comm, &available);
    Py_END_ALLOW_THREADS
    if (glue_status(self, rc, NULL, "rma_available") != 0)
        return NULL;
    return PyBool_FromLong(available);
}

PyMethodDef glue_micro_methods[] = {
    {"micro_times", GLUE_KEYWORDS(micro_times),
     "micro_times(comm, test, bytes, warmup, iterations, inner=1, mode=MODE_BLOCKING, sync=SYNC_FENCE, pairs=1, "
     "window=1, compute_ticks=0) -> ticks per sample of `inner` operations on this rank (NaN where the rank takes "
     "no part); mode MODE_OVERLAP: (ticks, computation ticks per sample). test MICRO_*."},
    {"rma_available", rma_available, METH_VARARGS,
     "rma_available(comm) -> whether the MPI library creates a one-sided window on comm (collective)"},
    {NULL, NULL, 0, NULL},
};
