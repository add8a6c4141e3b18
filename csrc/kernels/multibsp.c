/* multibsp.c - h-communication and the MultiBSP inner product; see multibsp.h. */
#include "multibsp.h"

#include <stdlib.h>

#include "../hpcb.h"
#include "../phase.h"
#include "../team.h"
#include "../timer.h"

/* ---- h-communication ------------------------------------------------------ */

struct hcomm_job {
    const struct hpcb_hcomm_params *p;
    size_t nthreads;
    double *buffer;          /* nthreads x nthreads x hmax words */
    double *ticks;
    double *rate;
    struct hpcb_phase phase;
};

/* Flops per tick of y += a*x over n doubles: the best of RATE_TRIALS
 * timings of at least ~1 ms each (interference and frequency ramps only
 * slow a trial down), after one untimed trial. */
#define RATE_TRIALS 10
static double daxpy_rate(size_t n, int *rc)
{
    /* One cache-line-aligned block, y a line past the end of x: the rate
     * must not depend on where malloc happened to put two small vectors
     * (misaligned or 4 KiB-aliased vectors measured half the rate). */
    double *block = NULL;
    if (posix_memalign((void **)&block, 64, (2 * n + 8) * sizeof *block) != 0) {
        *rc = HPCB_ENOMEM;
        return 0.0;
    }
    double *x = block, *y = block + n + 8;
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)(i % 5);
        y[i] = 0.0;
    }
    double best = 0.0;
    size_t total = 0;
    for (int trial = 0; trial <= RATE_TRIALS; trial++) {
        size_t reps = 16, done = 0;
        uint64_t spent = 0;
        do {
            uint64_t t0 = hpcb_ticks();
            for (size_t r = 0; r < reps; r++) {
                double *restrict yy = y;
                const double *restrict xx = x;
                for (size_t i = 0; i < n; i++)
                    yy[i] += 0.5 * xx[i];
                HPCB_COMPILER_BARRIER();
            }
            spent += hpcb_ticks() - t0;
            done += reps;
            reps *= 2;
        } while (spent < 2000000 && done < (1u << 24));   /* ~1 ms at GHz tick rates */
        total += done;
        double rate = 2.0 * (double)n * (double)done / (double)spent;
        if (trial > 0 && rate > best)
            best = rate;
    }
    /* y = 0.5 * total * x exactly: the loops really ran. */
    for (size_t i = 0; i < n; i++)
        if (y[i] != 0.5 * (double)total * x[i]) {
            *rc = HPCB_ECHECK;
            break;
        }
    free(block);
    return best;
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
    size_t n = job->nthreads;
    int rc = HPCB_OK;
    double before = daxpy_rate(p->daxpy_length, &rc);
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
                job->ticks[h * p->blocks + b] = (double)(hpcb_ticks() - t0);
        }
    }
    /* Measured again at the end: a burst of interference during one of the
     * two measurements (the first vCPU also takes the host's interrupts)
     * only lowers that one. */
    double after = daxpy_rate(p->daxpy_length, &rc);
    job->rate[t] = before > after ? before : after;
    return rc;
}

