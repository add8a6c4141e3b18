/* multibsp.c - h-communication and the MultiBSP inner product; see multibsp.h. */
#include "multibsp.h"

#include <stdlib.h>

#include "../runtime/hpcb.h"
#include "../runtime/phase.h"
#include "../runtime/timer.h"
#include "daxpy.h"

/* ---- h-communication ------------------------------------------------------ */

struct hcomm_job {
    const struct hpcb_hcomm_params *p;
    struct hpcb_hcomm_out *out;
    double *buffer;          /* nthreads x nthreads x hmax words */
    struct hpcb_phase phase;
};

int hpcb_hcomm_check_sizes(const struct hpcb_hcomm_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_range(why, "hmax", p->hmax, 1, (size_t)1 << 20, " words")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "iterations", p->iterations, 1, HPCB_MAX_SAMPLES, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "blocks", p->blocks, 1, 100000, "")) != HPCB_OK)
        return rc;
    return hpcb_why_range(why, "daxpy_length", p->daxpy_length, 1, (size_t)1 << 26, " doubles");
}

int hpcb_hcomm_check(const struct hpcb_hcomm_params *p, struct hpcb_why *why)
{
    int rc = hpcb_hcomm_check_sizes(p, why);
    if (rc == HPCB_OK)
        rc = hpcb_team_check(&p->team, why);
    if (rc == HPCB_OK && p->team.npus < 2)
        rc = hpcb_why_set(why, "pus", "must list at least 2 PUs (an h-communication is between threads), got %zu",
                          p->team.npus);
    return rc;
}

/* One superstep: h single-word writes into the other threads' slots,
 * cycling t+1, t+2, ... and skipping t. The target is stepped, not computed
 * with a division per word: the loop is what g measures. */
static void communicate(double *buffer, size_t t, size_t p, size_t h, size_t hmax, double value)
{
    size_t target = t;
    for (size_t j = 0; j < h; j++) {
        if (++target == p)
            target = 0;
        if (target == t && ++target == p)
            target = 0;
        buffer[(target * p + t) * hmax + j] = value;
    }
}

static int hcomm_member(void *arg, size_t t)
{
    struct hcomm_job *job = arg;
    const struct hpcb_hcomm_params *p = job->p;
    size_t n = p->team.npus;
    double before = 0.0, after = 0.0;
    int rc = hpcb_daxpy_rate(p->daxpy_length, &before);
    for (size_t h = 0; h <= p->hmax; h++) {
        for (size_t w = 0; w < p->warmup; w++) {
            communicate(job->buffer, t, n, h, p->hmax, (double)(h + 1));
            if (!hpcb_phase_wait(&job->phase, rc == HPCB_OK))
                return rc;
        }
        for (size_t b = 0; b < p->blocks; b++) {
            if (!hpcb_phase_wait(&job->phase, rc == HPCB_OK))
                return rc;
            uint64_t t0 = hpcb_ticks();
            for (size_t i = 0; i < p->iterations; i++) {
                communicate(job->buffer, t, n, h, p->hmax, (double)(h + 1));
                hpcb_phase_wait(&job->phase, 1);
            }
            if (t == 0)
                job->out->ticks[h * p->blocks + b] = (double)(hpcb_ticks() - t0);
        }
    }
    /* Measured again at the end: a burst of interference during one of the
     * two measurements (the first vCPU also takes the host's interrupts)
     * only lowers that one. */
    int after_rc = hpcb_daxpy_rate(p->daxpy_length, &after);
    job->out->rate[t] = before > after ? before : after;
    return rc != HPCB_OK ? rc : after_rc;
}

