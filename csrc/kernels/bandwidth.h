/* bandwidth.h - likwid-bench-style streaming kernels per buffer size, per
 * instruction set, on a team of pinned threads.
 *
 * The kernels (enum hpcb_bw_kernel), over arrays of doubles:
 *   BW_LOAD          sum of a[i] (read as 64-bit integers, so the adds never
 *                    limit the loads and the sum is exact)     1 read stream
 *   BW_STORE         a[i] = s                                  1 write stream
 *   BW_COPY          a[i] = b[i]                               1 read, 1 write
 *   BW_UPDATE        a[i] = s * a[i]                           1 read, 1 write (same array)
 *   BW_TRIAD         a[i] = b[i] + c[i] * d[i]  (likwid's "triad")   3 read, 1 write
 *   BW_STREAM_TRIAD  a[i] = b[i] + s * c[i]     (STREAM's, likwid's "stream") 2 read, 1 write
 * store, copy, triad and stream triad also with non-temporal stores (likwid's
 * *_mem kernels) on every ISA but scalar.
 *
 * A size is the working set of one member, as likwid-bench's -w counts it:
 * all the kernel's arrays together. Each array is size / streams bytes,
 * rounded down to whole HPCB_BW_BLOCKs, a prefix of that array's slot of one
 * buffer per member (allocated and first touched by the member on its own
 * PU). A sample is whole passes over the arrays, at least min_bytes of data
 * volume. Members start every sample together (phase.h); start_ns and end_ns
 * share one clock, so a caller counts the team's bytes over its common span.
 *
 * Bytes are counted as likwid-bench's "Data volume" counts them: bytes
 * loaded plus bytes stored, without the write-allocate read an ordinary
 * store of a line not in cache causes (the caller adds that beside it).
 * After each size every member verifies its arrays: store all s, copy equal
 * to the source, update exactly start * s^k (s alternates 2 and 1/2), the
 * triads equal to their formula (values chosen so every product is exact),
 * load's sums equal to what one pass gives times the passes. */
#ifndef HPCB_BANDWIDTH_H
#define HPCB_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/hpcb.h"
#include "../runtime/team.h"
#include "../runtime/why.h"
#include "load.h"   /* enum hpcb_isa and hpcb_load_supported: one ISA choice for every streaming kernel */

#define HPCB_BW_KERNELS(X) X(BW_LOAD) X(BW_STORE) X(BW_COPY) X(BW_UPDATE) X(BW_TRIAD) X(BW_STREAM_TRIAD)
enum hpcb_bw_kernel { HPCB_BW_KERNELS(HPCB_ENUMERATOR) HPCB_BW_KERNEL_COUNT };

/* Each array is whole blocks of this many bytes (the loops' unit: 32 doubles). */
#define HPCB_BW_BLOCK ((size_t)256)
/* Most sizes one call may time. */
#define HPCB_BW_MAX_SIZES ((size_t)1000)

struct hpcb_bandwidth_params {
    struct hpcb_team_params team; /* one member per PU, each with its own arrays */
    int kernel;            /* enum hpcb_bw_kernel */
    int isa;               /* enum hpcb_isa: ISA_AUTO (widest) or one this CPU supports */
    int nontemporal;       /* 0, or 1: non-temporal stores (store, copy, triad, stream triad; not scalar) */
    const size_t *sizes;   /* nsizes working sets per member, bytes, each >= streams * HPCB_BW_BLOCK, <= 2^40 */
    size_t nsizes;         /* 1..HPCB_BW_MAX_SIZES */
    size_t min_bytes;      /* a sample is whole passes, at least this data volume (1..2^44) */
    size_t warmup;         /* untimed passes before the first sample of a size (0..1000) */
    size_t samples;        /* timed samples per size */
    int page_mode;         /* enum hpcb_page_mode */
};

/* Member m's sample j of size i is at [m * nsizes * samples + i * samples + j]. */
struct hpcb_bandwidth_out {
    double *start_ns;      /* npus x nsizes x samples: ns after origin_ns */
    double *end_ns;        /* same shape */
    double *bytes;         /* nsizes: data volume of one member's sample (loads + stores) */
    double *array_bytes;   /* nsizes: bytes of each array at that size */
    size_t isa;            /* written: the enum hpcb_isa the loops used */
    uint64_t origin_ns;    /* written: CLOCK_MONOTONIC ns before any member started */
};

/* The arrays a kernel reads and writes (0 for a kernel out of range). */
size_t hpcb_bandwidth_streams(int kernel);

/* The rules that need no team. */
int hpcb_bandwidth_check_sizes(const struct hpcb_bandwidth_params *p, struct hpcb_why *why);
/* Those, then the team's and the sample arrays' size. */
int hpcb_bandwidth_check(const struct hpcb_bandwidth_params *p, struct hpcb_why *why);

int hpcb_bandwidth_run(const struct hpcb_bandwidth_params *p, struct hpcb_bandwidth_out *out);

#endif /* HPCB_BANDWIDTH_H */
