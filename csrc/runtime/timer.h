/* timer.h - the cycle counter every kernel times itself with.
 *
 * hpcb_ticks() reads the cheapest monotonic counter the CPU offers (the TSC on
 * x86-64, CNTVCT on AArch64, CLOCK_MONOTONIC elsewhere). On current x86 CPUs
 * the TSC ticks at a constant reference rate, not at the core's actual clock:
 * "cycles" in hpcbench means these ticks, and the calibration below converts
 * them to nanoseconds.
 */
#ifndef HPCB_TIMER_H
#define HPCB_TIMER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "why.h"

struct hpcb_timer_info {
    const char *source;        /* "tsc", "cntvct" or "clock_monotonic" */
    double ticks_per_ns;       /* calibrated against CLOCK_MONOTONIC */
    double resolution_ticks;   /* smallest non-zero difference seen between reads */
    double overhead_ticks;     /* median cost of one timed empty interval */
    double resolution_ns;      /* CLOCK_MONOTONIC: smallest non-zero step seen */
    double overhead_ns;        /* CLOCK_MONOTONIC: median cost of one read pair */
    double calibration_ns;     /* how long the calibration ran */
};

/* Nanoseconds from CLOCK_MONOTONIC. */
static inline uint64_t hpcb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* lfence before rdtsc keeps earlier loads from drifting past the read. */
static inline uint64_t hpcb_ticks(void)
{
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}
#define HPCB_TICKS_SOURCE "tsc"
#elif defined(__aarch64__)
static inline uint64_t hpcb_ticks(void)
{
    uint64_t t;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(t) : : "memory");
    return t;
}
#define HPCB_TICKS_SOURCE "cntvct"
#else
/* No cheaper counter: the ticks are CLOCK_MONOTONIC's nanoseconds. */
static inline uint64_t hpcb_ticks(void)
{
    return hpcb_now_ns();
}
#define HPCB_TICKS_SOURCE "clock_monotonic"
#endif

struct hpcb_timer_params {
    size_t calibration_ms;     /* how long to compare the counter with CLOCK_MONOTONIC */
};

/* calibration_ms: 1..10000. */
int hpcb_timer_check(const struct hpcb_timer_params *p, struct hpcb_why *why);

/* Measure the tick rate, resolution and overhead into *info. */
int hpcb_timer_calibrate(const struct hpcb_timer_params *p, struct hpcb_timer_info *info);

#endif /* HPCB_TIMER_H */
