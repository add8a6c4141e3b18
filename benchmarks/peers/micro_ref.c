/* micro_ref.c - the plain C MPI loops that bench_micro.py compares the
 * OSU/IMB families of hpcbench (p2p, collectives, nbc, rma) with: one test
 * in OSU's pattern, one figure per size, nothing but the MPI calls between
 * the timer reads.
 *
 * Usage: mpiexec -n P micro_ref TEST SIZE[,SIZE...] [--iterations N[,N...]]
 *            [--warmup N[,N...]] [--window W] [--sync fence|lock] [--malloc | --no-thp] [--steps K]
 * TEST: latency bw bibw | allreduce bcast alltoall allgather reduce gather
 * scatter reduce_scatter | iallreduce | put_latency get_latency put_bw.
 * --iterations and --warmup take one count for every size or one per size
 * (default: OSU's counts); --window W (bw, bibw, put_bw; default 64);
 * --sync (one-sided; default lock).
 * Prints on rank 0 one line per size: "SIZE VALUE" (VALUE in us for the
 * latency-type tests, MB/s = 1e6 bytes/s for the bandwidth ones); the
 * collectives and iallreduce print "SIZE AVG MAX MEDIAN": OSU's average
 * (each rank's mean time per call, averaged over the ranks), the slowest
 * rank's mean (IMB's t_max) and the median over the calls of the slowest
 * rank's time (hpcbench's median, and its nbc t_pure).
 *
 * Timers as OSU's: MPI_Wtime around the whole loop for point-to-point and
 * one-sided tests (rank 0's loop: the ping-pong's initiator, the bandwidth
 * sender, the RMA origin), around each call after an untimed MPI_Barrier
 * for the collectives. Latency: a ping-pong where each side answers from
 * its own unchanged send buffer (one-way = loop / 2N). bw: windows of W
 * MPI_Isend into one receive buffer and a 4-byte acknowledgement; bibw:
 * both ranks post W Irecv and W Isend. iallreduce: MPI_Iallreduce and
 * MPI_Wait at once (IMB-NBC's t_pure). One-sided: a window of
 * MPI_Win_allocate'd memory on rank 1 (OSU's default); lock: MPI_Win_lock
 * (shared), the operation(s), MPI_Win_unlock; fence: the operation(s) and
 * MPI_Win_fence on both ranks; put_bw: W puts per synchronisation.
 * Point-to-point and one-sided tests run on ranks 0 and 1 (a communicator
 * of their own, the window too); other ranks wait in a barrier polled with
 * 1 ms sleeps, so that on a machine with fewer cores than ranks they do
 * not take a core from the loop (hpcbench's bystanders sleep too).
 *
 * Buffers as hpcbench's: page-aligned (posix_memalign 4096), from 2 MiB on
 * 2 MiB-aligned and madvise(MADV_HUGEPAGE); --malloc: plain malloc, to
 * show what the buffers cost; --no-thp: page-aligned, madvise(MADV_NOHUGEPAGE)
 * (alignment without huge pages). --steps K: before any test, rank 1 sends
 * rank 0 K one-byte messages (default 0): the one-directional traffic a
 * program may have had before its loop, which moves Open MPI's per-pair
 * shared-memory rings out of step (docs/comm.md: with K odd, the 8 B
 * allreduce of 2 ranks is slower, as hpcbench's is after a run's set-up).
 * Every buffer is written before the loop, and
 * what arrived is checked after it (exit 1 if wrong). Reductions sum
 * floats. Bad input: one line from rank 0, exit status 2 on every rank. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_BYTES ((size_t)2 << 20)
#define PAGE_BYTES ((size_t)4096)
#define MAX_SIZES 64
#define MAX_COUNT 100000000L   /* iterations or warm-up per size: the collectives keep every call's time */
#define ACK_BYTES 4
#define TAG 7
#define USAGE "usage: micro_ref TEST SIZE[,SIZE...] [--iterations N[,N...]] [--warmup N[,N...]] [--window W] " \
              "[--sync fence|lock] [--malloc | --no-thp] [--steps K]"

