/* families.h - what module.c calls in each family glue file: one exec
 * function apiece, which adds the family's functions to the module. (The
 * families that take a communicator import mpi4py's C API, whose tables are
 * per translation unit, on their first call.) */
#ifndef HPCB_FAMILIES_H
#define HPCB_FAMILIES_H

#include "glue.h"

int glue_topology_exec(PyObject *module);   /* topology.c */
int glue_node_exec(PyObject *module);       /* node_kernels.c */
int glue_cache_exec(PyObject *module);      /* cache_kernels.c */
int glue_comm_exec(PyObject *module);       /* comm_kernels.c */
int glue_multibsp_exec(PyObject *module);   /* multibsp_kernels.c */
int glue_matrix_exec(PyObject *module);     /* matrix_kernels.c */
int glue_predict_exec(PyObject *module);    /* predict_kernels.c */

#endif /* HPCB_FAMILIES_H */
