/* py_kernels.c - glue for the memory-hierarchy kernels. Validation here gives
 * messages that state the rule; the kernels check again and refuse anyway. */
#include "glue.h"

#include <limits.h>
#include <stdlib.h>

#include "hpcb.h"
#include "kernels/copy.h"
#include "kernels/multibsp.h"
#include "kernels/overlap.h"
#include "kernels/traverse.h"
#include "memory.h"

static int check_distinct(const unsigned *pus, Py_ssize_t n);

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
    if (check_distinct(pus, members) != 0) {
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


/* Team PUs must be distinct: two members on one PU would time each other's
 * time slices, not a concurrent run. */
static int check_distinct(const unsigned *pus, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = i + 1; j < n; j++)
            if (pus[i] == pus[j]) {
                PyErr_Format(PyExc_ValueError, "a team's PUs must be distinct, PU %u appears twice",
                             pus[i]);
                return -1;
            }
    return 0;
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
    if (check_distinct(pus, members) != 0) {
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

static PyObject *hcomm(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"pus", "hmax", "iterations", "blocks", "warmup", "daxpy_length", NULL};
    PyObject *pus_obj;
    Py_ssize_t hmax, iterations, blocks = 10, warmup = 10, daxpy_length = 1024;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Onn|nnn", keywords, &pus_obj, &hmax, &iterations, &blocks,
                                     &warmup, &daxpy_length))
        return NULL;
    if (hmax < 1 || hmax > (1 << 20) || iterations < 1 || iterations > 100000000 || blocks < 1 ||
        blocks > 100000 || warmup < 0 || daxpy_length < 1 || daxpy_length > (1 << 26)) {
        PyErr_Format(PyExc_ValueError,
                     "hcomm: hmax in 1..2**20, iterations >= 1, blocks >= 1, warmup >= 0, daxpy_length >= 1; "
                     "got %zd, %zd, %zd, %zd, %zd", hmax, iterations, blocks, warmup, daxpy_length);
        return NULL;
    }
    Py_ssize_t n;
    unsigned *pus = hpcb_parse_pus(pus_obj, "an h-communication", 65536, &n);
    if (pus == NULL)
        return NULL;
    if (n < 2 || check_distinct(pus, n) != 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "hcomm: an h-communication needs at least 2 distinct PUs");
        free(pus);
        return NULL;
    }
    npy_intp dims[2] = {hmax + 1, blocks}, rdims[1] = {n};
    PyObject *ticks = PyArray_SimpleNew(2, dims, NPY_DOUBLE), *rate = PyArray_SimpleNew(1, rdims, NPY_DOUBLE);
    if (ticks == NULL || rate == NULL) {
        free(pus);
        Py_XDECREF(ticks);
        Py_XDECREF(rate);
        return NULL;
    }
    struct hpcb_hcomm_params p = {.hmax = (size_t)hmax, .iterations = (size_t)iterations, .blocks = (size_t)blocks,
                                  .warmup = (size_t)warmup, .daxpy_length = (size_t)daxpy_length};
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_hcomm(&p, pus, (size_t)n, PyArray_DATA((PyArrayObject *)ticks), PyArray_DATA((PyArrayObject *)rate));
    Py_END_ALLOW_THREADS
    free(pus);
    if (rc != HPCB_OK) {
        Py_DECREF(ticks);
        Py_DECREF(rate);
        if (rc == HPCB_EBIND || rc == HPCB_EINVAL)
            return PyErr_Format(PyExc_ValueError, "hcomm: could not bind a thread or bad parameters");
        return hpcb_raise(rc, "hcomm");
    }
    return Py_BuildValue("NN", ticks, rate);
}

