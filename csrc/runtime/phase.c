/* phase.c - see phase.h. */
#include "phase.h"

#include <limits.h>
#include <sched.h>
#include <stdint.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Spins before each sched_yield: long enough that members starting a sample
 * together never yield, short enough not to starve a co-scheduled thread
 * when the machine is oversubscribed. */
#define SPINS_BEFORE_YIELD 4096
/* Spins of hpcb_phase_wait_idle before it sleeps: a few microseconds, so
 * members arriving together still start together. */
#define SPINS_BEFORE_SLEEP 1024

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
    atomic_init(&phase->sleepers, 0);
}

#if defined(__linux__)
/* The generation counter is the futex word: a 32-bit unsigned, whose atomic
 * type has the plain type's size and representation on Linux targets. */
_Static_assert(sizeof(atomic_uint) == sizeof(uint32_t), "futex word must be 32 bits");

static void sleep_while(atomic_uint *word, unsigned value)
{
    /* EAGAIN (the word changed already) and EINTR both mean: look again. */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void wake_all(atomic_uint *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}
#else
static void sleep_while(atomic_uint *word, unsigned value)
{
    (void)word;
    (void)value;
    sched_yield();
}

static void wake_all(atomic_uint *word)
{
    (void)word;
}
#endif

/* Arrive; 1 if this member was the last and opened the next phase. */
static int arrive(struct hpcb_phase *phase, int ok)
{
    if (!ok)
        atomic_store(&phase->failed, 1);
    if (atomic_fetch_add(&phase->arrived, 1) + 1 != phase->members)
        return 0;
    atomic_store(&phase->arrived, 0);
    atomic_fetch_add(&phase->generation, 1);
    /* A sleeper registers before it checks the generation, so either it sees
     * the new generation or this load sees it and wakes it. */
    if (atomic_load(&phase->sleepers) > 0)
        wake_all(&phase->generation);
    return 1;
}

int hpcb_phase_wait_idle(struct hpcb_phase *phase, int ok)
{
    unsigned generation = atomic_load(&phase->generation);
    if (!arrive(phase, ok)) {
        for (unsigned spins = 0; spins < SPINS_BEFORE_SLEEP && atomic_load(&phase->generation) == generation;
             spins++)
            cpu_relax();
        atomic_fetch_add(&phase->sleepers, 1);
        while (atomic_load(&phase->generation) == generation)
            sleep_while(&phase->generation, generation);
        atomic_fetch_sub(&phase->sleepers, 1);
    }
    return !atomic_load(&phase->failed);
}

int hpcb_phase_wait(struct hpcb_phase *phase, int ok)
{
    unsigned generation = atomic_load(&phase->generation);
    if (!arrive(phase, ok)) {
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
