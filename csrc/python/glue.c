/* glue.c - see glue.h. */
#include "glue.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/hpcb.h"

static struct glue_state *state_of(PyObject *module)
{
    return (struct glue_state *)PyModule_GetState(module);
}

int glue_state_exec(PyObject *module)
{
    struct glue_state *st = state_of(module);
    st->parameter_error = PyErr_NewExceptionWithDoc(
        "hpcbench._core.ParameterError",
        "A kernel parameter breaks one of the C core's rules (a ValueError).\n\n"
        "parameter: the name of the broken parameter (the C params field, which is\n"
        "the Python argument of the same name); rule: the rule in words, with the\n"
        "value received. str(error) is f\"{parameter} {rule}\".",
        PyExc_ValueError, NULL);
    if (st->parameter_error == NULL)
        return -1;
    /* PyModule_AddObject steals a reference on success only (3.9 has no
     * PyModule_AddObjectRef): the state keeps its own. */
    Py_INCREF(st->parameter_error);
    if (PyModule_AddObject(module, "ParameterError", st->parameter_error) != 0) {
        Py_DECREF(st->parameter_error);
        return -1;
    }
    return 0;
}

int glue_state_traverse(PyObject *module, visitproc visit, void *arg)
{
    struct glue_state *st = state_of(module);
    Py_VISIT(st->parameter_error);
    return 0;
}

int glue_state_clear(PyObject *module)
{
    struct glue_state *st = state_of(module);
    Py_CLEAR(st->parameter_error);
    return 0;
}

void glue_state_free(void *module)
{
    glue_state_clear((PyObject *)module);
}

int glue_add_constants(PyObject *module, const struct glue_constant *constants, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (PyModule_AddIntConstant(module, constants[i].name, constants[i].value) != 0)
            return -1;
    return 0;
}

/* ParameterError(f"{parameter} {rule}") with .parameter and .rule. */
static PyObject *raise_parameter_error(PyObject *module, const char *parameter, const char *rule)
{
    PyObject *type = state_of(module)->parameter_error;
    PyObject *exc = PyObject_CallFunction(type, "N", PyUnicode_FromFormat("%s %s", parameter, rule));
    if (exc == NULL)
        return NULL;
    PyObject *name = PyUnicode_FromString(parameter), *words = PyUnicode_FromString(rule);
    if (name != NULL && words != NULL && PyObject_SetAttrString(exc, "parameter", name) == 0 &&
        PyObject_SetAttrString(exc, "rule", words) == 0)
        PyErr_SetObject(type, exc);
    Py_XDECREF(name);
    Py_XDECREF(words);
    Py_DECREF(exc);
    return NULL;
}

PyObject *glue_raise(PyObject *module, int status, const struct hpcb_why *why, const char *what)
{
    int saved_errno = errno;   /* before anything here can change it */
    if (status == HPCB_EINVAL && why != NULL && why->parameter != NULL)
        return raise_parameter_error(module, why->parameter, why->rule);
    const char *words = hpcb_strerror(status);
    switch (status) {
    case HPCB_EINVAL:
        return PyErr_Format(PyExc_ValueError, "%s: %s", what, words);
    case HPCB_ENOMEM:
        return PyErr_Format(PyExc_MemoryError, "%s: %s", what, words);
    case HPCB_ESYS:
        return PyErr_Format(PyExc_OSError, "%s: %s (%s)", what, words, strerror(saved_errno));
    default:
        return PyErr_Format(PyExc_RuntimeError, "%s: %s", what, words);
    }
}

/* Drop n arrays; -1, for `return release(...)` on a failure path. */
static int release(PyObject **arrays, size_t n)
{
    for (size_t i = 0; i < n; i++)
        Py_CLEAR(arrays[i]);
    return -1;
}

int glue_status(PyObject *module, int status, const struct hpcb_why *why, const char *what)
{
    if (status == HPCB_OK)
        return 0;
    glue_raise(module, status, why, what);
    return -1;
}

int glue_counts(PyObject *module, const struct glue_count *counts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (counts[i].value < 0) {
            char rule[96];
            snprintf(rule, sizeof rule, "must not be negative (the kernel takes a size), got %lld", counts[i].value);
            raise_parameter_error(module, counts[i].name, rule);
            return -1;
        }
        *counts[i].field = (size_t)counts[i].value;
    }
    return 0;
}

/* The integers of `seq` (else TypeError `not_sequence`), each in 0..max
 * (else ParameterError on `parameter`: "<rule>, got V at index I"), into a
 * new array of `width`-byte unsigned values (`unsigned` or `size_t`); NULL
 * with the Python error set on failure. The one conversion of a list for
 * every kernel: PU lists and size lists. */
