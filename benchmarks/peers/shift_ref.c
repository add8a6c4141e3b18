/* shift_ref.c - the plain C MPI program bench_network.py compares hpcbench's
 * distance benchmark with: one rank per node (the job gives one), for every
 * distance d = 1 .. N/2 all ranks send SIZE bytes to (p + d) mod N and
 * receive from (p - d) mod N at once, after a barrier; per iteration the
 * mean over ranks of SIZE / time; prints "d median_bandwidth" per distance.
 * Usage: mpiexec -n N shift_ref SIZE ITERATIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (argc != 3) {
        MPI_Finalize();
        return 2;
    }
    long size = atol(argv[1]), iterations = atol(argv[2]), warmup = 5;
    char *sbuf = malloc((size_t)size), *rbuf = malloc((size_t)size);
    memset(sbuf, rank, (size_t)size);
    double *bw = malloc((size_t)iterations * sizeof *bw), *mean = malloc((size_t)iterations * sizeof *mean);
    for (int d = 1; d <= n / 2; d++) {
        int dest = (rank + d) % n, source = (rank - d + n) % n;
        for (long i = 0; i < warmup + iterations; i++) {
            MPI_Request req[2];
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Irecv(rbuf, (int)size, MPI_BYTE, source, 1, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(sbuf, (int)size, MPI_BYTE, dest, 1, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
            if (i >= warmup)
                bw[i - warmup] = (double)size / (MPI_Wtime() - t0);
        }
        MPI_Reduce(bw, mean, (int)iterations, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            for (long i = 0; i < iterations; i++)
                mean[i] /= n;
            qsort(mean, (size_t)iterations, sizeof *mean, compare);
            printf("%d %.6e\n", d, mean[iterations / 2]);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbuf);
    free(bw);
    free(mean);
    MPI_Finalize();
    return 0;
}
