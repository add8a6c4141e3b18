/* numa_kernels.c - glue for numa.h: one cell of the NUMA matrix, the check
 * of its sizes, and hwloc's own NUMA latency matrix of a topology. Every
 * rule is the kernel's check's; this file only fills params. */
#include "families.h"

#include <stdlib.h>

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"
#include "../runtime/topo.h"

/* The counts as parsed, with their defaults. */
struct numa_args {
    long long buffer_bytes, chase_bytes, repetitions, warmup, samples, accesses, window_bytes;
    unsigned long long seed;
};

#define NUMA_DEFAULTS                                                                                  \
    {.chase_bytes = -1, .warmup = 1, .samples = 5, .accesses = 200000, .window_bytes = 131072, .seed = 1}

static int numa_counts(PyObject *self, const struct numa_args *a, struct hpcb_numa_params *p)
{
    p->seed = a->seed;
    /* chase_bytes -1 (not given): the whole buffer. */
    return GLUE_COUNTS(self, {"buffer_bytes", a->buffer_bytes, &p->buffer_bytes},
                       {"chase_bytes", a->chase_bytes == -1 ? a->buffer_bytes : a->chase_bytes, &p->chase_bytes},
                       {"repetitions", a->repetitions, &p->repetitions}, {"warmup", a->warmup, &p->warmup},
                       {"samples", a->samples, &p->samples}, {"accesses", a->accesses, &p->accesses},
                       {"window_bytes", a->window_bytes, &p->window_bytes});
}

static PyObject *numa_cell(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"pus", "node", "buffer_bytes", "repetitions", "warmup", "samples", "accesses",
                               "order", "window_bytes", "seed", "page_mode", "isa", "chase_bytes", NULL};
    struct numa_args a = NUMA_DEFAULTS;
    struct glue_call c = {.kernel = GLUE_NUMA, .what = "numa_cell",
                          .p.numa = {.order = HPCB_ORDER_WINDOWED, .page_mode = HPCB_PAGES_NORMAL,
                                     .isa = HPCB_ISA_AUTO}};
    struct hpcb_numa_params *p = &c.p.numa;
    struct hpcb_numa_out *o = &c.out.numa;
    PyObject *pus;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OILL|LLLiLKiiL:numa_cell", keywords, &pus, &p->node,
                                     &a.buffer_bytes, &a.repetitions, &a.warmup, &a.samples, &a.accesses, &p->order,
                                     &a.window_bytes, &a.seed, &p->page_mode, &p->isa, &a.chase_bytes) ||
        numa_counts(self, &a, p) != 0 || glue_pus(self, &c, pus, &p->team) != 0)
        return NULL;
    /* Each member's time of each read and when it started and ended on the
     * clock all members share; then member 0's ns per dependent load. */
    const struct glue_samples samples[] = {{&o->ns, p->team.npus, p->repetitions},
                                           {&o->start_ns, p->team.npus, p->repetitions},
                                           {&o->end_ns, p->team.npus, p->repetitions},
                                           {&o->latency_ns, p->samples, 0}};
    return glue_run(self, &c, hpcb_numa_check(p, &c.why), samples, 4, "nnnnn", &o->slice_bytes, &o->isa, &o->strict,
                    &o->location_chunks, &o->misplaced_chunks);
}

static PyObject *numa_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"members", "buffer_bytes", "repetitions", "warmup", "samples", "accesses", "order",
                               "window_bytes", "page_mode", "isa", "chase_bytes", NULL};
    struct numa_args a = NUMA_DEFAULTS;
    struct hpcb_numa_params p = {.order = HPCB_ORDER_WINDOWED, .page_mode = HPCB_PAGES_NORMAL, .isa = HPCB_ISA_AUTO};
    struct hpcb_why why = {0};
    long long members;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LLL|LLLiLiiL:numa_check", keywords, &members, &a.buffer_bytes,
                                     &a.repetitions, &a.warmup, &a.samples, &a.accesses, &p.order, &a.window_bytes,
                                     &p.page_mode, &p.isa, &a.chase_bytes) ||
        numa_counts(self, &a, &p) != 0 || GLUE_COUNTS(self, {"members", members, &p.team.npus}) != 0)
        return NULL;
    return glue_verdict(self, hpcb_numa_check_sizes(&p, &why), &why, "numa_check");
}

