/* micro.c - the micro-benchmarks' check and dispatch; see micro.h. The
 * loops are in micro_p2p.c, micro_coll.c and micro_rma.c. */
#include "micro.h"

#include "comm.h"

static const char *const test_names[] = {HPCB_MICRO_TESTS(HPCB_ENUM_NAME)};
static const char *const mode_names[] = {HPCB_MICRO_MODES(HPCB_ENUM_NAME)};
static const char *const sync_names[] = {HPCB_MICRO_SYNCS(HPCB_ENUM_NAME)};

static int is_collective(int test)
{
    return test >= HPCB_MICRO_FIRST_COLLECTIVE && test < HPCB_MICRO_FIRST_RMA;
}

static int is_rma(int test)
{
    return test >= HPCB_MICRO_FIRST_RMA;
}

/* The tests whose operation is a window of messages. */
static int is_windowed(int test)
{
    return test == HPCB_MICRO_BW || test == HPCB_MICRO_BIBW || test == HPCB_MICRO_MBW_MR ||
           test == HPCB_MICRO_PUT_BW || test == HPCB_MICRO_GET_BW;
}

/* The tests that sum floats: their sizes are whole elements. */
static int is_reduction(int test)
{
    return test == HPCB_MICRO_ALLREDUCE || test == HPCB_MICRO_REDUCE || test == HPCB_MICRO_REDUCE_SCATTER ||
           test == HPCB_MICRO_ACC_LATENCY;
}

/* The collectives whose buffers hold one block per rank. */
static int is_per_rank_block(int test)
{
    return test == HPCB_MICRO_ALLGATHER || test == HPCB_MICRO_ALLGATHERV || test == HPCB_MICRO_ALLTOALL ||
           test == HPCB_MICRO_ALLTOALLV || test == HPCB_MICRO_GATHER || test == HPCB_MICRO_GATHERV ||
           test == HPCB_MICRO_SCATTER || test == HPCB_MICRO_SCATTERV;
}

int hpcb_micro_check_sizes(const struct hpcb_micro_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_choice(why, "test", p->test, test_names, HPCB_MICRO_TEST_COUNT)) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "mode", p->mode, mode_names, HPCB_MICRO_MODE_COUNT)) != HPCB_OK ||
        (rc = hpcb_comm_check_bytes("bytes", p->bytes, why)) != HPCB_OK ||
        (rc = hpcb_comm_check_iterations("iterations", p->iterations, why)) != HPCB_OK ||
        (rc = hpcb_why_range(why, "inner", p->inner, 1, HPCB_MICRO_MAX_INNER, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, HPCB_MAX_SAMPLES, "")) != HPCB_OK)
        return rc;
    if (p->mode != HPCB_MODE_BLOCKING && !is_collective(p->test))
        return hpcb_why_set(why, "mode", "must be MODE_BLOCKING for %s (only collectives run non-blocking), got %s",
                            test_names[p->test], mode_names[p->mode]);
    if (p->compute_ticks > HPCB_MICRO_MAX_COMPUTE)
        return hpcb_why_set(why, "compute_ticks", "must be at most 2^40, got %llu",
                            (unsigned long long)p->compute_ticks);
    if (is_rma(p->test) && (rc = hpcb_why_choice(why, "sync", p->sync, sync_names, HPCB_MICRO_SYNC_COUNT)) != HPCB_OK)
        return rc;
    if (is_windowed(p->test)) {
        if ((rc = hpcb_why_range(why, "window", p->window, 1, HPCB_MICRO_MAX_WINDOW, "")) != HPCB_OK)
            return rc;
    } else if (p->window != 1) {
        return hpcb_why_set(why, "window", "must be 1 for %s (no window of messages), got %zu", test_names[p->test],
                            p->window);
    }
    if (p->test == HPCB_MICRO_MBW_MR || p->test == HPCB_MICRO_MULTI_LAT) {
        if (p->pairs < 1)
            return hpcb_why_set(why, "pairs", "must be at least 1, got %d", p->pairs);
    } else if (p->pairs != 1) {
        return hpcb_why_set(why, "pairs", "must be 1 for %s (one pair, ranks 0 and 1), got %d", test_names[p->test],
                            p->pairs);
    }
    if (is_reduction(p->test) && p->bytes % sizeof(float) != 0)
        return hpcb_why_set(why, "bytes", "must be a multiple of %zu (whole floats) for %s, got %zu", sizeof(float),
                            test_names[p->test], p->bytes);
    if (p->test == HPCB_MICRO_GET_BW && p->window > 1 && p->bytes * p->window > INT32_MAX)
        return hpcb_why_set(why, "window", "times bytes must be at most INT32_MAX, got %zu x %zu", p->window,
                            p->bytes);
    return HPCB_OK;
}

int hpcb_micro_check(const struct hpcb_micro_params *p, struct hpcb_why *why)
{
    int rank, size, rc;
    if ((rc = hpcb_micro_check_sizes(p, why)) != HPCB_OK || (rc = hpcb_comm_shape(p->comm, &rank, &size, why)) != HPCB_OK)
        return rc;
    if (size < 2)
        return hpcb_why_set(why, "comm", "must have at least 2 ranks for %s, got %d", test_names[p->test], size);
    if (p->pairs > size / 2)
        return hpcb_why_set(why, "pairs", "must be at most half the ranks of comm (%d), got %d", size / 2, p->pairs);
    if (is_per_rank_block(p->test) && p->bytes * (size_t)size > INT32_MAX)
        return hpcb_why_set(why, "bytes", "times the %d ranks must be at most INT32_MAX (an MPI displacement), "
                                          "got %zu", size, p->bytes);
    return HPCB_OK;
}

int hpcb_micro_agree(MPI_Comm comm, int local_rc)
{
    int worst = HPCB_OK;   /* the status codes are negative: the minimum is a failure if any */
    if (MPI_Allreduce(&local_rc, &worst, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return local_rc != HPCB_OK ? local_rc : HPCB_EMPI;
    return local_rc != HPCB_OK ? local_rc : worst;
}

int hpcb_micro_run(const struct hpcb_micro_params *p, struct hpcb_micro_out *out)
{
    int rank, size;
    int rc = hpcb_contract_start(hpcb_micro_check(p, NULL),
                                 out != NULL && out->ticks != NULL &&
                                     (p->mode != HPCB_MODE_OVERLAP || out->cpu_ticks != NULL));
    if (rc != HPCB_OK || (rc = hpcb_comm_shape(p->comm, &rank, &size, NULL)) != HPCB_OK)
        return rc;
    if (is_collective(p->test))
        return hpcb_micro_collective(p, out, rank, size);
    if (is_rma(p->test))
        return hpcb_micro_rma(p, out, rank, size);
    return hpcb_micro_p2p(p, out, rank, size);
}
