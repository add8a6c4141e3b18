/* numa.h - one cell of the NUMA matrix: read bandwidth of a team of cores
 * (the cores of NUMA node i) and load-to-use latency of one of them, over
 * one buffer whose pages are bound to NUMA node j with hwloc.
 *
 * The buffer is mapped (memory.h), bound to node j with
 * hwloc_set_area_membind (HWLOC_MEMBIND_BIND, STRICT where the system
 * takes it) before any page is touched, then written (each member its
 * slice), so every page is placed by the binding and not by the first
 * toucher (a system that cannot bind memory at all is accepted only with
 * one NUMA node). Where the pages
 * really are is read back with hwloc_get_area_memlocation, chunk by chunk,
 * and reported: a caller knows whether the cell measured what it says.
 *
 * Bandwidth: every member reads its own slice of the buffer (buffer_bytes /
 * members, whole 64-byte blocks) with the widest loads the CPU offers (the
 * read kernel's loops, load.h), the members starting each repetition
 * together (phase.h); each repetition's start and end are on one clock, so
 * what the team delivered is all bytes over the first start to the last
 * end. Every repetition's sums are checked against the buffer's contents.
 *
 * Latency: then member 0 alone links the lines of the first chase_bytes of
 * the buffer into one cycle (cycle.h; random within windows by default) and
 * chases it, p = *p (a region larger than the caches one core sees: the
 * reads need more, larger than all the team's caches together);
 * after the last sample the chase must stand on the slot its step count
 * says. The other members wait asleep. */
#ifndef HPCB_NUMA_H
#define HPCB_NUMA_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/team.h"
#include "../runtime/topo.h"
#include "../runtime/why.h"

/* Blocks of the read loop and lines of the chase: one cache line. */
#define HPCB_NUMA_LINE ((size_t)64)
/* Most chunks whose location is read back. */
#define HPCB_NUMA_LOCATION_CHUNKS ((size_t)64)

struct hpcb_numa_params {
    struct hpcb_team_params team; /* the readers, one per PU; pus[0] also chases */
    unsigned node;                /* OS index of the NUMA node the buffer is bound to */
    size_t buffer_bytes;          /* a multiple of HPCB_NUMA_LINE * team.npus, 2 lines per member at least, at most 2^40 */
    size_t repetitions;           /* timed reads per member (1..1000000) */
    size_t warmup;                /* untimed reads before the first repetition (0..1000) */
    size_t chase_bytes;           /* lines chased: a multiple of HPCB_NUMA_LINE, 2 lines..buffer_bytes */
    size_t samples;               /* timed chase samples (1..1000000) */
    size_t accesses;              /* dependent loads per chase sample (1..2^40) */
    int order;                    /* enum hpcb_order of the chase */
    size_t window_bytes;          /* ORDER_WINDOWED: a positive multiple of HPCB_NUMA_LINE */
    uint64_t seed;                /* of the chase's random order */
    int page_mode;                /* enum hpcb_page_mode */
    int isa;                      /* enum hpcb_isa (load.h) of the read loop; one this CPU supports */
};

/* Member m's repetition r is at [m * repetitions + r]; start_ns and end_ns
 * are CLOCK_MONOTONIC ns after origin_ns (as copy.h's). */
struct hpcb_numa_out {
    double *ns;                /* team.npus x repetitions: ns per read of the member's slice */
    double *start_ns;          /* team.npus x repetitions */
    double *end_ns;            /* team.npus x repetitions */
    double *latency_ns;        /* samples: ns per dependent load */
    uint64_t origin_ns;        /* written: CLOCK_MONOTONIC before any member started */
    size_t slice_bytes;        /* written: bytes each member reads per repetition */
    size_t isa;                /* written: the enum hpcb_isa the read loop used */
    size_t strict;             /* written: 1 if the binding is HWLOC_MEMBIND_STRICT, 0 if the system refused strict */
    size_t location_chunks;    /* written: chunks whose location hwloc told (0: it cannot tell here) */
    size_t misplaced_chunks;   /* written: of those, chunks with a page on another node than `node` */
};

/* The rules about sizes and counts (no team or topology needed). */
int hpcb_numa_check_sizes(const struct hpcb_numa_params *p, struct hpcb_why *why);
/* Those, the team's, and `node` one of this machine's NUMA nodes. */
int hpcb_numa_check(const struct hpcb_numa_params *p, struct hpcb_why *why);

/* Bind, fill, read back the location, time the reads, then the chase.
 * HPCB_EHWLOC if the binding fails, HPCB_ECHECK if a read's sums or the
 * chase's end are wrong. */
int hpcb_numa_run(const struct hpcb_numa_params *p, struct hpcb_numa_out *out);

/* hwloc's NUMA latency matrix of `topo` (a distances structure of NUMA
 * nodes whose kind means latency), the first one found: writes at most
 * `cap` node OS indexes to `nodes` and cap*cap values (row-major, from row
 * node to column node) to `values`, and how many nodes it has to *count
 * (0: hwloc has none). HPCB_EHWLOC if hwloc fails. */
int hpcb_numa_distances(hwloc_topology_t topo, unsigned *nodes, double *values, size_t cap, size_t *count);

#endif /* HPCB_NUMA_H */