/* A contiguous 1-D array of `type` from any sequence; NULL with an exception. */
static PyArrayObject *as_array(PyObject *obj, int type, const char *what, npy_intp length)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(obj, type, 1, 1, NPY_ARRAY_IN_ARRAY);
    if (a == NULL)
        return NULL;
    if (length >= 0 && PyArray_DIM(a, 0) != length) {
        PyErr_Format(PyExc_ValueError, "inner_product: %s must have %zd entries, got %zd", what, (Py_ssize_t)length,
                     (Py_ssize_t)PyArray_DIM(a, 0));
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyObject *inner_product(PyObject *self, PyObject *args)
{
    PyObject *pus_obj, *leaf_obj, *parent_obj, *master_obj, *nleaves_obj, *begin_obj, *end_obj, *x_obj;
    Py_ssize_t reps;
    if (!PyArg_ParseTuple(args, "OOOOOOOOn", &pus_obj, &leaf_obj, &parent_obj, &master_obj, &nleaves_obj,
                          &begin_obj, &end_obj, &x_obj, &reps))
        return NULL;
    if (reps < 1 || reps > 100000)
        return PyErr_Format(PyExc_ValueError, "inner_product: reps must be in 1..100000, got %zd", reps);
    Py_ssize_t nthreads;
    unsigned *pus = hpcb_parse_pus(pus_obj, "an inner product", 65536, &nthreads);
    if (pus == NULL)
        return NULL;
    PyArrayObject *leaf = NULL, *parent = NULL, *master = NULL, *nleaves = NULL, *begin = NULL, *end = NULL,
                  *x = NULL;
    PyObject *total = NULL, *inside = NULL, *out = NULL;
    if (check_distinct(pus, nthreads) != 0)
        goto done;
    if (!(leaf = as_array(leaf_obj, NPY_LONG, "leaf_parent", nthreads)) ||
        !(parent = as_array(parent_obj, NPY_LONG, "parent", -1)) ||
        !(master = as_array(master_obj, NPY_LONG, "master", PyArray_DIM(parent, 0))) ||
        !(nleaves = as_array(nleaves_obj, NPY_LONG, "nleaves", PyArray_DIM(parent, 0))) ||
        !(begin = as_array(begin_obj, NPY_UINTP, "begin", nthreads)) ||
        !(end = as_array(end_obj, NPY_UINTP, "end", nthreads)) ||
        !(x = as_array(x_obj, NPY_DOUBLE, "x", -1)))
        goto done;
    npy_intp dims[1] = {reps};
    total = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    inside = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (total == NULL || inside == NULL)
        goto done;
    struct hpcb_ip_tree tree = {.nthreads = (size_t)nthreads, .ncomp = (size_t)PyArray_DIM(parent, 0), .pus = pus,
                                .leaf_parent = PyArray_DATA(leaf), .parent = PyArray_DATA(parent),
                                .master = PyArray_DATA(master), .nleaves = PyArray_DATA(nleaves),
                                .begin = PyArray_DATA(begin), .end = PyArray_DATA(end)};
    double result = 0.0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_inner_product(&tree, PyArray_DATA(x), (size_t)PyArray_DIM(x, 0), (size_t)reps,
                            PyArray_DATA((PyArrayObject *)total), PyArray_DATA((PyArrayObject *)inside), &result);
    Py_END_ALLOW_THREADS
    if (rc == HPCB_EINVAL || rc == HPCB_EBIND)
        PyErr_SetString(PyExc_ValueError, "inner_product: the tree or a PU is invalid");
    else if (rc != HPCB_OK)
        hpcb_raise(rc, "inner_product");
    else
        out = Py_BuildValue("OOd", total, inside, result);
done:
    free(pus);
    Py_XDECREF(leaf);
    Py_XDECREF(parent);
    Py_XDECREF(master);
    Py_XDECREF(nleaves);
    Py_XDECREF(begin);
    Py_XDECREF(end);
    Py_XDECREF(x);
    Py_XDECREF(total);
    Py_XDECREF(inside);
    return out;
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
    {"hcomm", (PyCFunction)(void (*)(void))hcomm, METH_VARARGS | METH_KEYWORDS,
     "hcomm(pus, hmax, iterations, blocks=10, warmup=10, daxpy_length=1024) -> (ticks (hmax+1, blocks), "
     "DAXPY flops per tick per thread)"},
    {"inner_product", inner_product, METH_VARARGS,
     "inner_product(pus, leaf_parent, parent, master, nleaves, begin, end, x, reps) -> "
     "(total_ticks, inside_ticks, result)"},
    {"daxpy_times", daxpy_times, METH_VARARGS,
     "daxpy_times(n, warmup, iterations) -> ticks per y += a*x over n doubles"},
    {NULL, NULL, 0, NULL},
};
