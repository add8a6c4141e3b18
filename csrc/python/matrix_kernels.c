/* matrix_kernels.c - glue for CoMet's matrix layer (csrc/kernels/matrix.c)
 * and its setup and verification (matrix_verify.c): the timed kernels on an
 * mpi4py communicator, and, without MPI, any rank's expected local matrix
 * and the check of a given one. */
#include "families.h"

#include "mpi4py_comm.h"

#include "../kernels/matrix_verify.h"
#include "../runtime/hpcb.h"

/* The arguments every function here shares, as parsed. */
struct geometry_args {
    int op, direction;
    long long n, rows, cols, index;
    PyObject *mesh, *transposed;
    PyArrayObject *arrays[2];     /* the two rank lists as C int arrays (owned) */
};

static void geometry_free(struct geometry_args *g)
{
    Py_CLEAR(g->arrays[0]);
    Py_CLEAR(g->arrays[1]);
}

/* Fill p (all but comm and the counts of applications) from g. The rank
 * lists must have one entry per mesh position: the C params have no length
 * of their own. 0, or -1 with the exception set. */
static int geometry(PyObject *self, struct geometry_args *g, struct hpcb_matrix_params *p, const char *what)
{
    p->op = g->op;
    p->direction = g->direction;
    if (GLUE_COUNTS(self, {"n", g->n, &p->n}, {"rows", g->rows, &p->rows}, {"cols", g->cols, &p->cols},
                    {"index", g->index, &p->index}) != 0)
        return -1;
    PyObject *objs[2] = {g->mesh, g->transposed};
    const char *names[2] = {"mesh", "transposed"};
    for (int i = 0; i < 2; i++) {
        g->arrays[i] = (PyArrayObject *)PyArray_FROMANY(objs[i], NPY_INT, 1, 1, NPY_ARRAY_IN_ARRAY);
        if (g->arrays[i] == NULL)
            return -1;
        if ((size_t)PyArray_DIM(g->arrays[i], 0) != p->rows * p->cols) {
            struct hpcb_why why = {.parameter = names[i]};
            snprintf(why.rule, sizeof why.rule, "must list rows x cols = %zu ranks, got %zd", p->rows * p->cols,
                     (Py_ssize_t)PyArray_DIM(g->arrays[i], 0));
            glue_raise(self, HPCB_EINVAL, &why, what);
            return -1;
        }
    }
    p->mesh = PyArray_DATA(g->arrays[0]);
    p->transposed = PyArray_DATA(g->arrays[1]);
    return 0;
}

static char *times_keywords[] = {"comm", "op", "n", "rows", "cols", "mesh", "transposed", "warmup", "iterations",
                                 "direction", "index", "block", NULL};

static PyObject *matrix_times(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct glue_call c = {.kernel = GLUE_MATRIX, .what = "matrix_times"};
    struct hpcb_matrix_params *p = &c.p.matrix;
    struct hpcb_matrix_out *out = &c.out.matrix;
    struct geometry_args g = {0};
    long long warmup, iterations;
    int want_block = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&iLLLOOLL|iLp:matrix_times", times_keywords, comm_converter,
                                     &p->comm, &g.op, &g.n, &g.rows, &g.cols, &g.mesh, &g.transposed, &warmup,
                                     &iterations, &g.direction, &g.index, &want_block))
        return NULL;
    if (geometry(self, &g, p, c.what) != 0 ||
        GLUE_COUNTS(self, {"warmup", warmup, &p->warmup}, {"iterations", iterations, &p->iterations}) != 0) {
        geometry_free(&g);
        return NULL;
    }
    int status = hpcb_matrix_check(p, &c.why);
    size_t rows = 0, cols = 0;
    if (status == HPCB_OK)
        hpcb_matrix_block_shape(p, p->warmup + p->iterations, &rows, &cols);
    const struct glue_samples samples[] = {{&out->ticks, p->iterations, 0}, {&out->block, rows, cols}};
    PyObject *result = glue_run(self, &c, status, samples, want_block ? 2 : 1, "");
    if (result == NULL && out->wrong > 0 && PyErr_ExceptionMatches(PyExc_RuntimeError)) {
        /* A failed verification: say which element, not only that one was wrong. */
        PyErr_Clear();
        PyErr_Format(PyExc_RuntimeError, "matrix_times: verification failed: %s", out->report);
    }
    geometry_free(&g);
    return result;
}

static char *check_keywords[] = {"op", "n", "rows", "cols", "mesh", "transposed", "iterations", "direction", "index",
                                 NULL};

static PyObject *matrix_check(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct hpcb_matrix_params p = {0};
    struct hpcb_why why = {0};
    struct geometry_args g = {0};
    long long iterations = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iLLLOO|LiL:matrix_check", check_keywords, &g.op, &g.n, &g.rows,
                                     &g.cols, &g.mesh, &g.transposed, &iterations, &g.direction, &g.index))
        return NULL;
    PyObject *result = NULL;
    if (geometry(self, &g, &p, "matrix_check") == 0 &&
        GLUE_COUNTS(self, {"iterations", iterations, &p.iterations}) == 0)
        result = glue_verdict(self, hpcb_matrix_check_sizes(&p, &why), &why, "matrix_check");
    geometry_free(&g);
    return result;
}