enum family { P2P, COLLECTIVE, RMA };
enum test_id {
    LATENCY, BW, BIBW, ALLREDUCE, BCAST, ALLTOALL, ALLGATHER, REDUCE, GATHER, SCATTER, REDUCE_SCATTER,
    IALLREDUCE, PUT_LATENCY, GET_LATENCY, PUT_BW, TEST_COUNT
};
static const char *const test_names[TEST_COUNT] = {
    "latency", "bw", "bibw", "allreduce", "bcast", "alltoall", "allgather", "reduce", "gather", "scatter",
    "reduce_scatter", "iallreduce", "put_latency", "get_latency", "put_bw"};

struct config {
    int test, window, lock, steps;
    int plain_malloc, no_thp;   /* the buffers: malloc, or page-aligned without huge pages */
    int nsizes;
    long sizes[MAX_SIZES], iterations[MAX_SIZES], warmup[MAX_SIZES];
    int rank, nprocs;
    MPI_Comm pair;   /* ranks 0 and 1; MPI_COMM_NULL on the others */
};

/* Every MPI call of the program goes through this: a failure is fatal. */
#define CHECK(call)                                                                  \
    do {                                                                             \
        if ((call) != MPI_SUCCESS) {                                                 \
            fprintf(stderr, "micro_ref: %s failed (line %d)\n", #call, __LINE__);    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                            \
        }                                                                            \
    } while (0)

static enum family family_of(int test)
{
    if (test <= BIBW)
        return P2P;
    return test >= PUT_LATENCY ? RMA : COLLECTIVE;
}

static int is_reduction(int test)
{
    return test == ALLREDUCE || test == REDUCE || test == REDUCE_SCATTER || test == IALLREDUCE;
}

static int is_bandwidth(int test)
{
    return test == BW || test == BIBW || test == PUT_BW;
}

/* ---- the command line ---- */

static int bad(const struct config *c, const char *what, const char *arg)
{
    if (c->rank == 0)
        fprintf(stderr, "micro_ref: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
    return 2;
}

/* "8,4096,65536" -> out[]; every entry a whole number from lo to hi. The count, or -1. */
static int parse_list(const char *text, long *out, long lo, long hi)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < lo || v > hi || n == MAX_SIZES || (*end != ',' && *end != '\0'))
            return -1;
        out[n++] = v;
        p = *end == ',' ? end + 1 : end;
        if (*end == ',' && *p == '\0')
            return -1;
    }
    return n;
}

/* One count for every size, or one per size. 0 if fine. */
static int spread_counts(const char *text, long *out, int nsizes, long lo)
{
    long given[MAX_SIZES];
    int n = parse_list(text, given, lo, MAX_COUNT);
    if (n != 1 && n != nsizes)
        return -1;
    for (int i = 0; i < nsizes; i++)
        out[i] = given[n == 1 ? 0 : i];
    return 0;
}

/* OSU's defaults: 10000 iterations up to 8 KiB, 1000 beyond (bandwidth and
 * one-sided: a tenth of those); a tenth of them as warm-up. */
static void default_counts(struct config *c)
{
    for (int i = 0; i < c->nsizes; i++) {
        long n = c->sizes[i] <= 8192 ? 10000 : 1000;
        c->iterations[i] = is_bandwidth(c->test) || family_of(c->test) == RMA ? n / 10 : n;
        c->warmup[i] = c->iterations[i] / 10;
    }
}

