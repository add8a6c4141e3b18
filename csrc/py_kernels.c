/* py_kernels.c - glue for the memory-hierarchy kernels. Validation here gives
 * messages that state the rule; the kernels check again and refuse anyway. */
#include "glue.h"

#include <limits.h>
#include <stdlib.h>

#include "hpcb.h"
#include "kernels/copy.h"
#include "kernels/overlap.h"
#include "kernels/traverse.h"
#include "memory.h"



/* Parse the traversal parameters shared by traverse() and traverse_team(). */
static int parse_traverse(struct hpcb_traverse_params *p,
                          Py_ssize_t *nsamples, unsigned long long array_bytes,
                          unsigned long long stride_bytes, int order,
                          unsigned long long seed, unsigned long long min_accesses,
                          unsigned long long warmup, Py_ssize_t samples, int page_mode,
                          unsigned long long window_bytes)
{
    if (array_bytes == 0) {
        PyErr_SetString(PyExc_ValueError, "array size must be positive");
        return -1;
    }
    if (stride_bytes == 0 || stride_bytes % sizeof(int) != 0) {
        PyErr_Format(PyExc_ValueError,
                     "stride must be a positive multiple of sizeof(int) (%zu bytes), got %llu",
                     sizeof(int), stride_bytes);
        return -1;
    }
    if (array_bytes < stride_bytes || array_bytes % stride_bytes != 0) {
        PyErr_Format(PyExc_ValueError,
                     "array size must be a multiple of the stride (%llu bytes), got %llu",
                     stride_bytes, array_bytes);
        return -1;
    }
    if (array_bytes / sizeof(int) > (unsigned long long)INT_MAX) {
        PyErr_Format(PyExc_ValueError, "array size must be at most %llu bytes, got %llu",
                     (unsigned long long)INT_MAX * sizeof(int), array_bytes);
        return -1;
    }
    if (order != HPCB_ORDER_SEQUENTIAL && order != HPCB_ORDER_RANDOM &&
        order != HPCB_ORDER_WINDOWED) {
        PyErr_Format(PyExc_ValueError,
                     "order must be 0 (sequential), 1 (random) or 2 (windowed), got %d", order);
        return -1;
    }
    if (order == HPCB_ORDER_WINDOWED &&
        (window_bytes < stride_bytes || window_bytes % stride_bytes != 0)) {
        PyErr_Format(PyExc_ValueError,
                     "window must be a positive multiple of the stride (%llu bytes), got %llu",
                     stride_bytes, window_bytes);
        return -1;
    }
    if (min_accesses == 0 || min_accesses > (1ull << 40)) {
        PyErr_Format(PyExc_ValueError, "min_accesses must be between 1 and 2**40, got %llu",
                     min_accesses);
        return -1;
    }
    if (samples <= 0) {
        PyErr_Format(PyExc_ValueError, "samples must be positive, got %zd", samples);
        return -1;
    }
    if (page_mode != HPCB_PAGES_NORMAL && page_mode != HPCB_PAGES_HUGE &&
        page_mode != HPCB_PAGES_SYSTEM) {
        PyErr_Format(PyExc_ValueError, "page_mode must be 0, 1 or 2, got %d", page_mode);
        return -1;
    }
    *p = (struct hpcb_traverse_params){
        .array_bytes = (size_t)array_bytes, .stride_bytes = (size_t)stride_bytes,
        .order = order, .seed = seed, .min_accesses = (size_t)min_accesses,
        .warmup_traversals = (size_t)warmup, .page_mode = page_mode,
        .window_bytes = (size_t)window_bytes};
    *nsamples = samples;
    return 0;
}

static char *traverse_keywords[] = {"array_bytes", "stride_bytes", "order", "seed",
                                    "min_accesses", "warmup", "samples", "page_mode",
                                    "window_bytes", NULL};