/* matrix_expected and matrix_verify: the geometry, checked, and the rank. */
static int placed(PyObject *self, struct geometry_args *g, struct hpcb_matrix_params *p, int rank, const char *what)
{
    struct hpcb_why why = {0};
    p->iterations = 1;
    if (geometry(self, g, p, what) != 0 || glue_status(self, hpcb_matrix_check_sizes(p, &why), &why, what) != 0)
        return -1;
    if (rank < 0 || (size_t)rank >= p->rows * p->cols) {
        hpcb_why_set(&why, "rank", "must be a rank of the %zu x %zu mesh (0..%zu), got %d", p->rows, p->cols,
                     p->rows * p->cols - 1, rank);
        return glue_status(self, HPCB_EINVAL, &why, what);
    }
    return 0;
}

static char *expected_keywords[] = {"rank", "op", "n", "rows", "cols", "mesh", "transposed", "applied", "direction",
                                    "index", NULL};

static PyObject *matrix_expected(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct hpcb_matrix_params p = {0};
    struct geometry_args g = {0};
    long long applied = 0;
    int rank;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iiLLLOO|LiL:matrix_expected", expected_keywords, &rank, &g.op,
                                     &g.n, &g.rows, &g.cols, &g.mesh, &g.transposed, &applied, &g.direction,
                                     &g.index))
        return NULL;
    PyObject *block = NULL;
    size_t count;
    if (placed(self, &g, &p, rank, "matrix_expected") == 0 &&
        GLUE_COUNTS(self, {"applied", applied, &count}) == 0) {
        size_t rows, cols;
        hpcb_matrix_block_shape(&p, count, &rows, &cols);
        npy_intp dims[2] = {(npy_intp)rows, (npy_intp)cols};
        block = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
        if (block != NULL)
            hpcb_matrix_expected(&p, rank, count, PyArray_DATA((PyArrayObject *)block));
    }
    geometry_free(&g);
    return block;
}

static char *verify_keywords[] = {"block", "rank", "op", "n", "rows", "cols", "mesh", "transposed", "applied",
                                  "direction", "index", NULL};

static PyObject *matrix_verify(PyObject *self, PyObject *args, PyObject *kwargs)
{
    struct hpcb_matrix_params p = {0};
    struct geometry_args g = {0};
    long long applied;
    int rank;
    PyObject *obj, *result = NULL;
    PyArrayObject *block = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OiiLLLOOL|iL:matrix_verify", verify_keywords, &obj, &rank, &g.op,
                                     &g.n, &g.rows, &g.cols, &g.mesh, &g.transposed, &applied, &g.direction,
                                     &g.index))
        return NULL;
    size_t count;
    if (placed(self, &g, &p, rank, "matrix_verify") == 0 && GLUE_COUNTS(self, {"applied", applied, &count}) == 0 &&
        (block = (PyArrayObject *)PyArray_FROMANY(obj, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY)) != NULL) {
        size_t rows, cols;
        hpcb_matrix_block_shape(&p, count, &rows, &cols);
        if ((size_t)PyArray_DIM(block, 0) != rows || (size_t)PyArray_DIM(block, 1) != cols) {
            struct hpcb_why why = {.parameter = "block"};
            snprintf(why.rule, sizeof why.rule, "must be the %zu x %zu local matrix (wrapper included), got %zd x %zd",
                     rows, cols, (Py_ssize_t)PyArray_DIM(block, 0), (Py_ssize_t)PyArray_DIM(block, 1));
            glue_raise(self, HPCB_EINVAL, &why, "matrix_verify");
        } else {
            char report[320] = "";
            size_t wrong = hpcb_matrix_verify(&p, rank, count, PyArray_DATA(block), report, sizeof report);
            result = Py_BuildValue("(ns)", (Py_ssize_t)wrong, report);
        }
    }
    Py_XDECREF(block);
    geometry_free(&g);
    return result;
}

PyMethodDef glue_matrix_methods[] = {
    {"matrix_times", GLUE_KEYWORDS(matrix_times),
     "matrix_times(comm, op, n, rows, cols, mesh, transposed, warmup, iterations, direction=0, index=0, "
     "block=False) -> ticks per application on this rank, or (ticks, local matrix) with block=True "
     "(op MATRIX_*, direction MATRIX_NORTH or MATRIX_EAST); RuntimeError if verification fails"},
    {"matrix_check", GLUE_KEYWORDS(matrix_check),
     "matrix_check(op, n, rows, cols, mesh, transposed, iterations=1, direction=0, index=0) -> None if "
     "matrix_times would accept these (but for the communicator); else ParameterError"},
    {"matrix_expected", GLUE_KEYWORDS(matrix_expected),
     "matrix_expected(rank, op, n, rows, cols, mesh, transposed, applied=0, direction=0, index=0) -> the local "
     "matrix `rank` must hold after `applied` applications (0: the setup), wrapper included"},
    {"matrix_verify", GLUE_KEYWORDS(matrix_verify),
     "matrix_verify(block, rank, op, n, rows, cols, mesh, transposed, applied, direction=0, index=0) -> "
     "(elements wrong, the first in words)"},
    {NULL, NULL, 0, NULL},
};
