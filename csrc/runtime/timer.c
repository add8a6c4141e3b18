/* timer.c - calibrate the tick counter against CLOCK_MONOTONIC and measure
 * what timing costs, so results can state how much to trust short samples. */
#include "timer.h"

#include <stdlib.h>
#include <string.h>

#include "hpcb.h"

#define TIMER_PROBES 2001 /* odd, so the median is one sample */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t median_u64(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_u64);
    return v[n / 2];
}

/* One comparison window: ticks elapsed per nanosecond over `window_ns`. */
static double ticks_per_ns_over(uint64_t window_ns)
{
    uint64_t ns0 = hpcb_now_ns(), t0 = hpcb_ticks();
    uint64_t ns1 = ns0;
    while (ns1 - ns0 < window_ns)
        ns1 = hpcb_now_ns();
    uint64_t t1 = hpcb_ticks();
    return (double)(t1 - t0) / (double)(ns1 - ns0);
}

int hpcb_timer_check(const struct hpcb_timer_params *p, struct hpcb_why *why)
{
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    return hpcb_why_range(why, "calibration_ms", p->calibration_ms, 1, 10000, " ms");
}

/* Resolution (smallest non-zero step) and overhead (median empty interval)
 * of one clock, from TIMER_PROBES back-to-back read pairs. Always inlined,
 * so that `read` is a constant at each call and is inlined in turn: the
 * overhead measured is the clock's own, not a call through a pointer. */
static inline __attribute__((always_inline)) void probe_clock(uint64_t (*read)(void), uint64_t *pairs,
                                                              double *resolution, double *overhead)
{
    uint64_t min_step = UINT64_MAX;
    for (size_t i = 0; i < TIMER_PROBES; i++) {
        uint64_t a = read(), b = read();
        pairs[i] = b - a;
        while (b == a)
            b = read();
        if (b - a < min_step)
            min_step = b - a;
    }
    *resolution = (double)min_step;
    *overhead = (double)median_u64(pairs, TIMER_PROBES);
}

int hpcb_timer_calibrate(const struct hpcb_timer_params *p, struct hpcb_timer_info *info)
{
    int rc = hpcb_timer_check(p, NULL);
    if (rc != HPCB_OK)
        return rc;
    if (info == NULL)
        return HPCB_EINVAL;
    memset(info, 0, sizeof *info);
    info->source = HPCB_TICKS_SOURCE;

    uint64_t *pairs = malloc(TIMER_PROBES * sizeof *pairs);
    if (pairs == NULL)
        return HPCB_ENOMEM;

    /* Rate: median of three windows, so one preemption cannot skew it. */
    uint64_t start = hpcb_now_ns();
    double rates[3];
    uint64_t window = (uint64_t)p->calibration_ms * 1000000u / 3u;
    for (int i = 0; i < 3; i++)
        rates[i] = ticks_per_ns_over(window ? window : 1);
    double lo = rates[0] < rates[1] ? rates[0] : rates[1];
    double hi = rates[0] < rates[1] ? rates[1] : rates[0];
    info->ticks_per_ns = rates[2] < lo ? lo : (rates[2] > hi ? hi : rates[2]);

    probe_clock(hpcb_ticks, pairs, &info->resolution_ticks, &info->overhead_ticks);
    probe_clock(hpcb_now_ns, pairs, &info->resolution_ns, &info->overhead_ns);

    info->calibration_ns = (double)(hpcb_now_ns() - start);
    free(pairs);
    return HPCB_OK;
}
