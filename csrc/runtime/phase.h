/* phase.h - keep the members of a thread team in step.
 *
 * A team member prepares its buffers (allocation, first touch, linking),
 * then every member must wait for the others before any of them starts a
 * timed sample; otherwise a fast member times its loop while a slow one is
 * still page-faulting, and a "concurrent" measurement is not concurrent.
 *
 * A member that fails still arrives (with ok = 0), so nobody waits for it
 * forever; once any member has failed, every member learns it at the same
 * phase and all of them stop there.
 *
 * hpcb_phase_wait spins (members are pinned to distinct PUs, and a sleeping
 * wait would add a wake-up latency to the start of every timed sample, which
 * the MultiBSP barrier latency measures), yielding the CPU after a long
 * spin. hpcb_phase_wait_idle spins briefly, then sleeps until the phase
 * opens: for kernels whose samples are long (a copy of many MiB) and whose
 * members finish at different times, so that a member that is done does not
 * spin beside one still working. On a virtual machine two vCPUs can be two
 * hardware threads of one host core, and a spinning one then slows the
 * other's memory stream (2-vCPU KVM guest: aggregate copy bandwidth of two
 * cores 0.5 to 0.7 of likwid's in some runs with spinning, not with sleeping). */
#ifndef HPCB_PHASE_H
#define HPCB_PHASE_H

#include <stdatomic.h>
#include <stddef.h>

struct hpcb_phase {
    size_t members;
    atomic_size_t arrived;
    atomic_uint generation;
    atomic_int failed;
    atomic_int sleepers;    /* members asleep in hpcb_phase_wait_idle */
};

void hpcb_phase_init(struct hpcb_phase *phase, size_t members);

/* Wait until all members have arrived. `ok` is this member's state. Returns
 * 1 if every member has been ok so far, 0 if any has failed. */
int hpcb_phase_wait(struct hpcb_phase *phase, int ok);

/* hpcb_phase_wait that sleeps (futex, Linux; yields elsewhere) after a
 * short spin. Members of one phase may mix the two waits. */
int hpcb_phase_wait_idle(struct hpcb_phase *phase, int ok);

#endif /* HPCB_PHASE_H */