/* (nodes, matrix) of hwloc's NUMA latency matrix, or None without one. */
static PyObject *distances_of(PyObject *self, hwloc_topology_t topo)
{
    int most = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    size_t cap = most > 0 ? (size_t)most : 1, count = 0;
    unsigned *nodes = calloc(cap, sizeof *nodes);
    double *values = calloc(cap * cap, sizeof *values);
    int rc = nodes != NULL && values != NULL ? hpcb_numa_distances(topo, nodes, values, cap, &count) : HPCB_ENOMEM;
    PyObject *result = NULL;
    if (rc != HPCB_OK)
        glue_raise(self, rc, NULL, "numa_distances");
    else if (count == 0 || count > cap)   /* none, or over objects that are not all listed nodes */
        result = (Py_INCREF(Py_None), Py_None);
    else {
        npy_intp dims[2] = {(npy_intp)count, (npy_intp)count};
        PyObject *index = PyList_New((Py_ssize_t)count);
        PyObject *matrix = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
        for (size_t i = 0; index != NULL && matrix != NULL && i < count; i++) {
            PyList_SET_ITEM(index, (Py_ssize_t)i, PyLong_FromUnsignedLong(nodes[i]));
            for (size_t j = 0; j < count; j++)
                ((double *)PyArray_DATA((PyArrayObject *)matrix))[i * count + j] = values[i * cap + j];
        }
        if (index != NULL && matrix != NULL)
            result = Py_BuildValue("(NN)", index, matrix);
        else {
            Py_XDECREF(index);
            Py_XDECREF(matrix);
        }
    }
    free(values);
    free(nodes);
    return result;
}

static PyObject *numa_distances(PyObject *self, PyObject *args)
{
    struct hpcb_topo_params p = {.source = NULL};
    if (!PyArg_ParseTuple(args, "i|z:numa_distances", &p.kind, &p.source))
        return NULL;
    return glue_with_topology(self, &p, "numa_distances", distances_of);
}

PyMethodDef glue_numa_methods[] = {
    {"numa_cell", GLUE_KEYWORDS(numa_cell),
     "numa_cell(pus, node, buffer_bytes, repetitions, warmup=1, samples=5, accesses=200000, order=ORDER_WINDOWED, "
     "window_bytes=131072, seed=1, page_mode=PAGES_NORMAL, isa=ISA_AUTO, chase_bytes=buffer_bytes) -> (ns, start_ns, "
     "end_ns, latency_ns, "
     "slice_bytes, isa, strict, location_chunks, misplaced_chunks): the team pus reads a buffer bound to NUMA node "
     "`node` (ns, start_ns, end_ns: members x repetitions, one read of each member's slice), then pus[0] chases its "
     "first chase_bytes (latency_ns: ns per dependent load of each sample); where the pages are, read back in chunks"},
    {"numa_check", GLUE_KEYWORDS(numa_check),
     "numa_check(members, buffer_bytes, repetitions, warmup=1, samples=5, accesses=200000, order=ORDER_WINDOWED, "
     "window_bytes=131072, page_mode=PAGES_NORMAL, isa=ISA_AUTO, chase_bytes=buffer_bytes) -> None if numa_cell would "
     "accept them (its PUs "
     "and node aside); else ParameterError"},
    {"numa_distances", numa_distances, METH_VARARGS,
     "numa_distances(kind, source=None) -> None, or (node OS indexes, matrix): hwloc's NUMA latency matrix of a "
     "topology (TOPO_THIS_MACHINE, TOPO_XML_FILE, TOPO_SYNTHETIC), row = from node, column = to node"},
    {NULL, NULL, 0, NULL},
};