int hpcb_hcomm_run(const struct hpcb_hcomm_params *p, struct hpcb_hcomm_out *out)
{
    int rc = hpcb_contract_start(hpcb_hcomm_check(p, NULL), out != NULL && out->ticks != NULL && out->rate != NULL);
    if (rc != HPCB_OK)
        return rc;
    size_t nthreads = p->team.npus;
    /* At most 65536**2 * 2**20 words by the rules: the count fits in a
     * size_t, and calloc refuses a byte size that would not. */
    struct hcomm_job job = {.p = p, .out = out, .buffer = calloc(nthreads * nthreads * p->hmax, sizeof(double))};
    if (job.buffer == NULL)
        return HPCB_ENOMEM;
    rc = hpcb_team_run(&p->team, hcomm_member, &job, &job.phase);
    /* Payload: after h = hmax, every slot a thread wrote holds hmax + 1. */
    for (size_t t = 0; rc == HPCB_OK && t < nthreads; t++)
        for (size_t j = 0; j < p->hmax; j++) {
            size_t target = (t + 1 + j % (nthreads - 1)) % nthreads;
            if (job.buffer[(target * nthreads + t) * p->hmax + j] != (double)(p->hmax + 1)) {
                rc = HPCB_ECHECK;
                break;
            }
        }
    free(job.buffer);
    return rc;
}

/* ---- inner product -------------------------------------------------------- */

/* The sequential inner product of a leaf: x[begin..end) squared and summed.
 * Four independent sums: one running sum would wait for each addition (a
 * chain of FP-add latencies) and run at a fraction of the rate the model
 * takes from DAXPY, whose updates are independent. Not inlined: the inner
 * product and the rate kernel run the same machine code. */
__attribute__((noinline)) static double sum_squares(const double *x, size_t begin, size_t end)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i = begin;
    for (; i + 4 <= end; i += 4) {
        s0 += x[i] * x[i];
        s1 += x[i + 1] * x[i + 1];
        s2 += x[i + 2] * x[i + 2];
        s3 += x[i + 3] * x[i + 3];
    }
    for (; i < end; i++)
        s0 += x[i] * x[i];
    return (s0 + s1) + (s2 + s3);
}

/* The per-thread rules: a component, and a slice of x. */
static int check_threads(const struct hpcb_inner_product_params *p, struct hpcb_why *why)
{
    for (size_t t = 0; t < p->team.npus; t++) {
        if (p->leaf_parent[t] < 0 || (size_t)p->leaf_parent[t] >= p->ncomp)
            return hpcb_why_set(why, "leaf_parent", "of thread %zu must be a component (0..%zu), got %ld", t,
                                p->ncomp - 1, p->leaf_parent[t]);
        if (p->begin[t] > p->end[t])
            return hpcb_why_set(why, "begin", "of thread %zu must not be past its end (%zu), got %zu", t, p->end[t],
                                p->begin[t]);
        if (p->end[t] > p->n)
            return hpcb_why_set(why, "end", "of thread %zu must be at most the length of x (%zu), got %zu", t, p->n,
                                p->end[t]);
    }
    return HPCB_OK;
}

/* The per-component rules. Bottom-up order (parent[c] > c) rules out cycles,
 * which would send a thread round its ancestors for ever. */
static int check_components(const struct hpcb_inner_product_params *p, struct hpcb_why *why)
{
    size_t root = p->ncomp - 1;
    for (size_t c = 0; c < p->ncomp; c++) {
        if (c == root && p->parent[c] != -1)
            return hpcb_why_set(why, "parent", "of the root (the last component, %zu) must be -1, got %ld", c,
                                p->parent[c]);
        if (c < root && (p->parent[c] <= (long)c || p->parent[c] > (long)root))
            return hpcb_why_set(why, "parent", "of component %zu must be a later component (%zu..%zu: children "
                                "before parents), got %ld", c, c + 1, root, p->parent[c]);
        if (p->master[c] < 0 || (size_t)p->master[c] >= p->team.npus)
            return hpcb_why_set(why, "master", "of component %zu must be a thread (0..%zu), got %ld", c,
                                p->team.npus - 1, p->master[c]);
    }
    if (p->master[root] != 0)   /* thread 0 times the run and reads the root's sum */
        return hpcb_why_set(why, "master", "of the root must be thread 0, got %ld", p->master[root]);
    return HPCB_OK;
}

/* Is thread t below component c? Walk up from t's component: parents only
 * grow, so stop once past c. */
