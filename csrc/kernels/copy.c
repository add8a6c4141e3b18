/* copy.c - the STREAM-style copy kernel; see copy.h. */
#include "copy.h"

#include <string.h>

#include "../runtime/hpcb.h"
#include "../runtime/memory.h"
#include "../runtime/phase.h"
#include "../runtime/timer.h"

/* Arrays are copied in blocks of one cache line (8 doubles). */
#define LINE_DOUBLES 8

int hpcb_copy_check_sizes(const struct hpcb_copy_params *p, struct hpcb_why *why)
{
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if (p->array_bytes == 0 || p->array_bytes % (LINE_DOUBLES * sizeof(double)) != 0)
        return hpcb_why_set(why, "array_bytes", "must be a positive multiple of %zu bytes (a cache line of doubles), "
                            "got %zu", LINE_DOUBLES * sizeof(double), p->array_bytes);
    int rc;
    if ((rc = hpcb_why_range(why, "repetitions", p->repetitions, 1, 1000000, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, 1000, "")) != HPCB_OK)
        return rc;
    return hpcb_page_mode_check(p->page_mode, why);
}

int hpcb_copy_check(const struct hpcb_copy_params *p, struct hpcb_why *why)
{
    int rc = hpcb_copy_check_sizes(p, why);
    return rc != HPCB_OK ? rc : hpcb_team_check(&p->team, why);
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

static int copy_member(void *arg, size_t member)
{
    struct hpcb_team_job *job = arg;
    const struct hpcb_copy_params *p = job->params;
    struct hpcb_copy_out *out = job->out;
    size_t reps = p->repetitions, n = p->array_bytes / sizeof(double);
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
    for (size_t r = 0; r < reps; r++) {
        /* Sleep, not spin, while a slower member finishes its copy (phase.h). */
        if (!hpcb_phase_wait_idle(&job->phase, rc == HPCB_OK))
            break;
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        uint64_t t0 = hpcb_ticks();
        copy_lines(dst.data, src.data, lines);
        uint64_t t1 = hpcb_ticks();
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        size_t at = member * reps + r;
        out->ns[at] = (double)(n1 - n0);
        out->ticks[at] = (double)(t1 - t0);
        /* Differences of whole ns since origin_ns, exact in a double for 104 days. */
        out->start_ns[at] = (double)(n0 - out->origin_ns);
        out->end_ns[at] = (double)(n1 - out->origin_ns);
        done++;
    }

    /* The destination started as -1.0 everywhere: it equals the source only
     * if the copies really happened. */
    if (rc == HPCB_OK && done == reps && memcmp(src.data, dst.data, p->array_bytes) != 0)
        rc = HPCB_ECHECK;
    hpcb_region_free(&src);
    hpcb_region_free(&dst);
    return rc;
}

int hpcb_copy_run(const struct hpcb_copy_params *p, struct hpcb_copy_out *out)
{
    int rc = hpcb_contract_start(hpcb_copy_check(p, NULL), out != NULL && out->ns != NULL && out->ticks != NULL &&
                                                              out->start_ns != NULL && out->end_ns != NULL);
    if (rc != HPCB_OK)
        return rc;
    /* Read before the members exist (creating them orders this write before
     * their reads), so every start and end is later. */
    out->origin_ns = hpcb_now_ns();
    struct hpcb_team_job job = {.params = p, .out = out};
    return hpcb_team_run(&p->team, copy_member, &job, &job.phase);
}