static PyObject *traverse(PyObject *self, PyObject *args, PyObject *kwargs)
{
    unsigned long long array_bytes, stride_bytes, seed = 1, min_accesses = 1, warmup = 1;
    int order = HPCB_ORDER_SEQUENTIAL, page_mode = HPCB_PAGES_NORMAL;
    unsigned long long window_bytes = 131072;
    Py_ssize_t samples = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KK|iKKKniK", traverse_keywords,
                                     &array_bytes, &stride_bytes, &order, &seed,
                                     &min_accesses, &warmup, &samples, &page_mode, &window_bytes))
        return NULL;
    struct hpcb_traverse_params p;
    Py_ssize_t n;
    if (parse_traverse(&p, &n, array_bytes, stride_bytes, order, seed, min_accesses,
                       warmup, samples, page_mode, window_bytes) != 0)
        return NULL;

    npy_intp dims[1] = {n};
    PyObject *ticks = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    PyObject *ns = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (ticks == NULL || ns == NULL) {
        Py_XDECREF(ticks);
        Py_XDECREF(ns);
        return NULL;
    }
    double *t = PyArray_DATA((PyArrayObject *)ticks), *s = PyArray_DATA((PyArrayObject *)ns);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_traverse(&p, t, s, (size_t)n);
    Py_END_ALLOW_THREADS
    if (rc != HPCB_OK) {
        Py_DECREF(ticks);
        Py_DECREF(ns);
        return hpcb_raise(rc, "traverse");
    }
    return Py_BuildValue("NNn", ticks, ns, (Py_ssize_t)hpcb_traverse_accesses_per_sample(&p));
}

static char *team_keywords[] = {"pus", "array_bytes", "stride_bytes", "order", "seed",
                                "min_accesses", "warmup", "samples", "page_mode",
                                "window_bytes", NULL};

static PyObject *traverse_team(PyObject *self, PyObject *args, PyObject *kwargs)
{
    PyObject *pus_obj;
    unsigned long long array_bytes, stride_bytes, seed = 1, min_accesses = 1, warmup = 1;
    int order = HPCB_ORDER_SEQUENTIAL, page_mode = HPCB_PAGES_NORMAL;
    unsigned long long window_bytes = 131072;
    Py_ssize_t samples = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OKK|iKKKniK", team_keywords, &pus_obj,
                                     &array_bytes, &stride_bytes, &order, &seed,
                                     &min_accesses, &warmup, &samples, &page_mode, &window_bytes))
        return NULL;
    struct hpcb_traverse_params p;
    Py_ssize_t n;
    if (parse_traverse(&p, &n, array_bytes, stride_bytes, order, seed, min_accesses,
                       warmup, samples, page_mode, window_bytes) != 0)
        return NULL;

    Py_ssize_t members;
    unsigned *pus = hpcb_parse_pus(pus_obj, "a team", 65536, &members);
    if (pus == NULL)
        return NULL;
    if (hpcb_check_distinct(pus, members) != 0) {
        free(pus);
        return NULL;
    }

    npy_intp dims[2] = {members, n};
    PyObject *ticks = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    PyObject *ns = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (ticks == NULL || ns == NULL) {
        free(pus);
        Py_XDECREF(ticks);
        Py_XDECREF(ns);
        return NULL;
    }
    double *t = PyArray_DATA((PyArrayObject *)ticks), *s = PyArray_DATA((PyArrayObject *)ns);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_traverse_team(&p, pus, (size_t)members, t, s, (size_t)n);
    Py_END_ALLOW_THREADS
    free(pus);
    if (rc != HPCB_OK) {
        Py_DECREF(ticks);
        Py_DECREF(ns);
        if (rc == HPCB_EBIND || rc == HPCB_EINVAL)
            PyErr_SetString(PyExc_ValueError,
                            "traverse_team: could not bind a member; is every PU on this machine "
                            "and allowed to this process?");
        else
            hpcb_raise(rc, "traverse_team");
        return NULL;
    }
    return Py_BuildValue("NNn", ticks, ns, (Py_ssize_t)hpcb_traverse_accesses_per_sample(&p));
}


static char *copy_keywords[] = {"pus", "array_bytes", "repetitions", "warmup", "page_mode", NULL};

