/* module.c - the hpcbench._core extension module: its definition and
 * multi-phase initialisation (PEP 489: the exec slot fills each module
 * object, with its own state), build facts and the timer. Each kernel
 * family's functions and constants come from its glue file's exec function
 * (families.h); the helpers all share are in glue.c. */
#define HPCB_GLUE_MAIN   /* this file holds NumPy's C-API table (glue.h) */
#include "glue.h"

#include <hwloc.h>

#include "../kernels/contention.h"
#include "../kernels/matrix.h"
#include "../kernels/overlap.h"
#include "../kernels/traverse.h"
#include "../kernels/wavefront.h"
#include "../runtime/hpcb.h"
#include "../runtime/memory.h"
#include "../runtime/timer.h"
#include "../runtime/topo.h"
#include "families.h"

#ifndef HPCB_BUILD_CC
#define HPCB_BUILD_CC "unknown"
#endif
#ifndef HPCB_BUILD_CFLAGS
#define HPCB_BUILD_CFLAGS "unknown"
#endif
#ifndef HPCB_SANITIZED
#define HPCB_SANITIZED 0
#endif

static PyObject *timer_calibrate(PyObject *self, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"calibration_ms", NULL};
    long long calibration_ms = 60;
    struct hpcb_timer_params p;
    struct hpcb_timer_info info;
    struct hpcb_why why = {0};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|L:timer_calibrate", keywords, &calibration_ms) ||
        GLUE_COUNTS(self, {"calibration_ms", calibration_ms, &p.calibration_ms}) != 0 ||
        glue_status(self, hpcb_timer_check(&p, &why), &why, "timer_calibrate") != 0)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_timer_calibrate(&p, &info);
    Py_END_ALLOW_THREADS
    if (glue_status(self, rc, NULL, "timer_calibrate") != 0)
        return NULL;
    return Py_BuildValue("{s:s,s:d,s:d,s:d,s:d,s:d,s:d}",
                         "source", info.source,
                         "ticks_per_ns", info.ticks_per_ns,
                         "resolution_ticks", info.resolution_ticks,
                         "overhead_ticks", info.overhead_ticks,
                         "resolution_ns", info.resolution_ns,
                         "overhead_ns", info.overhead_ns,
                         "calibration_ns", info.calibration_ns);
}

static PyObject *build_info(PyObject *self, PyObject *noargs)
{
    unsigned runtime = hwloc_get_api_version();
    char hwloc_runtime[32], hwloc_compiled[32];
    snprintf(hwloc_runtime, sizeof hwloc_runtime, "%u.%u.%u",
             runtime >> 16, (runtime >> 8) & 0xff, runtime & 0xff);
    snprintf(hwloc_compiled, sizeof hwloc_compiled, "%u.%u.%u",
             (unsigned)HWLOC_API_VERSION >> 16, ((unsigned)HWLOC_API_VERSION >> 8) & 0xff,
             (unsigned)HWLOC_API_VERSION & 0xff);
    return Py_BuildValue("{s:s,s:s,s:s,s:s,s:N}",
                         "compiler", HPCB_BUILD_CC,
                         "cflags", HPCB_BUILD_CFLAGS,
                         "hwloc_api_compiled", hwloc_compiled,
                         "hwloc_api_runtime", hwloc_runtime,
                         "sanitized", PyBool_FromLong(HPCB_SANITIZED));
}

static PyMethodDef core_methods[] = {
    {"timer_calibrate", GLUE_KEYWORDS(timer_calibrate),
     "timer_calibrate(calibration_ms=60) -> dict: tick rate, resolution, overhead."},
    {"build_info", build_info, METH_NOARGS,
     "build_info() -> dict: compiler, flags and hwloc versions of this build."},
    {NULL, NULL, 0, NULL},
};

/* Every C enum a Python caller passes, from the enum's own list (hpcb.h). */
static const struct glue_constant constants[] = {
    HPCB_ORDERS(GLUE_CONSTANT) HPCB_PAGE_MODES(GLUE_CONSTANT) HPCB_OVERLAP_MODES(GLUE_CONSTANT)
    HPCB_ROLES(GLUE_CONSTANT) HPCB_OVERHEAD_SIDES(GLUE_CONSTANT) HPCB_TOPO_SOURCES(GLUE_CONSTANT) HPCB_ISAS(GLUE_CONSTANT)
    HPCB_MATRIX_OPS(GLUE_CONSTANT) HPCB_MATRIX_DIRECTIONS(GLUE_CONSTANT)
    HPCB_WAVEFRONT_FAULTS(GLUE_CONSTANT)
    HPCB_FLOPS_PRECISIONS(GLUE_CONSTANT) HPCB_FLOPS_FAULTS(GLUE_CONSTANT)
    HPCB_MICRO_TESTS(GLUE_CONSTANT) HPCB_MICRO_MODES(GLUE_CONSTANT) HPCB_MICRO_SYNCS(GLUE_CONSTANT)
    HPCB_STREAM_STORES(GLUE_CONSTANT)
    HPCB_BW_KERNELS(GLUE_CONSTANT)
};

static int core_exec(PyObject *module)
{
    /* An hwloc library with another major ABI than the headers would
     * misread every structure: refuse to load instead. */
    if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
        PyErr_SetString(PyExc_ImportError, "hwloc library and headers differ in major version; rebuild hpcbench");
        return -1;
    }
    if (_import_array() < 0)   /* NumPy's C API, for every glue file (glue.h) */
        return -1;
    if (glue_state_exec(module) != 0 || glue_add_constants(module, constants, sizeof constants / sizeof *constants))
        return -1;
    PyMethodDef *families[] = {glue_topology_methods, glue_node_methods, glue_cache_methods, glue_comm_methods,
                               glue_micro_methods, glue_stream_methods, glue_bandwidth_methods,
                               glue_flops_methods, glue_numa_methods,
                               glue_multibsp_methods, glue_matrix_methods, glue_predict_methods};
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (PyModule_AddFunctions(module, families[i]) != 0)
            return -1;
    return 0;
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, core_exec},
#if PY_VERSION_HEX >= 0x030C0000
    /* NumPy, mpi4py and the process-wide hwloc topology are not per-interpreter. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "hpcbench._core",
    .m_doc = "Timing-critical kernels of hpcbench (C). Use the hpcbench package instead.",
    .m_size = sizeof(struct glue_state),
    .m_methods = core_methods,
    .m_slots = core_slots,
    .m_traverse = glue_state_traverse,
    .m_clear = glue_state_clear,
    .m_free = glue_state_free,
};

PyMODINIT_FUNC PyInit__core(void)
{
    return PyModuleDef_Init(&core_module);
}
