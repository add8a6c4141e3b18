/* py_multibsp.c - glue for the MultiBSP kernels: h-communication and the
 * inner product over a flattened tree (csrc/kernels/multibsp.c). */
#include "glue.h"

#include <stdlib.h>

#include "hpcb.h"
#include "kernels/multibsp.h"

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
    if (n < 2 || hpcb_check_distinct(pus, n) != 0) {
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
    if (hpcb_check_distinct(pus, nthreads) != 0)
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

PyMethodDef hpcb_multibsp_methods[] = {
    {"hcomm", (PyCFunction)(void (*)(void))hcomm, METH_VARARGS | METH_KEYWORDS,
     "hcomm(pus, hmax, iterations, blocks=10, warmup=10, daxpy_length=1024) -> (ticks (hmax+1, blocks), "
     "DAXPY flops per tick per thread)"},
    {"inner_product", inner_product, METH_VARARGS,
     "inner_product(pus, leaf_parent, parent, master, nleaves, begin, end, x, reps) -> "
     "(total_ticks, inside_ticks, result)"},
    {NULL, NULL, 0, NULL},
};
