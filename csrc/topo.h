/* topo.h - hwloc as the single source of topology and binding.
 *
 * The machine's own topology is loaded once per process and shared (hwloc
 * allows concurrent read-only use, which binding is). Fake topologies (XML
 * files, synthetic strings) are separate handles owned by the caller. */
#ifndef HPCB_TOPO_H
#define HPCB_TOPO_H

#include <hwloc.h>

enum hpcb_topo_source {
    HPCB_TOPO_THIS_MACHINE = 0,
    HPCB_TOPO_XML_FILE = 1,
    HPCB_TOPO_SYNTHETIC = 2
};

/* Load a topology; `source` is the path or the synthetic string (ignored for
 * this machine). The caller destroys it with hwloc_topology_destroy(). */
int hpcb_topo_load(hwloc_topology_t *out, int kind, const char *source);

/* The process-wide topology of this machine, loaded on first use. */
int hpcb_topo_machine(hwloc_topology_t *out);

/* Bind the calling thread to the PUs whose OS indexes are listed. */
int hpcb_bind_thread(const unsigned *pus, size_t npus);

/* OS indexes of the PUs the calling thread may run on: writes at most `cap`
 * and stores how many there are in *count. */
int hpcb_thread_binding(unsigned *pus, size_t cap, size_t *count);

#endif /* HPCB_TOPO_H */