static int below(const struct hpcb_inner_product_params *p, size_t t, size_t c)
{
    long k = p->leaf_parent[t];
    while (k >= 0 && (size_t)k < c)
        k = p->parent[k];
    return k == (long)c;
}

/* nleaves[c] is how many threads wait at c's barrier: if it were not the
 * number of threads below c the barrier would never open (too many) or open
 * early (too few). And c's master must be one of them. */
static int check_counts(const struct hpcb_inner_product_params *p, struct hpcb_why *why)
{
    size_t *under = calloc(p->ncomp, sizeof *under);
    if (under == NULL)
        return HPCB_ENOMEM;
    for (size_t t = 0; t < p->team.npus; t++)
        under[p->leaf_parent[t]]++;
    for (size_t c = 0; c + 1 < p->ncomp; c++)
        under[p->parent[c]] += under[c];
    int rc = HPCB_OK;
    for (size_t c = 0; rc == HPCB_OK && c < p->ncomp; c++) {
        if (p->nleaves[c] < 0 || (size_t)p->nleaves[c] != under[c])
            rc = hpcb_why_set(why, "nleaves", "of component %zu must be the number of threads below it (%zu), got %ld",
                              c, under[c], p->nleaves[c]);
        else if (!below(p, (size_t)p->master[c], c))
            rc = hpcb_why_set(why, "master", "of component %zu must be a thread below it, got thread %ld", c,
                              p->master[c]);
    }
    free(under);
    return rc;
}

int hpcb_inner_product_check(const struct hpcb_inner_product_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_range(why, "reps", p->reps, 1, 100000, "")) != HPCB_OK ||
        (rc = hpcb_team_check(&p->team, why)) != HPCB_OK)
        return rc;
    if (p->ncomp == 0)
        return hpcb_why_set(why, "ncomp", "must be at least 1 (the root), got 0");
    if (p->leaf_parent == NULL || p->parent == NULL || p->master == NULL || p->nleaves == NULL ||
        p->begin == NULL || p->end == NULL || (p->x == NULL && p->n > 0))
        return hpcb_why_set(why, "p", "must point to every array of the tree and to x, got a NULL");
    if ((rc = check_threads(p, why)) != HPCB_OK || (rc = check_components(p, why)) != HPCB_OK)
        return rc;
    return check_counts(p, why);
}

/* The scratch of a run lives in three blocks, one per type (sums, lists,
 * phases), carved into the arrays below. */
struct ip_job {
    const struct hpcb_inner_product_params *p;
    double *leaf_sum;          /* per thread; the sums block */
    double *comp_sum;          /* per component */
    /* Each component's children, listed once before timing so that a
     * master's reduction reads p numbers instead of scanning the tree:
     * leaves first_leaf[c] .. first_leaf[c+1] of leaf_list, components
     * first_comp[c] .. first_comp[c+1] of comp_list. first_leaf starts
     * the lists block. */
    size_t *first_leaf, *leaf_list, *first_comp, *comp_list;
    struct hpcb_phase *comp_phase;   /* per component; the phases block */
    uint64_t *leaf_end;              /* per thread: when its loop ended (TSC) */
    double *leaf_ticks;              /* per thread: this run's row of out->leaf_ticks */
    struct hpcb_phase start;
    double inside_ticks, reduce_ticks;
};

