/* phase.c - see phase.h. */
#include "phase.h"

#include <sched.h>

/* Spins before each sched_yield: long enough that members starting a sample
 * together never yield, short enough not to starve a co-scheduled thread
 * when the machine is oversubscribed. */
#define SPINS_BEFORE_YIELD 4096

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

void hpcb_phase_init(struct hpcb_phase *phase, size_t members)
{
    phase->members = members;
    atomic_init(&phase->arrived, 0);
    atomic_init(&phase->generation, 0);
    atomic_init(&phase->failed, 0);
}

int hpcb_phase_wait(struct hpcb_phase *phase, int ok)
{
    unsigned generation = atomic_load(&phase->generation);
    if (!ok)
        atomic_store(&phase->failed, 1);
    if (atomic_fetch_add(&phase->arrived, 1) + 1 == phase->members) {
        /* The last to arrive opens the next phase. */
        atomic_store(&phase->arrived, 0);
        atomic_fetch_add(&phase->generation, 1);
    } else {
        unsigned spins = 0;
        while (atomic_load(&phase->generation) == generation) {
            cpu_relax();
            if (++spins == SPINS_BEFORE_YIELD) {
                spins = 0;
                sched_yield();
            }
        }
    }
    return !atomic_load(&phase->failed);
}
