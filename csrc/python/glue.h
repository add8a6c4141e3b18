/* glue.h - helpers every Python glue file shares (glue.c).
 *
 * Only csrc/python/ includes Python.h. The glue parses arguments into a
 * kernel's params struct, refusing only what the C type cannot hold (a
 * negative count); calls the kernel's check, whose `why` becomes
 * hpcbench._core.ParameterError; owns the NumPy sample arrays; and releases
 * the GIL around the kernel call alone. Calls go module.c -> family glue
 * files -> glue.c -> kernels and runtime, never back. */
#ifndef HPCB_GLUE_H
#define HPCB_GLUE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL hpcb_ARRAY_API
#ifndef HPCB_GLUE_MAIN
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "../kernels/bandwidth.h"
#include "../kernels/barrier.h"
#include "../kernels/chase.h"
#include "../kernels/collective.h"
#include "../kernels/contention.h"
#include "../kernels/copy.h"
#include "../kernels/daxpy.h"
#include "../kernels/flops.h"
#include "../kernels/load.h"
#include "../kernels/matrix.h"
#include "../kernels/micro.h"
#include "../kernels/multibsp.h"
#include "../kernels/numa.h"
#include "../kernels/overlap.h"
#include "../kernels/p2p.h"
#include "../kernels/shift.h"
#include "../kernels/flow.h"
#include "../kernels/stream.h"
#include "../kernels/traverse.h"
#include "../kernels/wavefront.h"
#include "../kernels/wavefront_wg.h"
#include "../runtime/topo.h"
#include "../runtime/why.h"

/* ---- module state (multi-phase init: one per module object) ------------- */

struct glue_state {
    PyObject *parameter_error;   /* hpcbench._core.ParameterError, a ValueError */
};

/* Create the state's objects and add them to the module (the exec slot). */
int glue_state_exec(PyObject *module);
int glue_state_traverse(PyObject *module, visitproc visit, void *arg);
int glue_state_clear(PyObject *module);
void glue_state_free(void *module);

/* ---- constants: named after the enum they come from --------------------- */

struct glue_constant {
    const char *name;
    int value;
};

/* GLUE_CONSTANT(ORDER_RANDOM) is the entry {"ORDER_RANDOM", HPCB_ORDER_RANDOM}:
 * the Python name and the C value come from one token of the enum's list
 * (hpcb.h), never two copies. */
#define GLUE_CONSTANT(name) {#name, HPCB_##name},

int glue_add_constants(PyObject *module, const struct glue_constant *constants, size_t n);

/* A method table entry's function and flags for a function that takes
 * keywords (the cast CPython's METH_KEYWORDS convention needs). */
#define GLUE_KEYWORDS(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

/* ---- errors ------------------------------------------------------------- */

/* Raise what `status` calls for: ParameterError(why) for HPCB_EINVAL with a
 * parameter named, ValueError for other HPCB_EINVAL, MemoryError, OSError
 * (with errno) or RuntimeError. `what` names the call. Returns NULL. */
PyObject *glue_raise(PyObject *module, int status, const struct hpcb_why *why, const char *what);

/* 0 if status is HPCB_OK, else -1 after glue_raise. */
int glue_status(PyObject *module, int status, const struct hpcb_why *why, const char *what);

/* ---- arguments ---------------------------------------------------------- */

/* A Python integer bound for a size_t field of a params struct. */
struct glue_count {
    const char *name;      /* the argument, as Python callers spell it */
    long long value;
    size_t *field;
};

/* Store each value in its field; a negative value cannot be a size_t, so it
 * raises ParameterError naming the argument. 0 or -1. */
int glue_counts(PyObject *module, const struct glue_count *counts, size_t n);
#define GLUE_COUNTS(module, ...)                                                  \
    glue_counts((module), (const struct glue_count[]){__VA_ARGS__},                 \
                sizeof((const struct glue_count[]){__VA_ARGS__}) / sizeof(struct glue_count))

/* ---- topologies ---------------------------------------------------------- */

/* What a function does with a loaded topology (it must not keep it). */
typedef PyObject *(*glue_topology_use)(PyObject *module, hwloc_topology_t topo);

/* use(module, the topology p names), after hpcb_topo_check: this machine's
 * shared topology (without I/O), or one hwloc loads without the GIL and that
 * is destroyed after; a file or string hwloc refuses is a ValueError naming
 * it. `what` names the Python function in the other errors. */
PyObject *glue_with_topology(PyObject *module, const struct hpcb_topo_params *p, const char *what,
                             glue_topology_use use);

/* ---- one kernel call ---------------------------------------------------- */

/* Every kernel the glue runs, and one call of it: its params and its out,
 * and what its check said. One struct for all families (hence every kernel
 * header above), so that one function, glue_run, does what every kernel
 * function does after parsing. */
enum glue_kernel {
    GLUE_TRAVERSE, GLUE_CHASE, GLUE_LOAD, GLUE_COPY, GLUE_DAXPY,
    GLUE_STREAM, GLUE_BANDWIDTH, GLUE_FLOPS, GLUE_NUMA,
    GLUE_BARRIER, GLUE_ECHO, GLUE_EXCHANGE, GLUE_OVERHEAD, GLUE_BCAST, GLUE_ALLREDUCE, GLUE_OVERLAP, GLUE_CONTENTION, GLUE_SHIFT, GLUE_FLOW,
    GLUE_MICRO,
    GLUE_HCOMM, GLUE_INNER_PRODUCT, GLUE_SUMSQ_RATE,
    GLUE_MATRIX, GLUE_WAVEFRONT, GLUE_WAVEFRONT_WG
};