static int ip_member(void *arg, size_t t)
{
    struct ip_job *job = arg;
    const struct hpcb_inner_product_params *p = job->p;
    hpcb_phase_wait(&job->start, 1);
    uint64_t t0 = hpcb_ticks();
    job->leaf_sum[t] = sum_squares(p->x, p->begin[t], p->end[t]);
    job->leaf_end[t] = hpcb_ticks();
    /* Bottom up through this thread's ancestors: every thread of a
     * component meets at its barrier, then the component's master adds up
     * what its children left. */
    for (long c = p->leaf_parent[t]; c >= 0; c = p->parent[c]) {
        hpcb_phase_wait(&job->comp_phase[c], 1);
        if ((long)t != p->master[c])
            continue;
        double sum = 0.0;
        for (size_t k = job->first_leaf[c]; k < job->first_leaf[c + 1]; k++)
            sum += job->leaf_sum[job->leaf_list[k]];
        for (size_t k = job->first_comp[c]; k < job->first_comp[c + 1]; k++)
            sum += job->comp_sum[job->comp_list[k]];
        job->comp_sum[c] = sum;
    }
    if (t == 0) {
        /* Every thread wrote its loop's end before its first barrier, and
         * all of them have passed the root's: the reads see the writes. */
        uint64_t t1 = hpcb_ticks(), last = job->leaf_end[0];
        for (size_t k = 1; k < p->team.npus; k++)
            last = job->leaf_end[k] > last ? job->leaf_end[k] : last;
        job->inside_ticks = (double)(t1 - t0);
        job->reduce_ticks = t1 > last ? (double)(t1 - last) : 0.0;
    }
    job->leaf_ticks[t] = (double)(job->leaf_end[t] - t0);
    return HPCB_OK;
}

/* Fill the children lists of `job` (counting sort by parent). */
static void list_children(const struct hpcb_inner_product_params *p, struct ip_job *job)
{
    size_t nthreads = p->team.npus;
    for (size_t k = 0; k < nthreads; k++)
        job->first_leaf[p->leaf_parent[k] + 1]++;
    for (size_t k = 0; k < p->ncomp; k++)
        if (p->parent[k] >= 0)
            job->first_comp[p->parent[k] + 1]++;
    for (size_t c = 0; c < p->ncomp; c++) {
        job->first_leaf[c + 1] += job->first_leaf[c];
        job->first_comp[c + 1] += job->first_comp[c];
    }
    for (size_t k = 0, c; k < nthreads; k++) {
        c = (size_t)p->leaf_parent[k];
        job->leaf_list[job->first_leaf[c]++] = k;
    }
    for (size_t k = 0; k < p->ncomp; k++)
        if (p->parent[k] >= 0)
            job->comp_list[job->first_comp[p->parent[k]]++] = k;
    /* The fills advanced each start to the next component's: shift back. */
    for (size_t c = p->ncomp; c > 0; c--) {
        job->first_leaf[c] = job->first_leaf[c - 1];
        job->first_comp[c] = job->first_comp[c - 1];
    }
    job->first_leaf[0] = job->first_comp[0] = 0;
}

static int ip_job_alloc(struct ip_job *job, size_t nthreads, size_t ncomp)
{
    job->leaf_sum = calloc(nthreads + ncomp, sizeof(double));
    job->first_leaf = calloc(2 * (ncomp + 1) + nthreads + ncomp, sizeof(size_t));
    job->comp_phase = calloc(ncomp, sizeof(struct hpcb_phase));
    job->leaf_end = calloc(nthreads, sizeof(uint64_t));
    if (job->leaf_sum == NULL || job->first_leaf == NULL || job->comp_phase == NULL || job->leaf_end == NULL)
        return HPCB_ENOMEM;
    job->comp_sum = job->leaf_sum + nthreads;
    job->first_comp = job->first_leaf + ncomp + 1;
    job->leaf_list = job->first_comp + ncomp + 1;
    job->comp_list = job->leaf_list + nthreads;
    return HPCB_OK;
}

static void ip_job_free(struct ip_job *job)
{
    free(job->leaf_sum);
    free(job->first_leaf);
    free(job->comp_phase);
    free(job->leaf_end);
}