int hpcb_hcomm(const struct hpcb_hcomm_params *p, const unsigned *pus, size_t nthreads, double *ticks,
               double *rate)
{
    if (p == NULL || pus == NULL || ticks == NULL || rate == NULL || nthreads < 2 || p->hmax == 0 ||
        p->iterations == 0 || p->blocks == 0 || p->daxpy_length == 0 || p->hmax > (1u << 20))
        return HPCB_EINVAL;
    size_t words = nthreads * nthreads * p->hmax;
    if (words / nthreads / nthreads != p->hmax)
        return HPCB_EINVAL;
    struct hcomm_job job = {.p = p, .nthreads = nthreads, .ticks = ticks, .rate = rate};
    job.buffer = calloc(words, sizeof *job.buffer);
    if (job.buffer == NULL)
        return HPCB_ENOMEM;
    hpcb_phase_init(&job.phase, nthreads);
    int rc = hpcb_team_run(pus, nthreads, hcomm_member, &job, NULL);
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

struct ip_job {
    const struct hpcb_ip_tree *tree;
    const double *x;
    double *leaf_sum;          /* per thread */
    double *comp_sum;          /* per component */
    /* Each component's children, listed once before timing so that a
     * master's reduction reads p numbers instead of scanning the tree:
     * leaves first_leaf[c] .. first_leaf[c+1] of leaf_list, components
     * first_comp[c] .. first_comp[c+1] of comp_list. */
    size_t *first_leaf, *leaf_list, *first_comp, *comp_list;
    struct hpcb_phase *comp_phase;
    struct hpcb_phase start;
    double inside_ticks;
};

static int ip_member(void *arg, size_t t)
{
    struct ip_job *job = arg;
    const struct hpcb_ip_tree *tr = job->tree;
    hpcb_phase_wait(&job->start, 1);
    uint64_t t0 = hpcb_ticks();
    /* Four independent sums: one running sum would wait for each addition
     * (a chain of FP-add latencies) and run at a fraction of the rate the
     * model takes from DAXPY, whose updates are independent. */
    const double *x = job->x;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i = tr->begin[t];
    for (; i + 4 <= tr->end[t]; i += 4) {
        s0 += x[i] * x[i];
        s1 += x[i + 1] * x[i + 1];
        s2 += x[i + 2] * x[i + 2];
        s3 += x[i + 3] * x[i + 3];
    }
    for (; i < tr->end[t]; i++)
        s0 += x[i] * x[i];
    job->leaf_sum[t] = (s0 + s1) + (s2 + s3);
    /* Bottom up through this thread's ancestors: every thread of a
     * component meets at its barrier, then the component's master adds up
     * what its children left. */
    for (long c = tr->leaf_parent[t]; c >= 0; c = tr->parent[c]) {
        hpcb_phase_wait(&job->comp_phase[c], 1);
        if ((long)t != tr->master[c])
            continue;
        double sum = 0.0;
        for (size_t k = job->first_leaf[c]; k < job->first_leaf[c + 1]; k++)
            sum += job->leaf_sum[job->leaf_list[k]];
        for (size_t k = job->first_comp[c]; k < job->first_comp[c + 1]; k++)
            sum += job->comp_sum[job->comp_list[k]];
        job->comp_sum[c] = sum;
    }
    if (t == 0)
        job->inside_ticks = (double)(hpcb_ticks() - t0);
    return HPCB_OK;
}

/* Fill the children lists of `job` (counting sort by parent). */
static void list_children(const struct hpcb_ip_tree *tr, struct ip_job *job)
{
    for (size_t k = 0; k < tr->nthreads; k++)
        job->first_leaf[tr->leaf_parent[k] + 1]++;
    for (size_t k = 0; k < tr->ncomp; k++)
        if (tr->parent[k] >= 0)
            job->first_comp[tr->parent[k] + 1]++;
    for (size_t c = 0; c < tr->ncomp; c++) {
        job->first_leaf[c + 1] += job->first_leaf[c];
        job->first_comp[c + 1] += job->first_comp[c];
    }
    for (size_t k = 0, c; k < tr->nthreads; k++) {
        c = (size_t)tr->leaf_parent[k];
        job->leaf_list[job->first_leaf[c]++] = k;
    }
    for (size_t k = 0; k < tr->ncomp; k++)
        if (tr->parent[k] >= 0)
            job->comp_list[job->first_comp[tr->parent[k]]++] = k;
    /* The fills advanced each start to the next component's: shift back. */
    for (size_t c = tr->ncomp; c > 0; c--) {
        job->first_leaf[c] = job->first_leaf[c - 1];
        job->first_comp[c] = job->first_comp[c - 1];
    }
    job->first_leaf[0] = job->first_comp[0] = 0;
}

int hpcb_inner_product(const struct hpcb_ip_tree *tr, const double *x, size_t n, size_t reps,
                       double *total_ticks, double *inside_ticks, double *result)
{
    if (tr == NULL || x == NULL || total_ticks == NULL || inside_ticks == NULL || result == NULL || reps == 0 ||
        tr->nthreads < 1 || tr->ncomp < 1)
        return HPCB_EINVAL;
    for (size_t t = 0; t < tr->nthreads; t++)
        if (tr->begin[t] > tr->end[t] || tr->end[t] > n || tr->leaf_parent[t] < 0 ||
            (size_t)tr->leaf_parent[t] >= tr->ncomp)
            return HPCB_EINVAL;
    for (size_t c = 0; c < tr->ncomp; c++)
        if (tr->parent[c] >= (long)tr->ncomp || tr->parent[c] == (long)c || tr->master[c] < 0 ||
            (size_t)tr->master[c] >= tr->nthreads || tr->nleaves[c] < 1)
            return HPCB_EINVAL;
    if (tr->parent[tr->ncomp - 1] != -1 || tr->master[tr->ncomp - 1] != 0)
        return HPCB_EINVAL;   /* the root is last, and thread 0 is its master */

    struct ip_job job = {.tree = tr, .x = x};
    job.leaf_sum = calloc(tr->nthreads, sizeof *job.leaf_sum);
    job.comp_sum = calloc(tr->ncomp, sizeof *job.comp_sum);
    job.comp_phase = calloc(tr->ncomp, sizeof *job.comp_phase);
    job.first_leaf = calloc(tr->ncomp + 1, sizeof *job.first_leaf);
    job.first_comp = calloc(tr->ncomp + 1, sizeof *job.first_comp);
    job.leaf_list = calloc(tr->nthreads, sizeof *job.leaf_list);
    job.comp_list = calloc(tr->ncomp, sizeof *job.comp_list);
    int rc = HPCB_OK;
    if (job.leaf_sum == NULL || job.comp_sum == NULL || job.comp_phase == NULL || job.first_leaf == NULL ||
        job.first_comp == NULL || job.leaf_list == NULL || job.comp_list == NULL)
        rc = HPCB_ENOMEM;
    if (rc == HPCB_OK)
        list_children(tr, &job);
    for (size_t r = 0; rc == HPCB_OK && r < reps; r++) {
        for (size_t c = 0; c < tr->ncomp; c++)
            hpcb_phase_init(&job.comp_phase[c], (size_t)tr->nleaves[c]);
        hpcb_phase_init(&job.start, tr->nthreads);
        uint64_t t0 = hpcb_ticks();
        rc = hpcb_team_run(tr->pus, tr->nthreads, ip_member, &job, NULL);
        total_ticks[r] = (double)(hpcb_ticks() - t0);
        inside_ticks[r] = job.inside_ticks;
    }
    if (rc == HPCB_OK)
        *result = job.comp_sum[tr->ncomp - 1];
    free(job.leaf_sum);
    free(job.comp_sum);
    free(job.comp_phase);
    free(job.first_leaf);
    free(job.first_comp);
    free(job.leaf_list);
    free(job.comp_list);
    return rc;
}
