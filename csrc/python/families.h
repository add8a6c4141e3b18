/* families.h - what module.c takes from each family glue file: its table
 * of functions, which module.c adds to the module in one loop (so no family
 * repeats the adding). The families that take a communicator import
 * mpi4py's C API, whose tables are per translation unit, on their first
 * call. */
#ifndef HPCB_FAMILIES_H
#define HPCB_FAMILIES_H

#include "glue.h"

extern PyMethodDef glue_topology_methods[];  /* topology.c */
extern PyMethodDef glue_node_methods[];      /* node_kernels.c */
extern PyMethodDef glue_cache_methods[];     /* cache_kernels.c */
extern PyMethodDef glue_comm_methods[];      /* comm_kernels.c */
extern PyMethodDef glue_micro_methods[];     /* micro_kernels.c */
extern PyMethodDef glue_stream_methods[];    /* stream_kernels.c */
extern PyMethodDef glue_bandwidth_methods[]; /* bandwidth_kernels.c */
extern PyMethodDef glue_flops_methods[];     /* flops_kernels.c */
extern PyMethodDef glue_numa_methods[];      /* numa_kernels.c */
extern PyMethodDef glue_multibsp_methods[];  /* multibsp_kernels.c */
extern PyMethodDef glue_matrix_methods[];    /* matrix_kernels.c */
extern PyMethodDef glue_predict_methods[];   /* predict_kernels.c */

#endif /* HPCB_FAMILIES_H */