static void *integer_list(PyObject *module, PyObject *seq, const char *parameter, const char *not_sequence,
                          const char *rule, unsigned long long max, size_t width, size_t *count)
{
    PyObject *fast = PySequence_Fast(seq, not_sequence);
    if (fast == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    unsigned char *list = malloc((size_t)(n > 0 ? n : 1) * width);
    if (list == NULL)
        PyErr_NoMemory();
    for (Py_ssize_t i = 0; list != NULL && i < n; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v < 0 || (unsigned long long)v > max) {
            if (!PyErr_Occurred()) {
                char text[160];
                snprintf(text, sizeof text, "%s, got %lld at index %zd", rule, v, i);
                raise_parameter_error(module, parameter, text);
            }
            free(list);
            list = NULL;
        } else if (width == sizeof(unsigned)) {
            unsigned u = (unsigned)v;
            memcpy(list + (size_t)i * width, &u, width);
        } else {
            size_t z = (size_t)v;
            memcpy(list + (size_t)i * width, &z, width);
        }
    }
    Py_DECREF(fast);
    *count = (size_t)n;
    return list;
}

unsigned *glue_pu_list(PyObject *module, PyObject *seq, size_t *count)
{
    char rule[64];
    snprintf(rule, sizeof rule, "must be PU OS indexes (0..%u)", UINT_MAX);
    return integer_list(module, seq, "pus", "pus must be a sequence of PU OS indexes", rule, UINT_MAX,
                        sizeof(unsigned), count);
}

int glue_pus(PyObject *module, struct glue_call *call, PyObject *seq, struct hpcb_team_params *team)
{
    team->pus = call->pus = glue_pu_list(module, seq, &team->npus);
    return team->pus == NULL ? -1 : 0;
}

void glue_call_free(struct glue_call *call)
{
    free(call->pus);
    call->pus = NULL;
    free(call->sizes);
    call->sizes = NULL;
}

int glue_sizes(PyObject *module, struct glue_call *call, PyObject *seq, const size_t **sizes, size_t *n)
{
    size_t count = 0;
    size_t *list = integer_list(module, seq, "sizes", "sizes must be a sequence of sizes in bytes",
                                "must not be negative", (unsigned long long)LLONG_MAX, sizeof(size_t), &count);
    if (list == NULL)
        return -1;
    free(call->sizes);
    *sizes = call->sizes = list;
    *n = count;
    return 0;
}

/* The kernel of `c`; runs without the GIL, so no Python here. */
static int run_kernel(struct glue_call *c)
{
    switch (c->kernel) {
    case GLUE_TRAVERSE: return hpcb_traverse_run(&c->p.traverse, &c->out.traverse);
    case GLUE_CHASE: return hpcb_chase_run(&c->p.chase, &c->out.chase);
    case GLUE_LOAD: return hpcb_load_run(&c->p.load, &c->out.load);
    case GLUE_COPY: return hpcb_copy_run(&c->p.copy, &c->out.copy);
    case GLUE_DAXPY: return hpcb_daxpy_run(&c->p.daxpy, &c->out.daxpy);
    case GLUE_STREAM: return hpcb_stream_run(&c->p.stream, &c->out.stream);
    case GLUE_BANDWIDTH: return hpcb_bandwidth_run(&c->p.bandwidth, &c->out.bandwidth);
    case GLUE_FLOPS: return hpcb_flops_run(&c->p.flops, &c->out.flops);
    case GLUE_NUMA: return hpcb_numa_run(&c->p.numa, &c->out.numa);
    case GLUE_BARRIER: return hpcb_barrier_run(&c->p.barrier, &c->out.barrier);
    case GLUE_ECHO: case GLUE_EXCHANGE:   /* a family's ops share its params and out */
        return (c->kernel == GLUE_ECHO ? hpcb_p2p_echo : hpcb_p2p_exchange)(&c->p.p2p, &c->out.p2p);
    case GLUE_OVERHEAD: return hpcb_p2p_overhead(&c->p.p2p, &c->out.p2p);
    case GLUE_BCAST: case GLUE_ALLREDUCE:
        return (c->kernel == GLUE_BCAST ? hpcb_collective_bcast : hpcb_collective_allreduce)(&c->p.collective,
                                                                                             &c->out.collective);
    case GLUE_OVERLAP: return hpcb_overlap_run(&c->p.overlap, &c->out.overlap);
    case GLUE_CONTENTION: return hpcb_contention_run(&c->p.contention, &c->out.contention);
    case GLUE_SHIFT: return hpcb_shift_run(&c->p.shift, &c->out.shift);
    case GLUE_FLOW: return hpcb_flow_run(&c->p.flow, &c->out.flow);
    case GLUE_MICRO: return hpcb_micro_run(&c->p.micro, &c->out.micro);
    case GLUE_HCOMM: return hpcb_hcomm_run(&c->p.hcomm, &c->out.hcomm);
    case GLUE_INNER_PRODUCT: return hpcb_inner_product_run(&c->p.inner_product, &c->out.inner_product);
    case GLUE_SUMSQ_RATE: return hpcb_sumsq_rate_run(&c->p.sumsq_rate, &c->out.sumsq_rate);
    case GLUE_MATRIX: return hpcb_matrix_run(&c->p.matrix, &c->out.matrix);
    case GLUE_WAVEFRONT: return hpcb_wavefront_run(&c->p.wavefront, &c->out.wavefront);
    case GLUE_WAVEFRONT_WG: return hpcb_wavefront_wg_run(&c->p.wavefront_wg, &c->out.wavefront_wg);
    }
    return HPCB_EINVAL;
}