struct glue_call {
    enum glue_kernel kernel;
    const char *what;          /* the Python function, for messages */
    union {
        struct hpcb_traverse_params traverse;
        struct hpcb_chase_params chase;
        struct hpcb_load_params load;
        struct hpcb_copy_params copy;
        struct hpcb_daxpy_params daxpy;
        struct hpcb_stream_params stream;
        struct hpcb_bandwidth_params bandwidth;
        struct hpcb_flops_params flops;
        struct hpcb_numa_params numa;
        struct hpcb_barrier_params barrier;
        struct hpcb_p2p_params p2p;
        struct hpcb_collective_params collective;
        struct hpcb_overlap_params overlap;
        struct hpcb_contention_params contention;
        struct hpcb_shift_params shift;
        struct hpcb_flow_params flow;
        struct hpcb_micro_params micro;
        struct hpcb_hcomm_params hcomm;
        struct hpcb_inner_product_params inner_product;
        struct hpcb_sumsq_rate_params sumsq_rate;
        struct hpcb_matrix_params matrix;
        struct hpcb_wavefront_params wavefront;
        struct hpcb_wavefront_wg_params wavefront_wg;
    } p;
    union {
        struct hpcb_traverse_out traverse;
        struct hpcb_chase_out chase;
        struct hpcb_load_out load;
        struct hpcb_copy_out copy;
        struct hpcb_daxpy_out daxpy;
        struct hpcb_stream_out stream;
        struct hpcb_bandwidth_out bandwidth;
        struct hpcb_flops_out flops;
        struct hpcb_numa_out numa;
        struct hpcb_barrier_out barrier;
        struct hpcb_p2p_out p2p;
        struct hpcb_collective_out collective;
        struct hpcb_overlap_out overlap;
        struct hpcb_contention_out contention;
        struct hpcb_shift_out shift;
        struct hpcb_flow_out flow;
        struct hpcb_micro_out micro;
        struct hpcb_hcomm_out hcomm;
        struct hpcb_inner_product_out inner_product;
        struct hpcb_sumsq_rate_out sumsq_rate;
        struct hpcb_matrix_out matrix;
        struct hpcb_wavefront_out wavefront;
        struct hpcb_wavefront_wg_out wavefront_wg;
    } out;
    struct hpcb_why why;       /* the check's words */
    unsigned *pus;             /* the PU list glue_pus made for the team, if any */
    size_t *sizes;             /* the size list glue_sizes made, if any */
};

/* A sample array a kernel fills: where its data pointer goes (a field of
 * call->out) and its shape, (d0,) if d1 is 0, else (d0, d1). A kernel
 * fills at most GLUE_MAX_ARRAYS. */
#define GLUE_MAX_ARRAYS 4
struct glue_samples {
    double **data;
    size_t d0, d1;
};

/* A sequence of PU OS indexes as a malloc'ed list (at least one slot; the
 * caller frees it) and its length; any length passes, the C check judges
 * it. NULL with TypeError for a non-sequence or non-integers, ParameterError
 * ("pus") for an index no unsigned int holds. */
unsigned *glue_pu_list(PyObject *module, PyObject *seq, size_t *count);

/* glue_pu_list into a team of the call, which owns the list: glue_run
 * frees it, or glue_call_free if the call never runs. 0 or -1. */
int glue_pus(PyObject *module, struct glue_call *call, PyObject *seq, struct hpcb_team_params *team);
void glue_call_free(struct glue_call *call);

/* A sequence of sizes (bytes) as a list the call owns (freed with it), for
 * a params struct's `sizes` and `nsizes`; any length passes, the C check
 * judges it. -1 with TypeError for a non-sequence or non-integers,
 * ParameterError ("sizes") for a negative one. */
int glue_sizes(PyObject *module, struct glue_call *call, PyObject *seq, const size_t **sizes, size_t *n);

/* What every kernel function does once it has filled call->p and run the
 * kernel's check (check_status, its words in call->why): raise
 * ParameterError if the check failed; make the sample arrays, filled with
 * NaN (what a kernel does not write, e.g. on a rank that sits out, stays
 * NaN); release the GIL around the kernel alone; raise what its status
 * calls for; free the call's PU list. Returns the kernel's result: a lone
 * array as it is, else a tuple of the arrays followed by the out scalars
 * `extras` lists, read after the run: 'n' a size_t, 'K' a uint64_t, 'd' a double, each
 * given by a pointer in the variable arguments. NULL with the exception set. */
PyObject *glue_run(PyObject *module, struct glue_call *call, int check_status, const struct glue_samples *samples,
                   size_t n, const char *extras, ...);

/* A check-only function's answer: None if check_status is HPCB_OK, else
 * NULL with ParameterError from `why`. */
PyObject *glue_verdict(PyObject *module, int check_status, const struct hpcb_why *why, const char *what);

#endif /* HPCB_GLUE_H */
