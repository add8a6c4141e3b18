/* topo.h - hwloc as the single source of topology and binding.
 *
 * The machine's own topology is loaded once per process and shared (hwloc
 * allows concurrent read-only use, which binding is). Fake topologies (XML
 * files, synthetic strings) are separate handles owned by the caller. */
#ifndef HPCB_TOPO_H
#define HPCB_TOPO_H

#include <hwloc.h>

#include "hpcb.h"
#include "why.h"

/* Where a topology comes from: TOPO_THIS_MACHINE (0), TOPO_XML_FILE (1),
 * TOPO_SYNTHETIC (2). */
#define HPCB_TOPO_SOURCES(X) X(TOPO_THIS_MACHINE) X(TOPO_XML_FILE) X(TOPO_SYNTHETIC)
enum hpcb_topo_source { HPCB_TOPO_SOURCES(HPCB_ENUMERATOR) HPCB_TOPO_SOURCE_COUNT };

struct hpcb_topo_params {
    int kind;              /* enum hpcb_topo_source */
    const char *source;    /* the XML path or the synthetic string; ignored for this machine */
    int io;                /* 1: also discover I/O devices (hwloc's important ones: the network devices
                            * and their locality); costs PCI discovery, so only where asked */
};

/* kind is one of enum hpcb_topo_source; source is non-empty unless kind is
 * HPCB_TOPO_THIS_MACHINE. */
int hpcb_topo_check(const struct hpcb_topo_params *p, struct hpcb_why *why);

/* Load a topology; the caller destroys it with hwloc_topology_destroy().
 * HPCB_EINVAL if hwloc cannot load the file or description (a bad source),
 * HPCB_EHWLOC if it cannot load this machine's. */
int hpcb_topo_load(const struct hpcb_topo_params *p, hwloc_topology_t *out);

/* The process-wide topology of this machine, loaded on first use. */
int hpcb_topo_machine(hwloc_topology_t *out);

/* The rule of every list of PUs ("pus"): each entry is the OS index of a
 * PU of this machine that this process may use (hwloc leaves out the others). */
int hpcb_topo_check_pus(const unsigned *pus, size_t npus, struct hpcb_why *why);

/* Binding the calling thread: at least one PU, each one of this machine. */
int hpcb_bind_check(const unsigned *pus, size_t npus, struct hpcb_why *why);

/* Bind the calling thread to the PUs whose OS indexes are listed. */
int hpcb_bind_thread(const unsigned *pus, size_t npus);

/* OS indexes of the PUs the calling thread may run on: writes at most `cap`
 * and stores how many there are in *count. */
int hpcb_thread_binding(unsigned *pus, size_t cap, size_t *count);

#endif /* HPCB_TOPO_H */
