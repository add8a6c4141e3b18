/* traverse.c - the mcalibrator kernel; see traverse.h. */
#include "traverse.h"

#include <limits.h>
#include <stdlib.h>

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"
#include "../runtime/phase.h"
#include "../runtime/timer.h"

int hpcb_traverse_check(const struct hpcb_traverse_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if (p->stride_bytes == 0 || p->stride_bytes % sizeof(int) != 0)
        return hpcb_why_set(why, "stride_bytes", "must be a positive multiple of sizeof(int) (%zu bytes), got %zu",
                            sizeof(int), p->stride_bytes);
    if (p->array_bytes == 0 || p->array_bytes % p->stride_bytes != 0)
        return hpcb_why_set(why, "array_bytes", "must be a positive multiple of stride_bytes (%zu bytes), got %zu",
                            p->stride_bytes, p->array_bytes);
    size_t largest = (size_t)INT_MAX * sizeof(int);   /* offsets between slots are stored in ints */
    if ((rc = hpcb_why_range(why, "array_bytes", p->array_bytes, 0, largest, " bytes")) != HPCB_OK ||
        (rc = hpcb_cycle_order_check(why, p->order, p->window_bytes, p->stride_bytes)) != HPCB_OK)
        return rc;
    if ((rc = hpcb_why_range(why, "min_accesses", p->min_accesses, 1, (size_t)1 << 40, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "samples", p->samples, 1, HPCB_MAX_SAMPLES, "")) != HPCB_OK ||
        (rc = hpcb_page_mode_check(p->page_mode, why)) != HPCB_OK)
        return rc;
    return p->team.pus == NULL ? HPCB_OK : hpcb_team_check(&p->team, why);
}

static size_t accesses_per_sample(const struct hpcb_traverse_params *p)
{
    size_t slots = p->array_bytes / p->stride_bytes;
    size_t rounds = (p->min_accesses + slots - 1) / slots;
    return rounds * slots;
}

/* Write the cycle into the array as int offsets: slot visit[s] points to
 * visit[s + 1], the last back to slot 0. */
static int link_slots(int *a, size_t slots, size_t stride_ints, int order, uint64_t seed,
                      size_t window_slots)
{
    size_t *visit = malloc(slots * sizeof *visit);
    if (visit == NULL)
        return HPCB_ENOMEM;
    int rc = hpcb_cycle_order(visit, slots, order, seed, window_slots);
    for (size_t s = 0; rc == HPCB_OK && s < slots; s++) {
        size_t from = visit[s] * stride_ints;
        size_t to = visit[(s + 1) % slots] * stride_ints;
        a[from] = (int)((ptrdiff_t)to - (ptrdiff_t)from);
    }
    free(visit);
    return rc;
}

/* The timed loop: `steps` dependent loads starting at slot 0. */
static size_t chase(const int *restrict a, size_t steps)
{
    ptrdiff_t j = 0;
    for (; steps >= 8; steps -= 8) {
        j += a[j]; j += a[j]; j += a[j]; j += a[j];
        j += a[j]; j += a[j]; j += a[j]; j += a[j];
    }
    for (; steps > 0; steps--)
        j += a[j];
    return (size_t)j;
}

/* Number of slots visited before the chain returns to slot 0, or 0 if it
 * leaves the array: proves the chain is one cycle through every slot. */
static size_t cycle_length(const int *a, size_t slots, size_t stride_ints)
{
    size_t limit = slots * stride_ints;
    ptrdiff_t j = 0;
    size_t n = 0;
    do {
        j += a[j];
        n++;
        if (j < 0 || (size_t)j >= limit || (size_t)j % stride_ints != 0 || n > slots)
            return 0;
    } while (j != 0);
    return n;
}

/* An array linked into one verified cycle, ready to be timed. */
struct prepared {
    struct hpcb_region region;
    size_t slots;
    size_t per_sample;
};

static int prepare(const struct hpcb_traverse_params *p, struct prepared *out)
{
    int rc = hpcb_region_alloc(&out->region, p->array_bytes, p->page_mode);
    if (rc != HPCB_OK)
        return rc;
    int *a = out->region.data;
    size_t stride_ints = p->stride_bytes / sizeof(int);
    out->slots = p->array_bytes / p->stride_bytes;
    out->per_sample = accesses_per_sample(p);
    rc = link_slots(a, out->slots, stride_ints, p->order, p->seed,
                    p->window_bytes / p->stride_bytes);
    if (rc == HPCB_OK && cycle_length(a, out->slots, stride_ints) != out->slots)
        rc = HPCB_ECHECK;
    if (rc == HPCB_OK)
        for (size_t w = 0; w < p->warmup; w++)
            hpcb_sink_size(chase(a, out->slots));
    if (rc != HPCB_OK)
        hpcb_region_free(&out->region);
    return rc;
}

/* One timed sample: whole traversals, which must end where they began. */
static int time_sample(const struct prepared *prep, double *ticks, double *ns)
{
    const int *a = prep->region.data;
    HPCB_COMPILER_BARRIER();
    uint64_t n0 = hpcb_now_ns();
    uint64_t t0 = hpcb_ticks();
    size_t end = chase(a, prep->per_sample);
    uint64_t t1 = hpcb_ticks();
    uint64_t n1 = hpcb_now_ns();
    HPCB_COMPILER_BARRIER();
    hpcb_sink_size(end);
    if (end != 0)
        return HPCB_ECHECK;
    *ticks = (double)(t1 - t0) / (double)prep->per_sample;
    *ns = (double)(n1 - n0) / (double)prep->per_sample;
    return HPCB_OK;
}

/* One member (the calling thread, or one team member): prepare its own
 * array (first touch on its own PU), then start each sample together with
 * the other members, so that the samples really overlap. */
static int traverse_member(void *arg, size_t member)
{
    struct hpcb_team_job *job = arg;
    const struct hpcb_traverse_params *p = job->params;
    struct hpcb_traverse_out *out = job->out;
    size_t off = member * p->samples;
    struct prepared prep = {0};
    int rc = prepare(p, &prep);
    /* A member that stops because another failed returns its own status
     * (OK), so the team reports the failure of the member that had it. */
    for (size_t i = 0; i < p->samples; i++) {
        if (!hpcb_phase_wait(&job->phase, rc == HPCB_OK))
            break;
        rc = time_sample(&prep, &out->ticks[off + i], &out->ns[off + i]);
    }
    hpcb_region_free(&prep.region);
    return rc;
}

int hpcb_traverse_run(const struct hpcb_traverse_params *p, struct hpcb_traverse_out *out)
{
    int rc = hpcb_contract_start(hpcb_traverse_check(p, NULL), out != NULL && out->ticks != NULL && out->ns != NULL);
    if (rc != HPCB_OK)
        return rc;
    out->accesses_per_sample = accesses_per_sample(p);
    struct hpcb_team_job job = {.params = p, .out = out};
    if (p->team.pus != NULL)
        return hpcb_team_run(&p->team, traverse_member, &job, &job.phase);
    hpcb_phase_init(&job.phase, 1);   /* alone, every wait returns at once */
    return traverse_member(&job, 0);
}
