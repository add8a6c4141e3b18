/* module.c - the hpcbench._core extension module: registration, errors,
 * build facts and the timer. The kernels' glue lives in py_*.c. */
#define HPCB_GLUE_MAIN
#include "glue.h"

#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "hpcb.h"
#include "timer.h"

#ifndef HPCB_BUILD_CC
#define HPCB_BUILD_CC "unknown"
#endif
#ifndef HPCB_BUILD_CFLAGS
#define HPCB_BUILD_CFLAGS "unknown"
#endif
#ifndef HPCB_SANITIZED
#define HPCB_SANITIZED 0
#endif

PyObject *hpcb_raise(int status, const char *what)
{
    const char *why = hpcb_strerror(status);
    switch (status) {
    case HPCB_EINVAL:
        PyErr_Format(PyExc_ValueError, "%s: %s", what, why);
        break;
    case HPCB_ENOMEM:
        PyErr_Format(PyExc_MemoryError, "%s: %s", what, why);
        break;
    case HPCB_ESYS:
        PyErr_Format(PyExc_OSError, "%s: %s (%s)", what, why, strerror(errno));
        break;
    default:
        PyErr_Format(PyExc_RuntimeError, "%s: %s", what, why);
        break;
    }
    return NULL;
}

unsigned *hpcb_parse_pus(PyObject *seq, const char *what, Py_ssize_t max_pus, Py_ssize_t *count)
{
    PyObject *fast = PySequence_Fast(seq, "PUs must be a sequence of OS indexes");
    if (fast == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n == 0 || n > max_pus) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s needs 1 to %zd PUs, got %zd", what, max_pus, n);
        return NULL;
    }
    unsigned *pus = malloc((size_t)n * sizeof *pus);
    if (pus == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v < 0 || v > (long)UINT32_MAX) {
            free(pus);
            Py_DECREF(fast);
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "PU index must be a non-negative int, got %ld", v);
            return NULL;
        }
        pus[i] = (unsigned)v;
    }
    Py_DECREF(fast);
    *count = n;
    return pus;
}

int hpcb_check_distinct(const unsigned *pus, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = i + 1; j < n; j++)
            if (pus[i] == pus[j]) {
                PyErr_Format(PyExc_ValueError, "a team's PUs must be distinct, PU %u appears twice", pus[i]);
                return -1;
            }
    return 0;
}

static PyObject *timer_calibrate(PyObject *self, PyObject *args)
{
    unsigned calibration_ms = 60;
    if (!PyArg_ParseTuple(args, "|I", &calibration_ms))
        return NULL;
    if (calibration_ms == 0 || calibration_ms > 10000) {
        PyErr_Format(PyExc_ValueError,
                     "calibration_ms must be between 1 and 10000, got %u", calibration_ms);
        return NULL;
    }
    struct hpcb_timer_info info;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = hpcb_timer_calibrate(&info, calibration_ms);
    Py_END_ALLOW_THREADS
    if (rc != HPCB_OK)
        return hpcb_raise(rc, "timer_calibrate");
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
    {"timer_calibrate", timer_calibrate, METH_VARARGS,
     "timer_calibrate(calibration_ms=60) -> dict: tick rate, resolution, overhead."},
    {"build_info", build_info, METH_NOARGS,
     "build_info() -> dict: compiler, flags and hwloc versions of this build."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "hpcbench._core",
    "Timing-critical kernels of hpcbench (C). Use the hpcbench package instead.",
    -1, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    /* An hwloc library with another major ABI than the headers would
     * misread every structure: refuse to load instead. */
    if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
        PyErr_SetString(PyExc_ImportError,
                        "hwloc library and headers differ in major version; rebuild hpcbench");
        return NULL;
    }
    if (hpcb_comm_glue_init() != 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddFunctions(m, core_methods) != 0 || PyModule_AddFunctions(m, hpcb_topology_methods) != 0 ||
        PyModule_AddFunctions(m, hpcb_kernel_methods) != 0 || PyModule_AddFunctions(m, hpcb_comm_methods) != 0 ||
        PyModule_AddFunctions(m, hpcb_multibsp_methods) != 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
