/* chase.c - the latency sweep over prefixes of one buffer; see chase.h. */
#include "chase.h"

#include <stdlib.h>
#include <string.h>

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"
#include "../runtime/placement.h"
#include "../runtime/timer.h"

/* Buffers above this are refused: 1 TiB, far beyond any sweep. */
#define LARGEST_BUFFER ((size_t)1 << 40)

int hpcb_chase_check(const struct hpcb_chase_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if (p->stride_bytes == 0 || p->stride_bytes % sizeof(void *) != 0)
        return hpcb_why_set(why, "stride_bytes", "must be a positive multiple of sizeof(void *) (%zu bytes), got %zu",
                            sizeof(void *), p->stride_bytes);
    if (p->buffer_bytes == 0 || p->buffer_bytes % p->stride_bytes != 0)
        return hpcb_why_set(why, "buffer_bytes", "must be a positive multiple of stride_bytes (%zu bytes), got %zu",
                            p->stride_bytes, p->buffer_bytes);
    if ((rc = hpcb_why_range(why, "buffer_bytes", p->buffer_bytes, 1, LARGEST_BUFFER, " bytes")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "nsizes", p->nsizes, 1, HPCB_CHASE_MAX_SIZES, "")) != HPCB_OK)
        return rc;
    if (p->sizes == NULL)
        return hpcb_why_set(why, "sizes", "must point to nsizes sizes, got NULL");
    for (size_t i = 0; i < p->nsizes; i++)
        if (p->sizes[i] == 0 || p->sizes[i] % p->stride_bytes != 0 || p->sizes[i] > p->buffer_bytes)
            return hpcb_why_set(why, "sizes", "must each be a positive multiple of stride_bytes (%zu bytes) and at "
                                "most buffer_bytes (%zu), got %zu at index %zu", p->stride_bytes, p->buffer_bytes,
                                p->sizes[i], i);
    if ((rc = hpcb_cycle_order_check(why, p->order, p->window_bytes, p->stride_bytes)) != HPCB_OK)
        return rc;
    if ((rc = hpcb_why_range(why, "min_accesses", p->min_accesses, 1, (size_t)1 << 40, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "samples", p->samples, 1, HPCB_MAX_SAMPLES / p->nsizes, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, 1000, "")) != HPCB_OK)
        return rc;
    return hpcb_page_mode_check(p->page_mode, why);
}

size_t hpcb_chase_pages(const struct hpcb_chase_params *p)
{
    return hpcb_placement_pages(p->buffer_bytes);
}

/* The timed loop: `steps` dependent loads from `start`. */
static void *chase(void *start, size_t steps)
{
    void **p = start;
    for (; steps >= 8; steps -= 8) {
        p = *p; p = *p; p = *p; p = *p;
        p = *p; p = *p; p = *p; p = *p;
    }
    for (; steps > 0; steps--)
        p = *p;
    return p;
}

/* Link the first `slots` slots into one cycle (slot 0 first) and prove it
 * is one: walking it must visit every slot once and come back. */
static int link_prefix(char *base, size_t slots, const struct hpcb_chase_params *p, size_t *visit, size_t index)
{
    size_t stride = p->stride_bytes;
    int rc = hpcb_cycle_order(visit, slots, p->order, p->seed + index, p->window_bytes / stride);
    if (rc != HPCB_OK)
        return rc;
    for (size_t s = 0; s < slots; s++)
        *(void **)(base + visit[s] * stride) = base + visit[(s + 1) % slots] * stride;
    char *at = base, *end = base + slots * stride;
    size_t n = 0;
    do {
        at = *(char **)at;
        if (at < base || at >= end || (size_t)(at - base) % stride != 0 || ++n > slots)
            return HPCB_ECHECK;
    } while (at != base);
    return n == slots ? HPCB_OK : HPCB_ECHECK;
}

/* Time one size: warm-up traversals, then samples of whole traversals.
 * A long size (long_slots) is timed once, and the verifying walk, which
 * visits its slots in the chase's own order just before, is its warm-up:
 * after one whole traversal every line was last touched one cycle ago, as
 * in every later one, so a second untimed traversal changes nothing but the
 * time (a quarter of a sweep's on a machine with a 300 MiB L3). */
static int time_size(char *base, size_t slots, const struct hpcb_chase_params *p, double *ticks, double *ns,
                     double *accesses)
{
    size_t rounds = (p->min_accesses + slots - 1) / slots;
    size_t per_sample = rounds * slots;
    *accesses = (double)per_sample;
    int is_long = p->long_slots != 0 && slots >= p->long_slots;
    for (size_t w = 0; !is_long && w < p->warmup; w++)
        hpcb_sink_size((size_t)chase(base, slots));
    size_t samples = is_long ? 1 : p->samples;
    for (size_t j = 0; j < samples; j++) {
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        uint64_t t0 = hpcb_ticks();
        void *end = chase(base, per_sample);
        uint64_t t1 = hpcb_ticks();
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        if (end != (void *)base)     /* whole traversals end where they began */
            return HPCB_ECHECK;
        ticks[j] = (double)(t1 - t0) / (double)per_sample;
        ns[j] = (double)(n1 - n0) / (double)per_sample;
    }
    return HPCB_OK;
}

int hpcb_chase_run(const struct hpcb_chase_params *p, struct hpcb_chase_out *out)
{
    int rc = hpcb_contract_start(hpcb_chase_check(p, NULL),
                                 out != NULL && out->ticks != NULL && out->ns != NULL && out->accesses != NULL &&
                                 out->frames != NULL);
    if (rc != HPCB_OK)
        return rc;
    struct hpcb_region region = {0};
    if ((rc = hpcb_region_alloc(&region, p->buffer_bytes, p->page_mode)) != HPCB_OK)
        return rc;
    /* Every page is touched in address order before anything is timed: the
     * placement is then fixed, and what the kernel hands out in order is as
     * contiguous as it can be. */
    memset(region.data, 0, p->buffer_bytes);
    out->frames_known = hpcb_placement_frames(region.data, p->buffer_bytes, out->frames, hpcb_chase_pages(p));
    out->huge_bytes = hpcb_placement_huge_bytes(region.data);

    size_t largest = 0;
    for (size_t i = 0; i < p->nsizes; i++)
        largest = p->sizes[i] > largest ? p->sizes[i] : largest;
    size_t *visit = malloc((largest / p->stride_bytes) * sizeof *visit);
    if (visit == NULL)
        rc = HPCB_ENOMEM;
    for (size_t i = 0; rc == HPCB_OK && i < p->nsizes; i++) {
        size_t slots = p->sizes[i] / p->stride_bytes;
        rc = link_prefix(region.data, slots, p, visit, i);
        if (rc == HPCB_OK)
            rc = time_size(region.data, slots, p, out->ticks + i * p->samples, out->ns + i * p->samples,
                           out->accesses + i);
    }
    free(visit);
    hpcb_region_free(&region);
    return rc;
}
