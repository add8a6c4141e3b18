/* allreduce_ref.c - the plain C MPI_Allreduce loop that bench_comm.py compares
 * hpcbench's global sum with. Like osu_allreduce: an untimed MPI_Barrier
 * before every timed MPI_Allreduce(MPI_SUM) of COUNT doubles, each rank
 * timing its own calls. Buffers are page-aligned (posix_memalign to the page
 * size, as OSU allocates them) or, with "malloc", plain malloc'd.
 * Usage: mpiexec -n P allreduce_ref COUNT ITERATIONS [page|malloc]
 * Prints on rank 0: "COUNT median_of_slowest osu_average" (seconds): the
 * median over iterations of the slowest rank's time (hpcbench's statistic)
 * and OSU's figure, the mean over ranks of each rank's mean time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *buffer(size_t count, int page_aligned)
{
    size_t bytes = (count ? count : 1) * sizeof(double);
    void *p = NULL;
    if (page_aligned)
        return posix_memalign(&p, (size_t)sysconf(_SC_PAGESIZE), bytes) == 0 ? p : NULL;
    return malloc(bytes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "page") && strcmp(argv[3], "malloc"))) {
        if (rank == 0)
            fprintf(stderr, "usage: allreduce_ref COUNT ITERATIONS [page|malloc]\n");
        MPI_Finalize();
        return 2;
    }
    long count = atol(argv[1]), iterations = atol(argv[2]);
    int page_aligned = argc < 4 || strcmp(argv[3], "page") == 0;
    long warmup = iterations / 10 > 10 ? iterations / 10 : 10;
    double *in = buffer((size_t)count, page_aligned), *out = buffer((size_t)count, page_aligned);
    double *mine = malloc((size_t)iterations * sizeof(double));
    double *all = rank == 0 ? malloc((size_t)iterations * (size_t)size * sizeof(double)) : NULL;
    if (in == NULL || out == NULL || mine == NULL || (rank == 0 && all == NULL)) {
        fprintf(stderr, "allreduce_ref: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (long i = 0; i < count; i++) {
        in[i] = (double)(rank + 1);
        out[i] = 0.0;
    }
    for (long i = 0; i < warmup + iterations; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        if (i >= warmup)
            mine[i - warmup] = t1 - t0;
    }
    double expect = (double)size * (double)(size + 1) / 2.0;
    for (long i = 0; i < count; i++)
        if (out[i] != expect) {
            fprintf(stderr, "allreduce_ref: wrong sum on rank %d\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    MPI_Gather(mine, (int)iterations, MPI_DOUBLE, all, (int)iterations, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double osu = 0.0;
        for (long i = 0; i < iterations; i++) {
            double slowest = 0.0;
            for (int r = 0; r < size; r++) {
                double t = all[(size_t)r * (size_t)iterations + (size_t)i];
                osu += t;
                slowest = t > slowest ? t : slowest;
            }
            mine[i] = slowest;
        }
        qsort(mine, (size_t)iterations, sizeof(double), by_value);
        printf("%ld %.9e %.9e\n", count, mine[iterations / 2], osu / ((double)iterations * size));
    }
    free(in);
    free(out);
    free(mine);
    free(all);
    MPI_Finalize();
    return 0;
}
