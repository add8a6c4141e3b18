/* copy.c - the STREAM-style copy kernel; see copy.h. */
#include "copy.h"

#include <string.h>

#include "../hpcb.h"
#include "../memory.h"
#include "../phase.h"
#include "../team.h"
#include "../timer.h"

/* Arrays are copied in blocks of one cache line (8 doubles). */
#define LINE_DOUBLES 8

int hpcb_copy_check(const struct hpcb_copy_params *p)
{
    if (p == NULL || p->array_bytes == 0 || p->array_bytes % (LINE_DOUBLES * sizeof(double)) != 0)
        return HPCB_EINVAL;
    if (p->page_mode != HPCB_PAGES_NORMAL && p->page_mode != HPCB_PAGES_HUGE &&
        p->page_mode != HPCB_PAGES_SYSTEM)
        return HPCB_EINVAL;
    return HPCB_OK;
}

/* The timed loop. Ordinary stores, as STREAM compiled without streaming-store
 * flags issues (and as likwid-bench's copy_avx, our reference, does). The
 * compiler vectorises the inner loop; the empty asm after each line keeps it
 * from turning the whole loop into a call to memcpy, whose large-size path
 * switches to non-temporal stores and would measure a different thing. */
static void copy_lines(double *restrict dst, const double *restrict src, size_t lines)
{
    for (size_t l = 0; l < lines; l++) {
        for (size_t k = 0; k < LINE_DOUBLES; k++)
            dst[l * LINE_DOUBLES + k] = src[l * LINE_DOUBLES + k];
        __asm__ __volatile__("" : : "r"(dst) : "memory");
    }
}

struct copy_job {
    const struct hpcb_copy_params *params;
    double *ns;
    double *ticks;
    size_t reps;
    struct hpcb_phase phase;
};

static int copy_member(void *arg, size_t member)
{
    struct copy_job *job = arg;
    const struct hpcb_copy_params *p = job->params;
    size_t n = p->array_bytes / sizeof(double);
    size_t lines = n / LINE_DOUBLES;
    struct hpcb_region src = {0}, dst = {0};

    int rc = hpcb_region_alloc(&src, p->array_bytes, p->page_mode);
    if (rc == HPCB_OK)
        rc = hpcb_region_alloc(&dst, p->array_bytes, p->page_mode);
    if (rc == HPCB_OK) {
        /* First touch by this (pinned) thread places the pages locally. */
        double *a = src.data, *b = dst.data;
        for (size_t i = 0; i < n; i++) {
            a[i] = (double)(i % 1048573) + 0.5 * (double)member;
            b[i] = -1.0;
        }
        for (size_t w = 0; w < p->warmup; w++)
            copy_lines(b, a, lines);
    }

    /* A member that stops because another failed keeps its own status (OK),
     * so the team reports the failure of the member that had it. */
    size_t done = 0;
    for (size_t r = 0; r < job->reps; r++) {
        if (!hpcb_phase_wait(&job->phase, rc == HPCB_OK))
            break;
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        uint64_t t0 = hpcb_ticks();
        copy_lines(dst.data, src.data, lines);
        uint64_t t1 = hpcb_ticks();
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        job->ns[member * job->reps + r] = (double)(n1 - n0);
        job->ticks[member * job->reps + r] = (double)(t1 - t0);
        done++;
    }

    /* The destination started as -1.0 everywhere: it equals the source only
     * if the copies really happened. */
    if (rc == HPCB_OK && done == job->reps && memcmp(src.data, dst.data, p->array_bytes) != 0)
        rc = HPCB_ECHECK;
    hpcb_region_free(&src);
    hpcb_region_free(&dst);
    return rc;
}

int hpcb_copy_team(const struct hpcb_copy_params *p, const unsigned *pus, size_t nmembers,
                   double *ns, double *ticks, size_t reps)
{
    int rc = hpcb_copy_check(p);
    if (rc != HPCB_OK)
        return rc;
    if (ns == NULL || ticks == NULL || reps == 0)
        return HPCB_EINVAL;
    struct copy_job job = {.params = p, .ns = ns, .ticks = ticks, .reps = reps};
    hpcb_phase_init(&job.phase, nmembers);
    return hpcb_team_run(pus, nmembers, copy_member, &job, NULL);
}