static PyObject *copy_team(PyObject *self, PyObject *args, PyObject *kwargs)
{
    PyObject *pus_obj;
    unsigned long long array_bytes, warmup = 1;
    Py_ssize_t reps;
    int page_mode = HPCB_PAGES_NORMAL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OKn|Ki", copy_keywords, &pus_obj,
                                     &array_bytes, &reps, &warmup, &page_mode))
        return NULL;
    if (array_bytes == 0 || array_bytes % 64 != 0) {
        PyErr_Format(PyExc_ValueError, "array size must be a positive multiple of 64 bytes, got %llu",
                     array_bytes);
        return NULL;
    }
    if (reps <= 0 || reps > 1000000) {
        PyErr_Format(PyExc_ValueError, "repetitions must be between 1 and 1000000, got %zd", reps);
        return NULL;
    }
    if (warmup > 1000) {
        PyErr_Format(PyExc_ValueError, "warmup must be at most 1000, got %llu", warmup);
        return NULL;
    }
    if (page_mode != HPCB_PAGES_NORMAL && page_mode != HPCB_PAGES_HUGE &&
        page_mode != HPCB_PAGES_SYSTEM) {
        PyErr_Format(PyExc_ValueError, "page_mode must be 0, 1 or 2, got %d", page_mode);
        return NULL;
    }
    struct hpcb_copy_params p = {.array_bytes = (size_t)array_bytes, .warmup = (size_t)warmup,
                                 .page_mode = page_mode};
    Py_ssize_t members;
    unsigned *pus = hpcb_parse_pus(pus_obj, "a team", 65536, &members);
    if (pus == NULL)
        return NULL;
    if (hpcb_check_distinct(pus, members) != 0) {
        free(pus);
        return NULL;
    }
    npy_intp dims[2] = {members, reps};
    PyObject *ns = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    PyObject *ticks = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    if (ns == NULL || ticks == NULL) {
        free(pus);
        Py_XDECREF(ns);
        Py_XDECREF(ticks);
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_copy_team(&p, pus, (size_t)members, PyArray_DATA((PyArrayObject *)ns),
                        PyArray_DATA((PyArrayObject *)ticks), (size_t)reps);
    Py_END_ALLOW_THREADS
    free(pus);
    if (rc != HPCB_OK) {
        Py_DECREF(ns);
        Py_DECREF(ticks);
        /* Parameters were checked above: EINVAL here is a PU hwloc does not know. */
        if (rc == HPCB_EBIND || rc == HPCB_EINVAL)
            PyErr_SetString(PyExc_ValueError,
                            "copy_team: could not bind a member; is every PU on this machine "
                            "and allowed to this process?");
        else
            hpcb_raise(rc, "copy_team");
        return NULL;
    }
    return Py_BuildValue("NN", ns, ticks);
}

static PyObject *daxpy_times(PyObject *self, PyObject *args)
{
    long long n;
    Py_ssize_t warmup, iterations;
    if (!PyArg_ParseTuple(args, "Lnn", &n, &warmup, &iterations))
        return NULL;
    if (n < 0 || n > (1LL << 32) || warmup < 0 || iterations <= 0 || iterations > 100000000) {
        PyErr_Format(PyExc_ValueError,
                     "daxpy_times: vector length in 0..2**32, warmup >= 0, iterations in 1..1e8; got %lld, %zd, %zd",
                     n, warmup, iterations);
        return NULL;
    }
    npy_intp dims[1] = {iterations};
    PyObject *arr = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (arr == NULL)
        return NULL;
    double *ticks = PyArray_DATA((PyArrayObject *)arr);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_daxpy_times((size_t)n, (size_t)warmup, (size_t)iterations, ticks);
    Py_END_ALLOW_THREADS
    if (rc != HPCB_OK) {
        Py_DECREF(arr);
        return hpcb_raise(rc, "daxpy_times");
    }
    return arr;
}


PyMethodDef hpcb_kernel_methods[] = {
    {"traverse", (PyCFunction)(void (*)(void))traverse, METH_VARARGS | METH_KEYWORDS,
     "traverse(array_bytes, stride_bytes, order=0, seed=1, min_accesses=1, warmup=1, "
     "samples=1, page_mode=0) -> (ticks_per_access, ns_per_access, accesses_per_sample)"},
    {"traverse_team", (PyCFunction)(void (*)(void))traverse_team, METH_VARARGS | METH_KEYWORDS,
     "traverse_team(pus, array_bytes, stride_bytes, ...) -> 2-D arrays, one row per PU"},
    {"copy_team", (PyCFunction)(void (*)(void))copy_team, METH_VARARGS | METH_KEYWORDS,
     "copy_team(pus, array_bytes, repetitions, warmup=1, page_mode=0) -> (ns, ticks), 2-D arrays "
     "(members x repetitions) of the time of each copy of array_bytes"},
    {"daxpy_times", daxpy_times, METH_VARARGS,
     "daxpy_times(n, warmup, iterations) -> ticks per y += a*x over n doubles"},
    {NULL, NULL, 0, NULL},
};