/* The arrays of a run and the scalars `extras` lists, as the result. */
static PyObject *result(PyObject **arrays, size_t n, const char *extras, va_list values)
{
    size_t nextras = strlen(extras);
    if (n == 1 && nextras == 0)
        return arrays[0];
    PyObject *tuple = PyTuple_New((Py_ssize_t)(n + nextras));
    if (tuple == NULL) {
        release(arrays, n);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(tuple, (Py_ssize_t)i, arrays[i]);
    for (size_t i = 0; i < nextras; i++) {
        const void *value = va_arg(values, const void *);
        PyObject *item = extras[i] == 'n'   ? PyLong_FromSize_t(*(const size_t *)value)
                         : extras[i] == 'K' ? PyLong_FromUnsignedLongLong(*(const uint64_t *)value)
                                            : PyFloat_FromDouble(*(const double *)value);
        if (item == NULL) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, (Py_ssize_t)(n + i), item);
    }
    return tuple;
}

/* glue_run but for the result and the PU list: 0 with the arrays filled
 * by the kernel, or -1 with the exception set and no array left. */
static int call_kernel(PyObject *module, struct glue_call *call, int check_status, const struct glue_samples *samples,
                       size_t n, PyObject **arrays)
{
    if (glue_status(module, check_status, &call->why, call->what) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        npy_intp dims[2] = {(npy_intp)samples[i].d0, (npy_intp)samples[i].d1};
        arrays[i] = PyArray_SimpleNew(samples[i].d1 == 0 ? 1 : 2, dims, NPY_DOUBLE);
        if (arrays[i] == NULL)   /* NumPy's exception stands */
            return release(arrays, i);
        double *data = *samples[i].data = PyArray_DATA((PyArrayObject *)arrays[i]);
        for (npy_intp k = 0, size = PyArray_SIZE((PyArrayObject *)arrays[i]); k < size; k++)
            data[k] = NAN;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = run_kernel(call);
    Py_END_ALLOW_THREADS
    return glue_status(module, rc, NULL, call->what) != 0 ? release(arrays, n) : 0;
}

PyObject *glue_run(PyObject *module, struct glue_call *call, int check_status, const struct glue_samples *samples,
                   size_t n, const char *extras, ...)
{
    PyObject *arrays[GLUE_MAX_ARRAYS], *out = NULL;
    if (n > GLUE_MAX_ARRAYS)
        PyErr_Format(PyExc_SystemError, "%s: %zu sample arrays, at most %d", call->what, n, GLUE_MAX_ARRAYS);
    else if (call_kernel(module, call, check_status, samples, n, arrays) == 0) {
        va_list values;
        va_start(values, extras);
        out = result(arrays, n, extras, values);
        va_end(values);
    }
    glue_call_free(call);
    return out;
}

PyObject *glue_verdict(PyObject *module, int check_status, const struct hpcb_why *why, const char *what)
{
    if (glue_status(module, check_status, why, what) != 0)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *glue_with_topology(PyObject *module, const struct hpcb_topo_params *p, const char *what,
                             glue_topology_use use)
{
    struct hpcb_why why = {0};
    if (glue_status(module, hpcb_topo_check(p, &why), &why, what) != 0)
        return NULL;
    hwloc_topology_t topo;
    int rc;
    if (p->kind == HPCB_TOPO_THIS_MACHINE && !p->io) {   /* shared: loaded once, never destroyed */
        rc = hpcb_topo_machine(&topo);
        return rc != HPCB_OK ? glue_raise(module, rc, NULL, what) : use(module, topo);
    }
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_topo_load(p, &topo);
    Py_END_ALLOW_THREADS
    if (rc == HPCB_EINVAL)   /* the check passed: hwloc refused what the file or string says */
        return PyErr_Format(PyExc_ValueError, "hwloc could not load the %s %s",
                            p->kind == HPCB_TOPO_XML_FILE ? "XML topology file" : "synthetic topology", p->source);
    if (rc != HPCB_OK)
        return glue_raise(module, rc, NULL, what);
    PyObject *result = use(module, topo);
    hwloc_topology_destroy(topo);
    return result;
}
