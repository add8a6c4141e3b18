/* node_ring.c - the communication-bound MPI job of bench_mapping.py: a
 * ring shift across nodes, in lanes. The job finds its nodes (ranks
 * sharing memory, nodes ordered by their lowest rank); every iteration,
 * all at once, every rank sends SIZE bytes to the rank of the same local
 * index on the next node (the index modulo that node's ranks) and receives
 * what the previous node's ranks send it: the pipeline of a 1-D
 * decomposition across nodes, each node's ranks working in parallel lanes
 * (and the pattern of Servet's network access benchmark). Every byte
 * crosses the network whatever the mapping; what a mapping changes is how
 * many lanes share a node's link.
 *
 * Waiting polls MPI_Testall and sleeps 50 us between polls, so ranks that
 * share a core (the emulated cluster's nodes all run on this machine's
 * cores) leave it to the others and to the kernel's network stack: the
 * network, not CPU time, sets the pace.
 *
 * Usage: mpiexec ... node_ring SIZE ITERATIONS
 * Prints on rank 0: "seconds nodes ranks" (slowest rank, after one warm-up
 * iteration). Exit 2 on bad arguments, 1 on an MPI error. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                              \
    do {                                                                         \
        int rc_ = (call);                                                        \
        if (rc_ != MPI_SUCCESS) {                                                \
            fprintf(stderr, "node_ring: %s failed (%d)\n", #call, rc_);         \
            MPI_Abort(MPI_COMM_WORLD, 1);                                        \
        }                                                                        \
    } while (0)

static int compare_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Wait for all requests without spinning on the CPU. */
static void wait_all(int count, MPI_Request *req)
{
    const struct timespec pause = {0, 50000};
    int done = 0;
    for (;;) {
        CHECK(MPI_Testall(count, req, &done, MPI_STATUSES_IGNORE));
        if (done)
            return;
        nanosleep(&pause, NULL);
    }
}

int main(int argc, char **argv)
{
    CHECK(MPI_Init(&argc, &argv));
    int rank, size;
    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    char *end1 = NULL, *end2 = NULL;
    long bytes = argc == 3 ? strtol(argv[1], &end1, 10) : 0;
    long iterations = argc == 3 ? strtol(argv[2], &end2, 10) : 0;
    if (argc != 3 || *end1 || *end2 || bytes < 1 || bytes > (1L << 30) || iterations < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: node_ring SIZE ITERATIONS (SIZE 1 byte to 1 GiB, ITERATIONS >= 1)\n");
        MPI_Finalize();
        return 2;
    }

    /* Nodes: ranks sharing memory; a node is named by its lowest rank. */
    MPI_Comm node;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
    int local, local_size;
    CHECK(MPI_Comm_rank(node, &local));
    CHECK(MPI_Comm_size(node, &local_size));
    int leader = rank;
    CHECK(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node));
    int *leaders = malloc((size_t)size * sizeof *leaders), *locals = malloc((size_t)size * sizeof *locals);
    int *sorted = malloc((size_t)size * sizeof *sorted);
    if (!leaders || !locals || !sorted)
        MPI_Abort(MPI_COMM_WORLD, 1);
    CHECK(MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD));
    CHECK(MPI_Allgather(&local, 1, MPI_INT, locals, 1, MPI_INT, MPI_COMM_WORLD));
    memcpy(sorted, leaders, (size_t)size * sizeof *sorted);
    qsort(sorted, (size_t)size, sizeof *sorted, compare_int);
    int nodes = 0, me = -1;
    for (int i = 0; i < size; i++)              /* distinct leaders, in order */
        if (i == 0 || sorted[i] != sorted[i - 1])
            sorted[nodes++] = sorted[i];
    for (int i = 0; i < nodes; i++)
        if (sorted[i] == leader)
            me = i;

    /* The rank of my local index on the next node (modulo its ranks). */
    int k = (me + 1) % nodes, count = 0, dest = -1;
    for (int r = 0; r < size; r++)
        count += leaders[r] == sorted[k];
    for (int r = 0; r < size; r++)
        if (leaders[r] == sorted[k] && locals[r] == local % count)
            dest = r;
    /* Who sends to me: every rank whose destination I am. */
    int *dests = malloc((size_t)size * sizeof *dests);
    if (!dests)
        MPI_Abort(MPI_COMM_WORLD, 1);
    CHECK(MPI_Allgather(&dest, 1, MPI_INT, dests, 1, MPI_INT, MPI_COMM_WORLD));
    int senders = 0;
    for (int r = 0; r < size; r++)
        senders += dests[r] == rank;

    char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes * (size_t)(senders ? senders : 1));
    MPI_Request *req = malloc((size_t)(senders + 1) * sizeof *req);
    if (!out || !in || !req)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(out, rank & 0xff, (size_t)bytes);
    double elapsed = 0.0;
    for (long it = 0; it <= iterations; it++) {          /* iteration 0 warms up */
        int n = 0;
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        double t0 = MPI_Wtime();
        for (int r = 0, slot = 0; r < size; r++)
            if (dests[r] == rank)
                CHECK(MPI_Irecv(in + (size_t)bytes * (size_t)slot++, (int)bytes, MPI_BYTE, r, 0, MPI_COMM_WORLD,
                                &req[n++]));
        CHECK(MPI_Isend(out, (int)bytes, MPI_BYTE, dest, 0, MPI_COMM_WORLD, &req[n++]));
        wait_all(n, req);
        if (it > 0)
            elapsed += MPI_Wtime() - t0;
    }
    double slowest = 0.0;
    CHECK(MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (rank == 0)
        printf("%.6f %d %d\n", slowest, nodes, size);
    free(out);
    free(in);
    free(req);
    free(leaders);
    free(locals);
    free(sorted);
    free(dests);
    CHECK(MPI_Comm_free(&node));
    CHECK(MPI_Finalize());
    return 0;
}