static int parse_options(struct config *c, int argc, char **argv)
{
    const char *iterations = NULL, *warmup = NULL;
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--malloc") == 0 || strcmp(a, "--no-thp") == 0) {
            *(strcmp(a, "--malloc") == 0 ? &c->plain_malloc : &c->no_thp) = 1;
            continue;
        }
        if (v == NULL)
            return bad(c, "missing value of", a);
        if (strcmp(a, "--iterations") == 0)
            iterations = v;
        else if (strcmp(a, "--warmup") == 0)
            warmup = v;
        else if (strcmp(a, "--window") == 0) {
            char *end;
            c->window = (int)strtol(v, &end, 10);
            if (*end || c->window < 1 || c->window > 65536)
                return bad(c, "--window must be a whole number from 1 to 65536, got", v);
        } else if (strcmp(a, "--steps") == 0) {
            char *end;
            c->steps = (int)strtol(v, &end, 10);
            if (*end || c->steps < 0 || c->steps > 64)
                return bad(c, "--steps must be a whole number from 0 to 64, got", v);
        } else if (strcmp(a, "--sync") == 0) {
            if (strcmp(v, "fence") && strcmp(v, "lock"))
                return bad(c, "--sync must be fence or lock, got", v);
            c->lock = strcmp(v, "lock") == 0;
        } else
            return bad(c, "unknown option", a);
        i++;
    }
    default_counts(c);
    if (c->plain_malloc && c->no_thp)
        return bad(c, "--malloc and --no-thp are two kinds of buffers: give one", NULL);
    if (iterations && spread_counts(iterations, c->iterations, c->nsizes, 1))
        return bad(c, "--iterations takes one whole number from 1 to 10^8, or one per size, got", iterations);
    if (warmup && spread_counts(warmup, c->warmup, c->nsizes, 0))
        return bad(c, "--warmup takes one whole number from 0 to 10^8, or one per size, got", warmup);
    return 0;
}

static int parse_args(struct config *c, int argc, char **argv)
{
    if (argc < 3)
        return bad(c, USAGE, NULL);
    c->test = -1;
    for (int t = 0; t < TEST_COUNT; t++)
        if (strcmp(argv[1], test_names[t]) == 0)
            c->test = t;
    if (c->test < 0)
        return bad(c, "unknown test", argv[1]);
    /* the block collectives' buffers hold a block per rank: an int count of bytes */
    c->nsizes = parse_list(argv[2], c->sizes, 0, INT32_MAX / (c->nprocs > 1 ? c->nprocs : 1));
    if (c->nsizes < 1)
        return bad(c, "sizes are whole numbers of bytes, at most 2^31 / ranks, separated by commas, got", argv[2]);
    for (int i = 0; i < c->nsizes; i++)
        if (is_reduction(c->test) && c->sizes[i] % 4)
            return bad(c, "the sizes of a reduction are whole floats (multiples of 4 bytes), got", argv[2]);
    c->window = is_bandwidth(c->test) ? 64 : 1;
    c->lock = 1;
    int rc = parse_options(c, argc, argv);
    if (rc == 0 && !is_bandwidth(c->test) && c->window != 1)
        return bad(c, "--window is for bw, bibw and put_bw only", NULL);
    if (rc == 0 && c->nprocs < 2)
        return bad(c, "every test needs at least 2 ranks", NULL);
    return rc;
}

/* ---- buffers ---- */

/* The buffers' kind, for buffer(): 0 hpcbench's, or --malloc / --no-thp. */
static int buffer_kind;
enum { PAGES_HPCBENCH, PAGES_MALLOC, PAGES_NO_THP };

/* Page-aligned, huge pages from 2 MiB on (hpcbench's policy), or malloc,
 * or page-aligned on small pages; written once, so that the loop never
 * takes a first-touch fault. */
