/* multibsp_kernels.c - glue for the MultiBSP kernels: h-communication and
 * the inner product over a flattened tree (csrc/kernels/multibsp.c). */
#include "families.h"

#include <stdlib.h>

#include "../runtime/hpcb.h"

/* The hcomm counts, as parsed, into p. */
static int hcomm_sizes(PyObject *self, struct hpcb_hcomm_params *p, const long long counts[5])
{
    return GLUE_COUNTS(self, {"hmax", counts[0], &p->hmax}, {"iterations", counts[1], &p->iterations},
                       {"blocks", counts[2], &p->blocks}, {"warmup", counts[3], &p->warmup},
                       {"daxpy_length", counts[4], &p->daxpy_length});
}

static char *hcomm_keywords[] = {"pus", "hmax", "iterations", "blocks", "warmup", "daxpy_length", NULL};

static PyObject *hcomm(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct glue_call c = {.kernel = GLUE_HCOMM, .what = "hcomm"};
    long long n[5] = {0, 0, 10, 10, 1024};   /* hmax, iterations, blocks, warmup, daxpy_length */
    PyObject *pus;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OLL|LLL:hcomm", hcomm_keywords, &pus, &n[0], &n[1], &n[2], &n[3],
                                     &n[4]) ||
        hcomm_sizes(self, &c.p.hcomm, n) != 0 || glue_pus(self, &c, pus, &c.p.hcomm.team) != 0)
        return NULL;
    /* Thread 0's ticks of each block of each h, and every thread's rate. */
    const struct glue_samples samples[] = {{&c.out.hcomm.ticks, c.p.hcomm.hmax + 1, c.p.hcomm.blocks},
                                           {&c.out.hcomm.rate, c.p.hcomm.team.npus, 0}};
    return glue_run(self, &c, hpcb_hcomm_check(&c.p.hcomm, &c.why), samples, 2, "");
}

static PyObject *hcomm_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct hpcb_hcomm_params p;
    struct hpcb_why why = {0};
    long long n[5] = {0, 0, 10, 10, 1024};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "LL|LLL:hcomm_check", hcomm_keywords + 1, &n[0], &n[1], &n[2],
                                     &n[3], &n[4]) ||
        hcomm_sizes(self, &p, n) != 0)
        return NULL;
    return glue_verdict(self, hpcb_hcomm_check_sizes(&p, &why), &why, "hcomm_check");
}

/* The arrays of a flattened tree, in inner_product's argument order, each
 * converted to the C type of its params field. The params struct gives
 * some of them one shared count (PUs, or components as many as `parent`
 * has), so a length that differs cannot be passed on: one per `per`. */
enum { LEAF_PARENT, PARENT, MASTER, NLEAVES, BEGIN, END, X, TREE_ARRAYS };
enum tree_length { PER_PU, PER_COMPONENT, ANY_LENGTH };
static const struct {
    const char *name;
    int type;
    enum tree_length length;
} tree_spec[TREE_ARRAYS] = {
    {"leaf_parent", NPY_LONG, PER_PU},     {"parent", NPY_LONG, ANY_LENGTH}, {"master", NPY_LONG, PER_COMPONENT},
    {"nleaves", NPY_LONG, PER_COMPONENT}, {"begin", NPY_UINTP, PER_PU},     {"end", NPY_UINTP, PER_PU},
    {"x", NPY_DOUBLE, ANY_LENGTH},
};

/* Convert objs[] into arrays[] (all NULL first). 0, or -1 with the
 * exception set (the caller releases what was made). */
static int tree_arrays(PyObject *self, PyObject **objs, npy_intp npus, PyArrayObject **arrays)
{
    for (int i = 0; i < TREE_ARRAYS; i++) {
        arrays[i] = (PyArrayObject *)PyArray_FROMANY(objs[i], tree_spec[i].type, 1, 1, NPY_ARRAY_IN_ARRAY);
        if (arrays[i] == NULL)
            return -1;
        enum tree_length per = tree_spec[i].length;
        npy_intp want = per == PER_PU ? npus : per == PER_COMPONENT ? PyArray_DIM(arrays[PARENT], 0) : -1;
        if (want >= 0 && PyArray_DIM(arrays[i], 0) != want) {
            struct hpcb_why why = {.parameter = tree_spec[i].name};
            snprintf(why.rule, sizeof why.rule, "must have %zd entries (one per %s), got %zd", (Py_ssize_t)want,
                     per == PER_PU ? "PU" : "entry of parent", (Py_ssize_t)PyArray_DIM(arrays[i], 0));
            glue_raise(self, HPCB_EINVAL, &why, "inner_product");
            return -1;
        }
    }
    return 0;
}

