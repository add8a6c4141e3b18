/* phase.h - keep the members of a thread team in step.
 *
 * A team member prepares its buffers (allocation, first touch, linking),
 * then every member must wait for the others before any of them starts a
 * timed sample; otherwise a fast member times its loop while a slow one is
 * still page-faulting, and a "concurrent" measurement is not concurrent.
 *
 * A member that fails still arrives (with ok = 0), so nobody waits for it
 * forever; once any member has failed, every member learns it at the same
 * phase and all of them stop there. Waiting spins (members are pinned to
 * distinct PUs, and a sleeping wait would add a wake-up latency to the
 * start of every timed sample), yielding the CPU after a long spin. */
#ifndef HPCB_PHASE_H
#define HPCB_PHASE_H

#include <stdatomic.h>
#include <stddef.h>

struct hpcb_phase {
    size_t members;
    atomic_size_t arrived;
    atomic_uint generation;
    atomic_int failed;
};

void hpcb_phase_init(struct hpcb_phase *phase, size_t members);

/* Wait until all members have arrived. `ok` is this member's state. Returns
 * 1 if every member has been ok so far, 0 if any has failed. */
int hpcb_phase_wait(struct hpcb_phase *phase, int ok);

#endif /* HPCB_PHASE_H */