static void *buffer(size_t bytes, int fill)
{
    size_t usable = bytes ? bytes : 1;
    void *p = NULL;
    if (buffer_kind == PAGES_MALLOC) {
        p = malloc(usable);
    } else if (buffer_kind == PAGES_NO_THP) {
        usable = (usable + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
        if (posix_memalign(&p, PAGE_BYTES, usable) == 0)
            madvise(p, usable, MADV_NOHUGEPAGE);
        else
            p = NULL;
    } else if (usable >= HUGE_BYTES) {
        usable = (usable + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
        if (posix_memalign(&p, HUGE_BYTES, usable) == 0)
            madvise(p, usable, MADV_HUGEPAGE);   /* advice only: without THP the pages stay small */
        else
            p = NULL;
    } else if (posix_memalign(&p, PAGE_BYTES, usable) != 0) {
        p = NULL;
    }
    if (p == NULL) {
        fprintf(stderr, "micro_ref: out of memory (%zu bytes)\n", usable);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, fill, usable);
    return p;
}

/* Every byte of buf is `value`, or the program stops: the loop moved nothing. */
static void expect_bytes(const unsigned char *buf, size_t n, int value, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (unsigned char)value) {
            fprintf(stderr, "micro_ref: wrong payload after %s\n", what);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static void expect_floats(const float *got, size_t n, float value, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != value) {
            fprintf(stderr, "micro_ref: wrong sum after %s\n", what);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

/* A barrier of every rank polled with 1 ms sleeps: the ranks that wait do
 * not spin on a core the others' loop needs. */
static void quiet_barrier(void)
{
    MPI_Request req;
    int done = 0;
    struct timespec nap = {0, 1000000};
    CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    for (;;) {
        CHECK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        if (done)
            return;
        nanosleep(&nap, NULL);
    }
}

/* ---- point-to-point: rank 0 times its loop, ranks 0 and 1 take part ---- */

struct p2p {
    unsigned char *send, *recv, ack[ACK_BYTES];
    int count, window, peer;
    MPI_Comm comm;
    MPI_Request *req;
};

static void pingpong(const struct p2p *s, int rank, long n)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            CHECK(MPI_Send(s->send, s->count, MPI_BYTE, s->peer, TAG, s->comm));
            CHECK(MPI_Recv(s->recv, s->count, MPI_BYTE, s->peer, TAG, s->comm, MPI_STATUS_IGNORE));
        } else {
            CHECK(MPI_Recv(s->recv, s->count, MPI_BYTE, s->peer, TAG, s->comm, MPI_STATUS_IGNORE));
            CHECK(MPI_Send(s->send, s->count, MPI_BYTE, s->peer, TAG, s->comm));
        }
    }
}

static void windows(struct p2p *s, int rank, long n)
{
    for (long i = 0; i < n; i++) {
        for (int w = 0; w < s->window; w++) {
            if (rank == 0)
                CHECK(MPI_Isend(s->send, s->count, MPI_BYTE, s->peer, TAG, s->comm, &s->req[w]));
            else
                CHECK(MPI_Irecv(s->recv, s->count, MPI_BYTE, s->peer, TAG, s->comm, &s->req[w]));
        }
        CHECK(MPI_Waitall(s->window, s->req, MPI_STATUSES_IGNORE));
        if (rank == 0)
            CHECK(MPI_Recv(s->ack, ACK_BYTES, MPI_BYTE, s->peer, TAG + 1, s->comm, MPI_STATUS_IGNORE));
        else
            CHECK(MPI_Send(s->ack, ACK_BYTES, MPI_BYTE, s->peer, TAG + 1, s->comm));
    }
}

static void bidirectional(struct p2p *s, long n)
{
    for (long i = 0; i < n; i++) {
        for (int w = 0; w < s->window; w++)
            CHECK(MPI_Irecv(s->recv, s->count, MPI_BYTE, s->peer, TAG, s->comm, &s->req[w]));
        for (int w = 0; w < s->window; w++)
            CHECK(MPI_Isend(s->send, s->count, MPI_BYTE, s->peer, TAG, s->comm, &s->req[s->window + w]));
        CHECK(MPI_Waitall(2 * s->window, s->req, MPI_STATUSES_IGNORE));
    }
}

static void p2p_loop(struct p2p *s, int test, int rank, long n)
{
    if (test == LATENCY)
        pingpong(s, rank, n);
    else if (test == BW)
        windows(s, rank, n);
    else
        bidirectional(s, n);
}

/* One size: warm-up, barrier, the timed loop; rank 0's figure (0 elsewhere). */
static double p2p_size(const struct config *c, int k)
{
    double figure = 0.0;
    size_t bytes = (size_t)c->sizes[k];
    if (c->rank < 2) {
        struct p2p s = {.count = (int)bytes, .window = c->window, .peer = 1 - c->rank, .comm = c->pair};
        s.send = buffer(bytes, c->rank + 1);
        s.recv = buffer(bytes, 0);
        s.req = malloc(2 * (size_t)c->window * sizeof *s.req);
        if (s.req == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
        p2p_loop(&s, c->test, c->rank, c->warmup[k]);
        CHECK(MPI_Barrier(c->pair));
        double t0 = MPI_Wtime();
        p2p_loop(&s, c->test, c->rank, c->iterations[k]);
        double t = MPI_Wtime() - t0, n = (double)c->iterations[k];
        if (c->test == LATENCY)
            figure = t / (2.0 * n) * 1e6;
        else
            figure = (double)bytes * c->window * n * (c->test == BIBW ? 2.0 : 1.0) / t / 1e6;
        if (c->test != BW || c->rank == 1)   /* bw: the sender receives nothing but the acks */
            expect_bytes(s.recv, bytes, 2 - c->rank, test_names[c->test]);
        free(s.send);
        free(s.recv);
        free(s.req);
    }
    quiet_barrier();
    return figure;
}

/* ---- collectives: every rank times each call after a barrier ---- */

struct coll {
    void *send, *recv;
    int count;   /* bytes per block, or floats of a reduction's vector */
    int *counts;
};

static void coll_call(const struct coll *a, int test)
{
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Request req;
    switch (test) {
    case ALLREDUCE: CHECK(MPI_Allreduce(a->send, a->recv, a->count, MPI_FLOAT, MPI_SUM, w)); break;
    case BCAST: CHECK(MPI_Bcast(a->recv, a->count, MPI_BYTE, 0, w)); break;
    case ALLTOALL: CHECK(MPI_Alltoall(a->send, a->count, MPI_BYTE, a->recv, a->count, MPI_BYTE, w)); break;
    case ALLGATHER: CHECK(MPI_Allgather(a->send, a->count, MPI_BYTE, a->recv, a->count, MPI_BYTE, w)); break;
    case REDUCE: CHECK(MPI_Reduce(a->send, a->recv, a->count, MPI_FLOAT, MPI_SUM, 0, w)); break;
    case GATHER: CHECK(MPI_Gather(a->send, a->count, MPI_BYTE, a->recv, a->count, MPI_BYTE, 0, w)); break;
    case SCATTER: CHECK(MPI_Scatter(a->send, a->count, MPI_BYTE, a->recv, a->count, MPI_BYTE, 0, w)); break;
    case REDUCE_SCATTER: CHECK(MPI_Reduce_scatter(a->send, a->recv, a->counts, MPI_FLOAT, MPI_SUM, w)); break;
    default:   /* IALLREDUCE: IMB-NBC's t_pure, the call and its wait at once */
        CHECK(MPI_Iallreduce(a->send, a->recv, a->count, MPI_FLOAT, MPI_SUM, w, &req));
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
}

/* Send and receive bytes of this rank, OSU's layout: bcast, reduce and
 * allreduce move the whole vector; reduce_scatter the whole vector in,
 * a 1/P part out; the block collectives one block per rank and peer. */
static void coll_bytes(int test, size_t bytes, int rank, int p, size_t *send, size_t *recv)
{
    size_t all = bytes * (size_t)p;
    *send = *recv = bytes;
    if (test == ALLTOALL)
        *send = *recv = all;
    else if (test == ALLGATHER || (test == GATHER && rank == 0))
        *recv = all;
    else if (test == SCATTER && rank == 0)
        *send = all;
    else if (test == REDUCE_SCATTER)
        *recv = bytes / sizeof(float) / (size_t)p * sizeof(float);
}

/* The reductions' contributions are rank + 1; the byte collectives send
 * byte rank + 1 (scatter: block j from the root is byte j + 1). */
static void coll_fill(struct coll *a, int test, int rank, int p, size_t send_bytes)
{
    if (is_reduction(test)) {
        for (size_t i = 0; i < send_bytes / sizeof(float); i++)
            ((float *)a->send)[i] = (float)(rank + 1);
    } else if (test == SCATTER) {
        for (int j = 0; rank == 0 && j < p; j++)
            memset((unsigned char *)a->send + (size_t)j * (size_t)a->count, j + 1, (size_t)a->count);
    } else if (test == BCAST && rank == 0) {
        memset(a->recv, 1, (size_t)a->count);
    }
}

static void coll_verify(const struct coll *a, int test, int rank, int p, size_t recv_bytes)
{
    const char *name = test_names[test];
    if (is_reduction(test)) {
        if (test != REDUCE || rank == 0)
            expect_floats(a->recv, recv_bytes / sizeof(float), (float)p * (float)(p + 1) / 2.0f, name);
    } else if (test == BCAST || test == SCATTER) {
        expect_bytes(a->recv, (size_t)a->count, test == BCAST ? 1 : rank + 1, name);
    } else if (test != GATHER || rank == 0) {   /* block j came from rank j */
        for (int j = 0; j < p; j++)
            expect_bytes((unsigned char *)a->recv + (size_t)j * (size_t)a->count, (size_t)a->count, j + 1, name);
    }
}

/* Each call's time (s) into times[0..n): OSU's loop, a barrier before every call. */
static void coll_timed(const struct coll *a, int test, long warmup, long n, double *times)
{
    for (long i = 0; i < warmup + n; i++) {
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        coll_call(a, test);
        double t1 = MPI_Wtime();
        if (i >= warmup)
            times[i - warmup] = t1 - t0;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The statistics of the calls' times (s), in us on rank 0: stats[0] OSU's
 * average (each rank's mean, averaged over the ranks), stats[1] the
 * slowest rank's mean (IMB's t_max), stats[2] the median over the calls
 * of the slowest rank's time (hpcbench's median). */
static void coll_stats(double *times, long n, int nprocs, double stats[3])
{
    double mean = 0.0, total = 0.0, max = 0.0;
    for (long i = 0; i < n; i++)
        mean += times[i] / (double)n;
    CHECK(MPI_Reduce(&mean, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    CHECK(MPI_Reduce(&mean, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    /* in place on rank 0: times becomes each call's slowest rank */
    if (stats == NULL) {
        CHECK(MPI_Reduce(times, NULL, (int)n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
        return;
    }
    CHECK(MPI_Reduce(MPI_IN_PLACE, times, (int)n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    qsort(times, (size_t)n, sizeof(double), by_value);
    stats[0] = total / nprocs * 1e6;
    stats[1] = max * 1e6;
    stats[2] = (n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2.0) * 1e6;
}

/* One size: the three statistics of coll_stats, on rank 0. */
static void coll_size(const struct config *c, int k, double stats[3])
{
    size_t bytes = (size_t)c->sizes[k], send_bytes, recv_bytes;
    coll_bytes(c->test, bytes, c->rank, c->nprocs, &send_bytes, &recv_bytes);
    struct coll a = {.count = (int)(is_reduction(c->test) ? bytes / sizeof(float) : bytes)};
    /* receive buffers start as 0xee, no expected byte or float: every byte must change */
    a.send = buffer(send_bytes, is_reduction(c->test) || c->test == BCAST ? 0 : c->rank + 1);
    a.recv = buffer(recv_bytes, 0xee);
    a.counts = malloc((size_t)c->nprocs * sizeof(int));
    double *times = malloc((size_t)c->iterations[k] * sizeof(double));
    if (a.counts == NULL || times == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = 0; r < c->nprocs; r++)
        a.counts[r] = (int)(bytes / sizeof(float) / (size_t)c->nprocs);
    coll_fill(&a, c->test, c->rank, c->nprocs, send_bytes);
    coll_timed(&a, c->test, c->warmup[k], c->iterations[k], times);
    coll_verify(&a, c->test, c->rank, c->nprocs, recv_bytes);
    coll_stats(times, c->iterations[k], c->nprocs, c->rank == 0 ? stats : NULL);
    free(a.send);
    free(a.recv);
    free(a.counts);
    free(times);
}

/* ---- one-sided: rank 0 the origin, rank 1 the target, on c->pair ---- */

struct rma {
    MPI_Win win;
    unsigned char *local, *base;
    int count, window, lock, get;
};

static void rma_loop(const struct rma *r, int rank, long n)
{
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            if (r->lock)
                CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, r->win));
            for (int w = 0; w < r->window; w++) {
                if (r->get)
                    CHECK(MPI_Get(r->local, r->count, MPI_BYTE, 1, 0, r->count, MPI_BYTE, r->win));
                else
                    CHECK(MPI_Put(r->local, r->count, MPI_BYTE, 1, 0, r->count, MPI_BYTE, r->win));
            }
            if (r->lock)
                CHECK(MPI_Win_unlock(1, r->win));
        }
        if (!r->lock)
            CHECK(MPI_Win_fence(0, r->win));
    }
}

/* The target's window holds byte 2 (a get's payload) or byte 0 (a put's
 * destination), written inside a lock of itself so RMA sees it. */
static void rma_setup(struct rma *r, const struct config *c, size_t bytes)
{
    MPI_Aint exposed = c->rank == 1 ? (MPI_Aint)(bytes ? bytes : 1) : 0;
    CHECK(MPI_Win_allocate(exposed, 1, MPI_INFO_NULL, c->pair, &r->base, &r->win));
    if (c->rank == 1) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, r->win));
        memset(r->base, r->get ? 2 : 0, bytes);
        CHECK(MPI_Win_unlock(1, r->win));
    }
    r->local = c->rank == 0 ? buffer(bytes, r->get ? 0 : 1) : NULL;
    CHECK(MPI_Barrier(c->pair));
}

/* What arrived: the origin's gets hold byte 2, the target's window byte 1. */
static void rma_verify(const struct rma *r, const struct config *c, size_t bytes)
{
    if (c->rank == 0 && r->get)
        expect_bytes(r->local, bytes, 2, test_names[c->test]);
    if (c->rank == 1 && !r->get) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, r->win));
        expect_bytes(r->base, bytes, 1, test_names[c->test]);
        CHECK(MPI_Win_unlock(1, r->win));
    }
}

/* One size: the origin's figure (0 elsewhere). */
static double rma_size(const struct config *c, int k)
{
    size_t bytes = (size_t)c->sizes[k];
    double figure = 0.0;
    if (c->rank < 2) {
        struct rma r = {.count = (int)bytes, .window = c->window, .lock = c->lock, .get = c->test == GET_LATENCY};
        rma_setup(&r, c, bytes);
        if (!r.lock)
            CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, r.win));
        rma_loop(&r, c->rank, c->warmup[k]);
        CHECK(MPI_Barrier(c->pair));
        double t0 = MPI_Wtime();
        rma_loop(&r, c->rank, c->iterations[k]);
        double t = MPI_Wtime() - t0, n = (double)c->iterations[k];
        if (!r.lock)
            CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, r.win));
        CHECK(MPI_Barrier(c->pair));
        rma_verify(&r, c, bytes);
        free(r.local);
        CHECK(MPI_Win_free(&r.win));
        figure = c->test == PUT_BW ? (double)bytes * r.window * n / t / 1e6 : t / n * 1e6;
    }
    quiet_barrier();
    return figure;
}

