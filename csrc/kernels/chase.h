/* chase.h - the latency sweep: a pure dependent load, p = *p, through the
 * lines of growing prefixes of ONE buffer.
 *
 * The buffer (buffer_bytes) is mapped once per call with the given page
 * policy and written in address order before anything is timed, so its
 * placement is fixed for the whole call and can be read back (placement.h):
 * every size of the call is a prefix of the same pages. For each size S, in
 * the order given, the slots (stride_bytes apart: one per cache line by
 * default) of the first S bytes are linked into one closed cycle (cycle.h),
 * each slot holding the address of the next; the cycle is verified, warmed
 * and timed. No index arithmetic sits between two loads: the time per
 * access is the load-to-use latency of wherever the line is.
 */
#ifndef HPCB_CHASE_H
#define HPCB_CHASE_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/why.h"
#include "cycle.h"

/* Most sizes one call may time. */
#define HPCB_CHASE_MAX_SIZES ((size_t)100000)

struct hpcb_chase_params {
    size_t buffer_bytes;      /* a positive multiple of stride_bytes, at most 2^40 */
    const size_t *sizes;      /* nsizes prefixes, each a positive multiple of stride_bytes, at most buffer_bytes */
    size_t nsizes;            /* 1..HPCB_CHASE_MAX_SIZES */
    size_t stride_bytes;      /* a positive multiple of sizeof(void *) */
    int order;                /* enum hpcb_order */
    uint64_t seed;            /* for the random orders; size i uses seed + i */
    size_t window_bytes;      /* ORDER_WINDOWED: a positive multiple of stride_bytes */
    size_t min_accesses;      /* a sample is whole traversals, at least this many loads (1..2^40) */
    size_t warmup;            /* untimed traversals after the verifying one (none for a long size) */
    size_t samples;           /* timed samples per size (1..HPCB_MAX_SAMPLES / nsizes) */
    size_t long_slots;        /* a size of at least this many slots is timed once, warmed by the
                               * verifying walk alone (0: never): one traversal lasts milliseconds,
                               * which no interrupt moves */
    int page_mode;            /* enum hpcb_page_mode */
};

/* Size i's sample j is at [i * samples + j]; a size timed once (long_slots)
 * leaves its other samples as the caller set them. */
struct hpcb_chase_out {
    double *ticks;            /* nsizes x samples: ticks per access */
    double *ns;               /* nsizes x samples: nanoseconds per access */
    double *accesses;         /* nsizes: loads per timed sample */
    double *frames;           /* hpcb_chase_pages(p) entries: the buffer's frames (placement.h), -1 unknown */
    size_t frames_known;      /* written: how many frames pagemap told */
    double huge_bytes;        /* written: bytes huge pages back (smaps), -1 unknown */
};

int hpcb_chase_check(const struct hpcb_chase_params *p, struct hpcb_why *why);

/* Entries of out->frames: base pages of the buffer. */
size_t hpcb_chase_pages(const struct hpcb_chase_params *p);

/* Map and touch the buffer, read its placement, then link, verify, warm and
 * time every size. HPCB_ECHECK if a chain is not one cycle through every
 * slot or a traversal does not end where it began. */
int hpcb_chase_run(const struct hpcb_chase_params *p, struct hpcb_chase_out *out);

#endif /* HPCB_CHASE_H */