static PyObject *inner_product(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_INNER_PRODUCT, .what = "inner_product"};
    struct hpcb_inner_product_params *p = &c.p.inner_product;
    struct hpcb_inner_product_out *out = &c.out.inner_product;
    PyObject *pus, *objs[TREE_ARRAYS], *result = NULL;
    PyArrayObject *tree[TREE_ARRAYS] = {NULL};
    long long reps;
    if (!PyArg_ParseTuple(args, "OOOOOOOOL:inner_product", &pus, &objs[LEAF_PARENT], &objs[PARENT], &objs[MASTER],
                          &objs[NLEAVES], &objs[BEGIN], &objs[END], &objs[X], &reps) ||
        GLUE_COUNTS(self, {"reps", reps, &p->reps}) != 0 || glue_pus(self, &c, pus, &p->team) != 0)
        return NULL;
    if (tree_arrays(self, objs, (npy_intp)p->team.npus, tree) == 0) {
        p->ncomp = (size_t)PyArray_DIM(tree[PARENT], 0);
        p->leaf_parent = PyArray_DATA(tree[LEAF_PARENT]);
        p->parent = PyArray_DATA(tree[PARENT]);
        p->master = PyArray_DATA(tree[MASTER]);
        p->nleaves = PyArray_DATA(tree[NLEAVES]);
        p->begin = PyArray_DATA(tree[BEGIN]);
        p->end = PyArray_DATA(tree[END]);
        p->x = PyArray_DATA(tree[X]);
        p->n = (size_t)PyArray_DIM(tree[X], 0);
        const struct glue_samples samples[] = {{&out->total_ticks, p->reps, 0}, {&out->inside_ticks, p->reps, 0},
                                               {&out->leaf_ticks, p->reps, p->team.npus},
                                               {&out->reduce_ticks, p->reps, 0}};
        result = glue_run(self, &c, hpcb_inner_product_check(p, &c.why), samples, 4, "d", &out->result);
    }
    glue_call_free(&c);   /* if glue_run did not run */
    for (int i = 0; i < TREE_ARRAYS; i++)
        Py_XDECREF(tree[i]);
    return result;
}

static PyObject *sumsq_rate(PyObject *self, PyObject *args)
{
    struct glue_call c = {.kernel = GLUE_SUMSQ_RATE, .what = "sumsq_rate"};
    struct hpcb_sumsq_rate_params *p = &c.p.sumsq_rate;
    PyObject *pus;
    long long length, trials;
    if (!PyArg_ParseTuple(args, "OLL:sumsq_rate", &pus, &length, &trials) ||
        GLUE_COUNTS(self, {"length", length, &p->length}, {"trials", trials, &p->trials}) != 0 ||
        glue_pus(self, &c, pus, &p->team) != 0)
        return NULL;
    const struct glue_samples samples[] = {{&c.out.sumsq_rate.rate, p->trials, p->team.npus}};
    return glue_run(self, &c, hpcb_sumsq_rate_check(p, &c.why), samples, 1, "");
}

PyMethodDef glue_multibsp_methods[] = {
    {"hcomm", GLUE_KEYWORDS(hcomm),
     "hcomm(pus, hmax, iterations, blocks=10, warmup=10, daxpy_length=1024) -> (ticks, DAXPY flops per tick)"},
    {"hcomm_check", GLUE_KEYWORDS(hcomm_check), "hcomm_check(hmax, iterations, blocks=10, warmup=10, "
     "daxpy_length=1024) -> None if hcomm would accept them (its PUs aside); else ParameterError"},
    {"inner_product", inner_product, METH_VARARGS,
     "inner_product(pus, leaf_parent, parent, master, nleaves, begin, end, x, reps) -> "
     "(total_ticks, inside_ticks, leaf_ticks (reps x threads), reduce_ticks, result)"},
    {"sumsq_rate", sumsq_rate, METH_VARARGS,
     "sumsq_rate(pus, length, trials) -> flops per tick (trials x threads) of the inner product's leaf loop, "
     "every thread on its own slice of length doubles at once"},
    {NULL, NULL, 0, NULL},
};
