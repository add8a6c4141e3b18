/* glue.h - what the Python glue files (module.c, py_*.c) share.
 *
 * Only these files include Python.h. They parse and validate arguments, own
 * the NumPy buffers, release the GIL around C kernels and turn hpcb status
 * codes into Python exceptions. */
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

/* Raise the Python exception that matches `status`; `what` names the call.
 * Always returns NULL so callers can `return hpcb_raise(...)`. */
PyObject *hpcb_raise(int status, const char *what);

/* A sequence of PU OS indexes as a malloc'ed array (the caller frees it);
 * NULL with an exception set on bad input. `what` names the caller. */
unsigned *hpcb_parse_pus(PyObject *seq, const char *what, Py_ssize_t max_pus, Py_ssize_t *count);

/* 0 if the PUs are distinct; -1 with a ValueError naming the repeated PU:
 * two team members on one PU would time each other's slices. */
int hpcb_check_distinct(const unsigned *pus, Py_ssize_t n);

/* Method tables and initialisers of each glue file. */
extern PyMethodDef hpcb_topology_methods[];
extern PyMethodDef hpcb_kernel_methods[];
extern PyMethodDef hpcb_multibsp_methods[];
extern PyMethodDef hpcb_comm_methods[];
int hpcb_comm_glue_init(void);

#endif /* HPCB_GLUE_H */