int main(int argc, char **argv)
{
    struct config c = {0};
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &c.rank));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &c.nprocs));
    if (parse_args(&c, argc, argv) != 0) {
        MPI_Finalize();
        return 2;
    }
    buffer_kind = c.plain_malloc ? PAGES_MALLOC : c.no_thp ? PAGES_NO_THP : PAGES_HPCBENCH;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, c.rank < 2 ? 0 : MPI_UNDEFINED, c.rank, &c.pair));
    for (int k = 0; k < c.steps && c.rank < 2; k++) {   /* --steps: one-directional traffic before the tests */
        unsigned char byte = 0;
        if (c.rank == 1)
            CHECK(MPI_Send(&byte, 1, MPI_BYTE, 0, TAG, MPI_COMM_WORLD));
        else
            CHECK(MPI_Recv(&byte, 1, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    for (int k = 0; k < c.nsizes; k++) {
        double stats[3] = {0.0, 0.0, 0.0};
        enum family f = family_of(c.test);
        if (f == COLLECTIVE)
            coll_size(&c, k, stats);
        else
            stats[0] = f == P2P ? p2p_size(&c, k) : rma_size(&c, k);
        if (c.rank != 0)
            continue;
        if (f == COLLECTIVE)
            printf("%ld %.4f %.4f %.4f\n", c.sizes[k], stats[0], stats[1], stats[2]);
        else
            printf("%ld %.4f\n", c.sizes[k], stats[0]);
        fflush(stdout);
    }
    if (c.pair != MPI_COMM_NULL)
        CHECK(MPI_Comm_free(&c.pair));
    CHECK(MPI_Finalize());
    return 0;
}