int hpcb_inner_product_run(const struct hpcb_inner_product_params *p, struct hpcb_inner_product_out *out)
{
    int rc = hpcb_contract_start(hpcb_inner_product_check(p, NULL),
                                 out != NULL && out->total_ticks != NULL && out->inside_ticks != NULL &&
                                 out->leaf_ticks != NULL && out->reduce_ticks != NULL);
    if (rc != HPCB_OK)
        return rc;
    size_t nthreads = p->team.npus, ncomp = p->ncomp;
    struct ip_job job = {.p = p};
    if ((rc = ip_job_alloc(&job, nthreads, ncomp)) == HPCB_OK)
        list_children(p, &job);
    for (size_t r = 0; rc == HPCB_OK && r < p->reps; r++) {
        for (size_t c = 0; c < ncomp; c++)
            hpcb_phase_init(&job.comp_phase[c], (size_t)p->nleaves[c]);
        hpcb_phase_init(&job.start, nthreads);
        /* Checked above: each start is timed without the check's look-ups. */
        uint64_t t0 = hpcb_ticks();
        job.leaf_ticks = out->leaf_ticks + r * nthreads;
        rc = hpcb_team_start(&p->team, ip_member, &job, NULL);
        out->total_ticks[r] = (double)(hpcb_ticks() - t0);
        out->inside_ticks[r] = job.inside_ticks;
        out->reduce_ticks[r] = job.reduce_ticks;
    }
    if (rc == HPCB_OK)
        out->result = job.comp_sum[ncomp - 1];
    ip_job_free(&job);
    return rc;
}

/* ---- the leaf loop's rate ------------------------------------------------- */

#define SUMSQ_TRIAL_TICKS 2000000u        /* ~1 ms at GHz tick rates */

struct sumsq_job {
    const struct hpcb_sumsq_rate_params *p;
    struct hpcb_sumsq_rate_out *out;
    struct hpcb_phase phase;
};

int hpcb_sumsq_rate_check(const struct hpcb_sumsq_rate_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_range(why, "length", p->length, 1, (size_t)1 << 28, " doubles")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "trials", p->trials, 1, 1000, "")) != HPCB_OK)
        return rc;
    return hpcb_team_check(&p->team, why);
}

/* One trial: passes over the slice, doubling, until ~1 ms; flops per tick.
 * 0 if a pass's sum is wrong. */
static double sumsq_trial(const double *x, size_t n)
{
    size_t passes = 0, reps = 1;
    uint64_t spent = 0;
    double want = 0.25 * (double)n;
    do {
        uint64_t t0 = hpcb_ticks();
        for (size_t r = 0; r < reps; r++) {
            /* The compiler sees sum_squares as pure: without this it would
             * compute one pass and reuse the result for every other. */
            __asm__ volatile("" : : "r"(x) : "memory");
            if (sum_squares(x, 0, n) != want)
                return 0.0;
        }
        spent += hpcb_ticks() - t0;
        passes += reps;
        reps *= 2;
    } while (spent < SUMSQ_TRIAL_TICKS);
    return 2.0 * (double)n * (double)passes / (double)spent;
}

static int sumsq_member(void *arg, size_t t)
{
    struct sumsq_job *job = arg;
    const struct hpcb_sumsq_rate_params *p = job->p;
    double *x = NULL;
    int rc = posix_memalign((void **)&x, 64, p->length * sizeof(double)) == 0 ? HPCB_OK : HPCB_ENOMEM;
    for (size_t i = 0; rc == HPCB_OK && i < p->length; i++)   /* first touch: this thread's memory */
        x[i] = 0.5;
    if (rc == HPCB_OK && sum_squares(x, 0, p->length) != 0.25 * (double)p->length)
        rc = HPCB_ECHECK;
    for (size_t k = 0; k < p->trials; k++) {
        /* All start each trial together: the rate is the one the leaves
         * reach while every other leaf runs too. */
        if (!hpcb_phase_wait(&job->phase, rc == HPCB_OK))
            break;
        double rate = sumsq_trial(x, p->length);
        job->out->rate[k * p->team.npus + t] = rate;
        if (rate == 0.0)
            rc = HPCB_ECHECK;
    }
    free(x);
    return rc;
}

int hpcb_sumsq_rate_run(const struct hpcb_sumsq_rate_params *p, struct hpcb_sumsq_rate_out *out)
{
    int rc = hpcb_contract_start(hpcb_sumsq_rate_check(p, NULL), out != NULL && out->rate != NULL);
    if (rc != HPCB_OK)
        return rc;
    struct sumsq_job job = {.p = p, .out = out};
    return hpcb_team_run(&p->team, sumsq_member, &job, &job.phase);
}
