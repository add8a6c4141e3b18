/* traverse.c - the mcalibrator kernel; see traverse.h. */
#include "traverse.h"

#include <limits.h>
#include <stdlib.h>

#include "../hpcb.h"
#include "../memory.h"
#include "../phase.h"
#include "../team.h"
#include "../timer.h"

int hpcb_traverse_check(const struct hpcb_traverse_params *p)
{
    if (p == NULL || p->stride_bytes == 0 || p->stride_bytes % sizeof(int) != 0)
        return HPCB_EINVAL;
    if (p->array_bytes < p->stride_bytes || p->array_bytes % p->stride_bytes != 0)
        return HPCB_EINVAL;
    /* Offsets between slots are stored in an int. */
    if (p->array_bytes / sizeof(int) > (size_t)INT_MAX)
        return HPCB_EINVAL;
    if (p->order != HPCB_ORDER_SEQUENTIAL && p->order != HPCB_ORDER_RANDOM &&
        p->order != HPCB_ORDER_WINDOWED)
        return HPCB_EINVAL;
    if (p->order == HPCB_ORDER_WINDOWED &&
        (p->window_bytes < p->stride_bytes || p->window_bytes % p->stride_bytes != 0))
        return HPCB_EINVAL;
    if (p->min_accesses == 0 || p->min_accesses > ((size_t)1 << 40))
        return HPCB_EINVAL;
    return HPCB_OK;
}

size_t hpcb_traverse_accesses_per_sample(const struct hpcb_traverse_params *p)
{
    size_t slots = p->array_bytes / p->stride_bytes;
    size_t rounds = (p->min_accesses + slots - 1) / slots;
    return rounds * slots;
}

/* splitmix64: small, fast and good enough to shuffle slots. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Fisher-Yates on visit[first..last): a uniformly random order. */
static void shuffle(size_t *visit, size_t first, size_t last, uint64_t *state)
{
    for (size_t s = last - 1; s > first; s--) {
        size_t k = first + (size_t)(next_random(state) % (s - first + 1));
        size_t tmp = visit[s];
        visit[s] = visit[k];
        visit[k] = tmp;
    }
}

/* Write the cycle into the array. Slot 0 always starts it. window_slots is
 * the number of slots shuffled together (all of them for HPCB_ORDER_RANDOM). */
static int link_slots(int *a, size_t slots, size_t stride_ints, int order, uint64_t seed,
                      size_t window_slots)
{
    if (order == HPCB_ORDER_SEQUENTIAL) {
        for (size_t s = 0; s + 1 < slots; s++)
            a[s * stride_ints] = (int)stride_ints;
        a[(slots - 1) * stride_ints] = -(int)((slots - 1) * stride_ints);
        return HPCB_OK;
    }
    size_t *visit = malloc(slots * sizeof *visit);
    if (visit == NULL)
        return HPCB_ENOMEM;
    for (size_t s = 0; s < slots; s++)
        visit[s] = s;
    /* Shuffle within each window, then the order of the windows; window 0
     * stays first and keeps slot 0 at its start, so every traversal begins
     * and ends at slot 0. For HPCB_ORDER_RANDOM the one window is everything. */
    uint64_t state = seed;
    if (order == HPCB_ORDER_RANDOM || window_slots > slots)
        window_slots = slots;
    size_t nwindows = (slots + window_slots - 1) / window_slots;
    for (size_t first = 0; first < slots; first += window_slots) {
        size_t last = first + window_slots < slots ? first + window_slots : slots;
        shuffle(visit, first == 0 ? 1 : first, last, &state);
    }
    if (nwindows > 2) {
        size_t *windows = malloc(nwindows * sizeof *windows);
        size_t *ordered = malloc(slots * sizeof *ordered);
        if (windows == NULL || ordered == NULL) {
            free(windows);
            free(ordered);
            free(visit);
            return HPCB_ENOMEM;
        }
        for (size_t w = 0; w < nwindows; w++)
            windows[w] = w;
        shuffle(windows, 1, nwindows, &state);
        size_t n = 0;
        for (size_t w = 0; w < nwindows; w++) {
            size_t first = windows[w] * window_slots;
            size_t last = first + window_slots < slots ? first + window_slots : slots;
            for (size_t s = first; s < last; s++)
                ordered[n++] = visit[s];
        }
        free(visit);
        visit = ordered;
        free(windows);
    }
    for (size_t s = 0; s < slots; s++) {
        size_t from = visit[s] * stride_ints;
        size_t to = visit[(s + 1) % slots] * stride_ints;
        a[from] = (int)((ptrdiff_t)to - (ptrdiff_t)from);
    }
    free(visit);
    return HPCB_OK;
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
    out->per_sample = hpcb_traverse_accesses_per_sample(p);
    rc = link_slots(a, out->slots, stride_ints, p->order, p->seed,
                    p->window_bytes / p->stride_bytes);
    if (rc == HPCB_OK && cycle_length(a, out->slots, stride_ints) != out->slots)
        rc = HPCB_ECHECK;
    if (rc == HPCB_OK)
        for (size_t w = 0; w < p->warmup_traversals; w++)
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

int hpcb_traverse(const struct hpcb_traverse_params *p, double *ticks, double *ns,
                  size_t nsamples)
{
    int rc = hpcb_traverse_check(p);
    if (rc != HPCB_OK)
        return rc;
    if (ticks == NULL || ns == NULL || nsamples == 0)
        return HPCB_EINVAL;
    struct prepared prep = {0};
    rc = prepare(p, &prep);
    for (size_t i = 0; rc == HPCB_OK && i < nsamples; i++)
        rc = time_sample(&prep, &ticks[i], &ns[i]);
    hpcb_region_free(&prep.region);
    return rc;
}

struct team_job {
    const struct hpcb_traverse_params *params;
    double *ticks;
    double *ns;
    size_t nsamples;
    struct hpcb_phase phase;
};

/* Every member prepares its own array (first touch on its own PU), then the
 * members start each sample together, so that the samples really overlap. */
static int team_member(void *arg, size_t member)
{
    struct team_job *job = arg;
    size_t off = member * job->nsamples;
    struct prepared prep = {0};
    int rc = prepare(job->params, &prep);
    /* A member that stops because another failed returns its own status
     * (OK), so the team reports the failure of the member that had it. */
    for (size_t i = 0; i < job->nsamples; i++) {
        if (!hpcb_phase_wait(&job->phase, rc == HPCB_OK))
            break;
        rc = time_sample(&prep, &job->ticks[off + i], &job->ns[off + i]);
    }
    hpcb_region_free(&prep.region);
    return rc;
}

int hpcb_traverse_team(const struct hpcb_traverse_params *p, const unsigned *pus,
                       size_t nmembers, double *ticks, double *ns, size_t nsamples)
{
    int rc = hpcb_traverse_check(p);
    if (rc != HPCB_OK)
        return rc;
    if (ticks == NULL || ns == NULL || nsamples == 0)
        return HPCB_EINVAL;
    struct team_job job = {.params = p, .ticks = ticks, .ns = ns, .nsamples = nsamples};
    hpcb_phase_init(&job.phase, nmembers);
    return hpcb_team_run(pus, nmembers, team_member, &job, NULL);
}
